// SPDX-License-Identifier: MIT
// exactattn: the shifted-integer fast path for reads whose exponentials are powers of two.
#pragma once

#include <optional>
#include <vector>

#include "exactattn/read.hpp"

namespace exactattn::detail {

/// When the keys are compact (every entry k·u_i, k an integer, u_i one unit for the memory or
/// one per column, Memory::compacted) and every query entry q_i makes q_i·u_i·scale a rational
/// multiple of a (or column i is all zero), every score is T_j/M · a for integers T_j, M, and
/// every exponential is 2^(T_j/M). With values compact as well (v_ji = k·w_i),
///   denominator = 2^fmin Σ_r θ^r N_r,   context_i = (Σ_r θ^r C_{r,i}) / (Σ_r θ^r N_r) · w_i,
/// with θ = 2^(1/M), r = T_j mod M, and N_r, C_{r,i} integers built by adding small integers at
/// bit offsets ⌊T_j/M⌋ − fmin: integer work O(n·d), one field inversion at the end. Returns
/// nullopt when the structure does not hold (or is past a limit: the general path then reports
/// it; or n·max|k| over the rows not removed reaches 2^62, past its 64-bit bucket sums), so
/// callers fall back to the general value arithmetic. The result equals attend_general's in
/// every field; its context (and for M > 1 the weights' shared factor) is reduced to canonical
/// form when first looked at (deferred.hpp).
///
/// `keys` are scored against the query, `values` (the same object for the chapter's read) are
/// averaged; `scale` is the score rule's factor (read.hpp score_scale), folded into each
/// q_i·u_i: a rational scale keeps scaled scores on this path.
std::optional<ReadTrace> fast_attend(const Memory& keys, const Memory& values, const ReadRequest& request,
                                     const std::vector<Mark>& marks, const Value& scale);

}  // namespace exactattn::detail
