// SPDX-License-Identifier: MIT
// exactattn oracle: outward-rounded double and MPFR interval arithmetic (arith.hpp).
#include "arith.hpp"
#include "exp_double.hpp"

#include <gmpxx.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace exactattn::oracle::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// An exact rational from an MPFR number (finite).
mpq_class to_q(mpfr_srcptr x) {
    mpq_class q;
    mpfr_get_q(q.get_mpq_t(), x);
    return q;
}

// exp or exp2 of an exact double, rounded in `rnd` at the precision of r.
void exp_at(mpfr_ptr r, mpfr_srcptr t, ExpBase base, mpfr_rnd_t rnd) {
    if (base == ExpBase::E)
        mpfr_exp(r, t, rnd);
    else
        mpfr_exp2(r, t, rnd);
}

}  // namespace

DoubleArith::Iv double_scale(const Scale& s, std::int64_t dk) {
    if (s.kind == ScaleKind::None) return {1, 1};
    if (s.kind == ScaleKind::Given) return {s.value, s.value};
    mpfr_t x, r;
    mpfr_inits2(64, x, r, static_cast<mpfr_ptr>(nullptr));
    mpfr_set_si(x, static_cast<long>(dk), MPFR_RNDN);  // exact: d_k < 2^63
    mpfr_rec_sqrt(r, x, MPFR_RNDD);
    const double lo = mpfr_get_d(r, MPFR_RNDD);
    mpfr_rec_sqrt(r, x, MPFR_RNDU);
    const double hi = mpfr_get_d(r, MPFR_RNDU);
    mpfr_clears(x, r, static_cast<mpfr_ptr>(nullptr));
    return {lo, hi};
}

DoubleArith::Acc DoubleArith::dot2(const double* q, const double* k, std::int64_t d) {
    Acc acc;
    for (std::int64_t i = 0; i < d; ++i) {
        const double p = q[i] * k[i];
        acc.c += std::fma(q[i], k[i], -p);
        two_sum(acc, p);
        acc.abs += std::fabs(p);
    }
    acc.n = d;
    return acc;
}

void DoubleArith::dot(Iv& r, const double* q, const double* k, std::int64_t d, double* abs_up) const {
    dot_of(r, dot2(q, k, d), abs_up);
}

void DoubleArith::dot_of(Iv& r, const Acc& acc, double* abs_up) const {
    finish(r, acc);
    const double g = static_cast<double>(acc.n) * 0x1p-53;
    if (abs_up != nullptr) *abs_up = acc.abs / (1 - g) * (1 + 0x1p-40);
}

void DoubleArith::finish(Iv& r, const Acc& acc) const {
    // Dot2: |fl(s + c) − Σ| ≤ u|fl(s + c)| + γ_n² Σ|x_i| (2n products and sums: γ_2n here), an
    // underflowing product adds η (its fma error is then not exact); the computed Σ|x_i| and Σ
    // radii are low by at most the factor 1 − γ_n; 2^−40 covers this expression's roundings.
    const double n = static_cast<double>(acc.n), u = 0x1p-53, g = 2 * n * u / (1 - 2 * n * u);
    const double mid = acc.s + acc.c;
    const double e = (u * std::fabs(mid) + (g * g * acc.abs + acc.rad) / (1 - g) + 4 * n * 0x1p-1074) * (1 + 0x1p-40);
    r = {down(mid - e), up(mid + e)};
    if (!std::isfinite(mid) || !std::isfinite(e) || n * u >= 0.25) r = {-kInf, kInf};
}

void DoubleArith::mul(Iv& r, const Iv& x, const Iv& y) const {
    const double c[4] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi};
    double lo = c[0], hi = c[0];
    for (double v : c) {
        if (std::isnan(v)) v = 0;  // 0·inf: the factor 0 is exact
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    r = {down(lo), up(hi)};
}

