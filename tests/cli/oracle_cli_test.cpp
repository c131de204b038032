// SPDX-License-Identifier: MIT
// `exactattn oracle` in-process: a kernel's output judged (exit 0 within, 1 over), the
// reference written as .npy, and bad input as one placed line with exit 2 and no output file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "app.hpp"
#include "commands.hpp"
#include "exactattn/oracle.hpp"

using namespace exactattn::oracle;
namespace fs = std::filesystem;

namespace {

struct Result {
    int code;
    std::string out, err;
};

Result run(std::vector<std::string> args) {
    args.insert(args.begin(), "oracle");
    std::ostringstream out, err;
    const int code = exactattn::cli::run(args, out, err);
    return {code, out.str(), err.str()};
}

class OracleCli : public testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("oracle_cli_" + std::to_string(::getpid()));
        fs::create_directories(dir_);
        // Scores 0 against both keys: weights 1/2, 1/2; output the mean of v's rows, [3/4, -1].
        write("q.csv", "0,0\n");
        write("k.csv", "1,0\n0,1\n");
        write("v.csv", "1,-1\n0.5,-1\n");
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }
    std::vector<std::string> inputs() const {
        return {"--q", path("q.csv"), "--k", path("k.csv"), "--v", path("v.csv")};
    }
    fs::path dir_;
};

}  // namespace

TEST_F(OracleCli, TheExactMeanPassesAndAnOutputOffByOneUlpOfTheBoundFails) {
    write("good.csv", "0.75,-1\n");
    auto a = inputs();
    a.insert(a.begin(), "judge");
    a.insert(a.end(), {"--actual", path("good.csv"), "--dtype", "float16"});
    Result r = run(a);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("Result: PASS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(2 exact, 0 certified)"), std::string::npos) << r.out;
    write("bad.csv", "0.8125,-1\n");  // 0.75 + 2^-4 = 128 ulps of float16 (ulp(0.75) = 2^-11)
    a[a.size() - 3] = path("bad.csv");
    r = run(a);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("first over: out[0, 0]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("error 128 ULP"), std::string::npos) << r.out;
}

TEST_F(OracleCli, WeightsAndLogSumExpAreJudgedToo) {
    // Weights 1/2 and 1/2 exactly; lse = ln(e^0 + e^0) = ln 2 = 0.693147…; 2048 ln 2 = 1419.57, so float16 gives
    // 1420/2048.
    write("good.csv", "0.75,-1\n");
    write("w.csv", "0.5,0.5\n");
    write("lse.csv", "0.693359375\n");
    auto a = inputs();
    a.insert(a.begin(), "judge");
    a.insert(a.end(), {"--actual", path("good.csv"), "--dtype", "float16", "--actual-weights", path("w.csv"),
                       "--actual-lse", path("lse.csv")});
    Result r = run(a);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Summary (weights): 2 entries"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Summary (lse): 1 entries"), std::string::npos) << r.out;
    write("w.csv", "0.625,0.375\n");  // weights off by 1/8: far past any bound
    r = run(a);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("first over: weights[0, 0]"), std::string::npos) << r.out;
}

