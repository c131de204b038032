// SPDX-License-Identifier: MIT
// exactattn oracle (private): the gradients' third interval arithmetic, between the double
// stage and MPFR: midpoint-radius intervals whose midpoint is a double-double h + l (about 106
// bits) and whose radius r is a double, so a value lies in [h + l − r, h + l + r]. Every
// operation computes the double-double of its midpoints by error-free transforms (TwoSum,
// TwoProduct by fma) and adds to the radius a proven bound on that computation's error and the
// operands' radii (docs/oracle.md, "The double-double stage"). Its exponential is certified to
// about 2^−94 relative, against the double stage's 2^−46: enough to decide the entries the double
// stage leaves open without MPFR's exponentials.
//
// Notation: u = 2^−53. A double-double is normalised, |l| ≤ u|h| (TwoSum leaves it so). A
// radius that is inf or NaN means nothing is known; decide() then decides nothing.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "arith.hpp"

namespace exactattn::oracle::detail {

struct DdArith {
    struct Iv {
        double h = 0, l = 0, r = 0;
    };
    using Acc = Iv;
    /// The shift of the exponentials: any double (the softmax does not depend on it).
    using Shift = double;

    DdArith(ExpBase b, const Scale& s, std::int64_t dk);
    ExpBase base;
    Iv scale, ln2;  // c and ln 2 as double-doubles within 2^−100 of their values, enclosed

    static constexpr double kU2 = 0x1p-106;  // u²
    // A radius computed with round-to-nearest from at most 32 roundings of nonnegative terms
    // is at most (1 + u)^32 < 1 + 2^−47.9 below its exact value: multiplying by this factor
    // (itself a rounding) restores an upper bound.
    static constexpr double kUp = 1 + 0x1p-47;
    // Below 2^−900 a product's low-order terms may underflow (absolute error up to 2^−1075
    // each): the operations then add this to their error bound.
    static constexpr double kTiny = 0x1p-900, kEta = 0x1p-1060;

    static Iv unknown() { return {0, 0, std::numeric_limits<double>::infinity()}; }
    static void two_sum(double a, double b, double& s, double& e) {
        s = a + b;
        const double z = s - a;
        e = (a - (s - z)) + (b - z);
    }
    /// Double-double x + y: |z − (x + y)| ≤ 4u²(|x.h| + |y.h|) (+ 2^−1060 below 2^−900) = err,
    /// exactly x or y when the other is 0 (dd_arith.cpp proves the bounds of these three).
    static void add_dd(const Iv& x, const Iv& y, Iv& z, double& err) {
        if (y.h == 0) {
            z.h = x.h, z.l = x.l, err = 0;
            return;
        }
        if (x.h == 0) {
            z.h = y.h, z.l = y.l, err = 0;
            return;
        }
        double s = 0, e = 0;
        two_sum(x.h, y.h, s, e);
        const double b = (x.l + y.l) + e;
        two_sum(s, b, z.h, z.l);
        const double a = std::fabs(x.h) + std::fabs(y.h);
        err = 4 * kU2 * a + (a < kTiny ? kEta : 0);
    }
    /// Double-double x·y: |z − x·y| ≤ 8u²|x.h·y.h| (+ 2^−1060 when that is below 2^−900).
    static void mul_dd(const Iv& x, const Iv& y, Iv& z, double& err) {
        if (x.h == 0 || y.h == 0) {
            z.h = z.l = err = 0;
            return;
        }
        const double p = x.h * y.h, e = std::fma(x.h, y.h, -p);
        const double c = std::fma(x.l, y.h, x.h * y.l);
        two_sum(p, c + e, z.h, z.l);
        const double a = std::fabs(p);
        err = 8 * kU2 * a + (a < kTiny ? kEta : 0);
    }
    /// Double-double x·v for a double v: |z − x·v| ≤ 4u²|x.h·v| (+ 2^−1060 below 2^−900).
    static void mul_d_dd(const Iv& x, double v, Iv& z, double& err) {
        if (x.h == 0 || v == 0) {
            z.h = z.l = err = 0;
            return;
        }
        const double p = x.h * v, e = std::fma(x.h, v, -p);
        two_sum(p, std::fma(x.l, v, e), z.h, z.l);
        const double a = std::fabs(p);
        err = 4 * kU2 * a + (a < kTiny ? kEta : 0);
    }
    // |x| ≤ |x.h|(1 + u): the factor is left to kUp.
    static double mag(const Iv& x) { return std::fabs(x.h); }