namespace {

// b^m for a double m ≤ 709 (b = e or 2) with a proven relative error below 6·10^−15, plus
// 2^−1074 absolute where the result is subnormal (docs/oracle.md, "The certified reference"):
// m = k·ln 2 + r (Cody–Waite: k·L_hi is exact with L_hi's 32 bits, and m − k·L_hi is exact by
// Sterbenz), r within 2^−52 + 1100·2^−86 of the true remainder, |r| ≤ 0.35, and the Taylor
// polynomial of degree 13 (truncation below 10^−17, Horner's rounding below γ_26·e^0.7 <
// 6·10^−15 relative). The caller widens by 2^−46, more than twice this bound.
double exp_double(double m, ExpBase base, int& k) {
    using namespace exp_double_constants;
    double r;
    if (base == ExpBase::E) {
        k = static_cast<int>(std::nearbyint(m * kInvLn2));
        r = (m - k * kLn2Hi) - k * kLn2Lo;
    } else {
        k = static_cast<int>(std::nearbyint(m));
        r = (m - k) * kLn2;  // m − k exact; ln 2 rounded: relative 2^−53 on r
    }
    const double* c = kTaylor;
    double p = c[13];
    for (int i = 12; i >= 0; --i) p = p * r + c[i];
    return p;
}

}  // namespace

void DoubleArith::exp(Iv& r, const Iv& t) const {
    // b^t ∈ b^m·[e^−ρ, e^ρ] for the midpoint m and radius ρ (ln 2 < 1 for base 2), and
    // e^ρ ≤ 1 + 2ρ, e^−ρ ≥ 1 − 2ρ for ρ ≤ 1/2.
    const double m = t.lo + (t.hi - t.lo) / 2, rho = up(std::max(t.hi - m, m - t.lo));
    const double top = base == ExpBase::E ? 709 : 1023;
    if (!(rho <= 0.5) || !(m <= top)) {
        r = {0, kInf};
        return;
    }
    if (m < -1100) {  // below every subnormal: (0, 2^−1074]
        r = {0, 0x1p-1074};
        return;
    }
    int k = 0;
    const double p = exp_double(m, base, k);
    // p·2^k: exact unless subnormal (then within 2^−1075); split the scaling so 2^k never overflows
    // (−794 ≤ k/2 ≤ 512: each power a normal double from its bits, the first product exact, the
    // second one rounding, as std::ldexp's).
    const auto pow2 = [](int n) { return std::bit_cast<double>(static_cast<std::uint64_t>(n + 1023) << 52); };
    const double v = p * pow2(k / 2) * pow2(k - k / 2);
    const double lo = down(down(v * (1 - 0x1p-46)) * down(1 - 2 * rho)) - 0x1p-1074;
    const double hi = up(up(v * (1 + 0x1p-46)) * up(1 + 2 * rho)) + 0x1p-1074;
    r = {std::max(lo, 0.0), hi};
}

void DoubleArith::div(Iv& r, const Iv& x, const Iv& d) const {
    const double lo = x.lo >= 0 ? x.lo / d.hi : x.lo / d.lo;
    const double hi = x.hi >= 0 ? x.hi / d.lo : x.hi / d.hi;
    r = {down(lo), up(hi)};
    if (!(d.lo > 0)) r = {-kInf, kInf};
}

void DoubleArith::log_plus(Iv& r, const Iv& d, double m) const {
    mpfr_t x, l;
    mpfr_inits2(53, x, l, static_cast<mpfr_ptr>(nullptr));
    double out[2];
    const double ends[2] = {d.lo, d.hi};
    const mpfr_rnd_t rnd[2] = {MPFR_RNDD, MPFR_RNDU};
    for (int i = 0; i < 2; ++i) {
        mpfr_set_d(x, ends[i], MPFR_RNDN);
        if (base == ExpBase::E)
            mpfr_log(l, x, rnd[i]);
        else
            mpfr_log2(l, x, rnd[i]);
        out[i] = mpfr_get_d(l, rnd[i]);
    }
    mpfr_clears(x, l, static_cast<mpfr_ptr>(nullptr));
    r = {down(out[0] + m), up(out[1] + m)};
}

std::optional<double> DoubleArith::decide(const Iv& x, FloatFormat f) const {
    if (!std::isfinite(x.lo) || !std::isfinite(x.hi)) return std::nullopt;
    const double a = round_to(x.lo, f), b = round_to(x.hi, f);
    if (a == 0 && b == 0) return 0.0;  // an enclosure across 0 gives +0, never −0
    if (a == b && (f != FloatFormat::Float64 || x.lo == x.hi)) return a;
    return std::nullopt;
}