TEST_F(OracleCli, TheReferenceIsWrittenAsNpyInTheDeclaredFormat) {
    auto a = inputs();
    a.insert(a.begin(), "reference");
    a.insert(a.end(), {"--dtype", "bfloat16", "--npy", path("ref.npy")});
    const Result r = run(a);
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream in(path("ref.npy"), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const Tensor t = parse_npy(bytes, "ref.npy", FloatFormat::BFloat16);
    EXPECT_EQ(t.data, (std::vector<double>{0.75, -1}));
}

TEST_F(OracleCli, BadInputIsOnePlacedLineAndExitTwo) {
    write("nan.csv", "nan,0\n");
    write("ragged.csv", "1,2\n3\n");
    write("x.txt", "1\n");
    write("trunc.npy", std::string("\x93NUMPY\x01\x00\x40", 9));
    write("nan.json", "[[\"nan\", 0]]");
    write("object.json", "{\"q\": 1}");
    write("ragged.json", "[[1, 2], [3]]");
    write("v.json", "[[1, -1], [0.5, -1]]");
    write("tenth.csv", "0.1,0\n");
    write("mask_t.csv", "0\n1\n");  // 2 × 1 for a 1 × 2 problem: the same size, transposed
    write("trailing.csv", "0,0,\n");
    write("nul.csv", std::string("0\0,0\n", 5));
    write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
    write("k1.csv", "1,0\n");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--q", path("nan.csv")}, "q[0, 0]: nan in an input"},
        {{"--k", path("ragged.csv")}, "line 2 has 1 entries"},
        {{"--v", path("x.txt")}, "unknown file type"},
        {{"--q", path("trunc.npy")}, "truncated .npy header"},
        {{"--q", path("missing.csv")}, "--q: cannot read"},
        {{"--dtype", "float8"}, "--dtype: unknown float format 'float8'"},
        {{"--input-dtype", "float16", "--v", path("v.csv")}, ""},  // 0.5 and 1 are float16: fine
        {{"--scale", "abc"}, "--scale: 'abc' is not sqrt-dk, none or a finite number"},
        {{"--base", "10"}, "--base: unknown base '10' (e or 2)"},
        {{"--masked-rows", "bogus"}, "--masked-rows: unknown semantics 'bogus'"},
        {{"--mask", path("mask_t.csv")}, "--mask: the mask must be n_q × n_k = 1 × 2, not 2 × 1"},
        {{"--q", path("trailing.csv")}, "trailing.csv:1: an empty entry (entry 3; a trailing comma?)"},
        {{"--q", path("nul.csv")}, "nul.csv:1:2: a control character (<U+0000>) in a CSV file"},
        {{"--q", path("deep.json")}, "deep.json:1:201: JSON nests at least 201 levels deep"},
        {{"--k", path("k1.csv")}, "--v: v has 2 rows but k has 1"},
        {{"--max-work", "1000000"}, "printing the reference"},
        {{"--q", path("nan.json")}, "q[0, 0]: nan in an input"},
        {{"--q", path("object.json")}, "the JSON must be an array"},
        {{"--k", path("ragged.json")}, "row 1 does not have 2 entries"},
        {{"--v", path("v.json")}, ""},  // JSON and CSV read the same values
        {{"--input-dtype", "float16", "--q", path("tenth.csv")}, "q[0, 0]: 0.10000000000000001 is not a float16 value"},
    };
    for (const auto& [change, message] : cases) {
        auto a = inputs();
        for (std::size_t x = 0; x < change.size(); x += 2) {
            auto it = std::find(a.begin(), a.end(), change[x]);
            if (it == a.end())
                a.insert(a.end(), {change[x], change[x + 1]});
            else
                *(it + 1) = change[x + 1];
        }
        a.insert(a.begin(), "reference");
        a.insert(a.end(), {"--npy", path("out.npy")});
        const Result r = run(a);
        if (message.empty()) {
            EXPECT_EQ(r.code, 0) << r.err;
            fs::remove(path("out.npy"));
            continue;
        }
        EXPECT_EQ(r.code, 2) << message;
        EXPECT_EQ(r.out, "") << message;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(path("out.npy"))) << message;  // no partial output file
        fs::remove(path("out.npy"));
    }
}

TEST_F(OracleCli, AToleranceIsAFiniteNumberFromZero) {
    write("good.csv", "0.75,-1\n");
    for (const char* bad : {"-1", "nan", "inf"}) {
        auto a = inputs();
        a.insert(a.begin(), "judge");
        a.insert(a.end(), {"--actual", path("good.csv"), "--tolerance-ulps", bad});
        const Result r = run(a);
        EXPECT_EQ(r.code, 2) << bad;
        EXPECT_EQ(r.out, "");
        EXPECT_NE(r.err.find("--tolerance-ulps: the tolerance"), std::string::npos) << r.err;
    }
}

