// SPDX-License-Identifier: MIT
// exactattn internal: a memory's storage estimate, and the common unit of values that are
// rational multiples of one monomial (the fast path's integer form), kept out of the installed
// memory.hpp.
#pragma once

#include <gmpxx.h>

#include <cstddef>
#include <cstdint>

#include "exactattn/memory.hpp"
#include "exactattn/value.hpp"

namespace exactattn {

namespace detail {
/// Estimated heap bytes of one value (its vectors, fractions and limbs).
std::size_t storage_bytes(const Value& v);
/// LimitError when a memory's estimated storage is over limits().max_memory_bytes.
void check_storage(std::size_t bytes, std::size_t rows);

/// The shape r·2^(l/m)·a^e of a value with one nonzero coefficient (r rational, m canonical).
struct Monomial {
    int e = -1;  ///< the power of a; -1: none yet (UnitFit)
    int m = 1;
    int l = 0;
    friend bool operator==(const Monomial&, const Monomial&) = default;
};
/// v's coefficient r when v = r·2^(l/m)·a^e (sets `mono`); nullptr for zero and for values of
/// several terms.
const mpq_class* monomial_of(const Value& v, Monomial& mono);
/// r·2^(l/m)·a^e.
Value monomial_value(const mpq_class& r, const Monomial& mono);

/// The common unit of a set of values that are rational multiples of one monomial: the gcd of
/// their coefficients' numerators over the lcm of their denominators, times the monomial. Feed
/// every value to add(), then ask each one's integer.
class UnitFit {
  public:
    /// False when v is not zero nor a rational multiple of the monomial of the values so far.
    bool add(const Value& v);
    /// v / unit(), for a v that add() accepted; false when it is not below 2^62 in magnitude.
    bool integer(const Value& v, std::int64_t& k);
    /// The unit (1 when every value was zero).
    [[nodiscard]] Value unit() const;

  private:
    Monomial mono_;
    mpz_class g_num_ = 0;  // gcd of the numerators
    mpz_class l_den_ = 1;  // lcm of the denominators
    bool g_is_one_ = false;
    mpz_class q_;
};
}  // namespace detail

}  // namespace exactattn
