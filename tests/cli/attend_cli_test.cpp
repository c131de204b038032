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
const std::vector<std::string> kLayer = {"attend",
                                         "--x",
                                         "[[1,0,0,0],[1,1,0,0],[0,1,1,0]]",
                                         "--wq",
                                         "[[2,0,0,0,1,0,0,0],[0,2,0,0,0,1,0,0],[0,0,2,0,0,0,1,0],[0,0,0,2,0,0,0,1]]",
                                         "--wk",
                                         "[[a,0,0,0,0,a,0,0],[0,a,0,0,a,0,0,0],[0,0,a,0,0,0,0,a],[0,0,0,a,0,0,a,0]]",
                                         "--wv",
                                         "[[1,0,0,2],[0,1,1,0],[1,1,0,1],[0,0,0,0]]",
                                         "--heads",
                                         "2",
                                         "--causal",
                                         "--scale",
                                         "sqrt-dk"};

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
    EXPECT_NE(out.find("| sat | $\\tfrac{1}{7}$ | $\\tfrac{2}{7}$ | $\\tfrac{4}{7}$ |"), std::string::npos) << out;
}

TEST(CliAttend, HeadsGivenOneByOneEqualTheSplit) {
    std::vector<std::string> args = {"attend",
                                     "--x",
                                     "[[1,0,0,0],[1,1,0,0],[0,1,1,0]]",
                                     "--wq",
                                     "[[2,0,0,0],[0,2,0,0],[0,0,2,0],[0,0,0,2]]",
                                     "--wq",
                                     "[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]",
                                     "--wk",
                                     "[[a,0,0,0],[0,a,0,0],[0,0,a,0],[0,0,0,a]]",
                                     "--wk",
                                     "[[0,a,0,0],[a,0,0,0],[0,0,0,a],[0,0,a,0]]",
                                     "--wv",
                                     "[[1,0],[0,1],[1,1],[0,0]]",
                                     "--wv",
                                     "[[0,2],[1,0],[0,1],[0,0]]",
                                     "--heads",
                                     "2",
                                     "--causal",
                                     "--scale",
                                     "1/2",
                                     "--format",
                                     "json"};
    std::string split;
    std::string each;
    std::string err;
    auto base = kLayer;
    base.insert(base.end(), {"--format", "json"});
    ASSERT_EQ(run(base, split, err), 0) << err;
    ASSERT_EQ(run(args, each, err), 0) << err;
    EXPECT_EQ(split, each);  // sqrt-dk with d_k = 4 is the declared scale 1/2
}

TEST(CliAttend, EveryFormatTheOtherCommandsTake) {
    for (const char* f : {"text", "markdown", "latex", "html", "csv", "json"}) {
        auto args = kLayer;
        args.insert(args.end(), {"--tokens", "the cat sat", "--format", f});
        std::string out;
        std::string err;
        ASSERT_EQ(run(args, out, err), 0) << f << ": " << err;
        // Head 1, row "sat": 1/7, 2/7, 4/7 (by hand: exponentials 1, 2, 4 over 7) in every format.
        const std::string fs = f;
        const std::string four_sevenths = fs == "latex" || fs == "markdown" ? "\\tfrac{4}{7}"
                                          : fs == "html"
                                              ? "<mfrac><mrow><mn>4</mn></mrow><mrow><mn>7</mn></mrow></mfrac>"
                                              : "4/7";
        EXPECT_NE(out.find(four_sevenths), std::string::npos) << f << ":\n" << out;
        EXPECT_NE(out.find(std::string(f) == "json" ? "\"1/7\"" : "sat"), std::string::npos) << f;
    }
}

// `check` on a layer of data/examples/self-attention.json names the Chapter 15 mistakes. Head 1
// of the causal layer has scores (x_i·x_j)·a after the scale 1/√4 (the Gram matrix
// [[1,1,0],[1,2,1],[0,1,2]]), exponentials [[2],[2,4],[1,2,4]], weights [[1],[1/3,2/3],
// [1/7,2/7,4/7]]. Each wrong proposal below is worked by hand from those numbers.
namespace {

std::string check_layer(const std::string& target, const std::string& proposed, int expected_code = 1) {
    std::string out;
    std::string err;
    const std::string file = std::string(EXACTATTN_SOURCE_DIR) + "/data/examples/self-attention.json";
    EXPECT_EQ(run({"check", file, "--target", target, "--proposed", proposed}, out, err), expected_code) << err;
    return out;
}

}  // namespace