TEST_F(OracleCli, NonFiniteValuesPrintWithoutASign) {
    // A fully masked row under nan: its outputs NaN, printed "nan", never "-nan".
    write("mask.csv", "1,1\n");
    auto a = inputs();
    a.insert(a.begin(), "reference");
    a.insert(a.end(), {"--mask", path("mask.csv"), "--masked-rows", "nan"});
    Result r = run(a);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("out[0, 0] = nan (nan)"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("-nan"), std::string::npos) << r.out;
    a.insert(a.end(), {"--format", "json"});
    r = run(a);
    EXPECT_NE(r.out.find("\"out\":[\"nan\",\"nan\"]"), std::string::npos) << r.out;
}

TEST_F(OracleCli, EmulateWritesJsonWhenAsked) {
    auto a = inputs();
    a.insert(a.begin(), "emulate");
    a.insert(a.end(), {"--format", "json", "--dtype", "float16"});
    const Result r = run(a);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("{\"algorithm\":\"safe\"", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("\"out\":[0.75,-1.0]"), std::string::npos) << r.out;  // the exact mean
}

namespace {
int renames = 0;
// Fails the third rename of new files into place (after two old ones were moved aside and
// two new ones moved in).
int failing_rename(const char* from, const char* to) {
    if (std::string(from).find("/.old/") == std::string::npos && std::string(to).find("/.old/") == std::string::npos &&
        ++renames == 3) {
        errno = EIO;
        return -1;
    }
    return ::rename(from, to);
}
}  // namespace

