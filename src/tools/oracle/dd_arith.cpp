// SPDX-License-Identifier: MIT
// exactattn oracle: the double-double stage's interval arithmetic (dd_arith.hpp).
//
// The error bounds of the three midpoint operations (u = 2^−53; |x.l| ≤ u|x.h|, |y.l| ≤ u|y.h|;
// a rounding to nearest errs by at most u times its result, or not at all when the result is
// below 2^−1021 for a sum, or by 2^−1075 when a product is subnormal; TwoSum is exact always, and
// TwoProduct's fma error term is exact when |x.h·y.h| ≥ 2^−969):
// * add_dd: (s, e) = TwoSum(x.h, y.h), b = fl(fl(x.l + y.l) + e), z = TwoSum(s, b) exactly. The
//   first rounding errs by u|x.l + y.l| ≤ u²(|x.h| + |y.h|); |e| ≤ u|s| ≤ u(1 + u)(|x.h| + |y.h|),
//   so the second errs by u|b| ≤ 2u²(1 + u)²(|x.h| + |y.h|): in all 3.01u²(|x.h| + |y.h|), and 4u²
//   computed covers the computation's own rounding. Below 2^−900 a rounding may be one of a
//   subnormal (2^−1075 each): 2^−1060 is added.
// * mul_dd: (p, e) = TwoProduct(x.h, y.h), c = fma(x.l, y.h, fl(x.h·y.l)), z = TwoSum(p, fl(c + e)).
//   The errors: u|x.h·y.l| ≤ u²|x.h y.h|; u|c| ≤ 2.01u²|x.h y.h|; u|c + e| ≤ 3.02u²|x.h y.h|; the
//   dropped x.l·y.l ≤ u²|x.h y.h|: 7.03u²|x.h y.h| ≤ 7.04u²|p|. 8u²|p| leaves 0.96u²|p| ≥ 2^−1006
//   when |p| ≥ 2^−900, more than the three subnormal roundings (3·2^−1075) that can still occur;
//   below 2^−900, 2^−1060 covers them and an inexact e.
// * mul_d_dd (a double v): (p, e) = TwoProduct(x.h, v), z = TwoSum(p, fma(x.l, v, e)): one
//   rounding of u|x.l v + e| ≤ 2.01u²|p|; 4u²|p| computed (+ 2^−1060 below 2^−900).
// The interval operations add the operands' radii (x.r(|ỹ| + y.r) + |x̃|y.r for a product) and
// multiply the sum by 1 + 2^−47, which covers |x̃| ≤ (1 + u)|x.h| and the ≤ 31 roundings of any
// radius formula here (every term nonnegative: (1 + u)^32 < 1 + 2^−47.9); 2^−1060 is added where
// a product of radii may underflow.
#include "dd_arith.hpp"

#include <mpfr.h>

#include <array>
#include <cmath>
#include <limits>

namespace exactattn::oracle::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A 256-bit MPFR value as a double-double (h the nearest double, l the nearest to the rest),
// enclosed with radius 2^−104|h|: |x − h − l| ≤ u|x − h| ≤ u²|h| = 2^−106|h|, and x is within
// 2^−255|x| of the value it stands for. Radius 0 when x is that value exactly (`exact`, MPFR's
// ternary value 0) and h + l is x.
DdArith::Iv from_mpfr(mpfr_ptr x, bool exact) {
    mpfr_t t;
    mpfr_init2(t, 256);
    const double h = mpfr_get_d(x, MPFR_RNDN);
    mpfr_sub_d(t, x, h, MPFR_RNDN);  // exact: x and h agree on their leading bits
    const double l = mpfr_get_d(t, MPFR_RNDN);
    const bool whole = exact && mpfr_cmp_d(t, l) == 0;
    mpfr_clear(t);
    return {h, l, whole ? 0 : std::fabs(h) * 0x1p-104};
}

constexpr int kDegree = 13;  // Taylor polynomial of e^s, |s| ≤ 2^−5.5
constexpr int kSquarings = 4;