TEST(CheckLayer, ForgettingTheScale) {
    // Unscaled, row 3's scores are 0, 2a, 4a: exponentials 1, 4, 16 over 21.
    EXPECT_NE(check_layer("/layers/causal/heads/0/weights/2", "[1/21,4/21,16/21]")
                  .find("mistake: the scores were not divided by √d_k = √4"),
              std::string::npos);
    EXPECT_NE(check_layer("/layers/causal/heads/0/scores/2", "[0,2a,4a]").find("√d_k = √4"), std::string::npos);
    EXPECT_NE(check_layer("/layers/causal/heads/0/weights/2/2", "16/21").find("√d_k = √4"), std::string::npos);
    // The layer "full" declares its scale 1/2: row 1 unscaled is 2a, 2a, 0: 4, 4, 1 over 9.
    EXPECT_NE(check_layer("/layers/full/heads/0/weights/0", "[4/9,4/9,1/9]")
                  .find("mistake: the declared scale 1/2 was not applied"),
              std::string::npos);
}

TEST(CheckLayer, AttendingToTheFuture) {
    // Without the mask row 1 sees all three keys: scores a, a, 0, exponentials 2, 2, 1 over 5.
    EXPECT_NE(check_layer("/layers/causal/heads/0/weights/0", "[2/5,2/5,1/5]").find("mistake: attended to the future"),
              std::string::npos);
    // The same as a whole score matrix: nothing masked, [[a,a,0],[a,2a,a],[0,a,2a]].
    EXPECT_NE(check_layer("/layers/causal/heads/0/scores", "[[a,a,0],[a,2a,a],[0,a,2a]]").find("the future"),
              std::string::npos);
}

TEST(CheckLayer, MaskingOffByOne) {
    // Row 1 also given key 2: scores a, a: weights 1/2, 1/2.
    EXPECT_NE(check_layer("/layers/causal/heads/0/weights/0", "[1/2,1/2,0]")
                  .find("mistake: the causal mask is off by one: query i was also given key i + 1"),
              std::string::npos);
    // Row 3 without its own key: scores 0, a: exponentials 1, 2 over 3.
    EXPECT_NE(check_layer("/layers/causal/heads/0/weights/2", "[1/3,2/3,0]")
                  .find("mistake: the causal mask is off by one: query i was not given its own key i"),
              std::string::npos);
}

TEST(CheckLayer, NormalisingOverTheWrongAxis) {
    // Columns of the exponentials [[2,·,·],[2,4,·],[1,2,4]] sum to 5, 6, 4.
    const std::string out = check_layer("/layers/causal/heads/0/weights", "[[2/5,0,0],[2/5,2/3,0],[1/5,1/3,1]]");
    EXPECT_NE(out.find("row 1 of the proposed weights sums to 2/5, not 1"), std::string::npos) << out;
    EXPECT_NE(out.find("mistake: normalised over the wrong axis"), std::string::npos) << out;
    // Outputs then: row 3 = (1/5)[1,0] + (1/3)[1,1] + 1·[1,2] = [23/15, 7/3].
    EXPECT_NE(check_layer("/layers/causal/heads/0/outputs/2", "[23/15,7/3]").find("wrong axis"), std::string::npos);
}

TEST(CheckLayer, RightAnswersAndUnknownMistakes) {
    EXPECT_NE(check_layer("/layers/causal/heads/0/weights", "[[1,0,0],[1/3,2/3,0],[1/7,2/7,4/7]]", 0).find("right"),
              std::string::npos);
    EXPECT_NE(check_layer("/layers/causal/heads/0/weights/2", "[1/7,4/7,2/7]").find("no known mistake reproduces it"),
              std::string::npos);
}

