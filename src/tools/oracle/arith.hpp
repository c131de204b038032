// SPDX-License-Identifier: MIT
// exactattn oracle (private): the two interval arithmetics one row of attention is enclosed
// in: doubles rounded outward (fast, decides most roundings to 16- and 32-bit formats) and MPFR
// at a chosen precision (Ziv's fallback). Both give certified enclosures: every operation's
// result contains the exact result of the operation on the enclosed operands.
#pragma once

#include <gmpxx.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "exact_dot.hpp"
#include "exactattn/oracle.hpp"

namespace exactattn::oracle::detail {

/// nextafter(x, +inf), inline (the double stage takes it a dozen times a key): one step of the
/// bit pattern away from 0 for x > 0, towards 0 for x < 0; ±0 → the least subnormal; +inf and
/// NaN stay; −inf → −max.
inline double up(double x) {
    if (x != x || x == std::numeric_limits<double>::infinity()) return x;
    if (x == 0) return std::numeric_limits<double>::denorm_min();
    const auto b = std::bit_cast<std::uint64_t>(x);
    return std::bit_cast<double>(x > 0 ? b + 1 : b - 1);
}
/// nextafter(x, −inf), inline: −up(−x).
inline double down(double x) { return -up(-x); }

/// Outward-rounded double intervals. Round to nearest errs by at most half an ulp of the
/// result, so one step outward (nextafter) encloses the exact result, also across underflow.
struct DoubleArith {
    struct Iv {
        double lo = 0, hi = 0;
    };
    ExpBase base = ExpBase::E;
    Iv scale{1, 1};

    /// A sum in midpoint-radius form: the midpoints summed by Ogita, Rump and Oishi's Dot2
    /// (TwoProduct by fma, TwoSum), so the sum errs by u|Σ| + γ_n² Σ|x_i| (their Theorem 5.3,
    /// not γ_n Σ|x_i|: no cancellation amplifies it), with Σ|x_i| and the radii beside it;
    /// finish() encloses the sum.
    struct Acc {
        double s = 0, c = 0, abs = 0, rad = 0;
        std::int64_t n = 0;
    };