// 1/n! for n ≤ kDegree: exact for n ≤ 2, else within 2^−104 relative (from_mpfr).
const std::array<DdArith::Iv, kDegree + 1>& inverse_factorials() {
    static const std::array<DdArith::Iv, kDegree + 1> c = [] {
        std::array<DdArith::Iv, kDegree + 1> r{};
        mpfr_t x;
        mpfr_init2(x, 256);
        for (int n = 0; n <= kDegree; ++n) {
            mpfr_fac_ui(x, static_cast<unsigned long>(n), MPFR_RNDN);  // exact: 13! < 2^33
            mpfr_ui_div(x, 1, x, MPFR_RNDN);
            r[n] = n <= 2 ? DdArith::Iv{n == 2 ? 0.5 : 1.0, 0, 0} : from_mpfr(x, false);
        }
        mpfr_clear(x);
        return r;
    }();
    return c;
}

}  // namespace

DdArith::DdArith(ExpBase b, const Scale& s, std::int64_t dk) : base(b) {
    mpfr_t x;
    mpfr_init2(x, 256);
    mpfr_const_log2(x, MPFR_RNDN);
    ln2 = from_mpfr(x, false);
    if (s.kind == ScaleKind::SqrtDk) {
        mpfr_set_si(x, static_cast<long>(dk), MPFR_RNDN);        // exact: d_k < 2^63
        const bool exact = mpfr_rec_sqrt(x, x, MPFR_RNDN) == 0;  // 1/2^k for d_k = 4^k
        scale = from_mpfr(x, exact);
    } else {
        scale = {s.kind == ScaleKind::None ? 1.0 : s.value, 0, 0};
    }
    mpfr_clear(x);
}

void DdArith::div(Iv& r, const Iv& x, const Iv& d) const {
    // Every D in d is at least dlo: fl(|d.l| + d.r)·(1 + 2^−47) ≥ |d.l| + d.r, and the
    // difference's rounding (≤ 1 + u) times 1 − 2^−52 (≤ (1 + u)(1 − 2u)) stays below d.h −
    // |d.l| − d.r.
    const double dlo = (d.h - (std::fabs(d.l) + d.r) * kUp) * (1 - 0x1p-52);
    if (!(dlo > 0) || !std::isfinite(x.h) || !std::isfinite(x.r)) {
        r = unknown();
        return;
    }
    if (x.h == 0 && x.r == 0) {
        r = {};
        return;
    }
    // The midpoints' quotient: q1 = x.h/d.h, R = x̃ − q1·d̃ formed as rr within e1 + e2 (mul_d_dd,
    // add_dd), q2 = rr.h/d.h, z = q1 + q2 exactly. x̃/d̃ = q1 + R/d̃, so |z − x̃/d̃| = |q2 − R/d̃|
    // ≤ u|q2|/(1 − u) + |rr.h|·|d.l|/(d.h d̃) + |rr.l|/d̃ + (e1 + e2)/d̃ ≤ 2u|q2| + (2u|rr.h| + e1 +
    // e2)/dlo. And for X in x, D in d: |X/D − x̃/d̃| ≤ x.r/dlo + |x̃|·d.r/dlo².
    const double q1 = x.h / d.h;
    Iv p, rr;
    double e1 = 0, e2 = 0;
    mul_d_dd(d, q1, p, e1);
    add_dd(x, {-p.h, -p.l, 0}, rr, e2);
    const double q2 = rr.h / d.h;
    Iv z;
    two_sum(q1, q2, z.h, z.l);
    const double rad = 2 * 0x1p-53 * std::fabs(q2) + (2 * 0x1p-53 * std::fabs(rr.h) + e1 + e2 + x.r) / dlo +
                       std::fabs(x.h) / dlo * (d.r / dlo);  // no product before a division: no underflow amplified
    z.r = rad * kUp + kEta;                                 // kEta: a quotient may be subnormal
    r = z;
}

