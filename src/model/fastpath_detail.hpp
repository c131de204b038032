// SPDX-License-Identifier: MIT
// exactattn: the stages of the fast path that live in files of their own (fastpath.cpp is the
// driver): step 1, the pass over the rows (fastpath_rows.cpp), and step 3, the finish over Q or
// in Z[θ] (fastpath_finish.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "exactattn/deferred.hpp"
#include "exactattn/read.hpp"
#include "model/big_sums.hpp"

namespace exactattn::detail::fastpath {

// Step 1: the pass over the rows.

struct RowPass {
    std::vector<std::int64_t> s;  // S_j = Σ_i p_i k_ji (0 where removed or zeroed), up to the last row present
    std::vector<bool> present;    // not removed
    std::int64_t smin = 0;        // over present rows
    std::int64_t smax = 0;
    bool any_score = false;    // some S_j ≠ 0
    std::size_t count = 0;     // present rows
    std::uint64_t vbound = 0;  // ≥ |v| − 1 for every value integer of a present row
    bool dense = true;         // the buckets hold every present row
    std::int64_t base = 0;     // the score of bucket 0
    std::size_t buckets = 0;
    std::vector<std::int64_t> acc;  // buckets × (d + 1): the rows' sums, then the count
};

// One pass over the n rows of width d (keys k, values v of width dv; v == k for the chapter's
// read) with the score factors p (|p_i| ≤ pmax): scores, bounds, and (while they fit a window)
// the bucket sums. False: decline.
bool run_row_pass(const std::int64_t* k, std::size_t n, std::size_t d, const std::int64_t* p, std::uint64_t pmax,
                  const std::vector<Mark>& marks, const std::int64_t* v, std::size_t dv, RowPass& r);

// Step 3: the finish.

// A memory's column units: one for all columns, or one each.
struct ColumnUnits {
    std::vector<Value> all;
    const Value& operator[](std::size_t i) const { return all.size() == 1 ? all[0] : all[i]; }
};

// m = 1: Σ_j 2^(T_j) = 2^fmin·N and context_i = C_i / N · unit. 1/N is canonical as it stands;
// the contexts are reduced (common_factors: one full-size gcd) when first looked at.
Deferred<Value> finish_rational(ReadTrace& tr, BigSums& sums, std::int64_t fmin, std::size_t dv,
                                const std::shared_ptr<ColumnUnits>& units, bool one_unit, const ReadRequest& request);

// m > 1: D = Σ_r θ^r N_r and C_i = Σ_r θ^r C_{r,i}, integral. With D·A = N (A integral, N an
// integer), C_i / D = C_i·A / N: integer products, then the coefficients reduced against N with
// one shared full-size gcd (common_factors), instead of an inversion and d products over Q that
// reduce every partial fraction. All of it deferred: D⁻¹ (the weights' factor) when a weight is
// first looked at, the contexts when they are.
Deferred<Value> finish_field(ReadTrace& tr, BigSums& sums, const std::vector<bool>& residue_used, std::int64_t m,
                             std::int64_t fm, std::size_t dv, const std::shared_ptr<ColumnUnits>& units, bool one_unit);

}  // namespace exactattn::detail::fastpath
