// SPDX-License-Identifier: MIT
// White-box: the gradients' double-double stage (src/tools/oracle/dd_arith.hpp) encloses what it
// claims to, checked against MPFR (exact sums and products at 4600 bits, exponentials and
// quotients at 600 bits rounded both ways): its exponential over the whole range down to the
// subnormals in both bases, at random and adversarial points (near multiples of ln 2, the
// underflow cut, tiny and whole arguments), its sums, products and quotients at random
// magnitudes with cancellation and underflow, and its decision of a float32 rounding.
#include "tools/oracle/dd_arith.hpp"
#include "tools/oracle/grad_arith.hpp"
#include "exactattn/oracle_grad.hpp"

#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace exactattn::oracle;
using exactattn::oracle::detail::DdArith;
using Iv = DdArith::Iv;

namespace {

// MPFR numbers wide enough that a double-double ± a double, and products of two such, are exact.
struct Big {
    explicit Big(mpfr_prec_t p = 4600) { mpfr_init2(x, p); }
    ~Big() {
        if (x->_mpfr_d != nullptr) mpfr_clear(x);
    }
    Big(Big&& o) noexcept {
        *x = *o.x;
        o.x->_mpfr_d = nullptr;
    }
    Big(const Big&) = delete;
    Big& operator=(const Big&) = delete;
    Big& operator=(Big&&) = delete;
    mpfr_t x;
};

// The ends h + l ∓ r exactly.
void ends(const Iv& v, mpfr_ptr lo, mpfr_ptr hi) {
    mpfr_set_d(lo, v.h, MPFR_RNDN);
    mpfr_add_d(lo, lo, v.l, MPFR_RNDN);
    mpfr_set(hi, lo, MPFR_RNDN);
    mpfr_sub_d(lo, lo, v.r, MPFR_RNDN);
    mpfr_add_d(hi, hi, v.r, MPFR_RNDN);
}
// lo ≤ a and b ≤ hi for the interval v: [a, b] (a real number when a = b) inside v.
bool inside(const Iv& v, mpfr_srcptr a, mpfr_srcptr b) {
    if (!std::isfinite(v.r)) return true;  // nothing claimed
    Big lo, hi;
    ends(v, lo.x, hi.x);
    return mpfr_cmp(lo.x, a) <= 0 && mpfr_cmp(b, hi.x) <= 0;
}
bool inside(const Iv& v, mpfr_srcptr a) { return inside(v, a, a); }

// A normalised double-double near m·2^e with a random low part and radius 0 or up to 2^−70|h|.
Iv random_dd(std::mt19937_64& rng, int e, bool radius) {
    std::uniform_real_distribution<double> m(-1, 1);
    const double h = std::ldexp(m(rng), e);
    double s = 0, l = 0;
    DdArith::two_sum(h, h * 0x1p-54 * m(rng), s, l);
    const double r = radius && rng() % 2 == 0 ? std::fabs(s) * std::ldexp(std::fabs(m(rng)), -70) : 0;
    return {s, l, r};
}
// The midpoint and the two ends of v, exactly.
std::vector<Big*> samples(const Iv& v, Big& lo, Big& mid, Big& hi) {
    ends(v, lo.x, hi.x);
    mpfr_set_d(mid.x, v.h, MPFR_RNDN);
    mpfr_add_d(mid.x, mid.x, v.l, MPFR_RNDN);
    return {&lo, &mid, &hi};
}

// base^t for t exact in `in`, rounded down into lo and up into hi at 600 bits.
void exp600(ExpBase base, mpfr_srcptr in, mpfr_ptr lo, mpfr_ptr hi) {
    if (base == ExpBase::E) {
        mpfr_exp(lo, in, MPFR_RNDD);
        mpfr_exp(hi, in, MPFR_RNDU);
    } else {
        mpfr_exp2(lo, in, MPFR_RNDD);
        mpfr_exp2(hi, in, MPFR_RNDU);
    }
}

// Checks a.exp(t) against MPFR at t's ends and midpoint; its relative radius within 2^−88 plus
// twice t's (times ln 2 under base 2) where the result is above 2^−960.
void check_exp(const DdArith& a, const Iv& t) {
    Iv r;
    a.exp(r, t);
    ASSERT_TRUE(std::isfinite(r.r)) << t.h;  // the stage encloses every argument below 700
    Big lo, mid, hi, elo(600), ehi(600);
    for (Big* x : samples(t, lo, mid, hi)) {
        exp600(a.base, x->x, elo.x, ehi.x);
        ASSERT_TRUE(inside(r, elo.x, ehi.x)) << t.h << " + " << t.l << " ± " << t.r;
    }
    if (r.h > 0x1p-960) {
        EXPECT_LE(r.r, r.h * (0x1p-88 + 2 * t.r)) << t.h;
    }
}

}  // namespace

