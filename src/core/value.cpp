// SPDX-License-Identifier: MIT
// exactattn: arithmetic on polynomials in a = ln 2.
#include "exactattn/value.hpp"

#include <fmt/format.h>

#include <ostream>

#include "exactattn/error.hpp"
#include "core/interval.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/print.hpp"
#include "core/assert.hpp"
#include "core/print_detail.hpp"

namespace exactattn {

namespace {

// Total size of a coefficient's numerators and denominators, in bits.
std::int64_t total_bits(const FieldElem& f) {
    std::int64_t bits = 0;
    for (const auto& c : f.coefficients()) {
        bits += static_cast<std::int64_t>(mpz_sizeinbase(c.get_num_mpz_t(), 2) + mpz_sizeinbase(c.get_den_mpz_t(), 2));
    }
    return bits;
}

[[noreturn]] void value_bits_error(std::int64_t bits) {
    throw over_limit(Limit::max_value_bits, fmt::format("a value would need more than {} bits in all", bits));
}

void check_degree(std::size_t terms) {
    if (terms > static_cast<std::size_t>(limits().max_degree) + 1) {
        throw over_limit(Limit::max_degree, fmt::format("a value of degree {} in a", terms - 1));
    }
}
}  // namespace

Value::Value(const FieldElem& f) {
    if (!f.is_zero()) t_.push_back(f);
}

Value::Value(FieldElem&& f) {
    if (!f.is_zero()) t_.push_back(std::move(f));
}

Value Value::from_terms(std::vector<FieldElem> terms) {
    Value v;
    v.t_ = std::move(terms);
    v.canonicalize();
    return v;
}

Value Value::ln2() { return from_terms({FieldElem(), FieldElem(1)}); }

void Value::canonicalize() {
    while (!t_.empty() && t_.back().is_zero()) t_.pop_back();
    check_degree(t_.size());
    // Each number is capped by max_bits, but 65 powers of a × 64 coefficients of such numbers
    // would take gigabytes: cap the whole value too.
    if (t_.size() > 1 || (t_.size() == 1 && t_[0].root() > 1)) {
        std::int64_t bits = 0;
        for (const auto& f : t_) bits += total_bits(f);
        if (bits > limits().max_value_bits) value_bits_error(bits);
    }
    EXACTATTN_ASSERT(is_canonical());
}

std::size_t Value::bit_size() const {
    std::int64_t bits = 0;
    for (const auto& f : t_) bits += total_bits(f);
    return static_cast<std::size_t>(bits);
}

bool Value::is_canonical() const {
    if (!t_.empty() && t_.back().is_zero()) return false;
    for (const auto& f : t_) {
        if (!f.is_canonical()) return false;
    }
    return true;
}

mpq_class Value::checked_rational() const {
    if (!is_rational()) throw domain_error(fmt::format("{} is not rational", detail::brief_ascii(*this)));
    return rational();
}

bool Value::as_rational_multiple_of_a(mpq_class& r) const {
    if (t_.empty()) {
        r = 0;
        return true;
    }
    if (t_.size() != 2 || !t_[0].is_zero() || !t_[1].is_rational()) return false;
    r = t_[1].rational();
    return true;
}

Value& Value::operator+=(const Value& y) {
    if (t_.size() < y.t_.size()) t_.resize(y.t_.size());
    for (std::size_t k = 0; k < y.t_.size(); ++k) t_[k] += y.t_[k];
    canonicalize();
    return *this;
}

Value& Value::operator-=(const Value& y) {
    if (t_.size() < y.t_.size()) t_.resize(y.t_.size());
    for (std::size_t k = 0; k < y.t_.size(); ++k) t_[k] -= y.t_[k];
    canonicalize();
    return *this;
}

Value Value::operator-() const {
    Value r = *this;
    for (auto& f : r.t_) f = -f;
    return r;
}

Value& Value::operator*=(const Value& y) {
    if (is_zero() || y.is_zero()) return *this = Value();
    // A constant factor (k·u for a compact memory's entries, a scale): term by term, in place.
    if (y.t_.size() == 1 && this != &y) {
        for (auto& f : t_) {
            if (!f.is_zero()) f *= y.t_[0];
        }
        canonicalize();
        return *this;
    }
    if (t_.size() == 1 && this != &y) {
        const FieldElem c = std::move(t_[0]);
        t_ = y.t_;
        for (auto& f : t_) {
            if (!f.is_zero()) f *= c;
        }
        canonicalize();
        return *this;
    }
    check_degree(t_.size() + y.t_.size() - 1);
    std::vector<FieldElem> out(t_.size() + y.t_.size() - 1);
    // The running size is checked as the product grows: a large scalar times a dense value
    // could otherwise allocate gigabytes before canonicalize() sees the result.
    std::int64_t bits = 0;
    for (std::size_t i = 0; i < t_.size(); ++i) {
        if (t_[i].is_zero()) continue;
        for (std::size_t j = 0; j < y.t_.size(); ++j) {
            if (y.t_[j].is_zero()) continue;
            const std::int64_t before = total_bits(out[i + j]);
            out[i + j] += t_[i] * y.t_[j];
            bits += total_bits(out[i + j]) - before;
            if (bits > limits().max_value_bits) value_bits_error(bits);
        }
    }
    t_ = std::move(out);
    canonicalize();
    return *this;
}

Value& Value::operator/=(const Value& y) {
    if (y.is_zero()) throw domain_error("division by zero");
    if (!y.is_constant()) {
        // Since a = ln 2 is transcendental over the algebraic numbers, x / y is a polynomial in
        // a exactly when y divides x as polynomials over Q(2^(1/m)): long division decides it
        // (a^2/a = a), and a remainder means the quotient is not in the domain.
        const FieldElem lead_inv = y.t_.back().inverse();
        std::vector<FieldElem> r = t_;
        const std::size_t dy = y.t_.size() - 1;
        std::vector<FieldElem> q(r.size() > dy ? r.size() - dy : 0);
        for (std::size_t d = r.size(); d-- > dy;) {
            if (r[d].is_zero()) continue;
            const FieldElem c = r[d] * lead_inv;
            for (std::size_t i = 0; i <= dy; ++i) {
                if (!y.t_[i].is_zero()) r[d - dy + i] -= c * y.t_[i];
            }
            q[d - dy] = c;
        }
        for (const auto& f : r) {
            if (!f.is_zero()) {
                throw domain_error(
                    fmt::format("division by {}, which contains a = ln 2: it does not divide {} as a "
                                "polynomial in a, so the quotient is not a polynomial in a (a is "
                                "transcendental)",
                                detail::brief_ascii(y), detail::brief_ascii(*this)));
            }
        }
        *this = from_terms(std::move(q));
        return *this;
    }
    const FieldElem inv = y.t_[0].inverse();
    std::int64_t bits = 0;
    for (auto& f : t_) {
        f *= inv;
        bits += total_bits(f);
        if (bits > limits().max_value_bits) value_bits_error(bits);
    }
    canonicalize();
    return *this;
}

Value Value::pow(std::int64_t n) const {
    if (n < 0) {
        if (is_zero()) throw domain_error("division by zero: 0 raised to a negative power");
        if (!is_constant()) {
            throw domain_error(
                fmt::format("({})^{} divides by a value that contains a = ln 2", detail::brief_ascii(*this), n));
        }
        return Value(t_[0].pow(n));
    }
    if (is_constant()) return Value(constant().pow(n));
    if (n > limits().max_degree) {
        throw over_limit(Limit::max_degree,
                         fmt::format("({})^{} has degree {} or more in a", detail::brief_ascii(*this), n, n));
    }
    Value r(1);
    for (std::int64_t i = 0; i < n; ++i) r *= *this;
    return r;
}

int Value::sign() const {
    if (t_.empty()) return 0;
    // Every coefficient F_k of one sign gives that sign, since a > 0.
    int s = 0;
    bool mixed = false;
    for (const auto& f : t_) {
        if (f.is_zero()) continue;
        const int fs = f.sign();
        if (s == 0) {
            s = fs;
        } else if (fs != s) {
            mixed = true;
            break;
        }
    }
    if (!mixed) return s;
    return detail::certified_sign(t_);
}

std::size_t Value::hash() const {
    std::size_t h = t_.size();
    for (const auto& f : t_) h ^= f.hash() + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U);
    return h;
}

