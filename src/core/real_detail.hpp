// SPDX-License-Identifier: MIT
// exactattn internal: what the answer entry's parser and judge share of the reals (real.cpp).
#pragma once

#include <cstdint>
#include <optional>

#include "exactattn/answer_entry.hpp"

namespace exactattn::detail {

/// The precision in bits at which an enclosure is first looked at.
inline constexpr std::int64_t kFirstBits = 64;

/// −x.
Real negated(const Real& x);
/// |x|.
Real absolute(const Real& x);
/// The sign of x − y, certified: exact arithmetic for two values of the domain, else enclosures
/// refined until they separate. nullopt: not separated at 4096 bits.
std::optional<int> certified_compare(const Real& x, const Real& y);

}  // namespace exactattn::detail
