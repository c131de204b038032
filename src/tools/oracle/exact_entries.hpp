// SPDX-License-Identifier: MIT
// exactattn oracle (private): the entries of a reference row decided exactly rather than by
// enclosures (docs/oracle.md, "Exact entries"): rational entries, the sign test at a rounding
// boundary, and an exp2 kernel's exact domain.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "exactattn/oracle.hpp"

namespace exactattn::oracle::detail {

/// A cheap exact decision for an output c whose enclosure [lo, hi] straddles the one rounding
/// boundary between two neighbours of f, from the signs of v_jc − x over the visible keys.
std::optional<double> decide_by_sign(const Problem& p, std::int64_t c, const std::vector<std::uint8_t>& keep, double lo,
                                     double hi, FloatFormat f);

/// Stores the exact rational entries of row i (and the weights 1/n when every score is equal),
/// marking them in `done`.
void store_exact(const Problem& p, std::int64_t i, const std::vector<std::uint8_t>& keep, Reference& ref,
                 std::vector<std::uint8_t>& done);

/// Stores the outputs of row i of an exp2 kernel in its exact domain, marking them in `done`;
/// false (nothing stored) when the row is out of that domain's reach.
bool store_exact_base2(const Problem& p, std::int64_t i, const std::vector<std::uint8_t>& keep, Reference& ref,
                       std::vector<std::uint8_t>& done);

}  // namespace exactattn::oracle::detail
