// SPDX-License-Identifier: MIT
// exactattn: certified enclosures of exact values, for sign and correct rounding.
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <string>
#include <vector>

namespace exactattn {

class FieldElem;

/// A certified enclosure [lo / 2^prec, hi / 2^prec] of a real number (lo ≤ hi).
struct Enclosure {
    mpz_class lo;
    mpz_class hi;
    std::int64_t prec = 0;
    [[nodiscard]] bool contains_zero() const { return sgn(lo) <= 0 && sgn(hi) >= 0; }
};

namespace detail {

/// Encloses Σ_k coeffs[k] · a^k (a = ln 2) at working precision `prec` bits. Every bound is
/// rigorous: ln 2 from MPFR's correctly rounded constant rounded down and up, 2^(1/m) from
/// MPFR's correctly rounded roots rounded down and up, and exact integer arithmetic rounding
/// always outward (Σ c_i θ^i by baby-step giant-step, in midpoint-radius form).
Enclosure enclose(const std::vector<FieldElem>& coeffs, std::int64_t prec);

/// Sign of Σ coeffs[k] a^k, known to be nonzero or zero structurally (zero iff every
/// coefficient is zero, since ln 2 is transcendental). Doubles the precision until the
/// enclosure excludes 0 (FLINT qqbar_cmp_re style); LimitError past limits().max_precision.
int certified_sign(const std::vector<FieldElem>& coeffs);

/// Correctly rounded (to nearest, ties to even) double of Σ coeffs[k] a^k.
double certified_double(const std::vector<FieldElem>& coeffs);

/// Correctly rounded decimal string: `fixed` gives `digits` digits after the point,
/// otherwise `digits` significant digits in %g style.
std::string certified_decimal(const std::vector<FieldElem>& coeffs, int digits, bool fixed);

/// A high-precision midpoint approximation with at least `bits` correct bits, as an exact
/// rational (used by the cross-check to measure errors without rounding to double first).
mpq_class approximate(const std::vector<FieldElem>& coeffs, std::int64_t bits);

/// 10^k, exactly.
mpq_class pow10q(std::int64_t k);
/// ⌊log10 |q|⌋ within 2 for q ≠ 0, from the decimal sizes of its numerator and denominator:
/// a starting point for exact comparisons with powers of ten.
std::int64_t decimal_exponent_guess(const mpq_class& q);

}  // namespace detail
}  // namespace exactattn
