// SPDX-License-Identifier: MIT
// exactattn oracle internal: the arithmetic the gradients' builder (oracle_grad.cpp) uses on
// either stage, the double stage's enclosures and the MPFR pass's, by overload: products of
// enclosures of any sign, differences, dot products from Dot2 accumulators, λ, and the Dot2
// accumulators of a sum held column by column; and the fields it fills.
#pragma once

#include <gmpxx.h>
#include <mpfr.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "arith.hpp"
#include "dd_arith.hpp"
#include "exactattn/oracle_grad.hpp"

namespace exactattn::oracle::detail::grad {

using Iv = MpfrArith::Iv;

// A field of the gradients' reference (dq, p, …) of this shape, every entry 0 and not exact;
// without entries (only its name and shape) unless `entries` (its entries written elsewhere).
inline GradField make_field(const char* name, std::vector<std::int64_t> shape, bool entries = true) {
    GradField f;
    f.name = name;
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    f.shape = std::move(shape);
    if (!entries) return f;
    for (auto* x : {&f.val, &f.lo, &f.hi}) x->assign(static_cast<std::size_t>(n), 0);  // not copies of val
    f.exact.assign(static_cast<std::size_t>(n), 0);
    return f;
}

inline bool power_of_two(const mpz_class& z) { return z > 0 && mpz_popcount(z.get_mpz_t()) == 1; }

// r = x·y for enclosures of any sign: the least and greatest of the four products of the ends.
// When one factor is positive (a weight, λ, the scale) and no end is 0, inf or NaN, those are two
// known products (the same values the four give, each rounded its way): no temporaries but `tmp`
// (at prec), which the MPFR pass owns.
inline void mul_any(Iv& r, const Iv& x, const Iv& y, mpfr_prec_t prec, mpfr_ptr tmp) {
    if (mpfr_regular_p(x.lo) != 0 && mpfr_regular_p(x.hi) != 0 && mpfr_regular_p(y.lo) != 0 &&
        mpfr_regular_p(y.hi) != 0 && (mpfr_sgn(x.lo) > 0 || mpfr_sgn(y.lo) > 0)) {
        const bool x_positive = mpfr_sgn(x.lo) > 0;
        const Iv& a = x_positive ? x : y;  // 0 < a.lo ≤ a.hi
        const Iv& b = x_positive ? y : x;
        mpfr_mul(tmp, mpfr_sgn(b.hi) > 0 ? a.hi : a.lo, b.hi, MPFR_RNDU);  // before r.lo may overwrite x or y
        mpfr_mul(r.lo, mpfr_sgn(b.lo) > 0 ? a.lo : a.hi, b.lo, MPFR_RNDD);
        mpfr_swap(r.hi, tmp);
        return;
    }
    mpfr_t t, lo, hi;
    mpfr_inits2(prec, t, lo, hi, static_cast<mpfr_ptr>(nullptr));
    mpfr_srcptr xs[2] = {x.lo, x.hi}, ys[2] = {y.lo, y.hi};
    bool first = true;
    for (auto a : xs)
        for (auto b : ys) {
            mpfr_mul(t, a, b, MPFR_RNDD);
            if (first || mpfr_less_p(t, lo)) mpfr_set(lo, t, MPFR_RNDN);
            mpfr_mul(t, a, b, MPFR_RNDU);
            if (first || mpfr_greater_p(t, hi)) mpfr_set(hi, t, MPFR_RNDN);
            first = false;
        }
    mpfr_set(r.lo, lo, MPFR_RNDN);
    mpfr_set(r.hi, hi, MPFR_RNDN);
    mpfr_clears(t, lo, hi, static_cast<mpfr_ptr>(nullptr));
}

// The few interval operations the backward needs beyond the forward's, for both arithmetics:
// zero, x − y rounded outward, a product of enclosures of any sign, λ (1 under base e, ln 2
// under base 2).
inline void set_zero(Iv& x) {
    mpfr_set_zero(x.lo, 1);
    mpfr_set_zero(x.hi, 1);
}
inline void set_zero(DoubleArith::Iv& x) { x = {}; }
inline void set_zero(DoubleArith::Acc& x) { x = {}; }
inline void sub_iv(const MpfrArith& /*a*/, Iv& r, const Iv& x, const Iv& y) {
    mpfr_sub(r.lo, x.lo, y.hi, MPFR_RNDD);
    mpfr_sub(r.hi, x.hi, y.lo, MPFR_RNDU);
}
inline void sub_iv(const DoubleArith& /*a*/, DoubleArith::Iv& r, const DoubleArith::Iv& x, const DoubleArith::Iv& y) {
    r = {detail::down(x.lo - y.hi), detail::up(x.hi - y.lo)};
}
inline void mul_iv(const MpfrArith& a, Iv& r, const Iv& x, const Iv& y) { mul_any(r, x, y, a.prec, a.scratch.t); }
// A score or dP from its Dot2 accumulator (kernels.cpp's dot2_keys, every key of a row at once,
// the same operations as DoubleArith::dot2): as a.dot(r, x, y, n) would form it.
inline void dot_from(const DoubleArith& a, DoubleArith::Iv& r, const DoubleArith::Acc& acc, const double* /*x*/,
                     const double* /*y*/) {
    a.dot_of(r, acc, nullptr);
}
inline void dot_from(const MpfrArith& a, Iv& r, const DoubleArith::Acc& acc, const double* x, const double* y) {
    if (!a.dot_of(r, acc)) a.dot(r, x, y, acc.n, nullptr);
}
inline void mul_iv(const DoubleArith& a, DoubleArith::Iv& r, const DoubleArith::Iv& x, const DoubleArith::Iv& y) {
    a.mul(r, x, y);
}
inline Iv lambda_of(const MpfrArith& a) {
    Iv l(a.prec);
    if (a.base == ExpBase::E) {
        mpfr_set_ui(l.lo, 1, MPFR_RNDN);
        mpfr_set_ui(l.hi, 1, MPFR_RNDN);
    } else {
        mpfr_const_log2(l.lo, MPFR_RNDD);
        mpfr_const_log2(l.hi, MPFR_RNDU);
    }
    return l;
}
inline DoubleArith::Iv lambda_of(const DoubleArith& a) {
    if (a.base == ExpBase::E) return {1, 1};
    constexpr double kLn2 = 0x1.62e42fefa39efp-1;  // ln 2 to nearest: within half an ulp
    return {detail::down(kLn2), detail::up(kLn2)};
}

// The same for the double-double stage (dd_arith.hpp).
inline void set_zero(DdArith::Iv& x) { x = {}; }
inline void sub_iv(const DdArith& /*a*/, DdArith::Iv& r, const DdArith::Iv& x, const DdArith::Iv& y) {
    DdArith::add_iv(r, x, {-y.h, -y.l, y.r});
}
inline void mul_iv(const DdArith& /*a*/, DdArith::Iv& r, const DdArith::Iv& x, const DdArith::Iv& y) {
    DdArith::mul_iv(r, x, y);
}
inline void dot_from(const DdArith& a, DdArith::Iv& r, const DoubleArith::Acc& acc, const double* /*x*/,
                     const double* /*y*/) {
    a.dot_of(r, acc);
}
inline DdArith::Iv lambda_of(const DdArith& a) { return a.base == ExpBase::E ? DdArith::Iv{1, 0, 0} : a.ln2; }

// Dot2 accumulators held column by column (kernels.cpp's layout), one DoubleArith::Acc each.
struct Columns {
    std::vector<double> s, c, abs, rad;
    void reset(std::size_t n) { s.assign(n, 0), c.assign(n, 0), abs.assign(n, 0), rad.assign(n, 0); }
    [[nodiscard]] DoubleArith::Acc at(std::size_t x, std::int64_t n) const {
        DoubleArith::Acc r;
        r.s = s[x], r.c = c[x], r.abs = abs[x], r.rad = rad[x], r.n = n;
        return r;
    }
};

}  // namespace exactattn::oracle::detail::grad
