// SPDX-License-Identifier: MIT
// The oracle's robustness (issue 32): its option strings parsed once and refused when they name
// nothing, a mask taken by its shape, a tolerance that is a finite number from 0, every shape
// error placed at its argument, the work budget charged for the rising precision and refusing
// at once what would not fit, and answers that need no precision decided by an exact test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"

using namespace exactattn;
using namespace exactattn::oracle;

namespace {

Tensor matrix(std::int64_t r, std::int64_t c, std::vector<double> v, FloatFormat f = FloatFormat::Float64) {
    return Tensor{{r, c}, std::move(v), f};
}

Location at(const char* name) {
    Location l;
    l.context = name;
    return l;
}

template <class F>
Error error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "no error";
    return usage_error("none");
}

}  // namespace

TEST(OracleOptions, EnumerationsRefuseWhatTheyDoNotName) {
    EXPECT_EQ(parse_base("2"), ExpBase::Two);
    EXPECT_EQ(parse_base("e"), ExpBase::E);
    for (const char* bad : {"10", "2.0", "E", ""}) {
        const Error e = error_of([&] { (void)parse_base(bad, at("base")); });
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_EQ(e.where().context, "base") << bad;
    }
    EXPECT_EQ(parse_masked_rows("zeros"), MaskedRows::Zeros);
    EXPECT_EQ(parse_masked_rows("nan"), MaskedRows::NaN);
    EXPECT_EQ(error_of([] { (void)parse_masked_rows("bogus", at("masked_rows")); }).where().context, "masked_rows");
    EXPECT_EQ(parse_scale("none").kind, ScaleKind::None);
    EXPECT_EQ(parse_scale("sqrt-dk").kind, ScaleKind::SqrtDk);
    EXPECT_EQ(parse_scale("0.125").value, 0.125);
    for (const char* bad : {"abc", "1x", " 1", "nan", "inf", "", "1e999"})
        EXPECT_EQ(error_of([&] { (void)parse_scale(bad, at("scale")); }).kind(), ErrorKind::Usage) << bad;
}

TEST(OracleOptions, ATransposedMaskOfTheSameSizeIsRefused) {
    Problem p;
    p.q = matrix(2, 1, {0, 0});
    p.k = matrix(3, 1, {1, 2, 3});
    p.v = matrix(3, 1, {1, 2, 3});
    const Error e = error_of([&] { set_mask(p, matrix(3, 2, {0, 0, 0, 0, 0, 0}), at("mask")); });
    EXPECT_EQ(e.kind(), ErrorKind::Shape);
    EXPECT_EQ(e.where().context, "mask");
    EXPECT_NE(e.reason().find("2 × 3, not 3 × 2"), std::string::npos) << e.reason();
    EXPECT_EQ(error_of([&] {
                  set_mask(p, matrix(2, 3, {0, 0, std::numeric_limits<double>::quiet_NaN(), 0, 0, 0}), at("mask"));
              }).kind(),
              ErrorKind::Domain);
    set_mask(p, matrix(2, 3, {0, 1, 0, 1, 1, 0}), at("mask"));
    EXPECT_EQ(p.mask, (std::vector<std::uint8_t>{0, 1, 0, 1, 1, 0}));
}

TEST(OracleOptions, EveryShapeErrorIsPlacedAtItsArgument) {
    const Tensor ok = matrix(2, 2, {1, 0, 0, 1});
    struct Case {
        Tensor q, k, v;
        const char* place;
    };
    const Case cases[] = {
        {Tensor{{4}, {1, 0, 0, 1}, FloatFormat::Float64}, ok, ok, "q"},
        {ok, matrix(2, 1, {1, 0}), ok, "k"},
        {ok, ok, matrix(3, 1, {1, 0, 1}), "v"},
        {ok, ok, Tensor{{2, 0}, {}, FloatFormat::Float64}, "v"},
        {ok, ok, Tensor{{2, 2}, {1, 2, 3}, FloatFormat::Float64}, "v"},
    };
    for (const auto& c : cases) {
        Problem p;
        p.q = c.q;
        p.k = c.k;
        p.v = c.v;
        const Error e = error_of([&] { validate(p); });
        EXPECT_EQ(e.kind(), ErrorKind::Shape) << e.what();
        EXPECT_EQ(e.where().context, c.place) << e.what();
    }
}

TEST(OracleOptions, AToleranceIsAFiniteNumberFromZero) {
    Problem p;
    p.q = matrix(1, 1, {0});
    p.k = matrix(2, 1, {1, 0});
    p.v = matrix(2, 1, {1, 0});
    const Reference r = reference(p, FloatFormat::Float32, false);
    const Tensor out = matrix(1, 1, {0.5}, FloatFormat::Float32);  // scores 0 and 0: the mean, exactly
    for (double bad : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        const Error e = error_of([&] { (void)judge_output(r, out, AlgorithmSpec{}, bad); });
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_EQ(e.where().context, "tolerance_ulps");
    }
    EXPECT_TRUE(judge_output(r, out, AlgorithmSpec{}, 0.0).passed());
}

