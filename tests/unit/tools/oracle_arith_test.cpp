// SPDX-License-Identifier: MIT
// White-box: the oracle's fast double stage (src/tools/oracle/arith.hpp) encloses what it claims
// to, checked against MPFR at 300 bits and exact rationals: its exponential over the whole range
// down to the subnormals (both bases), its Dot2 sums of products with cancellation, and (with the
// MPFR stage's) the logit softcap and its slope.
#include "tools/oracle/arith.hpp"
#include "tools/oracle/kernels.hpp"

#include <gtest/gtest.h>
#include <gmpxx.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

using namespace exactattn::oracle;
using exactattn::oracle::detail::DoubleArith;
using exactattn::oracle::detail::MpfrArith;

namespace {
// lo ≤ base^t ≤ hi, with base^t at 300 bits.
bool encloses_exp(double t, ExpBase base, const DoubleArith::Iv& r) {
    mpfr_t x;
    mpfr_init2(x, 300);
    mpfr_set_d(x, t, MPFR_RNDN);
    if (base == ExpBase::E)
        mpfr_exp(x, x, MPFR_RNDN);
    else
        mpfr_exp2(x, x, MPFR_RNDN);
    const bool ok = mpfr_cmp_d(x, r.lo) >= 0 && mpfr_cmp_d(x, r.hi) <= 0;
    mpfr_clear(x);
    return ok;
}
}  // namespace

TEST(OracleArith, TheDoubleExponentialEnclosesMpfrsOverTheWholeRange) {
    std::mt19937_64 rng(9);
    for (ExpBase base : {ExpBase::E, ExpBase::Two}) {
        DoubleArith a;
        a.base = base;
        const double low = base == ExpBase::E ? -760 : -1090;
        for (int n = 0; n < 20000; ++n) {
            const double t = low + (1 - low) * std::ldexp(static_cast<double>(rng() >> 11), -53);
            DoubleArith::Iv r;
            a.exp(r, {t, t});
            ASSERT_TRUE(encloses_exp(t, base, r)) << t;
            EXPECT_LE(r.hi - r.lo, std::max(r.hi * 0x1p-44, 0x1p-1070)) << t;  // and it is narrow
        }
    }
}

TEST(OracleArith, Dot2SumsEncloseTheExactSumUnderCancellation) {
    std::mt19937_64 rng(4);
    DoubleArith a;
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<double> q(64), k(64);
        mpq_class exact = 0;
        for (int i = 0; i < 64; ++i) {
            q[i] = std::ldexp(static_cast<double>(static_cast<std::int64_t>(rng() >> 11) - (1ll << 52)),
                              -52 + static_cast<int>(rng() % 40));
            k[i] = std::ldexp(static_cast<double>(static_cast<std::int64_t>(rng() >> 11) - (1ll << 52)), -52);
        }
        q[63] = -q[0];  // cancellation: two products cancel exactly
        k[63] = k[0];
        for (int i = 0; i < 64; ++i) exact += mpq_class(q[i]) * mpq_class(k[i]);
        DoubleArith::Iv r;
        a.dot(r, q.data(), k.data(), 64, nullptr);
        EXPECT_LE(mpq_class(r.lo), exact) << trial;
        EXPECT_GE(mpq_class(r.hi), exact) << trial;
        // The first MPFR step takes Dot2's unrounded pair: still an enclosure, and far narrower.
        const MpfrArith m(128, ExpBase::E, Scale{ScaleKind::None, 1}, 64);
        MpfrArith::Iv x(128);
        m.dot(x, q.data(), k.data(), 64, nullptr);
        mpq_class lo, hi;
        mpfr_get_q(lo.get_mpq_t(), x.lo);
        mpfr_get_q(hi.get_mpq_t(), x.hi);
        EXPECT_LE(lo, exact) << trial;
        EXPECT_GE(hi, exact) << trial;
        EXPECT_LT(mpq_class(hi - lo), mpq_class(r.hi - r.lo) / 1000) << trial;
    }
}

