// SPDX-License-Identifier: MIT
// The oracle's certified reference: softmax of equal scores is 1/n, exp2 of integer scores
// gives weights 2/3 and 1/3, a tie between two float16 values is decided by the exact mean,
// and random problems agree with an independent MPFR computation written here (at 300 bits,
// rounded by MPFR itself).
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <random>

#include "exactattn/oracle.hpp"
#include "tools/oracle/bounds.hpp"

using namespace exactattn;
using namespace exactattn::oracle;

namespace {

Tensor matrix(std::int64_t r, std::int64_t c, std::vector<double> v, FloatFormat f = FloatFormat::Float32) {
    return Tensor{{r, c}, std::move(v), f};
}

// softmax(c q·k) v for row i, column col, at 300 bits, rounded to float32 by MPFR (normal range).
double mpfr_output(const Problem& p, std::int64_t i, std::int64_t col) {
    const std::int64_t nk = p.k.rows(), d = p.q.cols(), dv = p.v.cols();
    mpfr_t s, e, num, den, t, c;
    mpfr_inits2(300, s, e, num, den, t, c, static_cast<mpfr_ptr>(nullptr));
    mpfr_set_si(c, d, MPFR_RNDN);
    mpfr_rec_sqrt(c, c, MPFR_RNDN);
    mpfr_set_zero(num, 1);
    mpfr_set_zero(den, 1);
    for (std::int64_t j = 0; j < nk; ++j) {
        mpfr_set_zero(s, 1);
        for (std::int64_t x = 0; x < d; ++x) {
            mpfr_set_d(t, p.q.data[i * d + x], MPFR_RNDN);
            mpfr_mul_d(t, t, p.k.data[j * d + x], MPFR_RNDN);
            mpfr_add(s, s, t, MPFR_RNDN);
        }
        mpfr_mul(s, s, c, MPFR_RNDN);
        mpfr_exp(e, s, MPFR_RNDN);
        mpfr_add(den, den, e, MPFR_RNDN);
        mpfr_mul_d(e, e, p.v.data[j * dv + col], MPFR_RNDN);
        mpfr_add(num, num, e, MPFR_RNDN);
    }
    mpfr_div(t, num, den, MPFR_RNDN);
    mpfr_t r;
    mpfr_init2(r, 24);
    mpfr_set(r, t, MPFR_RNDN);
    const double out = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clears(s, e, num, den, t, c, r, static_cast<mpfr_ptr>(nullptr));
    return out;
}

}  // namespace

TEST(OracleReference, EqualScoresGiveWeightsOneOverNExactly) {
    Problem p;
    p.q = matrix(1, 2, {1, 2});
    p.k = matrix(3, 2, {2, 1, 2, 1, 2, 1});
    p.v = matrix(3, 1, {1, 0, 0});
    const Reference r = reference(p, FloatFormat::Float32, true);
    for (int j = 0; j < 3; ++j) EXPECT_EQ(r.w[j], round_exact(mpq_class(1, 3), FloatFormat::Float32));
    EXPECT_EQ(r.out[0], round_exact(mpq_class(1, 3), FloatFormat::Float32));
    EXPECT_EQ(r.out_exact[0], 1);  // the mean of v: rational
}

TEST(OracleReference, ExpTwoOfIntegerScoresGivesTwoThirdsAndOneThird) {
    Problem p;
    p.q = matrix(1, 1, {1});
    p.k = matrix(2, 1, {1, 0});
    p.v = matrix(2, 1, {1, 0});
    p.scale = {ScaleKind::None, 1};
    p.base = ExpBase::Two;  // 2^1 / (2^1 + 2^0) = 2/3
    const Reference r = reference(p, FloatFormat::Float16, true);
    EXPECT_EQ(r.w[0], round_exact(mpq_class(2, 3), FloatFormat::Float16));
    EXPECT_EQ(r.w[1], round_exact(mpq_class(1, 3), FloatFormat::Float16));
    EXPECT_EQ(r.out[0], round_exact(mpq_class(2, 3), FloatFormat::Float16));
    EXPECT_LE(r.out_lo[0], 2.0 / 3.0);
    EXPECT_GE(r.out_hi[0], 2.0 / 3.0);
    EXPECT_EQ(r.out_exact[0], 1);  // 2^t of integer t: the engine's exact domain
    EXPECT_EQ(r.out_exact_text.at(0), "2/3");
    // log2(2 + 1) = 1.5849625…; 1.5849625 · 1024 = 1623.0016…, so float16 gives 1623/1024.
    EXPECT_EQ(r.lse[0], 1623.0 / 1024);
}