MpfrArith::MpfrArith(mpfr_prec_t p, ExpBase b, const Scale& s, std::int64_t dk)
    : prec(p), base(b), scale(p), scratch(p) {
    if (s.kind == ScaleKind::SqrtDk) {
        mpfr_set_si(scale.lo, static_cast<long>(dk), MPFR_RNDN);
        mpfr_rec_sqrt(scale.hi, scale.lo, MPFR_RNDU);
        mpfr_rec_sqrt(scale.lo, scale.lo, MPFR_RNDD);
    } else {
        const double c = s.kind == ScaleKind::None ? 1.0 : s.value;
        mpfr_set_d(scale.lo, c, MPFR_RNDN);  // exact: p ≥ 53
        mpfr_set_d(scale.hi, c, MPFR_RNDN);
    }
}

void MpfrArith::dot(Iv& r, const double* q, const double* k, std::int64_t d, double* abs_up) const {
    if (abs_up != nullptr) *abs_up = kInf;  // the facts come from the double stage
    if (prec <= 128 && dot_of(r, DoubleArith::dot2(q, k, d))) return;
    mpfr_t p;
    mpfr_init2(p, 2 * 53);  // the product of two doubles, exactly
    mpfr_set_zero(r.lo, 1);
    mpfr_set_zero(r.hi, 1);
    for (std::int64_t i = 0; i < d; ++i) {
        mpfr_set_d(p, q[i], MPFR_RNDN);
        mpfr_mul_d(p, p, k[i], MPFR_RNDN);  // exact at 106 bits
        mpfr_add(r.lo, r.lo, p, MPFR_RNDD);
        mpfr_add(r.hi, r.hi, p, MPFR_RNDU);
    }
    mpfr_clear(p);
}

bool MpfrArith::dot_of(Iv& r, const DoubleArith::Acc& acc) const {
    // Dot2's s + c, not rounded to one double, errs by at most γ_2d² Σ|q k| (Ogita, Rump and
    // Oishi, Sum2 before its final rounding): about 90 bits for d = 64, enough for the first
    // MPFR step; exact products take over from 256 bits on.
    if (prec > 128) return false;
    const double n = static_cast<double>(acc.n), g = 2 * n * 0x1p-53 / (1 - 2 * n * 0x1p-53);
    const double e = (g * g * acc.abs / (1 - g) + 4 * n * 0x1p-1074) * (1 + 0x1p-40);
    if (!(std::isfinite(acc.s) && std::isfinite(e) && 2 * n * 0x1p-53 < 0.25)) return false;
    mpfr_set_d(r.lo, acc.s, MPFR_RNDN);
    mpfr_add_d(r.hi, r.lo, acc.c, MPFR_RNDU);
    mpfr_add_d(r.lo, r.lo, acc.c, MPFR_RNDD);
    mpfr_sub_d(r.lo, r.lo, e, MPFR_RNDD);
    mpfr_add_d(r.hi, r.hi, e, MPFR_RNDU);
    return true;
}

void MpfrArith::mul(Iv& r, const Iv& x, const Iv& y) const {
    // Scores times the scale c > 0 (c = 0 only for a given scale of 0: exact zeros).
    if (mpfr_sgn(y.lo) >= 0) {
        mpfr_srcptr a = mpfr_sgn(x.lo) >= 0 ? y.lo : y.hi;  // lo·c: the smaller c when lo ≥ 0
        mpfr_srcptr b = mpfr_sgn(x.hi) >= 0 ? y.hi : y.lo;
        mpfr_mul(r.lo, x.lo, a, MPFR_RNDD);
        mpfr_mul(r.hi, x.hi, b, MPFR_RNDU);
    } else {  // a negative given scale: exact, so y.lo = y.hi
        mpfr_t t;
        mpfr_init2(t, prec);
        mpfr_mul(t, x.hi, y.lo, MPFR_RNDD);
        mpfr_mul(r.hi, x.lo, y.hi, MPFR_RNDU);
        mpfr_swap(r.lo, t);
        mpfr_clear(t);
    }
}