TEST(OracleBudget, AnOutputFarPastAnyPrecisionFromAMidpointIsDecidedByAnExactSign) {
    // o = (v0 + v1 e^−3000000)/(1 + e^−3000000) with v0 = 1 + 2^−24, the midpoint of the float32
    // neighbours 1 and 1 + 2^−23, and v1 = 2 > v0: o is above the midpoint by about 2^−4328085,
    // so it rounds up to 1 + 2^−23; no working precision short of 4.3 million bits would say so.
    Problem p;
    p.q = matrix(1, 1, {3000000});
    p.k = matrix(2, 1, {1, 0});
    p.v = matrix(2, 1, {1 + 0x1p-24, 2});
    p.scale = {ScaleKind::None, 1};
    Limits l = limits();
    l.max_work = 10'000'000;  // a job of no more than a millisecond or so
    const ScopedLimits scoped(l);
    const WorkBudget job;
    const Reference r = reference(p, FloatFormat::Float32, true);
    EXPECT_EQ(r.out[0], 1 + 0x1p-23);
    EXPECT_EQ(r.lse[0], 3000000);  // 3000000 + log(1 + e^−3000000), rounded
    EXPECT_EQ(r.w[1], 0);
    EXPECT_FALSE(std::signbit(r.w[1]));  // a weight that rounds to 0 is +0, never −0
}

TEST(OracleBudget, ScoresOfTenToTheFortyAreDecidedAtLowPrecision) {
    // Scores 10^40 and −10^40: the output is 1/(1 + e^−2·10^40), 1 in float32. The shift of the
    // exponentials is now exact at the working precision, not a double 2^79 away from the score.
    Problem p;
    p.q = matrix(1, 1, {1e20});
    p.k = matrix(2, 1, {1e20, -1e20});
    p.v = matrix(2, 1, {1, 0});
    Limits l = limits();
    l.max_work = 100'000'000;
    const ScopedLimits scoped(l);
    const WorkBudget job;
    const Reference r = reference(p, FloatFormat::Float32, false);
    EXPECT_EQ(r.out[0], 1);
    EXPECT_LE(r.max_precision, 256);
}

TEST(OracleBudget, AWeightFarBelowTheLeastSubnormalRoundsToZeroWithoutItsDigits) {
    // Scores 12·10^20 and −12·10^20: the second weight is e^(−2.4·10^21) / (1 + …), far below
    // float64's least subnormal 2^−1074, so it rounds to 0 and the first to 1. Its enclosure's
    // MPFR exponent is near −2^30: converted to a rational it took a second and a gigabyte of
    // memset (4 s under the sanitizers, the oracle fuzzer's timeout).
    Problem p;
    p.q = matrix(1, 1, {12});
    p.k = matrix(2, 1, {1e20, -1e20});
    p.v = matrix(2, 1, {1, 2});
    Limits l = limits();
    l.max_work = 100'000'000;
    const ScopedLimits scoped(l);
    const WorkBudget job;
    const Reference r = reference(p, FloatFormat::Float64, /*weights=*/true);
    EXPECT_EQ(r.out[0], 1);
    ASSERT_EQ(r.w.size(), 2u);
    EXPECT_EQ(r.w[0], 1);
    EXPECT_EQ(r.w[1], 0);
    EXPECT_FALSE(std::signbit(r.w[1]));
}