TEST(CliRollout, PrintsBothRegimesAndTheDivergence) {
    std::string out;
    std::string err;
    ASSERT_EQ(run({"rollout", EXACTATTN_SOURCE_DIR "/data/chapter14/decoder-rollout.json"}, out, err), 0) << err;
    EXPECT_EQ(err, "");
    // By hand (the scenario's notes): the regimes part at step 2, red against blue.
    EXPECT_NE(out.find("The regimes' choices part at step 2: teacher forcing red, generation blue"), std::string::npos)
        << out;
    EXPECT_NE(out.find("Generation leaves the reference at step 1: reference prefix the, generated prefix a"),
              std::string::npos);
    EXPECT_NE(out.find("tie {a, the} → a (first in vocabulary order)"), std::string::npos);
    for (const char* format : {"markdown", "latex", "html", "csv", "json"}) {
        ASSERT_EQ(run({"rollout", EXACTATTN_SOURCE_DIR "/data/chapter14/decoder-rollout.json", "--rollout",
                       "table-14.4", "--format", format},
                      out, err),
                  0)
            << format << err;
        EXPECT_NE(out.find("blue"), std::string::npos) << format;
    }
}

// `--padding 1 3`, the documented form, is the same as `1,3` and as the option given twice. By
// hand (X rows [1,0], [0,1], [1,1]; W_Q = W_V = I, W_K = a·I): keys 1 and 3 are masked for
// every query, so each row keeps only key 2, with score a·(x_i·x_2) = 0, a, a, and weight 1.
TEST(CliAttend, PaddingTakesSeveralPositionsAfterOneOption) {
    const std::vector<std::string> base = {
        "attend",        "--x",  "[[1,0],[0,1],[1,1]]", "--wq",     "[[1,0],[0,1]]", "--wk",
        "[[a,0],[0,a]]", "--wv", "[[1,0],[0,1]]",       "--format", "json"};
    std::string out;
    std::string err;
    auto with = [&](std::vector<std::string> extra) {
        auto args = base;
        args.insert(args.end(), extra.begin(), extra.end());
        EXPECT_EQ(run(args, out, err), 0) << err;
        return out;
    };
    const std::string spaced = with({"--padding", "1", "3"});
    EXPECT_NE(spaced.find(R"j("scores":[[null,"0",null],[null,"a",null],[null,"a",null]])j"), std::string::npos)
        << spaced;
    EXPECT_NE(spaced.find(R"j("weights":[["0","1","0"],["0","1","0"],["0","1","0"]])j"), std::string::npos) << spaced;
    EXPECT_EQ(with({"--padding", "1,3"}), spaced);
    EXPECT_EQ(with({"--padding", "1", "--padding", "3"}), spaced);
}

// A layer whose rows repeat a few values (each distinct entry of a row is printed once and
// reused, docs/limits.md) prints every cell. By hand: X = [2, 1, 2], W_Q = W_V = 1, W_K = a,
// no scale, so score (i, j) = x_i·x_j·a and its exponential 2^(x_i·x_j). Under the causal mask
// row 1 keeps key 1 (weight 1), row 2 keys 1 and 2 (4 and 2 over 6: 2/3, 1/3) and row 3 all
// three (16, 4, 16 over 36: 4/9, 1/9, 4/9); masked weights are 0 and masked scores absent.
TEST(CliAttend, RepeatedEntriesOfARowArePrintedInEveryCell) {
    const std::vector<std::string> layer = {"attend", "--x",  "[[2],[1],[2]]", "--wq",    "[[1]]", "--wk",
                                            "[[a]]",  "--wv", "[[1]]",         "--scale", "none",  "--causal"};
    std::string out;
    std::string err;
    auto json = layer;
    json.insert(json.end(), {"--format", "json"});
    ASSERT_EQ(run(json, out, err), 0) << err;
    EXPECT_NE(out.find(R"j("weights":[["1","0","0"],["2/3","1/3","0"],["4/9","1/9","4/9"]])j"), std::string::npos)
        << out;
    EXPECT_NE(out.find(R"j("scores":[["4a",null,null],["2a","a",null],["4a","2a","4a"]])j"), std::string::npos) << out;
    ASSERT_EQ(run(layer, out, err), 0) << err;
    EXPECT_NE(out.find("\n3  4/9  1/9  4/9\n"), std::string::npos) << out;
    EXPECT_NE(out.find("\n2  2/3  1/3  0\n"), std::string::npos) << out;
    EXPECT_NE(out.find("\n3  4a  2a  4a\n"), std::string::npos) << out;
    EXPECT_NE(out.find("\n1  4a  —   —\n"), std::string::npos) << out;
}
