// SPDX-License-Identifier: MIT
// exactattn: reals as a learner may write them (answer_entry.hpp, Real): exact values of the
// domain, or enclosures for the few numbers outside it (e^k); their arithmetic and certified
// comparison.
#include "core/real_detail.hpp"

#include <fmt/format.h>
#include <mpfr.h>

#include <algorithm>
#include <memory>

#include "core/interval.hpp"
#include "exactattn/limits.hpp"

namespace exactattn {

namespace {

constexpr std::int64_t kDivisionBits = 4096;

bool overlap(const RationalInterval& x, const RationalInterval& y) { return x.lo <= y.hi && y.lo <= x.hi; }

}  // namespace

// Reals: exact values, or enclosures for the few numbers outside the domain a learner may write
// (e^k). Interval arithmetic on exact rationals: only e^q itself is rounded (outward, by MPFR).

RationalInterval Real::at(std::int64_t bits) const {
    if (enclose) return enclose(bits);
    const Enclosure e = detail::enclose(exact->terms(), bits);
    const mpz_class scale = mpz_class(1) << static_cast<mp_bitcnt_t>(e.prec);
    return {mpq_class(e.lo, scale), mpq_class(e.hi, scale)};
}

namespace {

// An operand of an enclosure built from others, held shared: a Real is then copied in O(1)
// (two pointers) instead of with its whole tree of operands, which made a sum of n enclosed
// terms, each partial sum copied into the next, cost O(n²) copies (check's e-instead-of-2 on a
// 150-key layer row).
std::shared_ptr<const Real> shared(const Real& x) { return std::make_shared<const Real>(x); }

template <class F>
Real combine(const Real& x, const Real& y, F f) {
    return Real{std::nullopt,
                [x = shared(x), y = shared(y), f](std::int64_t bits) { return f(x->at(bits), y->at(bits)); }};
}

}  // namespace

Real operator+(const Real& x, const Real& y) {
    if (x.exact && y.exact) return Real::of(*x.exact + *y.exact);
    return combine(x, y, [](const RationalInterval& a, const RationalInterval& b) {
        return RationalInterval{a.lo + b.lo, a.hi + b.hi};
    });
}

Real operator*(const Real& x, const Real& y) {
    if (x.exact && y.exact) return Real::of(*x.exact * *y.exact);
    return combine(x, y, [](const RationalInterval& a, const RationalInterval& b) {
        const mpq_class p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
        return RationalInterval{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
    });
}

Real operator/(const Real& x, const Real& y) {
    if (x.exact && y.exact) return Real::of(*x.exact / *y.exact);
    if (y.exact && y.exact->is_zero()) throw domain_error("division by zero");
    return Real{std::nullopt, [x = shared(x), y = shared(y)](std::int64_t bits) {
                    // A divisor's enclosure may hold 0 at low precision; refine until it does not.
                    // Capped as certified_compare is: an e-expression whose divisor agrees with 0
                    // to thousands of digits is refused, not refined for minutes.
                    for (std::int64_t b = bits; b <= std::max<std::int64_t>(bits, kDivisionBits); b *= 2) {
                        const RationalInterval d = y->at(b);
                        if (sgn(d.lo) > 0 || sgn(d.hi) < 0) {
                            const RationalInterval n = x->at(b);
                            const mpq_class q[4] = {n.lo / d.lo, n.lo / d.hi, n.hi / d.lo, n.hi / d.hi};
                            return RationalInterval{*std::min_element(q, q + 4), *std::max_element(q, q + 4)};
                        }
                    }
                    throw domain_error("division by a number that cannot be told from 0");
                }};
}

Real e_power(const mpq_class& q) {
    if (sgn(q) == 0) return Real::of(Value(1));
    // An enclosure of e^q is a pair of dyadic rationals with about |q|·log2(e) bits before the
    // point (after it, for q < 0), whatever the precision asked. Past max_bits it is refused
    // here, before MPFR computes it: e^(1000000000/3) once took 7 s to reach the same refusal
    // (limits: max_bits), and a class file of such answers minutes.
    const mpz_class whole = abs(q.get_num()) / q.get_den();
    const double bits = whole.get_d() * 1.4426950408889634;  // a size estimate, not a value
    if (bits > static_cast<double>(limits().max_bits)) {
        throw over_limit(Limit::max_bits,
                         fmt::format("e^({}) is about 2^{}{:.4g}: its enclosure would need about {:.4g} bits",
                                     q.get_str(), sgn(q) < 0 ? "-" : "", bits, bits));
    }
    return Real{std::nullopt, [q](std::int64_t bits) {
                    mpfr_t x;
                    mpfr_init2(x, static_cast<mpfr_prec_t>(bits + 16));
                    RationalInterval r;
                    mpq_t t;
                    mpq_init(t);
                    mpfr_set_q(x, q.get_mpq_t(), MPFR_RNDD);  // x ≤ q, so e^x ≤ e^q
                    mpfr_exp(x, x, MPFR_RNDD);
                    mpfr_get_q(t, x);
                    r.lo = mpq_class(t);
                    mpfr_set_q(x, q.get_mpq_t(), MPFR_RNDU);
                    mpfr_exp(x, x, MPFR_RNDU);
                    mpfr_get_q(t, x);
                    r.hi = mpq_class(t);
                    mpq_clear(t);
                    mpfr_clear(x);
                    return r;
                }};
}

namespace detail {

Real negated(const Real& x) { return Real::of(Value(-1)) * x; }

Real absolute(const Real& x) {
    if (x.exact) return Real::of(x.exact->sign() < 0 ? -*x.exact : *x.exact);
    return Real{std::nullopt, [x](std::int64_t bits) {
                    RationalInterval r = x.at(bits);
                    if (sgn(r.lo) >= 0) return r;
                    if (sgn(r.hi) <= 0) return RationalInterval{-r.hi, -r.lo};
                    return RationalInterval{mpq_class(0), std::max<mpq_class>(-r.lo, r.hi)};
                }};
}

// The sign of x − y, certified: exact arithmetic for two values of the domain, else enclosures
// refined until they separate. nullopt: not separated at 4096 bits (an expression in e equal to
// the other to over a thousand digits; no finer answer is worth its cost).
std::optional<int> certified_compare(const Real& x, const Real& y) {
    if (x.exact && y.exact) return compare(*x.exact, *y.exact);
    for (std::int64_t b = kFirstBits; b <= limits().max_precision; b *= 4) {
        const RationalInterval p = x.at(b);
        const RationalInterval q = y.at(b);
        if (p.hi < q.lo) return -1;
        if (p.lo > q.hi) return 1;
        if (p.lo == p.hi && q.lo == q.hi && p.lo == q.lo) return 0;
        if (b >= 4096 && overlap(p, q)) break;  // thousands of digits equal: no finer answer worth its cost
    }
    return std::nullopt;
}

}  // namespace detail

}  // namespace exactattn
