// SPDX-License-Identifier: MIT
// exactattn: arithmetic on polynomials in a = ln 2.
#include "exactattn/value.hpp"

#include <fmt/format.h>

#include <ostream>

#include "exactattn/error.hpp"
#include "exactattn/interval.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/print.hpp"

namespace exactattn {

namespace {

// Total size of a coefficient's numerators and denominators, in bits.
std::int64_t total_bits(const FieldElem& f) {
    std::int64_t bits = 0;
    for (const auto& c : f.coefficients()) {
        bits += static_cast<std::int64_t>(mpz_sizeinbase(c.get_num_mpz_t(), 2) +
                                          mpz_sizeinbase(c.get_den_mpz_t(), 2));
    }
    return bits;
}

[[noreturn]] void value_bits_error(std::int64_t bits) {
    throw limit_error(fmt::format("a value would need more than {} bits in all, over the limit of "
                                  "{} bits (limits: max_value_bits)",
                                  bits, limits().max_value_bits));
}

void check_degree(std::size_t terms) {
    if (terms > static_cast<std::size_t>(limits().max_degree) + 1) {
        throw limit_error(fmt::format("a value of degree {} in a is over the limit of {} "
                                      "(limits: max_degree)",
                                      terms - 1, limits().max_degree));
    }
}
}  // namespace

Value::Value(const FieldElem& f) {
    if (!f.is_zero()) t_.push_back(f);
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

bool Value::is_canonical() const {
    if (!t_.empty() && t_.back().is_zero()) return false;
    for (const auto& f : t_) {
        if (!f.is_canonical()) return false;
    }
    return true;
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
        throw domain_error(fmt::format(
            "division by {}, which contains a = ln 2: the quotient is not a polynomial in a",
            detail::brief_ascii(y)));
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
            throw domain_error(fmt::format(
                "({})^{} divides by a value that contains a = ln 2", detail::brief_ascii(*this), n));
        }
        return Value(t_[0].pow(n));
    }
    if (is_constant()) return Value(constant().pow(n));
    if (n > limits().max_degree) {
        throw limit_error(fmt::format("({})^{} has degree over the limit of {} in a "
                                      "(limits: max_degree)",
                                      detail::brief_ascii(*this), n, limits().max_degree));
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
        throw domain_error(fmt::format(
            "exp({}) is outside the exact domain: the exponent has a term in a^{}, and exp is "
            "exact only for rational multiples of a = ln 2",
            detail::brief_ascii(x), t.size() - 1));
    }
    if (!t[0].is_zero()) {
        throw domain_error(fmt::format(
            "exp({}) is outside the exact domain: the exponent has the nonzero constant term {}, "
            "and e^c is transcendental for algebraic c ≠ 0 (Lindemann–Weierstrass); only "
            "rational multiples of a = ln 2 exponentiate exactly",
            detail::brief_ascii(x), detail::brief_ascii(Value(t[0]))));
    }
    throw domain_error(fmt::format(
        "exp({}) is outside the exact domain: it is 2^({}), and 2 to an irrational algebraic "
        "power is transcendental (Gelfond–Schneider); only rational multiples of a = ln 2 "
        "exponentiate exactly",
        detail::brief_ascii(x), detail::brief_ascii(Value(t[1]))));
}

Value ln(const Value& x) {
    int s = 0;
    mpq_class r;
    if (x.is_constant() && !x.is_zero() && x.constant().as_signed_power_of_two(s, r) && s > 0) {
        return Value(r) * Value::ln2();
    }
    if (x.is_zero()) throw domain_error("ln(0) is undefined");
    if (x.sign() < 0) throw domain_error(fmt::format("ln({}) of a negative value is undefined", detail::brief_ascii(x)));
    throw domain_error(fmt::format(
        "ln({}) is outside the exact domain: only ln(2^r) = r·a for rational r is exact",
        detail::brief_ascii(x)));
}

Value pow(const Value& x, const Value& y) {
    if (!y.is_rational()) {
        if (y.is_constant()) {
            throw domain_error(fmt::format(
                "({})^({}) is outside the exact domain: an irrational algebraic exponent gives a "
                "transcendental number (Gelfond–Schneider)",
                detail::brief_ascii(x), detail::brief_ascii(y)));
        }
        throw domain_error(fmt::format(
            "({})^({}) is outside the exact domain: the exponent contains a = ln 2 (2^a = "
            "exp(a^2) is not a polynomial in a)",
            detail::brief_ascii(x), detail::brief_ascii(y)));
    }
    const mpq_class e = y.rational();
    if (e.get_den() == 1) {
        if (!mpz_fits_slong_p(e.get_num_mpz_t())) {
            throw limit_error(fmt::format("power {} is over the limit of {} in absolute value "
                                          "(limits: max_exponent)",
                                          detail::brief(e.get_str()), limits().max_exponent));
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
    if (!x.is_constant()) {
        throw domain_error(fmt::format(
            "({})^({}) is outside the exact domain: a fractional power of a value containing "
            "a = ln 2 is not a polynomial in a",
            detail::brief_ascii(x), detail::brief(e.get_str())));
    }
    if (x.sign() < 0) {
        throw domain_error(fmt::format(
            "({})^({}) is not real: a fractional power of a negative number", detail::brief_ascii(x),
            detail::brief(e.get_str())));
    }
    throw domain_error(fmt::format(
        "({})^({}) is outside the exact domain: only powers of 2 have roots in Q(2^(1/m))",
        detail::brief_ascii(x), detail::brief(e.get_str())));
}

int compare(const Value& x, const Value& y) { return (x - y).sign(); }

double to_double(const Value& x) { return detail::certified_double(x.terms()); }

std::string to_fixed(const Value& x, int digits) {
    return detail::certified_decimal(x.terms(), digits, true);
}

std::string to_significant(const Value& x, int digits) {
    return detail::certified_decimal(x.terms(), digits, false);
}

std::ostream& operator<<(std::ostream& os, const Value& x) { return os << to_ascii(x); }

}  // namespace exactattn