void DdArith::exp(Iv& r, const Iv& t) const {
    // base^T = e^X, X = T·ln 2 under base 2. e^X = 2^k·(e^S)^16 for S = (X − k ln 2)/16: the
    // reduction, the Taylor polynomial of degree 13 in S and the four squarings in the interval
    // operations (each encloses the exact result for every value of its operands), the
    // polynomial's truncation added to its radius: |Σ_{n>13} S^n/n!| ≤ 2|S|^14/14! for |S| ≤ 1/2
    // (below 2^−112 for |S| ≤ 2^−5.5). The scaling by 2^k is exact while 2^k·(e^S)^16 is normal;
    // from k < −900 on, the low part and the radius may lose bits below 2^−1074: 2^−1060 covers.
    Iv x = t;
    if (base == ExpBase::Two) mul_iv(x, t, ln2);
    if (!std::isfinite(x.h) || !(x.r <= 0x1p-20) || x.h > 700) {
        r = unknown();
        return;
    }
    if (x.h < -700) {  // X ≤ x.h + |x.l| + x.r < −699: e^X < 2^−1008
        r = {0, 0, 0x1p-1000};
        return;
    }
    const double k = std::nearbyint(x.h * 0x1.71547652b82fep0);  // any integer would do
    Iv y, s;
    mul_d(y, ln2, -k);
    add_iv(y, x, y);  // X − k ln 2: |y| ≤ ln 2/2 + 2^−19
    mul_d(s, y, 1.0 / (1 << kSquarings));
    const double smax = (std::fabs(s.h) + s.r) * kUp;  // ≥ |S|
    if (!(smax <= 0x1p-5)) {
        r = unknown();
        return;
    }
    const auto& c = inverse_factorials();
    Iv p = c[kDegree];
    for (int n = kDegree - 1; n >= 0; --n) {
        mul_iv(p, p, s);
        add_iv(p, p, c[n]);
    }
    double tail = 2.0 / 87178291200.0 * kUp;  // 2/14!, rounded up
    for (int n = 0; n < kDegree + 1; ++n) tail *= smax;
    p.r = (p.r + tail) * kUp + kEta;  // kEta: the powers of smax may underflow
    for (int n = 0; n < kSquarings; ++n) mul_iv(p, p, p);
    const int e = static_cast<int>(k);
    r = {std::ldexp(p.h, e), std::ldexp(p.l, e), std::ldexp(p.r, e) * kUp + (e < -900 ? kEta : 0)};
}

void DdArith::dot_of(Iv& r, const DoubleArith::Acc& acc) const {
    // As MpfrArith::dot_of: Dot2's s + c, unrounded, errs by at most γ_2d² Σ|q k| (Ogita, Rump and
    // Oishi, Sum2 before its final rounding), and s + c is a double-double exactly.
    const double n = static_cast<double>(acc.n), g = 2 * n * 0x1p-53 / (1 - 2 * n * 0x1p-53);
    const double e = (g * g * acc.abs / (1 - g) + 4 * n * 0x1p-1074) * (1 + 0x1p-40);
    if (!(std::isfinite(acc.s) && std::isfinite(acc.c) && std::isfinite(e) && 2 * n * 0x1p-53 < 0.25)) {
        r = unknown();
        return;
    }
    two_sum(acc.s, acc.c, r.h, r.l);
    r.r = acc.n == 0 ? 0 : e;
}

std::pair<double, double> DdArith::outward(const Iv& x) {
    if (!std::isfinite(x.h) || !std::isfinite(x.l) || !std::isfinite(x.r)) return {-kInf, kInf};
    // down(fl(z)) ≤ z for every real z rounded to nearest, and likewise up.
    return {down(x.h + down(x.l - x.r)), up(x.h + up(x.l + x.r))};
}

std::pair<double, double> DdArith::bounds(const Iv& x) const {
    const auto out = outward(x);
    if (!std::isfinite(out.first) || !std::isfinite(out.second)) return out;
    // h + l ± r exactly (three doubles: within 2^1025 and multiples of 2^−1074, so 2200 bits
    // hold them), then the doubles at or beyond each end, as MpfrArith::bounds gives.
    mpfr_t t;
    mpfr_init2(t, 2200);
    mpfr_set_d(t, x.h, MPFR_RNDN);
    mpfr_add_d(t, t, x.l, MPFR_RNDN);
    mpfr_sub_d(t, t, x.r, MPFR_RNDN);
    const double lo = mpfr_get_d(t, MPFR_RNDD);
    mpfr_add_d(t, t, x.r, MPFR_RNDN);
    mpfr_add_d(t, t, x.r, MPFR_RNDN);
    const double hi = mpfr_get_d(t, MPFR_RNDU);
    mpfr_clear(t);
    return {lo, hi};
}

std::optional<double> DdArith::decide(const Iv& x, FloatFormat f) const {
    if (f == FloatFormat::Float64) return std::nullopt;
    const auto [lo, hi] = outward(x);
    if (!std::isfinite(lo) || !std::isfinite(hi)) return std::nullopt;
    // Rounding is monotone: every value in [lo, hi] rounds to f between their roundings.
    const double a = round_to(lo, f), b = round_to(hi, f);
    if (a == 0 && b == 0) return 0.0;  // an enclosure across 0 gives +0, never −0 (as the others)
    if (a == b) return a;
    return std::nullopt;
}

}  // namespace exactattn::oracle::detail