TEST(OracleReference, HalfIntegerExp2ScoresGiveExactValuesInQOfRootTwo) {
    // Scores 1/2 and 0 under exp2: weights √2/(√2 + 1) = 2 − √2 and 1/(√2 + 1) = √2 − 1.
    Problem p;
    p.q = matrix(1, 1, {0.5});
    p.k = matrix(2, 1, {1, 0});
    p.v = matrix(2, 1, {0, 1});
    p.scale = {ScaleKind::None, 1};
    p.base = ExpBase::Two;
    const Reference r = reference(p, FloatFormat::Float64, false);
    EXPECT_EQ(r.out_exact_text.at(0), "2^(1/2) - 1");
    mpfr_t x;  // √2 − 1 at 200 bits by MPFR, then rounded to 53
    mpfr_init2(x, 200);
    mpfr_sqrt_ui(x, 2, MPFR_RNDN);
    mpfr_sub_ui(x, x, 1, MPFR_RNDN);
    EXPECT_EQ(r.out[0], mpfr_get_d(x, MPFR_RNDN));
    mpfr_clear(x);
}

TEST(OracleReference, AMidpointBetweenTwoFloat16ValuesIsDecidedByTheExactMean) {
    // Equal scores, v = 1 and 1 + 2^-10 (adjacent float16 values): the output is their mean,
    // exactly halfway; no enclosure decides it, the exact rational rounds to even (1).
    Problem p;
    p.q = matrix(1, 1, {0}, FloatFormat::Float16);
    p.k = matrix(2, 1, {1, 1}, FloatFormat::Float16);
    p.v = matrix(2, 1, {1, 1 + std::ldexp(1.0, -10)}, FloatFormat::Float16);
    const Reference r = reference(p, FloatFormat::Float16, false);
    EXPECT_EQ(r.out[0], 1.0);
    EXPECT_EQ(r.out_exact[0], 1);
    p.v = matrix(2, 1, {1 + std::ldexp(1.0, -10), 1 + std::ldexp(1.0, -9)}, FloatFormat::Float16);
    EXPECT_EQ(reference(p, FloatFormat::Float16, false).out[0], 1 + std::ldexp(1.0, -9));  // even
}

TEST(OracleReference, RandomProblemsAgreeWithAnIndependentMpfrComputation) {
    std::mt19937 rng(3);
    std::normal_distribution<float> g(0, 2);
    for (int trial = 0; trial < 20; ++trial) {
        Problem p;
        const std::int64_t nq = 3, nk = 7, d = 5, dv = 3;
        auto fill = [&](std::int64_t n) {
            std::vector<double> v(n);
            for (auto& x : v) x = g(rng);
            return v;
        };
        p.q = matrix(nq, d, fill(nq * d));
        p.k = matrix(nk, d, fill(nk * d));
        p.v = matrix(nk, dv, fill(nk * dv));
        const Reference r = reference(p, FloatFormat::Float32, false);
        for (std::int64_t i = 0; i < nq; ++i)
            for (std::int64_t c = 0; c < dv; ++c) EXPECT_EQ(r.out[i * dv + c], mpfr_output(p, i, c)) << trial;
    }
}

TEST(OracleReference, FullyMaskedRowsFollowTheDeclaredSemantics) {
    Problem p;
    p.q = matrix(2, 1, {1, 1});
    p.k = matrix(2, 1, {1, 2});
    p.v = matrix(2, 1, {3, 5});
    p.mask = {1, 1, 0, 1};  // row 0: every key masked; row 1 sees key 0 only
    EXPECT_THROW((void)reference(p, FloatFormat::Float32, false), Error);
    p.masked_rows = MaskedRows::NaN;
    Reference r = reference(p, FloatFormat::Float32, false);
    EXPECT_TRUE(std::isnan(r.out[0]));
    EXPECT_EQ(r.out[1], 3.0);  // a single key: weight 1, output v exactly
    p.masked_rows = MaskedRows::Zeros;
    r = reference(p, FloatFormat::Float32, true);
    EXPECT_EQ(r.out[0], 0.0);
    EXPECT_EQ(r.w[2], 1.0);
    EXPECT_EQ(r.w[3], 0.0);
}