namespace {

// x ← cap·tanh(x/cap) rounded toward `rnd`: the division, tanh and the product are increasing
// (cap > 0), so rounding each step the same way bounds the exact value on that side.
void softcap_end(mpfr_ptr x, double cap, mpfr_rnd_t rnd) {
    mpfr_div_d(x, x, cap, rnd);
    mpfr_tanh(x, x, rnd);
    mpfr_mul_d(x, x, cap, rnd);
}

// tanh y for a double y ≥ 0 enclosed in doubles [lo, hi] (docs/oracle.md, "The logit softcap",
// the double stage), in four ranges:
// * y < 2^−27: tanh y lies in [y − y³/3, y] and y³/3 < 2^−54 y is below half an ulp of y (or
//   of a subnormal's quantum), so [down(y), y].
// * y < 1/4: the odd Taylor series y·Σ_{n<12} a_n y^{2n}, a_n = 2^{2m}(2^{2m} − 1)B_{2m}/(2m)!
//   (m = n + 1), |a_n| = 2(2^{2m} − 1)ζ(2m)/π^{2m} ≤ 2ζ(2)(4/π²)^m, so the tail after 12 terms
//   is below 3.3·0.406^13·16^−12/(1 − 0.406/16) < 2^−62 relative; the coefficients rounded to
//   doubles, y² and Horner's 22 operations (γ_23·Σ|a_n|y^{2n} ≤ 1.03γ_23), the product by y and
//   P ≥ 1 − y²/3 ≥ 0.979 make the relative error below 2^−47.5; widened by 2^−46.
// * y < 20: tanh y = (1 − z)/(1 + z), z = e^{−2y} (−2y exact) from exp_double (relative 2^−46
//   with the widening of DoubleArith::exp), decreasing in z: each end from the other end of z,
//   every operation rounded outward.
// * y ≥ 20 (and a quotient that overflowed to +inf): 1 − tanh y = 2z/(1 + z) < 2e^−40 < 2^−53,
//   so [1 − 2^−53, 1].
// tanh y < min(y, 1) for y > 0 caps hi.
DoubleArith::Iv tanh_nonneg(double y) {
    if (y == 0) return {y, y};
    if (y < 0x1p-27) return {down(y), y};
    if (y < 0.25) {
        static const double a[12] = {1.0,
                                     -1.0 / 3,
                                     2.0 / 15,
                                     -17.0 / 315,
                                     62.0 / 2835,
                                     -1382.0 / 155925,
                                     21844.0 / 6081075,
                                     -929569.0 / 638512875,
                                     6404582.0 / 10854718875.0,
                                     -443861162.0 / 1856156927625.0,
                                     18888466084.0 / 194896477400625.0,
                                     -113927491862.0 / 2900518163668125.0};
        const double x = y * y;
        double p = a[11];
        for (int i = 10; i >= 0; --i) p = p * x + a[i];
        const double t = y * p;
        return {down(t * (1 - 0x1p-46)), std::min(up(t * (1 + 0x1p-46)), y)};
    }
    if (y < 20) {
        int k = 0;
        const double p = exp_double(-2 * y, ExpBase::E, k);  // sets k: its own statement
        const double v = std::ldexp(p, k);                   // normal: z ≥ e^−40
        const double zl = down(v * (1 - 0x1p-46)), zh = up(v * (1 + 0x1p-46));
        const double lo = down(down(1 - zh) / up(1 + zh)), hi = up(up(1 - zl) / down(1 + zl));
        return {std::max(lo, 0.0), std::min(hi, 1.0)};
    }
    return {1 - 0x1p-53, 1};
}

// tanh over all doubles by odd symmetry.
DoubleArith::Iv tanh_double(double y) {
    if (y >= 0) return tanh_nonneg(y);
    const DoubleArith::Iv t = tanh_nonneg(-y);
    return {-t.hi, -t.lo};
}

}  // namespace

