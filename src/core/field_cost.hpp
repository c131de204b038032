// SPDX-License-Identifier: MIT
// exactattn internal: what field.cpp and field_inverse.cpp share — a coefficient vector over
// one common denominator, and the sizes and work units of a product (docs/limits.md).
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <vector>

namespace exactattn::detail {

inline  // Bits of |z| (0 for 0).
    std::int64_t
    bits_of(const mpz_class& z) {
    return sgn(z) == 0 ? 0 : static_cast<std::int64_t>(mpz_sizeinbase(z.get_mpz_t(), 2));
}

// x = X / D with X integral: D is the lcm of the denominators, X_i = c_i · D.
struct Cleared {
    mpz_class den = 1;
    std::vector<mpz_class> num;
};
Cleared clear_denominators(const std::vector<mpq_class>& c);

// The nonzero coefficients of v, the bits of the largest (numerator and denominator together,
// counted in limbs: cheap enough to take before every operation), and of all of them.
struct Sizes {
    double terms = 0;
    double largest = 0;
    double total = 0;
};

// The work of x · y (work units, docs/limits.md): schoolbook, every pair of nonzero terms is a
// rational product with its cross-cancelling gcds; Kronecker, one product of the packed
// integers and the gcds of the m results over the common denominator.
double product_work(const Sizes& a, const Sizes& b, bool kronecker);

}  // namespace exactattn::detail