TEST(OracleDdArith, TheExponentialEnclosesMpfrsAtRandomPointsOverTheWholeRange) {
    std::mt19937_64 rng(38);
    for (ExpBase base : {ExpBase::E, ExpBase::Two}) {
        const DdArith a(base, Scale{}, 64);
        const double low = base == ExpBase::E ? -760 : -1100;
        std::uniform_real_distribution<double> where(low, 1);
        for (int n = 0; n < 20000; ++n) {
            Iv t = random_dd(rng, 0, n % 2 == 0);
            const double h = where(rng);
            double s = 0, l = 0;
            DdArith::two_sum(h, t.l * h, s, l);  // h plus a low part
            t = {s, l, t.r * std::fabs(h) * 0x1p-20};
            check_exp(a, t);
        }
    }
}

TEST(OracleDdArith, TheExponentialEnclosesMpfrsAtAdversarialPoints) {
    for (ExpBase base : {ExpBase::E, ExpBase::Two}) {
        const DdArith a(base, Scale{}, 64);
        std::vector<double> points = {0.0,
                                      0x1p-1074,
                                      -0x1p-1074,
                                      1e-300,
                                      -1e-300,
                                      0x1p-30,
                                      -0x1p-30,
                                      0.5,
                                      -0.5,
                                      -700,
                                      std::nextafter(-700.0, 0.0),
                                      std::nextafter(-700.0, -800.0),
                                      1};
        // Near multiples of ln 2 (the reduction's cancellation) and, under base 2, whole and half
        // numbers (2^t exact, and the reduction's ties).
        for (int k = -1010; k <= 1; ++k) {
            const double m = base == ExpBase::E ? k * 0x1.62e42fefa39efp-1 : k;
            for (double x : {m, std::nextafter(m, -2000.0), std::nextafter(m, 2000.0), m + 0.5}) points.push_back(x);
            points.push_back(base == ExpBase::E ? (k + 0.5) * 0x1.62e42fefa39efp-1 : k - 0.5);
        }
        for (double p : points) {
            if (base == ExpBase::E && p < -760) continue;
            check_exp(a, {p, 0, 0});
            check_exp(a, {p, 0, std::fabs(p) * 0x1p-90 + 0x1p-1000});
        }
    }
}

TEST(OracleDdArith, SumsProductsAndQuotientsEncloseTheExactResults) {
    std::mt19937_64 rng(83);
    std::uniform_int_distribution<int> exps(-1000, 60);
    const DdArith a(ExpBase::E, Scale{}, 64);
    for (int n = 0; n < 20000; ++n) {
        const int ex = exps(rng), ey = n % 4 == 0 ? ex : exps(rng);
        Iv x = random_dd(rng, ex, true), y = random_dd(rng, ey, true);
        if (n % 5 == 0) y = {-x.h, -x.l * 0.5, y.r};  // cancellation
        if (n % 7 == 0) y = {0, 0, 0};                // an exact zero
        const double v = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), exps(rng) / 4);
        Iv sum, prod, prod_d, quot, diff;
        DdArith::add_iv(sum, x, y);
        DdArith::mul_iv(prod, x, y);
        DdArith::mul_d(prod_d, x, v);
        exactattn::oracle::detail::grad::sub_iv(a, diff, x, y);
        Iv d = y;
        d.h = std::fabs(d.h), d.l = d.h == y.h ? d.l : -d.l;  // a positive divisor (or 0: nothing known)
        a.div(quot, x, d);
        Big xl, xm, xh, yl, ym, yh, t, dl, dm, dh, ql(600), qh(600);
        const auto xs = samples(x, xl, xm, xh), ys = samples(y, yl, ym, yh), ds = samples(d, dl, dm, dh);
        for (Big* p : xs) {
            mpfr_mul_d(t.x, p->x, v, MPFR_RNDN);
            ASSERT_TRUE(inside(prod_d, t.x)) << n;
            for (Big* q : ys) {
                mpfr_add(t.x, p->x, q->x, MPFR_RNDN);
                ASSERT_TRUE(inside(sum, t.x)) << n;
                mpfr_sub(t.x, p->x, q->x, MPFR_RNDN);
                ASSERT_TRUE(inside(diff, t.x)) << n;
                mpfr_mul(t.x, p->x, q->x, MPFR_RNDN);
                ASSERT_TRUE(inside(prod, t.x)) << n;
            }
            for (Big* q : ds) {
                if (mpfr_sgn(q->x) <= 0) continue;
                mpfr_div(ql.x, p->x, q->x, MPFR_RNDD);
                mpfr_div(qh.x, p->x, q->x, MPFR_RNDU);
                ASSERT_TRUE(inside(quot, ql.x, qh.x)) << n;
            }
        }
        // Exact operands: the radius is the operation's error bound alone (about 2^−103 of the
        // operands), and an exact zero stays exact.
        const Iv xe{x.h, x.l, 0}, ye{y.h, y.l, 0};
        DdArith::add_iv(sum, xe, ye);
        DdArith::mul_iv(prod, xe, ye);
        EXPECT_LE(sum.r, 0x1p-101 * (std::fabs(x.h) + std::fabs(y.h)) + 0x1p-1059) << n;
        EXPECT_LE(prod.r, 0x1p-101 * std::fabs(x.h * y.h) + 0x1p-1059) << n;
        if (y.h == 0) {
            EXPECT_EQ(prod.r, 0) << n;
        }
    }
}