void DoubleArith::softcap(Iv& r, double cap) const {
    // Each end: the quotient x/cap one step outward, tanh's enclosure, the product by cap one
    // step outward; an infinite end is ±cap exactly, a NaN stays. Near 0, |x/cap| < 2^−27
    // (cap·2^−28 rounded is below cap·2^−27): cap·tanh(x/cap) = x·tanh(y)/y lies between
    // x(1 − y²/3) and x, within less than half an ulp (or a subnormal quantum) of x: x and the
    // next double toward 0's other side.
    const auto end = [cap](double x, bool upper) {
        if (std::isnan(x) || x == 0) return x;
        if (std::isinf(x)) return x > 0 ? cap : -cap;
        if (std::fabs(x) < cap * 0x1p-28) return (x > 0) == upper ? x : upper ? up(x) : down(x);
        const double q = x / cap;
        const DoubleArith::Iv t = tanh_double(upper ? up(q) : down(q));
        const double p = cap * (upper ? t.hi : t.lo);
        return p == 0 ? p : upper ? up(p) : down(p);
    };
    r = {end(r.lo, false), end(r.hi, true)};
}

void MpfrArith::softcap(Iv& r, double cap) const {
    softcap_end(r.lo, cap, MPFR_RNDD);
    softcap_end(r.hi, cap, MPFR_RNDU);
}

void DoubleArith::softcap_slope(Iv& r, const Iv& c, double cap) const {
    // t = c/cap in [−1, 1]; t² from the end of larger magnitude (and 0 when t may be 0).
    const double lo = std::max(-1.0, down(c.lo / cap)), hi = std::min(1.0, up(c.hi / cap));
    const double big = std::max(std::fabs(lo), std::fabs(hi));
    const double small = lo <= 0 && hi >= 0 ? 0 : std::min(std::fabs(lo), std::fabs(hi));
    r = {std::max(0.0, down(1 - up(big * big))), std::min(1.0, up(1 - down(small * small)))};
}

void MpfrArith::softcap_slope(Iv& r, const Iv& c, double cap) const {
    mpfr_t lo, hi;
    mpfr_inits2(prec, lo, hi, static_cast<mpfr_ptr>(nullptr));
    mpfr_div_d(lo, c.lo, cap, MPFR_RNDD);
    mpfr_div_d(hi, c.hi, cap, MPFR_RNDU);
    const bool straddles = mpfr_sgn(lo) <= 0 && mpfr_sgn(hi) >= 0;
    mpfr_abs(lo, lo, MPFR_RNDN);
    mpfr_abs(hi, hi, MPFR_RNDN);
    if (mpfr_less_p(hi, lo)) mpfr_swap(lo, hi);  // lo: the smaller magnitude, hi: the larger
    if (straddles) mpfr_set_zero(lo, 1);
    mpfr_sqr(hi, hi, MPFR_RNDU);
    mpfr_sqr(lo, lo, MPFR_RNDD);
    mpfr_ui_sub(r.lo, 1, hi, MPFR_RNDD);
    mpfr_ui_sub(r.hi, 1, lo, MPFR_RNDU);
    if (mpfr_sgn(r.lo) < 0) mpfr_set_zero(r.lo, 1);
    mpfr_clears(lo, hi, static_cast<mpfr_ptr>(nullptr));
}

void MpfrArith::sub(Iv& r, const Iv& x, const Shift& m) const {
    mpfr_sub(r.lo, x.lo, m.lo, MPFR_RNDD);
    mpfr_sub(r.hi, x.hi, m.lo, MPFR_RNDU);
}

void MpfrArith::exp(Iv& r, const Iv& t) const {
    exp_at(r.lo, t.lo, base, MPFR_RNDD);
    // The upper end from the lower one when the enclosure is narrow (it is, past the double
    // stage): with δ = t.hi − t.lo ≤ 2^−10 (times ln 2 under base 2), e^δ ≤ 1 + δ + δ², and
    // exp(t.lo) < next(r.lo), so next(r.lo)·(1 + δ + δ²) rounded up bounds exp(t.hi). One
    // exponential a weight instead of two: half the MPFR pass of the gradients.
    // A point t keeps its two exponentials (2^t is exact for a whole t under base 2).
    if (mpfr_number_p(t.lo) != 0 && mpfr_number_p(t.hi) != 0 && mpfr_equal_p(t.lo, t.hi) == 0 &&
        mpfr_number_p(r.lo) != 0 && mpfr_sgn(r.lo) > 0) {
        mpfr_ptr d = scratch.d;  // 64 bits: an upper bound of δ; its own rounding adds δ·2^−63
        mpfr_sub(d, t.hi, t.lo, MPFR_RNDU);
        if (base == ExpBase::Two) mpfr_mul_d(d, d, 0x1.62e42fefa39fp-1, MPFR_RNDU);  // above ln 2
        if (mpfr_cmp_d(d, 0x1p-10) <= 0) {
            mpfr_ptr g = scratch.g;  // 1 + δ + δ² to the working precision
            if (mpfr_get_prec(g) != mpfr_get_prec(r.hi)) mpfr_set_prec(g, mpfr_get_prec(r.hi));
            mpfr_sqr(g, d, MPFR_RNDU);
            mpfr_add(g, g, d, MPFR_RNDU);
            mpfr_add_ui(g, g, 1, MPFR_RNDU);
            mpfr_set(r.hi, r.lo, MPFR_RNDU);  // exact at the same precision, and never below
            mpfr_nextabove(r.hi);
            mpfr_mul(r.hi, r.hi, g, MPFR_RNDU);
            return;
        }
    }
    exp_at(r.hi, t.hi, base, MPFR_RNDU);
}