Value exp(const Value& x) {
    mpq_class r;
    if (x.as_rational_multiple_of_a(r)) return Value::exp2(r);
    const auto& t = x.terms();
    if (t.size() > 2) {
        throw domain_error(
            fmt::format("exp({}) is refused: the exponent is not a rational multiple of a = ln 2 (it has a "
                        "term in a^{}), and only exp(r·a) = 2^r, r rational, is known to lie in the domain "
                        "Q(2^(1/m))[a]",
                        detail::brief_ascii(x), t.size() - 1));
    }
    if (!t[0].is_zero()) {
        throw domain_error(
            fmt::format("exp({}) is refused: the exponent has the nonzero constant term {}, and e^c is "
                        "transcendental for algebraic c ≠ 0 (Lindemann–Weierstrass), so in no Q(2^(1/m)), "
                        "with no known form as a polynomial in a; only rational multiples of a = ln 2 "
                        "exponentiate exactly",
                        detail::brief_ascii(x), detail::brief_ascii(Value(t[0]))));
    }
    throw domain_error(
        fmt::format("exp({}) is refused: it is 2^({}), and 2 to an irrational algebraic power is "
                    "transcendental (Gelfond–Schneider), so in no Q(2^(1/m)), with no known form as a "
                    "polynomial in a; only rational multiples of a = ln 2 exponentiate exactly",
                    detail::brief_ascii(x), detail::brief_ascii(Value(t[1]))));
}

