// SPDX-License-Identifier: MIT
// The cross-check's pieces: the checked double → exact conversion, tolerance semantics, the
// planted-error hook, and the markdown and JSON reports (docs/crosscheck.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include "exactattn/crosscheck.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {

CrosscheckResult check(const std::string& text, const CrosscheckOptions& options = {}) {
    return crosscheck(run_scenario(parse_scenario(text, "unit")), options);
}

// Scores a, 0, 0 (the chapter's Example 14.1 memory with query [1, 0]).
std::string chapter_like(const std::string& extra = "") {
    return R"({"title": "unit", "sources": {"m": {"memory": [["a", "0"], ["0", "a"], ["0", "0"]]}},
               "queries": {"q": [1, 0]}, "readouts": {"r": [1, 2]},
               "reads": {"x": {"source": "m", "query": "q", "readout": "r"}})" +
           extra + "}";
}

}  // namespace

TEST(CrosscheckConversion, FiniteDoublesAreExact) {
    EXPECT_EQ(exact_of_double(0.25), mpq_class(1, 4));
    EXPECT_EQ(exact_of_double(-0.0), mpq_class(0));
    // 2^-1074, the least subnormal, by hand.
    EXPECT_EQ(exact_of_double(std::numeric_limits<double>::denorm_min()),
              mpq_class(mpz_class(1), mpz_class(1) << 1074));
}

TEST(CrosscheckConversion, NonFiniteDoublesAreRefused) {
    EXPECT_ERROR(exact_of_double(std::nan("")), ErrorKind::Domain,
                 "the double nan has no exact value (only finite doubles convert)");
    EXPECT_ERROR(exact_of_double(INFINITY), ErrorKind::Domain,
                 "the double inf has no exact value (only finite doubles convert)");
    EXPECT_ERROR(exact_of_double(-INFINITY), ErrorKind::Domain,
                 "the double -inf has no exact value (only finite doubles convert)");
}

// Weights 2/4, 1/4, 1/4 (by hand: exp(a) = 2, 2 + 1 + 1 = 4): the double path computes
// exp(0) = 1 and exp(−log 2.0) for the others; 1/2, 1/4 and 1/4 are doubles.
TEST(Crosscheck, ChapterLikeReadPassesAndCountsDyadicValues) {
    const CrosscheckResult r = check(chapter_like());
    EXPECT_TRUE(r.passed());
    EXPECT_FALSE(r.tolerance_ulps.has_value());
    // Dyadic by hand: states 0 (four of the six), scores 0, 0 and weights 1/2, 1/4, 1/4; the
    // states a, the score a, the context [a/2, a/4] and the readout a/2 + 2·a/4 = a are not.
    EXPECT_EQ(r.dyadic_count, 9U);
    for (const auto& row : r.rows) EXPECT_LE(row.abs_error, row.bound) << row.quantity;
}

// A declared tolerance only tightens: a planted error past the bound fails even under a
// tolerance of 10^9 ULP.
TEST(Crosscheck, ALooseToleranceNeverLoosensTheBound) {
    const std::string loose = chapter_like(R"(, "crosscheck": {"tolerance_ulps": 1000000000, "rationale": "loose"})");
    const CrosscheckResult clean = check(loose);
    ASSERT_TRUE(clean.passed());
    ASSERT_EQ(clean.tolerance_ulps, 1e9);
    const auto target = std::find_if(clean.rows.begin(), clean.rows.end(),
                                     [](const CrossRow& x) { return x.quantity == "/reads/x/context/0"; });
    ASSERT_NE(target, clean.rows.end());
    ASSERT_GT(target->bound, 0.0);
    CrosscheckOptions o;
    const double planted = 3 * target->bound;
    o.perturb = [&](const std::string& q, double c) { return q == "/reads/x/context/0" ? c + planted : c; };
    const CrosscheckResult r = check(loose, o);
    EXPECT_EQ(r.failed, 1U);
    EXPECT_LT(std::fabs(r.rows[static_cast<std::size_t>(target - clean.rows.begin())].ulp_error), 1e9);
}

