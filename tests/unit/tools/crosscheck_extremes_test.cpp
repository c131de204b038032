// SPDX-License-Identifier: MIT
// Crosscheck at the edges of the double range (regressions of issue 9): a NaN from the naive softmax reached mpq_set_d
// (SIGFPE, exit 136); the naive row called a sum overflow "NaN"; the fixed "dyadic values must be 0 ULP" rule and the
// 4-ULP default failed correct double paths (a weight of 1/4, scores near ±800a).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "app.hpp"
#include "exactattn/crosscheck.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {

// One read of `memory` (width 1) with query [1] and readout [1]; `extra` adds top-level keys.
std::string one_read(const std::string& memory, const std::string& extra = "") {
    return R"({"title": "issue 9", "sources": {"m": {"memory": )" + memory +
           R"(}}, "queries": {"q": [1]}, "readouts": {"r": [1]},
              "reads": {"x": {"source": "m", "query": "q", "readout": "r"}})" +
           extra + "}";
}

CrosscheckResult check(const std::string& text) { return crosscheck(run_scenario(parse_scenario(text, "issue9"))); }

const CrossRow& row(const CrosscheckResult& r, const std::string& quantity) {
    for (const auto& x : r.rows) {
        if (x.quantity == quantity) return x;
    }
    throw std::runtime_error("no row " + quantity);
}

}  // namespace

// The issue's crash: one row whose only score is -1100a. By hand: the one weight is exactly 1
// (max subtraction: exp(0)/exp(0)); naively exp(-1100 ln 2) ≈ 1.5e-331 < 2^-1074 is 0 in
// double, and 0/0 is NaN.
TEST(CrosscheckExtremes, EverythingUnderflowsNoCrash) {
    const CrosscheckResult r = check(one_read(R"([["-1100a"]])"));
    EXPECT_TRUE(r.passed());
    EXPECT_EQ(row(r, "/reads/x/weights/0").computed, 1.0);
    ASSERT_EQ(r.naive.size(), 1U);
    EXPECT_EQ(r.naive[0].outcome, NaiveOutcome::Underflow);
    EXPECT_EQ(r.naive[0].sum, 0.0);
    ASSERT_EQ(r.naive[0].weights.size(), 1U);
    EXPECT_TRUE(std::isnan(r.naive[0].weights[0]));
    EXPECT_TRUE(std::isnan(r.naive[0].max_ulp_error));  // no error is measured on a NaN

    // Two positions: both naive weights 0/0 = NaN; the exact ones are 1/2 each, and the double
    // path gets them exactly (exp(0) = 1, 1/(1 + 1)).
    const CrosscheckResult two = check(one_read(R"([["-1100a"], ["-1100a"]])"));
    EXPECT_EQ(two.naive[0].outcome, NaiveOutcome::Underflow);
    EXPECT_TRUE(std::isnan(two.naive[0].weights[0]) && std::isnan(two.naive[0].weights[1]));
    EXPECT_EQ(row(two, "/reads/x/weights/1").computed, 0.5);
    EXPECT_TRUE(two.passed());
}

// Through the command line: exit 0 and the naive case named (it used to die with exit 136).
TEST(CrosscheckExtremes, EverythingUnderflowsThroughTheCommandLine) {
    const std::string path = testing::TempDir() + "issue_9_underflow.json";
    std::ofstream(path) << one_read(R"([["-1100a"]])");
    std::ostringstream out;
    std::ostringstream err;
    const std::vector<std::string> args = {"crosscheck", path};
    EXPECT_EQ(cli::run(args, out, err), 0) << err.str();
    EXPECT_NE(out.str().find("every exponential underflows to 0: 0/0 = NaN | [nan]"), std::string::npos) << out.str();
    EXPECT_EQ(err.str(), "");
}