Value ln(const Value& x) {
    int s = 0;
    mpq_class r;
    if (x.is_constant() && !x.is_zero() && x.constant().as_signed_power_of_two(s, r) && s > 0) {
        return Value(r) * Value::ln2();
    }
    if (x.is_zero()) throw domain_error("ln(0) is undefined");
    if (x.sign() < 0)
        throw domain_error(fmt::format("ln({}) of a negative value is undefined", detail::brief_ascii(x)));
    throw domain_error(
        fmt::format("ln({}) is refused: only ln(2^r) = r·a, r rational, is known to lie in the domain "
                    "Q(2^(1/m))[a]",
                    detail::brief_ascii(x)));
}

namespace {

std::string root_name(const mpz_class& q) {
    if (q == 2) return "square root";
    if (q == 3) return "cube root";
    return fmt::format("root of order {}", detail::brief(q.get_str()));
}

std::string power_name(const mpz_class& q) {
    if (q == 2) return "square";
    if (q == 3) return "cube";
    return fmt::format("{}th power", detail::brief(q.get_str()));
}

// x^(p/q) for x > 0, q > 1, p/q in lowest terms. A single term c·2^(i/m)·a^k is computed
// exactly when it is in the domain: c = 2^j·u/v with u, v odd, and x^(p/q) = (u/v)^(p/q) ·
// 2^((j + i/m)·p/q) · a^(k·p/q). The power of a is a polynomial only when q divides k (P^q = x
// needs q·deg P = deg x). A positive rational's root lies in some Q(2^(1/M)) exactly when it is
// 2^r times a rational: a real subfield of Q(2^(1/M)) is Q(2^(1/d)) for some d | M, and if
// Q(β) = Q(2^(1/d)) with β^d rational then β = 2^(t/d)·w with w rational. So (u/v)^(p/q), u and
// v odd, is in the domain exactly when u and v are perfect q-th powers: √9 = 3, √18 = 3·√2,
// and √3 is refused with that reason.
Value fractional_power(const Value& x, const mpq_class& e) {
    const mpz_class& q = e.get_den();
    const auto& t = x.terms();
    std::size_t k = 0;
    std::size_t nonzero = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (!t[i].is_zero()) {
            k = i;
            ++nonzero;
        }
    }
    const bool single = nonzero == 1 && t[k].term_count() == 1;
    if (!single) {
        if (!x.is_constant() && mpz_divisible_p(mpz_class(x.degree()).get_mpz_t(), q.get_mpz_t()) == 0) {
            throw domain_error(
                fmt::format("({})^({}) is outside the exact domain: it is not a polynomial in a (a P with "
                            "P^{} equal to it would need {}·deg P = {})",
                            detail::brief_ascii(x), detail::brief(e.get_str()), q.get_str(), q.get_str(), x.degree()));
        }
        throw domain_error(
            fmt::format("({})^({}) is not computed: fractional powers are taken of a single term "
                        "c·2^(i/m)·a^k only (whether the root of a sum lies in the domain is not decided: "
                        "some do, e.g. (3+2·2^(1/2))^(1/2) = 1 + 2^(1/2))",
                        detail::brief_ascii(x), detail::brief(e.get_str())));
    }
    if (mpz_divisible_p(mpz_class(static_cast<unsigned long>(k)).get_mpz_t(), q.get_mpz_t()) == 0) {
        throw domain_error(
            fmt::format("({})^({}) is outside the exact domain: a^{} to the power {} is not a polynomial in "
                        "a (a P with P^{} = a^{} would need {}·deg P = {})",
                        detail::brief_ascii(x), detail::brief(e.get_str()), k, detail::brief(e.get_str()), q.get_str(),
                        k, q.get_str(), k));
    }
    const FieldElem& f = t[k];
    std::size_t i = 0;
    while (sgn(f.coefficients()[i]) == 0) ++i;
    const mpq_class& c = f.coefficients()[i];  // positive: x > 0 and θ^i, a^k are positive
    mpz_class u = c.get_num();
    mpz_class v = c.get_den();
    const auto twos_u = static_cast<long>(mpz_scan1(u.get_mpz_t(), 0));
    const auto twos_v = static_cast<long>(mpz_scan1(v.get_mpz_t(), 0));
    u >>= static_cast<mp_bitcnt_t>(twos_u);
    v >>= static_cast<mp_bitcnt_t>(twos_v);
    // A root of order past an unsigned long is exact only of 1.
    const unsigned long qi = mpz_fits_ulong_p(q.get_mpz_t()) != 0 ? q.get_ui() : ~0UL;
    mpz_class ru;
    mpz_class rv;
    const bool exact_u = mpz_root(ru.get_mpz_t(), u.get_mpz_t(), qi) != 0;
    const bool exact_v = mpz_root(rv.get_mpz_t(), v.get_mpz_t(), qi) != 0;
    if (!exact_u || !exact_v) {
        const mpq_class odd(u, v);
        throw domain_error(
            fmt::format("({})^({}) is outside the exact domain: {} is not the {} of a rational, so its "
                        "{} is irrational and lies in no Q(2^(1/m)) (the roots of rationals there are 2^r "
                        "times a rational)",
                        detail::brief_ascii(x), detail::brief(e.get_str()), detail::brief(odd.get_str()), power_name(q),
                        root_name(q)));
    }
    // x^(p/q) = (ru/rv)^p · 2^((twos_u − twos_v + i/m)·p/q) · a^(k·p/q).
    const mpq_class two_exp = (mpq_class(twos_u - twos_v) + mpq_class(static_cast<long>(i), f.root())) * e;
    if (!mpz_fits_slong_p(e.get_num_mpz_t())) {
        throw over_limit(Limit::max_exponent,
                         fmt::format("power {} (in absolute value)", detail::brief(e.get_num().get_str())));
    }
    Value result = Value(mpq_class(ru, rv)).pow(e.get_num().get_si()) * Value::exp2(two_exp);
    if (k > 0) {
        const mpq_class ka = mpq_class(static_cast<long>(k)) * e;  // an integer: q divides k
        result *= Value::ln2().pow(ka.get_num().get_si());
    }
    return result;
}

}  // namespace

