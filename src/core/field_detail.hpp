// SPDX-License-Identifier: MIT
// exactattn internal: FieldElem's unchecked constructors and checks, for the library's fast paths
// (kept out of the installed field.hpp).
#pragma once

#include <gmpxx.h>

#include <vector>

#include "exactattn/field.hpp"

namespace exactattn {

/// The representation of a FieldElem, set as it is given (from_canonical_unchecked checks it).
struct FieldElemAccess {
    static FieldElem make(int m, std::vector<mpq_class> coeffs);
};

namespace detail {
/// Σ c_i θ_m^i from coefficients that are already canonical (reduced fractions with positive
/// denominators, no trailing zero, m the smallest root degree), without the gcd per
/// coefficient that `FieldElem::from_coefficients` spends: for a caller that has reduced its
/// fractions more cheaply itself (the fast path reduces d contexts with one full-size gcd).
/// Unchecked (FLINT's underscore rule); builds with EXACTATTN_ASSERTS verify the form.
/// Throws LimitError past limits().max_root or max_bits.
FieldElem from_canonical_unchecked(int m, std::vector<mpq_class> coeffs);
/// The same from reduced fractions that may still have trailing zeros or a smaller root
/// degree: trimmed and shrunk by the one rule FieldElem's canonical form is made by, without
/// reducing the fractions again.
FieldElem from_reduced_unchecked(int m, std::vector<mpq_class> coeffs);

/// Checks a number's size against limits().max_bits; throws LimitError.
void check_bits(const mpq_class& q);
/// Least common multiple of two root degrees, checked against limits().max_root.
int lcm_root(int m1, int m2);
}  // namespace detail

}  // namespace exactattn