// Two scores of 1023a. By hand: 1023 ln 2 ≈ 709.09 < ln(DBL_MAX) ≈ 709.78, so each exponential
// is finite (2^1023 ≈ 8.988e307), but their sum 2^1024 is past DBL_MAX: inf. Each naive weight
// is then 8.988e307/inf = 0, not NaN. The exact weights are 1/2 each.
TEST(CrosscheckExtremes, OnlyTheSumOverflows) {
    const CrosscheckResult r = check(one_read(R"([["1023a"], ["1023a"]])"));
    ASSERT_EQ(r.naive.size(), 1U);
    const NaiveRow& n = r.naive[0];
    EXPECT_EQ(n.outcome, NaiveOutcome::SumOverflow);
    EXPECT_TRUE(std::isinf(n.sum));
    EXPECT_EQ(n.weights, (std::vector<double>{0.0, 0.0}));
    // 0 against 1/2: 1/2 / ulp(1/2) = 2^-1 / 2^-53 = 2^52 ULP.
    EXPECT_EQ(n.max_ulp_error, 0x1p52);
    EXPECT_EQ(row(r, "/reads/x/weights/0").computed, 0.5);
    EXPECT_TRUE(r.passed());
}

// 1100a and 0. By hand: exp(1100 ln 2) overflows to inf, so its weight is inf/inf = NaN and
// the other is 1/inf = 0.
TEST(CrosscheckExtremes, AnExponentialOverflows) {
    const CrosscheckResult r = check(one_read(R"([["1100a"], ["0"]])"));
    const NaiveRow& n = r.naive[0];
    EXPECT_EQ(n.outcome, NaiveOutcome::ExpOverflow);
    EXPECT_TRUE(std::isnan(n.weights[0]));
    EXPECT_EQ(n.weights[1], 0.0);
    EXPECT_TRUE(r.passed());
}

// Scores 3a, 2a, 2a. By hand: weights 2^3/(2^3 + 2^2 + 2^2) = 1/2 and 4/16 = 1/4. In double
// exp(fl(2a) − fl(3a)) need not be 1/2 (the issue measured 0.5000000000000001, a weight of
// 0.25000000000000006): a = log(2.0) is rounded, so a 1/4 that is not exact is no error, and
// a declared tolerance of 100 ULP must not be overridden.
TEST(CrosscheckExtremes, AQuarterWeightThatIsNotExactIsNoFalseAlarm) {
    for (const std::string extra : {"", R"(, "crosscheck": {"tolerance_ulps": 100, "rationale": "generous"})"}) {
        const CrosscheckResult r = check(one_read(R"([["3a"], ["2a"], ["2a"]])", extra));
        const CrossRow& w = row(r, "/reads/x/weights/1");
        EXPECT_EQ(w.exact, "1/4");
        EXPECT_TRUE(w.dyadic);
        EXPECT_LE(w.abs_error, w.bound);
        // By hand the bound is ≈ 6 ULP of 1/4 (docs/crosscheck.md, worked example): not vacuous.
        EXPECT_GT(w.bound_ulps, 1.0);
        EXPECT_LT(w.bound_ulps, 10.0);
        EXPECT_TRUE(r.passed()) << crosscheck_markdown({r});
        // By hand: of the states 3a, 2a, 2a, the same scores, the weights 1/2, 1/4, 1/4, the
        // context (8·3a + 4·2a + 4·2a)/16 = 5a/2 and the readout 5a/2, only the weights are doubles.
        EXPECT_EQ(r.dyadic_count, 3U);
    }
}

// Scores near ±800a: 800a ≈ 554.5 is rounded to a multiple of ulp(554.5) = 2^-43 ≈ 1.1e-13,
// and exp turns that absolute error into a relative error of the weights of the same size:
// up to 1.1e-13 / ulp(2/3) = 1.1e-13 / 2^-53 ≈ 1000 ULP. That is the conditioning of exp, not
// an error: without a declared tolerance the read passes, though it is far over 4 ULP.
TEST(CrosscheckExtremes, ScoresNear800aPassWithoutATolerance) {
    const std::string memory = R"([["800a"], ["799a"], ["-800a"]])";
    const CrosscheckResult r = check(one_read(memory));
    EXPECT_TRUE(r.passed()) << crosscheck_markdown({r});
    EXPECT_GT(r.max_abs_ulp, 4.0);
    // A tighter declared tolerance is honoured: 4 ULP fails these weights.
    const CrosscheckResult tight =
        check(one_read(memory, R"(, "crosscheck": {"tolerance_ulps": 4, "rationale": "author's choice"})"));
    EXPECT_FALSE(tight.passed());
    EXPECT_FALSE(row(tight, "/reads/x/weights/1").passed);
    EXPECT_TRUE(row(tight, "/reads/x/scores/0").passed);
}