    [[nodiscard]] Iv make() const { return {}; }
    [[nodiscard]] Acc make_acc() const { return {}; }
    static void two_sum(Acc& acc, double p) {
        const double t = acc.s + p, z = t - acc.s;
        acc.c += (acc.s - (t - z)) + (p - z);
        acc.s = t;
    }
    void add(Acc& acc, const Iv& x) const {
        const double m = x.lo + (x.hi - x.lo) / 2;
        two_sum(acc, m);
        acc.abs += std::fabs(m);
        acc.rad += 2 * (x.hi - x.lo);  // ≥ max(hi − m, m − lo) for m in [lo, hi], with its roundings
        ++acc.n;
    }
    /// acc += e·v for e ≥ 0 and an exact v.
    void add_mul(Acc& acc, const Iv& e, double v) const {
        const double m = e.lo + (e.hi - e.lo) / 2, p = m * v;
        acc.c += std::fma(m, v, -p);  // the product's rounding error, exactly
        two_sum(acc, p);
        acc.abs += std::fabs(p);
        acc.rad += 2 * (e.hi - e.lo) * std::fabs(v);  // ≥ |e·v − m·v| for e, m in [lo, hi], with roundings
        ++acc.n;
    }
    void finish(Iv& r, const Acc& acc) const;
    /// Dot2 of q and k: the unrounded pair s + c and Σ|q_i k_i|.
    static Acc dot2(const double* q, const double* k, std::int64_t d);
    /// Σ q_i k_i by Higham's bound γ_d Σ|q_i k_i| around the double sum (plus underflow).
    void dot(Iv& r, const double* q, const double* k, std::int64_t d, double* abs_up) const;
    /// The same from Dot2's accumulator of the d products (as dot2 leaves it).
    void dot_of(Iv& r, const Acc& acc, double* abs_up) const;
    void mul(Iv& r, const Iv& x, const Iv& y) const;
    /// The shift m of the exponentials: any number (the softmax does not depend on it), here
    /// the midpoint of the largest score.
    using Shift = double;
    [[nodiscard]] Shift make_shift() const { return 0; }
    void pick(Shift& m, const Iv& s, bool first) const {
        if (first || mid(s) > m) m = mid(s);
    }
    void sub(Iv& r, const Iv& x, double m) const { r = {down(x.lo - m), up(x.hi - m)}; }
    /// r += b for an exact double b (a score's bias).
    void add_const(Iv& r, double b) const { r = {down(r.lo + b), up(r.hi + b)}; }
    /// r = cap·tanh(r/cap) for cap > 0 (the logit softcap): increasing, so each end rounded its
    /// own way at every step, tanh enclosed in doubles (a Taylor series near 0, e^−2y from the
    /// double exponential beyond, saturation from 20; relative width about 2^−45).
    void softcap(Iv& r, double cap) const;
    /// r = 1 − (c/cap)² for an enclosure c of cap·tanh(x/cap): the slope 1 − tanh²(x/cap), in [0, 1].
    void softcap_slope(Iv& r, const Iv& c, double cap) const;
    void exp(Iv& r, const Iv& t) const;
    /// x / d for d > 0.
    void div(Iv& r, const Iv& x, const Iv& d) const;
    /// m + log(d) (ln or log2 by the base) for d > 0.
    void log_plus(Iv& r, const Iv& d, double m) const;
    [[nodiscard]] double mid(const Iv& x) const { return x.lo + (x.hi - x.lo) / 2; }
    [[nodiscard]] std::pair<double, double> bounds(const Iv& x) const { return {x.lo, x.hi}; }
    [[nodiscard]] std::optional<double> decide(const Iv& x, FloatFormat f) const;
    /// x − r for the enclosed x, to within the enclosure's width.
    [[nodiscard]] double residual(const Iv& x, double r) const { return mid(x) - r; }
};

/// MPFR intervals at a fixed precision, endpoints rounded down and up.
struct MpfrArith {
    class Iv {
      public:
        explicit Iv(mpfr_prec_t p) {
            mpfr_inits2(p, lo, hi, static_cast<mpfr_ptr>(nullptr));
            mpfr_set_zero(lo, 1);
            mpfr_set_zero(hi, 1);
        }
        Iv(Iv&& o) noexcept : Iv(mpfr_get_prec(o.lo)) {
            mpfr_swap(lo, o.lo);
            mpfr_swap(hi, o.hi);
        }
        Iv(const Iv&) = delete;
        Iv& operator=(const Iv&) = delete;
        Iv& operator=(Iv&& o) noexcept {
            mpfr_swap(lo, o.lo);
            mpfr_swap(hi, o.hi);
            return *this;
        }
        ~Iv() { mpfr_clears(lo, hi, static_cast<mpfr_ptr>(nullptr)); }
        mpfr_t lo, hi;
    };
    explicit MpfrArith(mpfr_prec_t p, ExpBase b, const Scale& s, std::int64_t dk);
    mpfr_prec_t prec;
    ExpBase base;
    Iv scale;
    /// Temporaries the hot operations reuse instead of allocating on every call (exp, add_mul,
    /// and the gradients' products): δ at 64 bits, and two at the working precision. One
    /// MpfrArith is used by one thread.
    struct Scratch {
        explicit Scratch(mpfr_prec_t p) {
            mpfr_init2(d, 64);
            mpfr_inits2(p, g, t, static_cast<mpfr_ptr>(nullptr));
        }
        Scratch(const Scratch&) = delete;
        Scratch& operator=(const Scratch&) = delete;
        ~Scratch() { mpfr_clears(d, g, t, static_cast<mpfr_ptr>(nullptr)); }
        mpfr_t d, g, t;
    };
    mutable Scratch scratch;