// An exactly computed quantity has bound 0 (every operation on it is exact), so any change fails.
TEST(Crosscheck, ExactQuantitiesHaveBoundZero) {
    const CrosscheckResult clean = check(chapter_like());
    for (const auto& row : clean.rows) {
        if (row.quantity == "/reads/x/scores/1") {
            EXPECT_EQ(row.bound, 0.0);  // 1·0 + 0·a = 0: products by 0 and 1 are exact
        }
    }
    CrosscheckOptions o;
    o.perturb = [](const std::string& q, double c) {
        return q == "/reads/x/scores/1" ? std::numeric_limits<double>::denorm_min() : c;
    };
    EXPECT_EQ(check(chapter_like(), o).failed, 1U);
}

// Every quantity of the chapter, one at a time, with an error of twice its bound plus 2 ULP.
TEST(Crosscheck, EveryPlantedErrorPastItsBoundFailsOnTheChapter) {
    const Report chapter = run_scenario(load_scenario("chapter14"));
    const CrosscheckResult clean = crosscheck(chapter);
    ASSERT_TRUE(clean.passed());
    for (const auto& target : clean.rows) {
        const double ulp = std::nextafter(std::fabs(target.computed), INFINITY) - std::fabs(target.computed);
        const double delta = 2 * target.bound + 2 * ulp;
        CrosscheckOptions o;
        o.perturb = [&](const std::string& q, double c) { return q == target.quantity ? c - delta : c; };
        const CrosscheckResult r = crosscheck(chapter, o);
        EXPECT_EQ(r.failed, 1U) << target.quantity;
    }
}

// 15 quantities by hand: 3 × 2 states, 3 scores, 3 weights, 2 context coordinates, 1 readout.
TEST(Crosscheck, MarkdownKeepsTheSummaryLinesScriptsGrep) {
    const std::string md = crosscheck_markdown({check(chapter_like())});
    EXPECT_NE(md.find("\nSummary: 15 quantities;"), std::string::npos) << md;
    EXPECT_NE(md.find("\nDyadic values "), std::string::npos);
    EXPECT_NE(md.find("\nResult: PASS (every quantity within its bound).\n"), std::string::npos);
    EXPECT_NE(md.find("| bound (ULP) |"), std::string::npos);
    EXPECT_NE(md.find("| `/reads/x` | 0.69314718055994529 | finite | [0.5, 0.25, 0.25] | 0 |"), std::string::npos)
        << md;
    EXPECT_EQ(md.substr(md.size() - 31), "crosscheck: 1 passed, 0 failed\n");
}