TEST_F(OracleCli, VectorsThatFailPartWayKeepTheEarlierSet) {
    const std::string out = path("vectors");
    Result r = run({"vectors", "--dir", out, "--long-keys", "100", "--seed", "1"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto read = [](const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    };
    std::map<std::string, std::string> before;
    for (const auto& e : fs::directory_iterator(out)) before[e.path().filename().string()] = read(e.path());
    renames = 0;
    exactattn::cli::set_rename_for_testing(failing_rename);
    r = run({"vectors", "--dir", out, "--long-keys", "100", "--seed", "2"});
    exactattn::cli::set_rename_for_testing(nullptr);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("rename failed"), std::string::npos) << r.err;
    std::map<std::string, std::string> after;
    for (const auto& e : fs::directory_iterator(out)) after[e.path().filename().string()] = read(e.path());
    EXPECT_EQ(after, before);  // every file of the earlier set, byte for byte, and nothing else
}

namespace {
// 8-bit floats (docs/oracle.md, "8-bit floats"): base 2, no scale, scores 0 and −18, so P = (1, 2^-18).
void write_fp8_case(const std::function<void(const std::string&, const std::string&)>& write) {
    write("q8.csv", "1\n");
    write("k8.csv", "0\n-18\n");
    write("v8.csv", "0\n1\n");
    write("big8.csv", "0\n500\n");
}
}  // namespace

TEST_F(OracleCli, AnE4m3InputPast448IsRefusedNamingTheEntry) {
    write_fp8_case([&](const std::string& n, const std::string& t) { write(n, t); });
    const Result r = run({"reference", "--q", path("q8.csv"), "--k", path("k8.csv"), "--v", path("big8.csv"),
                          "--input-dtype", "float8_e4m3fn", "--scale", "none", "--base", "2"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("v[1, 0]: 500 is out of float8_e4m3fn's range"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
}

TEST_F(OracleCli, DeclaredSaturationClampsTheInputAndSaysSo) {
    write_fp8_case([&](const std::string& n, const std::string& t) { write(n, t); });
    const Result r = run({"emulate",
                          "--q",
                          path("q8.csv"),
                          "--k",
                          path("k8.csv"),
                          "--v",
                          path("big8.csv"),
                          "--input-dtype",
                          "float8_e4m3fn",
                          "--scale",
                          "none",
                          "--base",
                          "2",
                          "--algorithm",
                          "online",
                          "--p-dtype",
                          "float8_e4m3fn",
                          "--p-descale",
                          "256",
                          "--fp8-overflow",
                          "saturate"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("fp8: saturation: 1 values clamped to the largest finite value (the first: v[1, 0])"),
              std::string::npos)
        << r.out;
    // v = (0, 448) after saturation, and key 1 collapses: the output is 0.
    EXPECT_NE(r.out.find("out[0, 0] = 0 (0x0p+0)\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("P-collapse: 1 probabilities"), std::string::npos) << r.out;
}

TEST_F(OracleCli, PCollapseIsNamedInTheJsonReport) {
    write_fp8_case([&](const std::string& n, const std::string& t) { write(n, t); });
    const Result r = run(
        {"emulate",       "--q",           path("q8.csv"),  "--k",         path("k8.csv"), "--v",      path("v8.csv"),
         "--input-dtype", "float8_e4m3fn", "--scale",       "none",        "--base",       "2",        "--algorithm",
         "online",        "--p-dtype",     "float8_e4m3fn", "--p-descale", "256",          "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"p_descale\":256.0"), std::string::npos) << r.out;
    // The lost exponential is 2^(−18 − 0) = 2^−18 = 3.814697265625e-06 (scores 0 and −18, base 2).
    EXPECT_NE(r.out.find("\"p_collapse\":{\"count\":1,\"largest_lost\":3.814697265625e-06,\"row\":0,\"key\":1}"),
              std::string::npos)
        << r.out;
}

TEST_F(OracleCli, ABadDescaleOrOverflowIsOnePlacedLine) {
    write_fp8_case([&](const std::string& n, const std::string& t) { write(n, t); });
    for (const auto& [opt, val] : {std::pair{"--p-descale", "-1"}, {"--fp8-overflow", "clamp"}}) {
        const Result r = run({"emulate", "--q", path("q8.csv"), "--k", path("k8.csv"), "--v", path("v8.csv"),
                              "--algorithm", "online", opt, val});
        EXPECT_EQ(r.code, 2) << opt;
        EXPECT_NE(r.err.find(opt), std::string::npos) << r.err;
    }
}

// The backward with 8-bit floats (docs/oracle.md, "Gradients with 8-bit floats"): the fp8 case's
// q, k, v and a dO of one row; `flags` split at spaces.
namespace {
std::vector<std::string> grad_args(const std::string& action, const std::function<std::string(const char*)>& path,
                                   const std::string& flags) {
    std::vector<std::string> a = {action, "--q",          path("q8.csv"), "--k",          path("k8.csv"),
                                  "--v",  path("v8.csv"), "--do",         path("do8.csv")};
    std::istringstream words(flags);
    for (std::string w; words >> w;) a.push_back(w);
    return a;
}
}  // namespace

TEST_F(OracleCli, AnE4m3DoPast448IsRefusedNamingTheEntry) {
    write_fp8_case([&](const std::string& n, const std::string& t) { write(n, t); });
    const auto at = [&](const char* n) { return path(n); };
    write("do8.csv", "500\n");
    for (const char* action : {"grad-reference", "grad-emulate"}) {
        const Result r = run(grad_args(action, at, "--input-dtype float8_e4m3fn --scale none --base 2"));
        EXPECT_EQ(r.code, 2) << action;
        EXPECT_NE(r.err.find("--do: do[0, 0]: 500 is out of float8_e4m3fn's range"), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
    write("do8.csv", "440\n");  // inside the range, not an E4M3 value (416, 448 are its neighbours)
    const Result r = run(grad_args("grad-reference", at, "--input-dtype float8_e4m3fn --fp8-overflow saturate"));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("do[0, 0]: 440 is not a float8_e4m3fn value"), std::string::npos) << r.err;
}

TEST_F(OracleCli, TheBackwardsPCollapseAndASaturatedDoAreNamed) {
    // dO = −500 saturated to −448; P = (1, 2^−18)/(1 + 2^−18), σ = 256: P_1·σ < 2^−10 collapses,
    // dV = (P̃_0·(−448)/256, 0) = (−448, 0) (P̃_0 = 256, worked in oracle_grad_fp8_test.cpp).
    write_fp8_case([&](const std::string& n, const std::string& t) { write(n, t); });
    const auto at = [&](const char* n) { return path(n); };
    write("do8.csv", "-500\n");
    const std::string claim =
        "--input-dtype float8_e4m3fn --scale none --base 2 --p-dtype float8_e4m3fn --p-descale 256 --backward "
        "flash2 --fp8-overflow saturate";
    Result r = run(grad_args("grad-emulate", at, claim));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("dv[0, 0] = -448 (-0x1.cp+8)\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("dv[1, 0] = 0 (0x0p+0)\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fp8: P-collapse: 1 probabilities flushed to zero"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(the first: do[0, 0])"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("P in float8_e4m3fn for dV (descale 256, overflow saturate)"), std::string::npos) << r.out;
    r = run(grad_args("grad-emulate", at, claim + " --format json"));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"saturated\":{\"count\":1,\"first\":\"do[0, 0]\"}"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"p_dtype\":\"float8_e4m3fn\""), std::string::npos) << r.out;
    // The same dV judged by grad-reference under the claim: within its bound, the events named.
    write("dv8.csv", "-448\n0\n");
    r = run(grad_args("grad-reference", at, claim + " --actual-dv " + path("dv8.csv")));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("verdict: PASS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fp8: P-collapse: 1"), std::string::npos) << r.out;
}

TEST_F(OracleCli, AnEightBitAccumulatorIsOnePlacedLine) {
    write_fp8_case([&](const std::string& n, const std::string& t) { write(n, t); });
    write("do8.csv", "1\n");
    const Result r = run(grad_args(
        "grad-emulate", [&](const char* n) { return path(n); }, "--accumulate float8_e5m2"));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--accumulate"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(OracleCli, AnActualGradientPastTheE4m3RangeIsOnePlacedLine) {
    // dV judged in E4M3: 500 is no value of it (past 448), 440 neither (between 416 and 448).
    write_fp8_case([&](const std::string& n, const std::string& t) { write(n, t); });
    write("do8.csv", "1\n");
    const auto at = [&](const char* n) { return path(n); };
    for (const auto& [value, why] : {std::pair{"500", "dv[1, 0]: 500 is out of float8_e4m3fn's range"},
                                     {"440", "dv[1, 0]: 440 is not a float8_e4m3fn value"}}) {
        write("dv8.csv", std::string("1\n") + value + "\n");
        const Result r = run(grad_args("grad-reference", at, "--dtype float8_e4m3fn --actual-dv " + path("dv8.csv")));
        EXPECT_EQ(r.code, 2) << value;
        EXPECT_NE(r.err.find(std::string("--actual-dv: ") + why), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

TEST_F(OracleCli, ABadDsFormatOrDescaleIsOnePlacedLine) {
    write_fp8_case([&](const std::string& n, const std::string& t) { write(n, t); });
    write("do8.csv", "1\n");
    const auto at = [&](const char* n) { return path(n); };
    for (const auto& [flags, option] :
         {std::pair{"--ds-dtype float8_e4m3fn --ds-descale -1", "--ds-descale"}, {"--ds-dtype float7", "--ds-dtype"}}) {
        const Result r = run(grad_args("grad-emulate", at, flags));
        EXPECT_EQ(r.code, 2) << flags;
        EXPECT_NE(r.err.find(option), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}
