// SPDX-License-Identifier: MIT
// `exactattn attend` in-process: the hand-worked two-head causal layer (docs/attention.md) as
// JSON and as tables.
#include <gtest/gtest.h>

#include <sstream>

#include "app.hpp"

namespace {

int run(std::vector<std::string> args, std::string& out, std::string& err) {
    std::ostringstream o;
    std::ostringstream e;
    const int code = exactattn::cli::run(args, o, e);
    out = o.str();
    err = e.str();
    return code;
}

// W_Q, W_K, W_V of both heads side by side, split by --heads 2.
const std::vector<std::string> kLayer = {
    "attend", "--x", "[[1,0,0,0],[1,1,0,0],[0,1,1,0]]",
    "--wq", "[[2,0,0,0,1,0,0,0],[0,2,0,0,0,1,0,0],[0,0,2,0,0,0,1,0],[0,0,0,2,0,0,0,1]]",
    "--wk", "[[a,0,0,0,0,a,0,0],[0,a,0,0,a,0,0,0],[0,0,a,0,0,0,0,a],[0,0,0,a,0,0,a,0]]",
    "--wv", "[[1,0,0,2],[0,1,1,0],[1,1,0,1],[0,0,0,0]]",
    "--heads", "2", "--causal", "--scale", "sqrt-dk"};

}  // namespace

TEST(CliAttend, JsonHasEveryHeadQuantity) {
    auto args = kLayer;
    args.insert(args.end(), {"--format", "json"});
    std::string out;
    std::string err;
    ASSERT_EQ(run(args, out, err), 0) << err;
    EXPECT_EQ(err, "");
    // By hand (docs/attention.md): head 1 scores (x_i·x_j)·a, masked above the diagonal.
    EXPECT_NE(out.find(R"j("scores":[["a",null,null],["a","2a",null],["0","a","2a"]])j"), std::string::npos) << out;
    EXPECT_NE(out.find(R"j("weights":[["1","0","0"],["1/3","2/3","0"],["1/7","2/7","4/7"]])j"), std::string::npos);
    EXPECT_NE(out.find(R"j("weights":[["1","0","0"],["2^(1/2) - 1","2 - 2^(1/2)","0"],)j"), std::string::npos);
    EXPECT_NE(out.find(R"j("outputs":[["1","0"],["1","2/3"],["1","10/7"]])j"), std::string::npos);
    EXPECT_NE(out.find(R"j("output":[["1","0","0","2"],)j"), std::string::npos);
}

TEST(CliAttend, TablesLabelRowsAndColumnsWithTokens) {
    auto args = kLayer;
    args.insert(args.end(), {"--tokens", "the cat sat", "--format", "markdown"});
    std::string out;
    std::string err;
    ASSERT_EQ(run(args, out, err), 0) << err;
    EXPECT_NE(out.find("Attention weights (head 2) (rows: queries, columns: keys)"), std::string::npos);
    EXPECT_NE(out.find("| sat | 1/7 | 2/7 | 4/7 |"), std::string::npos) << out;
}

TEST(CliAttend, HeadsGivenOneByOneEqualTheSplit) {
    std::vector<std::string> args = {
        "attend", "--x", "[[1,0,0,0],[1,1,0,0],[0,1,1,0]]",
        "--wq", "[[2,0,0,0],[0,2,0,0],[0,0,2,0],[0,0,0,2]]",
        "--wq", "[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]",
        "--wk", "[[a,0,0,0],[0,a,0,0],[0,0,a,0],[0,0,0,a]]",
        "--wk", "[[0,a,0,0],[a,0,0,0],[0,0,0,a],[0,0,a,0]]",
        "--wv", "[[1,0],[0,1],[1,1],[0,0]]", "--wv", "[[0,2],[1,0],[0,1],[0,0]]",
        "--heads", "2", "--causal", "--scale", "1/2", "--format", "json"};
    std::string split;
    std::string each;
    std::string err;
    auto base = kLayer;
    base.insert(base.end(), {"--format", "json"});
    ASSERT_EQ(run(base, split, err), 0) << err;
    ASSERT_EQ(run(args, each, err), 0) << err;
    EXPECT_EQ(split, each);  // sqrt-dk with d_k = 4 is the declared scale 1/2
}