TEST(Crosscheck, JsonCarriesBoundsAndTheNaiveOutcome) {
    const auto j = nlohmann::json::parse(crosscheck_json({check(
        R"({"title": "sum", "sources": {"m": {"memory": [["1023a"], ["1023a"]]}}, "queries": {"q": [1]},
            "reads": {"x": {"source": "m", "query": "q"}}})")}));
    ASSERT_EQ(j.size(), 1U);
    EXPECT_TRUE(j[0]["tolerance_ulps"].is_null());
    for (const auto& row : j[0]["rows"]) {
        EXPECT_TRUE(row.contains("bound"));
        EXPECT_TRUE(row.contains("bound_ulps"));
        EXPECT_TRUE(row["passed"].get<bool>());
    }
    const auto& n = j[0]["naive_softmax"][0];
    EXPECT_EQ(n["outcome"], "sum-overflow");
    EXPECT_EQ(n["sum"], "inf");
    EXPECT_EQ(n["weights"], nlohmann::json::parse("[0.0, 0.0]"));
    EXPECT_EQ(j[0]["summary"]["failed"], 0);
}

// A state past the double range: 2^1100 is inf in double, and the query's 0 times inf is NaN in
// the first score, which spreads to both weights, the context and the readout. Nothing reaches
// an exact conversion; by hand 7 quantities (that state, score 1, weights 1 and 2, context 1
// and 2, the readout) have an infinite bound and are reported as unchecked, not as passed
// silently.
TEST(Crosscheck, AnInputPastTheDoubleRangeIsUncheckedNotACrash) {
    const CrosscheckResult r = check(
        R"({"title": "huge", "sources": {"m": {"memory": [["2^1100", "a"], ["0", "a"]]}}, "queries": {"q": [0, 1]},
            "readouts": {"r": [1, 1]}, "reads": {"x": {"source": "m", "query": "q", "readout": "r"}}})");
    EXPECT_EQ(r.unbounded, 7U);
    EXPECT_TRUE(r.passed());
    EXPECT_EQ(r.naive[0].outcome, NaiveOutcome::ScoreNotFinite);
    const std::string md = crosscheck_markdown({r});
    EXPECT_NE(md.find("Result: PASS (every quantity within its bound; 7 of them unchecked"), std::string::npos) << md;
}

namespace {
// A one-head layer over the tokens p, q (W_Q = W_V = I, W_K = a·I, so the scores are 0 and a
// and exact), which the double path does not recompute.
const std::string kLayer = R"("vocabulary": {"p": [1, 0], "q": [0, 1]}, "sequences": {"s": {"tokens": ["p", "q"]}},
    "matrices": {"I": [[1, 0], [0, 1]], "A": [["a", 0], [0, "a"]]},
    "layers": {"l": {"sequence": "s", "heads": [{"wq": "I", "wk": "A", "wv": "I"}], "scale": "none"}})";
}  // namespace

// A result says what it compared: by hand, the source holds 3 states of width 2 (6 numbers)
// and the read 3 scores, 3 weights, a context of 2 and a readout (9); the layer is named as
// not compared.
TEST(Crosscheck, SaysWhatWasComparedAndWhatWasNot) {
    const CrosscheckResult r = check(chapter_like(", " + kLayer));
    EXPECT_TRUE(r.passed());
    EXPECT_FALSE(r.compared_nothing());
    EXPECT_EQ(r.rows.size(), 15U);
    EXPECT_EQ(r.not_compared, (std::vector<std::string>{"/layers/l"}));
    const std::string md = crosscheck_markdown({r});
    EXPECT_NE(md.find("Compared: 15 quantities (6 of sources, 9 of reads, 0 of interventions, 0 of rollouts). Not "
                      "compared (no double path yet: docs/crosscheck.md): `/layers/l`."),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("Result: PASS"), std::string::npos) << md;
    EXPECT_NE(md.find("crosscheck: 1 passed, 0 failed\n"), std::string::npos) << md;
}

// A scenario with only a layer compares nothing: the result must not read as a PASS, in the
// document, its summary line and the JSON.
TEST(Crosscheck, NothingComparedIsNotAPass) {
    const CrosscheckResult r = check(R"({"title": "only a layer", )" + kLayer + "}");
    EXPECT_TRUE(r.rows.empty());
    EXPECT_TRUE(r.compared_nothing());
    const std::string md = crosscheck_markdown({r});
    EXPECT_EQ(md.find("PASS"), std::string::npos) << md;
    EXPECT_NE(md.find("Compared: 0 quantities"), std::string::npos) << md;
    EXPECT_NE(md.find("Result: **NOTHING COMPARED** (a warning, not a pass"), std::string::npos) << md;
    EXPECT_NE(md.find("crosscheck: 0 passed, 0 failed, 1 compared nothing"), std::string::npos) << md;
    const auto j = nlohmann::json::parse(crosscheck_json({r}));
    EXPECT_EQ(j[0]["summary"]["compared_nothing"], true);
    EXPECT_EQ(j[0]["summary"]["count"], 0);
    EXPECT_EQ(j[0]["summary"]["not_compared"], nlohmann::json::array({"/layers/l"}));
}