Value pow(const Value& x, const Value& y) {
    if (!y.is_rational()) {
        if (x.is_zero() && y.sign() > 0) return Value();
        if (x == Value(1)) return x;
        if (y.is_constant() && x.is_constant() && !x.is_zero() && x.sign() > 0) {
            // x algebraic, not 0 or 1; y irrational algebraic.
            throw domain_error(
                fmt::format("({})^({}) is refused: an algebraic number other than 0 and 1 to an irrational "
                            "algebraic power is transcendental (Gelfond–Schneider), so in no Q(2^(1/m)), "
                            "with no known form as a polynomial in a; only rational exponents are exact",
                            detail::brief_ascii(x), detail::brief_ascii(y)));
        }
        throw domain_error(
            fmt::format("({})^({}) is refused: the exponent is not rational, and such a power has no "
                        "known form as a polynomial in a = ln 2 (2^a = exp(a^2)); only rational exponents "
                        "are exact",
                        detail::brief_ascii(x), detail::brief_ascii(y)));
    }
    const mpq_class e = y.rational();
    if (e.get_den() == 1) {
        if (!mpz_fits_slong_p(e.get_num_mpz_t())) {
            throw over_limit(Limit::max_exponent,
                             fmt::format("power {} (in absolute value)", detail::brief(e.get_str())));
        }
        return x.pow(e.get_num().get_si());
    }
    int s = 0;
    mpq_class r;
    if (x.is_constant() && !x.is_zero() && x.constant().as_signed_power_of_two(s, r) && s > 0) {
        return Value::exp2(r * e);
    }
    if (x.is_zero()) {
        if (sgn(e) < 0) throw domain_error("division by zero: 0 raised to a negative power");
        return Value();
    }
    if (x.sign() < 0) {
        throw domain_error(
            fmt::format("({})^({}) is not real: the principal value of a fractional power of a negative "
                        "number is not real",
                        detail::brief_ascii(x), detail::brief(e.get_str())));
    }
    return fractional_power(x, e);
}

int compare(const Value& x, const Value& y) { return (x - y).sign(); }

double to_double(const Value& x) { return detail::certified_double(x.terms()); }

std::string to_fixed(const Value& x, int digits) { return detail::certified_decimal(x.terms(), digits, true); }

std::string to_significant(const Value& x, int digits) { return detail::certified_decimal(x.terms(), digits, false); }

std::ostream& operator<<(std::ostream& os, const Value& x) { return os << to_ascii(x); }

}  // namespace exactattn
