// SPDX-License-Identifier: MIT
// exactattn: exact values, polynomials in a = ln 2 over K_m = Q(2^(1/m)) (docs/notation.md).
#pragma once

#include <gmpxx.h>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "exactattn/field.hpp"

namespace exactattn {

/// An exact value Σ_k F_k a^k with a = ln 2 and F_k ∈ Q(2^(1/m_k)).
///
/// Canonical form: `terms()[k]` is F_k, each F_k canonical (its own smallest m), no trailing
/// zero F_k; zero has no terms. Since ln 2 is transcendental over the algebraic numbers, two
/// values are equal exactly when their canonical forms are, so `==` is structural.
///
/// Example: `Value::ln2() * Value(mpq_class(2, 3))` prints as `2a/3`.
class Value {
  public:
    Value() = default;                      ///< zero
    Value(long n) : Value(FieldElem(n)) {}  // NOLINT: integers convert implicitly
    explicit Value(const mpq_class& q) : Value(FieldElem(q)) {}
    explicit Value(const FieldElem& f);  ///< degree 0
    explicit Value(FieldElem&& f);       ///< degree 0, taking f's numbers without copying them
    /// Σ terms[k] a^k, canonicalized. LimitError past limits().max_degree.
    static Value from_terms(std::vector<FieldElem> terms);

    static Value ln2();  ///< a
    /// exp(r·a) = 2^r for rational r.
    static Value exp2(const mpq_class& r) { return Value(FieldElem::pow2(r)); }

    [[nodiscard]] const std::vector<FieldElem>& terms() const { return t_; }
    /// Total size, in bits, of every numerator and denominator of the value.
    [[nodiscard]] std::size_t bit_size() const;
    [[nodiscard]] int degree() const { return static_cast<int>(t_.size()) - 1; }  ///< -1 for 0
    [[nodiscard]] bool is_zero() const { return t_.empty(); }
    /// True when free of a (degree ≤ 0): an element of some K_m.
    [[nodiscard]] bool is_constant() const { return t_.size() <= 1; }
    [[nodiscard]] bool is_rational() const { return t_.empty() || (t_.size() == 1 && t_[0].is_rational()); }
    /// The constant part F_0 (zero if absent).
    [[nodiscard]] FieldElem constant() const { return t_.empty() ? FieldElem() : t_[0]; }
    /// The rational value; precondition is_rational().
    [[nodiscard]] mpq_class rational() const { return constant().rational(); }
    /// The rational value; DomainError `<value> is not rational` when it is not.
    [[nodiscard]] mpq_class checked_rational() const;
    /// If this is r·a with r rational (or 0), sets r and returns true.
    [[nodiscard]] bool as_rational_multiple_of_a(mpq_class& r) const;
    [[nodiscard]] bool is_canonical() const;

    Value& operator+=(const Value& y);
    Value& operator-=(const Value& y);
    Value& operator*=(const Value& y);
    /// Division by a nonzero value free of a; DomainError otherwise.
    Value& operator/=(const Value& y);
    Value operator-() const;
    /// x^n, n any integer; negative n needs x free of a and nonzero.
    [[nodiscard]] Value pow(std::int64_t n) const;

    /// Exact sign −1/0/+1: structural zero test, then certified intervals.
    [[nodiscard]] int sign() const;

    friend bool operator==(const Value& x, const Value& y) { return x.t_ == y.t_; }
    friend bool operator!=(const Value& x, const Value& y) { return !(x == y); }
    [[nodiscard]] std::size_t hash() const;

  private:
    void canonicalize();
    std::vector<FieldElem> t_;
};

inline Value operator+(Value x, const Value& y) { return x += y; }
inline Value operator-(Value x, const Value& y) { return x -= y; }
inline Value operator*(Value x, const Value& y) { return x *= y; }
inline Value operator/(Value x, const Value& y) { return x /= y; }

/// exp(x) when the result is in the domain: x = r·a with r rational gives 2^r. Anything else
/// throws DomainError naming the reason (e transcendental, 2^√2 by Gelfond–Schneider, a²).
Value exp(const Value& x);
/// ln(x) for x = 2^r (r rational): r·a. DomainError otherwise.
Value ln(const Value& x);
/// x^y for rational y: integer y is a power; fractional y = p/q is taken of one positive term
/// c·2^(i/m)·a^k when the result is in the domain (the odd part of c a q-th power of a
/// rational, q dividing k): √9 = 3, √18 = 3·√2, 8^(2/3) = 4, √(4a²) = 2a. DomainError
/// otherwise, with a true reason (√3, (-2)^(1/2), (a³)^(1/2), 2^a, roots of sums not computed).
Value pow(const Value& x, const Value& y);

/// Exact comparison: −1, 0 or +1 for x < y, x = y, x > y.
int compare(const Value& x, const Value& y);
inline Value max(const Value& x, const Value& y) { return compare(x, y) >= 0 ? x : y; }
inline Value min(const Value& x, const Value& y) { return compare(x, y) <= 0 ? x : y; }
inline Value relu(const Value& x) { return x.sign() > 0 ? x : Value(); }

/// Correctly rounded double (round to nearest, ties to even).
double to_double(const Value& x);
/// Correctly rounded decimal: `digits` places after the point.
std::string to_fixed(const Value& x, int digits);
/// Correctly rounded decimal: `digits` significant digits (%g style).
std::string to_significant(const Value& x, int digits);

/// Writes the canonical ascii form (print.hpp has all printers).
std::ostream& operator<<(std::ostream& os, const Value& x);

}  // namespace exactattn

template <>
struct std::hash<exactattn::Value> {
    std::size_t operator()(const exactattn::Value& v) const noexcept { return v.hash(); }
};
template <>
struct std::hash<exactattn::FieldElem> {
    std::size_t operator()(const exactattn::FieldElem& v) const noexcept { return v.hash(); }
};