TEST(OracleArith, TheExactDotOfDoublesEqualsTheRationalSumOfTheirProducts) {
    // Checked against the textbook sum over Q (mpq_class from each double, exactly): signs,
    // zeros, cancellation to 0, subnormals, products a thousand binades apart and the extremes.
    const auto rational = [](const std::vector<double>& x, const std::vector<double>& y) {
        mpq_class s = 0;
        for (std::size_t i = 0; i < x.size(); ++i) s += mpq_class(x[i]) * mpq_class(y[i]);
        return s;
    };
    const auto dot = [](const std::vector<double>& x, const std::vector<double>& y) {
        return detail::exact_dot(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
    };
    EXPECT_EQ(dot({}, {}), 0);
    EXPECT_EQ(dot({1.5, -2}, {4, 3}), 0);  // 6 − 6
    EXPECT_EQ(dot({0x1p-1074, 3}, {0x1p-1074, 0x1p-600}),
              mpq_class(mpz_class(1), mpz_class(1) << 2148) + mpq_class(mpz_class(3), mpz_class(1) << 600));
    EXPECT_EQ(dot({0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023}, {0x1.fffffffffffffp1023, 0x1.fffffffffffffp1023}),
              0);
    EXPECT_EQ(dot({1 + 0x1p-52}, {1 - 0x1p-53}),
              mpq_class(1) + mpq_class(1, 2) * mpq_class(0x1p-52) - mpq_class(0x1p-52) * mpq_class(0x1p-53));
    std::mt19937_64 rng(17);
    for (int round = 0; round < 3000; ++round) {
        const std::size_t n = 1 + rng() % 200;  // past 128 terms too (the sum's storage changes there)
        std::vector<double> x(n), y(n);
        const int spread = round % 3 == 0 ? 1 : round % 3 == 1 ? 60 : 1000;
        for (std::size_t i = 0; i < n; ++i) {
            const auto draw = [&] {
                const double m = std::ldexp(static_cast<double>(rng() >> 11), -53) * ((rng() & 1U) != 0 ? -1 : 1);
                if (rng() % 17 == 0) return 0.0;
                return std::ldexp(m, static_cast<int>(rng() % (2 * spread + 1)) - spread);
            };
            x[i] = draw(), y[i] = draw();
        }
        if (round % 5 == 0 && n > 1) x[n - 1] = -x[0], y[n - 1] = y[0];  // a term that cancels another
        EXPECT_EQ(dot(x, y), rational(x, y)) << "round " << round;
    }
}

namespace {
// m·2^k rounded to nearest, ties to even, into the format `f` with its subnormals: MPFR at the
// format's precision and exponent range (mpfr_subnormalize, the way MPFR documents emulating
// IEEE formats); an independent judge of round_exact.
double format_round_by_mpfr(const mpz_class& m, long k, FloatFormat f) {
    const FormatInfo& fi = info(f);
    const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(fi.emin - fi.precision + 2);
    mpfr_set_emax(fi.emax + 1);
    mpfr_t r;
    mpfr_init2(r, fi.precision);
    int t = mpfr_set_z_2exp(r, m.get_mpz_t(), k, MPFR_RNDN);
    t = mpfr_check_range(r, t, MPFR_RNDN);
    mpfr_subnormalize(r, t, MPFR_RNDN);
    const double d = mpfr_get_d(r, MPFR_RNDN);  // exact: a value of a format no wider than double
    mpfr_clear(r);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    return d;
}
}  // namespace

TEST(OracleArith, RoundingADyadicRationalAgreesWithMpfrInEveryFormat) {
    // Dyadic values (every exact dot product of floats is one) of 1 to 120 significant bits over
    // each format's whole range, subnormals and halfway cases included (few bits make ties).
    std::mt19937_64 rng(23);
    for (FloatFormat f : {FloatFormat::Float16, FloatFormat::BFloat16, FloatFormat::Float32, FloatFormat::Float64,
                          FloatFormat::Float8E4M3FN, FloatFormat::Float8E5M2}) {
        const FormatInfo& fi = info(f);
        for (int n = 0; n < 4000; ++n) {
            const int bits = 1 + static_cast<int>(rng() % 120);
            mpz_class m = 1;
            for (int b = 1; b < bits; ++b) m = 2 * m + static_cast<int>(rng() & 1U);
            const long top = fi.emax, bottom = fi.emin - fi.precision - 2;  // ⌊log2⌋ of the value
            const long e = bottom + static_cast<long>(rng() % static_cast<std::uint64_t>(top - bottom + 1));
            const long k = e - (bits - 1);
            const double want = format_round_by_mpfr(m, k, f);
            if (fi.largest > 0 && std::fabs(want) > fi.largest) continue;  // E4M3's own range: fp8 tests
            mpq_class x(m);
            if (k >= 0)
                mpq_mul_2exp(x.get_mpq_t(), x.get_mpq_t(), static_cast<mp_bitcnt_t>(k));
            else
                mpq_div_2exp(x.get_mpq_t(), x.get_mpq_t(), static_cast<mp_bitcnt_t>(-k));
            ASSERT_EQ(round_exact(x, f), want) << fi.name << " m = " << m << ", k = " << k;
            ASSERT_EQ(round_exact(-x, f), -want) << fi.name << " m = " << m << ", k = " << k;
        }
    }
    // By hand: 1 + 2^−24 is float32's halfway case between 1 and 1 + 2^−23 (ties to the even 1),
    // 1 + 3·2^−24 the one between 1 + 2^−23 and 1 + 2^−22 (to the even 1 + 2^−22); 2^−150 is half
    // the least subnormal (to 0), 3·2^−151 above it (to 2^−149).
    EXPECT_EQ(round_exact(mpq_class(1) + mpq_class(1, 1 << 24), FloatFormat::Float32), 1.0);
    EXPECT_EQ(round_exact(mpq_class(1) + mpq_class(3, 1 << 24), FloatFormat::Float32), 1 + 0x1p-22);
    mpq_class half_least(1), above(3);
    mpq_div_2exp(half_least.get_mpq_t(), half_least.get_mpq_t(), 150);
    mpq_div_2exp(above.get_mpq_t(), above.get_mpq_t(), 151);
    EXPECT_EQ(round_exact(half_least, FloatFormat::Float32), 0.0);
    EXPECT_EQ(round_exact(above, FloatFormat::Float32), 0x1p-149);
}

TEST(OracleArith, TheDotTowardZeroInOneIntegerIsTheRationalSumsTruncation) {
    // Against the textbook sum over Q truncated by GMP (mpq_class::get_d rounds toward zero):
    // float32 and bfloat16 significands at every spread of exponents, cancellation to 0 and to a
    // few bits, and where the one integer cannot hold the sum the answer is nothing, never wrong;
    // likewise from the rows as integers (fixed_row).
    std::mt19937_64 rng(31);
    int answered = 0, fixed_answered = 0;
    for (int round = 0; round < 4000; ++round) {
        const std::size_t n = 1 + rng() % 130;  // past 128 terms: nothing
        const int bits = round % 2 == 0 ? 24 : 8, spread = round % 4 < 2 ? 4 : 40;
        std::vector<double> x(n), y(n);
        const auto draw = [&] {
            if (rng() % 19 == 0) return 0.0;
            const double m = static_cast<double>((rng() >> (64 - bits)) | (std::uint64_t{1} << (bits - 1)));
            const int e = static_cast<int>(rng() % (2 * spread + 1)) - spread - bits;
            return ((rng() & 1U) != 0 ? -1 : 1) * std::ldexp(m, e);
        };
        for (std::size_t i = 0; i < n; ++i) x[i] = draw(), y[i] = draw();
        if (round % 5 == 0 && n > 1) x[n - 1] = -x[0], y[n - 1] = y[0];   // a term that cancels another
        if (round % 7 == 0) x = {1.5, -2, 0x1p-20}, y = {4, 3, 0x1p-20};  // 6 − 6 + 2^−40
        mpq_class v = 0;
        for (std::size_t i = 0; i < x.size(); ++i) v += mpq_class(x[i]) * mpq_class(y[i]);
        const auto got = detail::toward_zero_dot(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
        // The same from the rows as integers times a power of two (fixed_row: dP's fast path).
        const auto fixed = detail::toward_zero_dot(detail::fixed_row(x.data(), static_cast<std::int64_t>(x.size())),
                                                   detail::fixed_row(y.data(), static_cast<std::int64_t>(y.size())));
        if (fixed) {
            ++fixed_answered;
            ASSERT_EQ(fixed->first, v.get_d()) << "round " << round;
            ASSERT_EQ(fixed->second, mpq_class(v.get_d()) == v) << "round " << round;
        }
        if (x.size() > 128) {
            EXPECT_FALSE(got.has_value());
            continue;
        }
        if (!got) continue;
        ++answered;
        const double t = v.get_d();
        ASSERT_EQ(got->first, t) << "round " << round;
        ASSERT_EQ(got->second, mpq_class(t) == v) << "round " << round;
    }
    EXPECT_GT(answered, 2000);                              // narrow formats' sums fit
    EXPECT_GT(fixed_answered, 1500);                        // rows whose exponents span a few bits fit (spread 4)
    const double big[2] = {0x1p-1074, 1}, one[2] = {1, 1};  // a subnormal's product 2^1074 below the other
    EXPECT_FALSE(detail::toward_zero_dot(big, one, 2).has_value());
    const double z[2] = {0, -0.0};
    EXPECT_EQ(detail::toward_zero_dot(z, one, 2), std::make_optional(std::make_pair(0.0, true)));
}

TEST(OracleArith, TowardZeroIsGmpsTruncationAndSaysWhenItIsExact) {
    std::mt19937_64 rng(29);
    for (int n = 0; n < 20000; ++n) {
        const int bits = 1 + static_cast<int>(rng() % 90);
        mpz_class m = 1;
        for (int b = 1; b < bits; ++b) m = 2 * m + static_cast<int>(rng() & 1U);
        mpq_class v(n % 2 == 0 ? m : mpz_class(-m));
        const long k = static_cast<long>(rng() % 2300) - 1200;  // normal, subnormal, past the range
        if (k >= 0)
            mpq_mul_2exp(v.get_mpq_t(), v.get_mpq_t(), static_cast<mp_bitcnt_t>(k));
        else
            mpq_div_2exp(v.get_mpq_t(), v.get_mpq_t(), static_cast<mp_bitcnt_t>(-k));
        if (n % 7 == 0) v /= 3;  // not dyadic
        const double t = v.get_d();
        if (!std::isfinite(t)) continue;
        const auto [got, exact] = detail::toward_zero(v);
        ASSERT_EQ(got, t) << v;
        ASSERT_EQ(exact, mpq_class(t) == v) << v;
    }
    EXPECT_EQ(detail::toward_zero(mpq_class(0)), std::make_pair(0.0, true));
    EXPECT_EQ(detail::toward_zero(mpq_class(1, 3)).second, false);
    EXPECT_EQ(detail::toward_zero(mpq_class(-3, 4)), std::make_pair(-0.75, true));
}

TEST(OracleArith, TheMpfrExponentialOfANarrowEnclosureEnclosesAndStaysNarrow) {
    // The upper end is derived from the lower one (e^δ ≤ 1 + δ + δ²): checked against both
    // ends' exponentials at 600 bits, for widths from 2^−200 to past the 2^−10 where both ends
    // are computed, under both bases; the width stays within 2δ and a few units of 2^−prec.
    std::mt19937_64 rng(31);
    for (ExpBase base : {ExpBase::E, ExpBase::Two}) {
        const MpfrArith a(128, base, Scale{}, 64);
        MpfrArith::Iv t(128), r(128);
        mpfr_t x, lo, hi, w;
        mpfr_inits2(600, x, lo, hi, w, static_cast<mpfr_ptr>(nullptr));
        for (int n = 0; n < 3000; ++n) {
            const double start = -700 * std::ldexp(static_cast<double>(rng() >> 11), -53);
            const long width = -static_cast<long>(rng() % 200) - 2;
            mpfr_set_d(t.lo, start, MPFR_RNDN);
            mpfr_set_ui_2exp(w, 1 + rng() % 1000, width - 10, MPFR_RNDN);
            mpfr_add(t.hi, t.lo, w, MPFR_RNDU);
            a.exp(r, t);
            const auto exp600 = [&](mpfr_ptr out, mpfr_srcptr in, mpfr_rnd_t rnd) {
                if (base == ExpBase::E)
                    mpfr_exp(out, in, rnd);
                else
                    mpfr_exp2(out, in, rnd);
            };
            mpfr_set(x, t.lo, MPFR_RNDN);
            exp600(lo, x, MPFR_RNDD);
            mpfr_set(x, t.hi, MPFR_RNDN);
            exp600(hi, x, MPFR_RNDU);
            ASSERT_LE(mpfr_cmp(r.lo, lo), 0) << n;
            ASSERT_GE(mpfr_cmp(r.hi, hi), 0) << n;
            // r.hi − r.lo ≤ r.lo·(2·(t.hi − t.lo) + 2^−120)
            mpfr_sub(x, t.hi, t.lo, MPFR_RNDU);
            mpfr_mul_2ui(x, x, 1, MPFR_RNDU);
            mpfr_add_d(x, x, 0x1p-120, MPFR_RNDU);
            mpfr_mul(x, x, r.lo, MPFR_RNDU);
            mpfr_sub(w, r.hi, r.lo, MPFR_RNDU);
            ASSERT_LE(mpfr_cmp(w, x), 0) << n;
        }
        mpfr_clears(x, lo, hi, w, static_cast<mpfr_ptr>(nullptr));
    }
}

// The logit softcap (docs/oracle.md, "The logit softcap"): cap·tanh(x/cap) and its slope
// 1 − tanh²(x/cap) enclosed by both arithmetics, against MPFR at 300 bits, for points and for
// intervals that straddle 0 (where the slope's upper end is 1) or reach far past the cap.
TEST(OracleArith, TheSoftcapAndItsSlopeEncloseMpfrsValues) {
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> spread(-60, 60), width(0, 3);
    const DoubleArith da;
    const MpfrArith ma(128, ExpBase::E, Scale{}, 1);
    mpfr_t x, t;
    mpfr_inits2(300, x, t, static_cast<mpfr_ptr>(nullptr));
    for (double cap : {0.5, 2.0, 30.0, 50.0}) {
        for (int n = 0; n < 2000; ++n) {
            const double lo = spread(rng), hi = n % 3 == 0 ? lo : lo + width(rng);
            DoubleArith::Iv d{lo, hi};
            da.softcap(d, cap);
            MpfrArith::Iv m = ma.make();
            mpfr_set_d(m.lo, lo, MPFR_RNDN);
            mpfr_set_d(m.hi, hi, MPFR_RNDN);
            ma.softcap(m, cap);
            DoubleArith::Iv ds;
            da.softcap_slope(ds, d, cap);
            MpfrArith::Iv ms = ma.make();
            ma.softcap_slope(ms, m, cap);
            for (double e : {lo, (lo + hi) / 2, hi}) {
                if (e < lo || e > hi) continue;
                mpfr_set_d(x, e, MPFR_RNDN);
                mpfr_div_d(x, x, cap, MPFR_RNDN);
                mpfr_tanh(t, x, MPFR_RNDN);  // tanh(e/cap)
                mpfr_mul_d(x, t, cap, MPFR_RNDN);
                ASSERT_TRUE(mpfr_cmp_d(x, d.lo) >= 0 && mpfr_cmp_d(x, d.hi) <= 0) << cap << " " << e;
                ASSERT_TRUE(mpfr_cmp(x, m.lo) >= 0 && mpfr_cmp(x, m.hi) <= 0) << cap << " " << e;
                mpfr_sqr(t, t, MPFR_RNDN);
                mpfr_ui_sub(t, 1, t, MPFR_RNDN);  // 1 − tanh²(e/cap)
                ASSERT_TRUE(mpfr_cmp_d(t, ds.lo) >= 0 && mpfr_cmp_d(t, ds.hi) <= 0) << cap << " " << e;
                ASSERT_TRUE(mpfr_cmp(t, ms.lo) >= 0 && mpfr_cmp(t, ms.hi) <= 0) << cap << " " << e;
            }
            if (lo <= 0 && hi >= 0) {
                EXPECT_EQ(ds.hi, 1.0);  // the slope's top, at x = 0
            }
            EXPECT_GE(ds.lo, 0.0);
            EXPECT_LE(d.hi - d.lo, (hi - lo) + 1e-12 * cap);  // tanh is 1-Lipschitz: no wider
        }
        // The double stage's tanh at points (arith.cpp, tanh_nonneg): adversarial arguments x/cap
        // at 0, in the subnormals, around each of its range boundaries (2^−27, 1/4, 20) a few
        // ulps either way, huge and infinite, then many random ones from 2^−1074 to 2^12 (log-
        // uniform, both signs). Each enclosure holds MPFR's 300-bit value and is sharp: within
        // 2^−42 relative (and a few subnormal quanta) of it, so the double stage still decides.
        std::vector<double> points = {0.0,
                                      -0.0,
                                      std::numeric_limits<double>::denorm_min(),
                                      3 * std::numeric_limits<double>::denorm_min(),
                                      0x1.8p-1060,
                                      std::numeric_limits<double>::min(),
                                      1e-300,
                                      1e-20,
                                      std::numeric_limits<double>::max(),
                                      1e300,
                                      std::numeric_limits<double>::infinity()};
        for (double y : {0x1p-27, 0x1p-26, 0.25, 20.0, 1.0, 19.0625}) {
            double e = y * cap;
            for (int k = 0; k < 8; ++k) e = std::nextafter(e, 0.0);
            for (int k = 0; k < 16; ++k, e = std::nextafter(e, 1e308)) points.push_back(e);
        }
        std::uniform_real_distribution<double> expo(-1074, 12), unit(1, 2);
        for (int n = 0; n < 20000; ++n) points.push_back(std::ldexp(unit(rng), static_cast<int>(expo(rng))));
        const std::size_t one_sign = points.size();
        for (std::size_t n = 0; n < one_sign; ++n) points.push_back(-points[n]);
        for (double e : points) {
            DoubleArith::Iv d{e, e};
            da.softcap(d, cap);
            // MPFR's enclosure [x, t] of cap·tanh(e/cap) at 300 bits (every step rounded down,
            // then up), inside the double one. Below |e| < cap·2^−28 the double stage gives e
            // itself as the end on 0's far side: cap·tanh(e/cap) lies within |e|·2^−56 of e, on
            // 0's side (tanh y < y for y > 0), closer than 300 bits resolve; there the enclosures
            // must overlap, and the near end holds MPFR's.
            const auto end300 = [&](mpfr_ptr r, mpfr_rnd_t rnd) {
                mpfr_set_d(r, e, MPFR_RNDN);
                mpfr_div_d(r, r, cap, rnd);
                mpfr_tanh(r, r, rnd);
                mpfr_mul_d(r, r, cap, rnd);
            };
            end300(x, MPFR_RNDD);
            end300(t, MPFR_RNDU);
            const bool near0 = std::fabs(e) < cap * 0x1p-28;
            ASSERT_TRUE(mpfr_cmp_d(x, d.hi) <= 0 && mpfr_cmp_d(t, d.lo) >= 0) << cap << " " << e;
            ASSERT_TRUE((near0 && e > 0) || mpfr_cmp_d(t, d.hi) <= 0)
                << cap << " " << e << " [" << d.lo << ", " << d.hi << "]";
            ASSERT_TRUE((near0 && e < 0) || mpfr_cmp_d(x, d.lo) >= 0)
                << cap << " " << e << " [" << d.lo << ", " << d.hi << "]";
            if (near0) {
                EXPECT_EQ(e > 0 ? d.hi : d.lo, e);
            }
            const double v = mpfr_get_d(x, MPFR_RNDN);
            ASSERT_LE(d.hi - d.lo, std::fabs(v) * 0x1p-42 + 8 * std::numeric_limits<double>::denorm_min())
                << cap << " " << e;
            if (e == 0) {
                EXPECT_TRUE(d.lo == 0 && d.hi == 0);  // a zero score stays exactly 0
            }
            if (std::isinf(e)) {
                EXPECT_TRUE(d.lo == d.hi && d.lo == std::copysign(cap, e));
            }
        }
    }
    mpfr_clears(x, t, static_cast<mpfr_ptr>(nullptr));
}

// The double stage's loops over a row's keys (kernels.hpp) do per key the operations of
// DoubleArith's dot_of, mul, sub and exp, four keys at a time: their enclosures must be those
// operations' bit for bit, over random scores and the edges of every branch (infinite and
// subnormal ends, rho past 1/2, shifted scores past 709 and 1023 and below −1100, ties of k/2).
TEST(OracleArith, TheRowKernelsGiveDoubleArithsEnclosuresBitForBit) {
    std::mt19937_64 rng(35);
    std::uniform_real_distribution<double> unit(-1, 1);
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> s, c, abs;
    for (int t = 0; t < 4000; ++t) {
        const double mag = std::ldexp(1.0, static_cast<int>(rng() % 24) - 12);
        const double x = unit(rng) * mag * (t % 7 == 0 ? 1e3 : 1);
        s.push_back(x);
        c.push_back(x * 0x1p-60 * unit(rng));
        abs.push_back(std::fabs(x) * (1 + std::fabs(unit(rng))));
    }
    for (double x : {0.0, -0.0, 0x1p-1074, -0x1p-1074, 1e308, -1e308, inf, -inf, 709.0, -1100.0, 1023.0}) {
        s.push_back(x);
        c.push_back(0);
        abs.push_back(std::fabs(x));
    }
    const auto nk = static_cast<std::int64_t>(s.size());
    for (std::int64_t d : {std::int64_t{1}, std::int64_t{64}, std::int64_t{1} << 50}) {
        for (const auto& [c_lo, c_hi] : {std::pair{0.125, 0.125}, std::pair{0.12499999999999999, 0.125},
                                         std::pair{1.0, 1.0}, std::pair{0.0, 0.0}}) {
            std::vector<double> lo(s.size()), hi(s.size()), au(s.size());
            exactattn::oracle::detail::scores_keys(s.data(), c.data(), abs.data(), nk, d, c_lo, c_hi, lo.data(),
                                                   hi.data(), au.data());
            DoubleArith da;
            da.scale = {c_lo, c_hi};
            for (std::int64_t j = 0; j < nk; ++j) {
                DoubleArith::Iv r;
                double a_up = 0;
                da.dot_of(r, DoubleArith::Acc{s[j], c[j], abs[j], 0, d}, &a_up);
                da.mul(r, r, da.scale);
                ASSERT_EQ(std::bit_cast<std::uint64_t>(r.lo), std::bit_cast<std::uint64_t>(lo[j])) << j << " d " << d;
                ASSERT_EQ(std::bit_cast<std::uint64_t>(r.hi), std::bit_cast<std::uint64_t>(hi[j])) << j << " d " << d;
                ASSERT_EQ(std::bit_cast<std::uint64_t>(a_up), std::bit_cast<std::uint64_t>(au[j])) << j;
            }
        }
    }
    // Exponentials: score enclosures of every width, shifts that reach each branch.
    std::vector<double> lo, hi;
    for (int t = 0; t < 6000; ++t) {
        const double x = unit(rng) * std::ldexp(1.0, static_cast<int>(rng() % 12));
        const double w = t % 5 == 0 ? 0 : std::fabs(unit(rng)) * std::ldexp(1.0, -static_cast<int>(rng() % 60));
        lo.push_back(x - w);
        hi.push_back(x + w);
    }
    for (double k = -1600; k <= 1030; k += 0.5) {  // every k and every tie of k/2, both bases
        lo.push_back(k * 0.6931471805599453);
        hi.push_back(k * 0.6931471805599453);
        lo.push_back(k);
        hi.push_back(k);
    }
    for (const auto& [a, b] :
         {std::pair{-inf, inf}, std::pair{0.0, 1.0}, std::pair{0.0, 0.5}, std::pair{-inf, -inf}, std::pair{inf, inf},
          std::pair{-0.0, 0.0}, std::pair{708.9, 709.1}, std::pair{-1100.0, -1100.0}, std::pair{-1100.5, -1099.5}}) {
        lo.push_back(a);
        hi.push_back(b);
    }
    const auto ne = static_cast<std::int64_t>(lo.size());
    for (ExpBase base : {ExpBase::E, ExpBase::Two}) {
        for (double m : {0.0, 3.25, -2.5, 700.0, -700.0}) {
            std::vector<double> el(lo.size()), eh(lo.size());
            exactattn::oracle::detail::exp_keys(lo.data(), hi.data(), ne, m, base == ExpBase::Two, el.data(),
                                                eh.data());
            DoubleArith da;
            da.base = base;
            for (std::int64_t j = 0; j < ne; ++j) {
                DoubleArith::Iv t, e;
                da.sub(t, DoubleArith::Iv{lo[j], hi[j]}, m);
                da.exp(e, t);
                ASSERT_EQ(std::bit_cast<std::uint64_t>(e.lo), std::bit_cast<std::uint64_t>(el[j]))
                    << j << " [" << lo[j] << ", " << hi[j] << "] m " << m;
                ASSERT_EQ(std::bit_cast<std::uint64_t>(e.hi), std::bit_cast<std::uint64_t>(eh[j]))
                    << j << " [" << lo[j] << ", " << hi[j] << "] m " << m;
            }
        }
    }
}