TEST(OracleDdArith, AFloat32RoundingIsDecidedOnlyWhenTheWholeIntervalRoundsToIt) {
    // Values 2^−30 to 2^−60 (relative) from float32 midpoints, on either side, with radii from
    // 2^−40 to 2^−100: decided ones round as MPFR rounds the exact ends at 24 bits (a value
    // within a double's ulp of the midpoint is left undecided: the ends are doubles), and
    // bounds() are the doubles at or beyond the ends.
    std::mt19937_64 rng(5);
    const DdArith a(ExpBase::E, Scale{}, 64);
    int decided = 0;
    for (int n = 0; n < 20000; ++n) {
        const float f = std::ldexp(static_cast<float>((rng() >> 40) | (1U << 23)), static_cast<int>(rng() % 60) - 90);
        const double mid = (static_cast<double>(f) + static_cast<double>(std::nextafter(f, INFINITY))) / 2;  // exact
        const double off = std::ldexp(mid, -static_cast<int>(30 + rng() % 31)) * (rng() % 2 ? 1 : -1);
        double h = 0, l = 0;
        DdArith::two_sum(mid, off, h, l);
        const Iv v{h, l, std::ldexp(std::fabs(mid), -static_cast<int>(40 + rng() % 61))};
        const auto r = a.decide(v, FloatFormat::Float32);
        Big lo, hi, x(24);
        ends(v, lo.x, hi.x);
        const auto [blo, bhi] = a.bounds(v);
        ASSERT_GE(mpfr_cmp_d(lo.x, blo), 0) << n;
        ASSERT_LT(mpfr_cmp_d(lo.x, std::nextafter(blo, INFINITY)), 0) << n;
        ASSERT_LE(mpfr_cmp_d(hi.x, bhi), 0) << n;
        ASSERT_GT(mpfr_cmp_d(hi.x, std::nextafter(bhi, -INFINITY)), 0) << n;
        if (!r) continue;
        ++decided;
        for (Big* e : {&lo, &hi}) {
            mpfr_set(x.x, e->x, MPFR_RNDN);  // to 24 bits
            ASSERT_EQ(mpfr_get_d(x.x, MPFR_RNDN), *r) << n;
        }
    }
    EXPECT_GT(decided, 5000);
    EXPECT_LT(decided, 19000);
}