    using Acc = Iv;
    [[nodiscard]] Iv make() const { return Iv(prec); }
    [[nodiscard]] Iv make_acc() const { return Iv(prec); }
    void finish(Iv& r, const Acc& acc) const {
        mpfr_set(r.lo, acc.lo, MPFR_RNDD);
        mpfr_set(r.hi, acc.hi, MPFR_RNDU);
    }
    void dot(Iv& r, const double* q, const double* k, std::int64_t d, double* abs_up) const;
    /// The same from Dot2's accumulator of the d products (as DoubleArith::dot2 leaves it), as
    /// dot() forms it below 256 bits; false (r untouched) where dot() takes the exact products
    /// instead (from 256 bits on, or a sum out of range).
    bool dot_of(Iv& r, const DoubleArith::Acc& acc) const;
    void mul(Iv& r, const Iv& x, const Iv& y) const;
    /// The shift at the working precision: the largest score's lower end, exactly. A double
    /// would not do: rounding a score of 10^40 to a double moves it by up to 2^79, and
    /// e^(2^79) overflows any exponent range, so no precision would ever decide the row.
    using Shift = Iv;
    [[nodiscard]] Shift make_shift() const { return Iv(prec); }
    void pick(Shift& m, const Iv& s, bool first) const {
        if (first || mpfr_cmp(s.lo, m.lo) > 0) mpfr_set(m.lo, s.lo, MPFR_RNDN);  // exact: same precision
    }
    void sub(Iv& r, const Iv& x, const Shift& m) const;
    /// r += b for an exact double b (a score's bias).
    void add_const(Iv& r, double b) const {
        mpfr_add_d(r.lo, r.lo, b, MPFR_RNDD);
        mpfr_add_d(r.hi, r.hi, b, MPFR_RNDU);
    }
    /// r = cap·tanh(r/cap) for cap > 0 (the logit softcap), each end rounded its own way.
    void softcap(Iv& r, double cap) const;
    /// r = 1 − (c/cap)² for an enclosure c of cap·tanh(x/cap): the slope 1 − tanh²(x/cap), in [0, 1].
    void softcap_slope(Iv& r, const Iv& c, double cap) const;
    void exp(Iv& r, const Iv& t) const;
    void add(Iv& acc, const Iv& x) const;
    void add_mul(Iv& acc, const Iv& e, double v) const;
    void div(Iv& r, const Iv& x, const Iv& d) const;
    void log_plus(Iv& r, const Iv& d, const Shift& m) const;
    [[nodiscard]] double mid(const Iv& x) const { return mpfr_get_d(x.lo, MPFR_RNDN); }
    [[nodiscard]] std::pair<double, double> bounds(const Iv& x) const {
        return {mpfr_get_d(x.lo, MPFR_RNDD), mpfr_get_d(x.hi, MPFR_RNDU)};
    }
    [[nodiscard]] std::optional<double> decide(const Iv& x, FloatFormat f) const;
    /// x − r for the enclosed x, to nearest from the lower end (the enclosure is far narrower
    /// than a double's ulp once it decides a float64 rounding).
    [[nodiscard]] double residual(const Iv& x, double r) const {
        Iv t(prec);
        mpfr_sub_d(t.lo, x.lo, r, MPFR_RNDN);
        return mpfr_get_d(t.lo, MPFR_RNDN);
    }
};

/// The scale c as an exact rational when it is one: 1, a given float, 1/√d_k for a square d_k
/// (defined in exact_entries.cpp; the forward's exact entries and the backward's use it).
std::optional<mpq_class> rational_scale(const Problem& p);
/// Refuses an upstream gradient dO that is not n_q × d_v finite values of its format (ShapeError
/// or DomainError placed at `do`): the gradients' reference, bounds and emulation share it.
void check_d_out(const Problem& p, const Tensor& t);

/// The scale c enclosed in doubles (1/√d_k rounded down and up by MPFR).
DoubleArith::Iv double_scale(const Scale& s, std::int64_t dk);

}  // namespace exactattn::oracle::detail