void MpfrArith::add(Iv& acc, const Iv& x) const {
    mpfr_add(acc.lo, acc.lo, x.lo, MPFR_RNDD);
    mpfr_add(acc.hi, acc.hi, x.hi, MPFR_RNDU);
}

void MpfrArith::add_mul(Iv& acc, const Iv& e, double v) const {
    if (v == 0) return;
    mpfr_ptr p = scratch.t;  // at prec
    mpfr_mul_d(p, v > 0 ? e.lo : e.hi, v, MPFR_RNDD);
    mpfr_add(acc.lo, acc.lo, p, MPFR_RNDD);
    mpfr_mul_d(p, v > 0 ? e.hi : e.lo, v, MPFR_RNDU);
    mpfr_add(acc.hi, acc.hi, p, MPFR_RNDU);
}

void MpfrArith::div(Iv& r, const Iv& x, const Iv& d) const {
    mpfr_div(r.lo, x.lo, mpfr_sgn(x.lo) >= 0 ? d.hi : d.lo, MPFR_RNDD);
    mpfr_div(r.hi, x.hi, mpfr_sgn(x.hi) >= 0 ? d.lo : d.hi, MPFR_RNDU);
}

void MpfrArith::log_plus(Iv& r, const Iv& d, const Shift& m) const {
    if (base == ExpBase::E) {
        mpfr_log(r.lo, d.lo, MPFR_RNDD);
        mpfr_log(r.hi, d.hi, MPFR_RNDU);
    } else {
        mpfr_log2(r.lo, d.lo, MPFR_RNDD);
        mpfr_log2(r.hi, d.hi, MPFR_RNDU);
    }
    mpfr_add(r.lo, r.lo, m.lo, MPFR_RNDD);
    mpfr_add(r.hi, r.hi, m.lo, MPFR_RNDU);
}

namespace {

// x rounded to nearest in f, as round_exact(to_q(x), f), but an x far outside f's range (an
// MPFR exponent near ±2^30: a weight of e^(−2.4·10^21)) is decided from its exponent, never
// converted to a rational of a billion bits. x = m·2^E with 1/2 ≤ |m| < 1.
double round_mpfr(mpfr_srcptr x, FloatFormat f) {
    if (mpfr_zero_p(x)) return 0.0;
    const auto& fi = info(f);
    const mpfr_exp_t e = mpfr_get_exp(x);
    if (e <= fi.emin - fi.precision) return mpfr_sgn(x) < 0 ? -0.0 : 0.0;  // |x| < 2^(emin − p)
    if (e - 1 > fi.emax + 1) return mpfr_sgn(x) * std::numeric_limits<double>::infinity();
    return round_exact(to_q(x), f);
}

}  // namespace

std::optional<double> MpfrArith::decide(const Iv& x, FloatFormat f) const {
    if (!mpfr_number_p(x.lo) || !mpfr_number_p(x.hi)) return std::nullopt;
    const double a = round_mpfr(x.lo, f), b = round_mpfr(x.hi, f);
    if (a == 0 && b == 0) return 0.0;  // an enclosure across 0 gives +0, never −0
    if (a == b) return a;
    return std::nullopt;
}

}  // namespace exactattn::oracle::detail