TEST(OracleReference, InputsOutsideTheirFormatOrNotFiniteAreRefused) {
    Problem p;
    p.q = matrix(1, 1, {0.1}, FloatFormat::Float16);  // 0.1 is no float16
    p.k = matrix(1, 1, {1}, FloatFormat::Float16);
    p.v = matrix(1, 1, {1}, FloatFormat::Float16);
    try {
        (void)reference(p, FloatFormat::Float16, false);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("q[0, 0]"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("float16"), std::string::npos);
    }
    p.q.data[0] = std::nan("");
    EXPECT_THROW((void)reference(p, FloatFormat::Float16, false), Error);
    p.q.data[0] = 1;
    p.v = matrix(2, 1, {1, 1}, FloatFormat::Float16);
    EXPECT_THROW((void)reference(p, FloatFormat::Float16, false), Error);  // k has 1 row, v 2
}

TEST(OracleJudge, TheCorrectlyRoundedOutputPassesWithZeroUlpAndAPerturbedOneFails) {
    Problem p;
    p.q = matrix(1, 2, {0.5, -1});
    p.k = matrix(3, 2, {1, 2, -1, 0.25, 3, 1});
    p.v = matrix(3, 2, {1, -2, 0.5, 4, -3, 1});
    const Reference r = reference(p, FloatFormat::Float32, false);
    Tensor out = matrix(1, 2, r.out);
    AlgorithmSpec s;
    Judgement j = judge_output(r, out, s, std::nullopt);
    EXPECT_TRUE(j.passed());
    EXPECT_LE(j.max_abs_ulp, 0.5);  // a correctly rounded value is within half an ulp
    out.data[1] = r.out[1] + 1000 * ulp(r.out[1], FloatFormat::Float32);
    j = judge_output(r, out, s, std::nullopt);
    EXPECT_FALSE(j.passed());
    EXPECT_EQ(j.first_over, 1);
    EXPECT_NEAR(j.entries[1].ulp_error, 1000, 1);
    out.data[1] = r.out[1] + 2 * ulp(r.out[1], FloatFormat::Float32);
    EXPECT_TRUE(judge_output(r, out, s, std::nullopt).passed());
    EXPECT_FALSE(judge_output(r, out, s, 1.0).passed());  // a tolerance only tightens
    out.data[0] = std::nan("");
    EXPECT_FALSE(judge_output(r, out, s, std::nullopt).passed());
}

TEST(OracleJudge, NaiveSoftmaxInFloat16HasNoBoundPastTheOverflowThreshold) {
    Problem p;
    p.q = matrix(1, 1, {12}, FloatFormat::Float16);  // score 12 > ln 65504 ≈ 11.09
    p.k = matrix(2, 1, {1, 0}, FloatFormat::Float16);
    p.v = matrix(2, 1, {1, 0}, FloatFormat::Float16);
    p.scale = {ScaleKind::None, 1};
    const Reference r = reference(p, FloatFormat::Float16, false);
    AlgorithmSpec s{Algorithm::Naive, FloatFormat::Float16, FloatFormat::Float16, 64};
    std::string why;
    EXPECT_TRUE(std::isinf(output_bound(r, s, 0, 0, &why)));
    EXPECT_NE(why.find("overflows"), std::string::npos);
    s.algorithm = Algorithm::Safe;
    EXPECT_TRUE(std::isfinite(output_bound(r, s, 0, 0)));
    const Tensor nan_out = matrix(1, 1, {std::nan("")}, FloatFormat::Float16);
    const Judgement j = judge_output(r, nan_out, s, std::nullopt);
    EXPECT_NE(diagnose(p, nan_out, s, j).find("without max subtraction"), std::string::npos);
}