    /// z = x + y.
    static void add_iv(Iv& z, const Iv& x, const Iv& y) {
        Iv m;
        double err = 0;
        add_dd(x, y, m, err);
        const double r = x.r + y.r + err;  // a subnormal sum of doubles is exact
        m.r = r == 0 ? 0 : r * kUp;
        z = m;
    }
    /// z = x·y: |X·Y − x̃·ỹ| ≤ x.r(|ỹ| + y.r) + |x̃|·y.r for X, Y in the intervals.
    static void mul_iv(Iv& z, const Iv& x, const Iv& y) {
        Iv m;
        double err = 0;
        mul_dd(x, y, m, err);
        const double r = x.r * (mag(y) + y.r) + mag(x) * y.r + err;
        // 0 only for an exact product of exact operands; kEta: a product of radii may underflow.
        m.r = x.r == 0 && y.r == 0 && err == 0 ? 0 : r * kUp + kEta;
        z = m;
    }
    /// z = x·v for an exact double v.
    static void mul_d(Iv& z, const Iv& x, double v) {
        Iv m;
        double err = 0;
        mul_d_dd(x, v, m, err);
        const double r = x.r * std::fabs(v) + err;
        m.r = x.r == 0 && err == 0 ? 0 : r * kUp + kEta;
        z = m;
    }

    // The interface enclose() needs (the same as DoubleArith's and MpfrArith's).
    [[nodiscard]] Iv make() const { return {}; }
    [[nodiscard]] Iv make_acc() const { return {}; }
    [[nodiscard]] Shift make_shift() const { return 0; }
    void pick(Shift& m, const Iv& s, bool first) const {
        if (first || s.h > m) m = s.h;
    }
    void sub(Iv& r, const Iv& x, double m) const { add_iv(r, x, {-m, 0, 0}); }
    void add_const(Iv& r, double b) const { add_iv(r, r, {b, 0, 0}); }
    // The softcap and the log-sum-exp are left to the other stages (the stage is not run under
    // a softcap; an open log-sum-exp stays open for MPFR).
    void softcap(Iv& r, double /*cap*/) const { r = unknown(); }
    void softcap_slope(Iv& r, const Iv& /*c*/, double /*cap*/) const { r = unknown(); }
    void log_plus(Iv& r, const Iv& /*d*/, double /*m*/) const { r = unknown(); }
    void mul(Iv& r, const Iv& x, const Iv& y) const { mul_iv(r, x, y); }
    void add(Acc& acc, const Iv& x) const { add_iv(acc, acc, x); }
    /// acc += e·v for an exact v (0 adds nothing, as MpfrArith::add_mul: exact zeros stay exact).
    void add_mul(Acc& acc, const Iv& e, double v) const {
        if (v == 0) return;
        Iv p;
        mul_d(p, e, v);
        add_iv(acc, acc, p);
    }
    void finish(Iv& r, const Acc& acc) const { r = acc; }
    /// x / d for d > 0 (nothing known when d's lower end is not shown positive).
    void div(Iv& r, const Iv& x, const Iv& d) const;
    /// base^t.
    void exp(Iv& r, const Iv& t) const;
    /// A score or dP from Dot2's accumulator of its d products, as MpfrArith::dot_of.
    void dot_of(Iv& r, const DoubleArith::Acc& acc) const;
    /// Doubles around the interval, each end rounded outward (for deciding); nothing finite
    /// when the radius is not.
    [[nodiscard]] static std::pair<double, double> outward(const Iv& x);
    /// The largest double at or below the lower end and the least at or above the upper end.
    [[nodiscard]] std::pair<double, double> bounds(const Iv& x) const;
    /// The value's rounding to f when the whole interval rounds to it (never for float64: the
    /// MPFR pass decides those).
    [[nodiscard]] std::optional<double> decide(const Iv& x, FloatFormat f) const;
};

}  // namespace exactattn::oracle::detail
