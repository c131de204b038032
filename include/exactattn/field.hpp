// SPDX-License-Identifier: MIT
// exactattn: exact elements of the number field K_m = Q(2^(1/m)) (docs/notation.md).
#pragma once

#include <gmpxx.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace exactattn {

class FieldElem;

/// An element x = Σ_{i<m} c_i θ^i of K_m = Q(θ), θ = 2^(1/m), θ^m = 2.
///
/// Canonical form (every public operation returns it, `is_canonical()` checks it):
///  - each c_i is a reduced fraction with a positive denominator;
///  - no trailing zero coefficients (coefficients().size() ≤ m);
///  - m is the smallest root degree: there is no k > 1 dividing m and every index i with
///    c_i ≠ 0 (2^(2/4) is stored as 2^(1/2), m = 2);
///  - zero is m = 1 with no coefficients.
/// Because x^m − 2 is irreducible over Q, the canonical form is unique, so `==` is structural.
///
/// Example: `FieldElem::pow2(mpq_class(3, 2))` is 2·θ with m = 2, i.e. 2·2^(1/2).
class FieldElem {
  public:
    FieldElem() = default;                          ///< zero
    FieldElem(long n) : FieldElem(mpq_class(n)) {}  // NOLINT: integers convert implicitly
    explicit FieldElem(const mpq_class& q);         ///< a rational (canonicalized)

    /// 2^r for rational r, exact: 2^⌊r⌋ θ_q^(p mod q) in K_q, q the denominator of r.
    /// Throws LimitError when |r| or q is over the limits.
    static FieldElem pow2(const mpq_class& r);

    /// Builds Σ c_i θ_m^i and canonicalizes (shrinks m, trims zeros). Throws LimitError when m
    /// is over the limit.
    static FieldElem from_coefficients(int m, std::vector<mpq_class> coeffs);

    [[nodiscard]] int root() const { return m_; }  ///< m
    [[nodiscard]] const std::vector<mpq_class>& coefficients() const { return c_; }
    [[nodiscard]] mpq_class coefficient(int i) const;  ///< c_i (0 past the end)
    [[nodiscard]] bool is_zero() const { return c_.empty(); }
    [[nodiscard]] bool is_rational() const { return m_ == 1; }
    /// The rational value; precondition is_rational().
    [[nodiscard]] mpq_class rational() const;
    /// Number of nonzero coefficients.
    [[nodiscard]] std::size_t term_count() const;
    [[nodiscard]] bool is_canonical() const;

    /// This element written over K_n; n must be a multiple of m. Not canonical (detail).
    [[nodiscard]] std::vector<mpq_class> lifted(int n) const;

    /// Exact sign: −1, 0, +1 (structural shortcuts, then certified intervals).
    [[nodiscard]] int sign() const;

    FieldElem& operator+=(const FieldElem& y);
    FieldElem& operator-=(const FieldElem& y);
    FieldElem& operator*=(const FieldElem& y);
    /// Throws DomainError on division by zero.
    FieldElem& operator/=(const FieldElem& y);
    FieldElem operator-() const;
    /// Exact inverse in K_m; throws DomainError for zero.
    [[nodiscard]] FieldElem inverse() const;
    /// x^n for any integer n (negative: inverse first). Throws on 0^negative and limits.
    [[nodiscard]] FieldElem pow(std::int64_t n) const;

    /// If this is ±2^r (a single term c θ^i with c = ±2^k) returns true and sets r = k + i/m.
    [[nodiscard]] bool as_signed_power_of_two(int& sign, mpq_class& r) const;

    /// Size of the largest numerator or denominator, in bits.
    [[nodiscard]] std::int64_t max_bits() const;

    friend bool operator==(const FieldElem& x, const FieldElem& y) { return x.m_ == y.m_ && x.c_ == y.c_; }
    friend bool operator!=(const FieldElem& x, const FieldElem& y) { return !(x == y); }

    /// Structural hash (canonical form makes it a value hash).
    [[nodiscard]] std::size_t hash() const;

  private:
    friend struct FieldElemAccess;  // the unchecked constructors (src/core/field_detail.hpp)
    void canonicalize();
    int m_ = 1;
    std::vector<mpq_class> c_;
};

inline FieldElem operator+(FieldElem x, const FieldElem& y) { return x += y; }
inline FieldElem operator-(FieldElem x, const FieldElem& y) { return x -= y; }
inline FieldElem operator*(FieldElem x, const FieldElem& y) { return x *= y; }
inline FieldElem operator/(FieldElem x, const FieldElem& y) { return x /= y; }

}  // namespace exactattn