// End to end: a random float32 problem whose double stage leaves entries open is decided by the
// double-double stage (no MPFR pass: max_precision 106), and every rounded dQ, dK, dV, P and dS
// equals the textbook formulas evaluated in MPFR at 300 bits here and rounded once to float32.
TEST(OracleDdArith, TheStageDecidesTheGradientsAsTheTextbookFormulasAt300BitsRound) {
    constexpr std::int64_t n = 48, d = 16;
    std::mt19937_64 rng(15);
    std::normal_distribution<float> normal;
    const auto draw = [&](std::int64_t r, std::int64_t c) {
        std::vector<double> x(static_cast<std::size_t>(r * c));
        for (double& y : x) y = normal(rng);
        return Tensor{{r, c}, std::move(x), FloatFormat::Float32};
    };
    Problem p;
    p.q = draw(n, d), p.k = draw(n, d), p.v = draw(n, d);
    const Tensor dout = draw(n, d);
    const GradReference g = grad_reference(p, dout, FloatFormat::Float32);
    EXPECT_EQ(g.max_precision, 106);  // some entry needed more than doubles, none MPFR
    // c = 1/4 (d = 16): the formulas at 300 bits, each rounded to nearest.
    const mpfr_prec_t w = 300;
    std::vector<Big> P, dS;
    for (std::int64_t x = 0; x < n * n; ++x) P.emplace_back(w), dS.emplace_back(w);
    Big t(w), u(w), sum(w);
    for (std::int64_t i = 0; i < n; ++i) {
        mpfr_set_zero(sum.x, 1);
        for (std::int64_t j = 0; j < n; ++j) {
            mpfr_set_zero(t.x, 1);
            for (std::int64_t x = 0; x < d; ++x) {
                mpfr_set_d(u.x, p.q.data[i * d + x], MPFR_RNDN);
                mpfr_mul_d(u.x, u.x, p.k.data[j * d + x], MPFR_RNDN);
                mpfr_add(t.x, t.x, u.x, MPFR_RNDN);
            }
            mpfr_div_ui(t.x, t.x, 4, MPFR_RNDN);
            mpfr_exp(P[i * n + j].x, t.x, MPFR_RNDN);
            mpfr_add(sum.x, sum.x, P[i * n + j].x, MPFR_RNDN);
        }
        Big dd(w);
        mpfr_set_zero(dd.x, 1);
        std::vector<double> dp(static_cast<std::size_t>(n));
        for (std::int64_t j = 0; j < n; ++j) {
            mpfr_div(P[i * n + j].x, P[i * n + j].x, sum.x, MPFR_RNDN);
            mpfr_set_zero(t.x, 1);
            for (std::int64_t c = 0; c < d; ++c) {
                mpfr_set_d(u.x, dout.data[i * d + c], MPFR_RNDN);
                mpfr_mul_d(u.x, u.x, p.v.data[j * d + c], MPFR_RNDN);
                mpfr_add(t.x, t.x, u.x, MPFR_RNDN);
            }
            mpfr_set(dS[i * n + j].x, t.x, MPFR_RNDN);  // dP for now
            mpfr_mul(u.x, t.x, P[i * n + j].x, MPFR_RNDN);
            mpfr_add(dd.x, dd.x, u.x, MPFR_RNDN);
        }
        for (std::int64_t j = 0; j < n; ++j) {
            mpfr_sub(dS[i * n + j].x, dS[i * n + j].x, dd.x, MPFR_RNDN);
            mpfr_mul(dS[i * n + j].x, dS[i * n + j].x, P[i * n + j].x, MPFR_RNDN);
        }
    }
    Big r(24);
    const auto f32 = [&](mpfr_srcptr x) {
        mpfr_set(r.x, x, MPFR_RNDN);  // to 24 bits: every value here is a normal float32
        return mpfr_get_d(r.x, MPFR_RNDN);
    };
    for (std::int64_t x = 0; x < n * n; ++x) {
        ASSERT_EQ(g.p.val[x], f32(P[x].x)) << "p " << x;
        ASSERT_EQ(g.ds.val[x], f32(dS[x].x)) << "ds " << x;
    }
    for (std::int64_t a = 0; a < n; ++a)
        for (std::int64_t y = 0; y < d; ++y) {
            Big dq(w), dk(w), dv(w);
            mpfr_set_zero(dq.x, 1), mpfr_set_zero(dk.x, 1), mpfr_set_zero(dv.x, 1);
            for (std::int64_t b = 0; b < n; ++b) {
                mpfr_mul_d(t.x, dS[a * n + b].x, p.k.data[b * d + y], MPFR_RNDN);  // dQ_ay += dS_ab k_by
                mpfr_add(dq.x, dq.x, t.x, MPFR_RNDN);
                mpfr_mul_d(t.x, dS[b * n + a].x, p.q.data[b * d + y], MPFR_RNDN);  // dK_ay += dS_ba q_by
                mpfr_add(dk.x, dk.x, t.x, MPFR_RNDN);
                mpfr_mul_d(t.x, P[b * n + a].x, dout.data[b * d + y], MPFR_RNDN);  // dV_ay += P_ba dO_by
                mpfr_add(dv.x, dv.x, t.x, MPFR_RNDN);
            }
            mpfr_div_ui(dq.x, dq.x, 4, MPFR_RNDN);
            mpfr_div_ui(dk.x, dk.x, 4, MPFR_RNDN);
            ASSERT_EQ(g.dq.val[a * d + y], f32(dq.x)) << "dq " << a << " " << y;
            ASSERT_EQ(g.dk.val[a * d + y], f32(dk.x)) << "dk " << a << " " << y;
            ASSERT_EQ(g.dv.val[a * d + y], f32(dv.x)) << "dv " << a << " " << y;
        }
}