TEST(OracleInputs, AJsonMatrixWhoseFirstRowIsEmptyIsAShapeError) {
    // [[], [-1]]: the first row sets the width 0, the second has 1 entry (row 1, 0-based).
    const std::string path = testing::TempDir() + "ragged.json";
    {
        std::FILE* f = std::fopen(path.c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("[[], [-1]]", f);
        std::fclose(f);
    }
    const Error e = error_of([&] { (void)read_tensor(path, std::nullopt); });
    EXPECT_EQ(e.kind(), ErrorKind::Shape);
    EXPECT_NE(std::string(e.what()).find("row 1 does not have 0 entries"), std::string::npos) << e.what();
}

TEST(OracleBudget, TheRisingPrecisionIsChargedAndRefusedPastTheBudget) {
    // As above, but a third key with v = 1/2 < the midpoint: the exact sign test cannot decide,
    // and each step of precision is charged before it runs.
    Problem p;
    p.q = matrix(1, 1, {3000000});
    p.k = matrix(3, 1, {1, 0, 0});
    p.v = matrix(3, 1, {1 + 0x1p-24, 2, 0.5});
    p.scale = {ScaleKind::None, 1};
    Limits l = limits();
    l.max_work = 1'000'000'000;
    const ScopedLimits scoped(l);
    const WorkBudget job;
    const Error e = error_of([&] { (void)reference(p, FloatFormat::Float32, false); });
    EXPECT_EQ(e.kind(), ErrorKind::Limit);
    EXPECT_NE(e.reason().find("bits of working precision would take about"), std::string::npos) << e.reason();
    EXPECT_NE(e.reason().find("limits: max_work"), std::string::npos) << e.reason();
    EXPECT_LE(job.spent(), 1e9);
}

TEST(OracleBudget, VectorsOfTenMillionKeysAreRefusedBeforeAnyWork) {
    const WorkBudget job;
    const Error e = error_of([] { (void)write_vectors(0, FloatFormat::Float32, 10'000'000); });
    EXPECT_EQ(e.kind(), ErrorKind::Limit);
    EXPECT_NE(e.reason().find("a long row of 10000000 keys"), std::string::npos) << e.reason();
    EXPECT_EQ(job.spent(), 0);
}

// The prediction of a set of vectors covers its references, which charge themselves: the job is
// charged the prediction once, (1000 + 1000)·150000 = 3·10^8 units for a long row of 1000 keys,
// so a budget just above it admits the set (the references were charged on top and refused it
// half way), and one just below refuses it before any work.
TEST(OracleBudget, VectorsAreChargedTheirPredictionOnce) {
    const double predicted = (1000.0 + 1000.0) * 150000.0;
    Limits l = limits();
    l.max_work = static_cast<std::uint64_t>(predicted * 1.02);
    {
        const ScopedLimits scoped(l);
        const WorkBudget job;
        EXPECT_FALSE(write_vectors(0, FloatFormat::Float32, 1000).empty());
        EXPECT_GE(job.spent(), predicted);
        EXPECT_LE(job.spent(), predicted * 1.02);
    }
    l.max_work = static_cast<std::uint64_t>(predicted * 0.98);
    const ScopedLimits scoped(l);
    const WorkBudget job;
    const Error e = error_of([] { (void)write_vectors(0, FloatFormat::Float32, 1000); });
    EXPECT_NE(e.reason().find("a long row of 1000 keys"), std::string::npos) << e.reason();
    EXPECT_EQ(job.spent(), 0);
}

TEST(OracleJudge, AnUnboundedEntryNeverPasses) {
    // Score 12 > ln 65504: a naive kernel's exp overflows float16, so its bound is infinite. The
    // output e^12/(e^12 + 1) = 0.999993… rounds to 1 in float16; the judgement does not pass on it.
    Problem p;
    p.q = matrix(1, 1, {12}, FloatFormat::Float16);
    p.k = matrix(2, 1, {1, 0}, FloatFormat::Float16);
    p.v = matrix(2, 1, {1, 0}, FloatFormat::Float16);
    p.scale = {ScaleKind::None, 1};
    const Reference r = reference(p, FloatFormat::Float16, false);
    ASSERT_EQ(r.out[0], 1);
    const AlgorithmSpec naive{Algorithm::Naive, FloatFormat::Float16, FloatFormat::Float16, 64};
    const Judgement j = judge_output(r, matrix(1, 1, {1}, FloatFormat::Float16), naive, std::nullopt);
    EXPECT_FALSE(j.passed());
    EXPECT_EQ(j.unbounded, 1);
    EXPECT_NE(j.unbounded_reason.find("the safe algorithm (max subtracted) would bound it"), std::string::npos)
        << j.unbounded_reason;
}

TEST(OracleJudge, AnExactZeroOfAFullyMaskedRowPassesUnderZeros) {
    Problem p;
    p.q = matrix(2, 1, {1, 2});
    p.k = matrix(2, 1, {1, 0});
    p.v = matrix(2, 1, {3, 4});
    p.mask = {1, 1, 0, 0};
    p.masked_rows = MaskedRows::Zeros;
    const Reference r = reference(p, FloatFormat::Float32, false);
    const Tensor out = matrix(2, 1, {0, r.out[1]}, FloatFormat::Float32);
    EXPECT_TRUE(judge_output(r, out, AlgorithmSpec{}, std::nullopt).passed());
}

TEST(OracleEmulate, BaseTwoComputesWithExp2) {
    // Scores 1 and 0 under exp2: weights 2/3 and 1/3, the output 2/3 rounded to float32.
    Problem p;
    p.q = matrix(1, 1, {1}, FloatFormat::Float32);
    p.k = matrix(2, 1, {1, 0}, FloatFormat::Float32);
    p.v = matrix(2, 1, {1, 0}, FloatFormat::Float32);
    p.scale = {ScaleKind::None, 1};
    p.base = ExpBase::Two;
    const Emulation e = emulate(p, EmulationSpec{}, false);
    EXPECT_NEAR(e.out.data[0], 2.0 / 3, 1e-7);
}
