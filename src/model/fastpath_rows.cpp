// SPDX-License-Identifier: MIT
// exactattn: the fast path's step 1 (fastpath.cpp): one pass over the memory's integers, the
// scores and, while they stay in a window, the rows added into their scores' buckets.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/fastpath_detail.hpp"

namespace exactattn::detail::fastpath {

namespace {

// Grows the bucket window to hold score `sj`; false when it would pass `cap` buckets.
bool grow_window(RowPass& r, std::size_t d, std::int64_t sj, std::size_t cap) {
    const std::size_t stride = d + 1;
    const i128 lo = r.buckets == 0 ? sj : std::min<i128>(r.base, sj);
    const i128 hi = r.buckets == 0 ? sj : std::max<i128>(r.base + static_cast<i128>(r.buckets) - 1, sj);
    const i128 need = hi - lo + 1;
    if (need > static_cast<i128>(cap)) return false;
    std::size_t size = std::max<std::size_t>({static_cast<std::size_t>(need), 2 * r.buckets, 64});
    size = std::min(size, cap);
    // Extend toward the new score, keeping the old window inside (|scores| ≤ 2^62: no overflow).
    i128 base = lo;
    if (r.buckets == 0)
        base = lo - static_cast<i128>(size / 2);
    else if (sj < r.base)
        base = hi - static_cast<i128>(size) + 1;
    std::vector<std::int64_t> acc(size * stride, 0);
    if (r.buckets != 0) {
        const auto off = static_cast<std::size_t>(static_cast<i128>(r.base) - base);
        std::copy(r.acc.begin(), r.acc.end(), acc.begin() + static_cast<std::ptrdiff_t>(off * stride));
    }
    r.acc = std::move(acc);
    r.base = static_cast<std::int64_t>(base);
    r.buckets = size;
    return true;
}

// One pass: scores, bounds, and (while they fit a window) the bucket sums. D is the width when
// known at compile time (the common widths are unrolled), 0 otherwise. False: decline.
template <std::size_t D>
bool row_pass(const std::int64_t* k, std::size_t n, std::size_t d_runtime, const std::int64_t* p, std::uint64_t pmax,
              const std::vector<Mark>& marks, const std::int64_t* v, std::size_t dv, RowPass& r) {
    const std::size_t d = D != 0 ? D : d_runtime;
    const std::size_t stride = dv + 1;
    // A row whose |k| are at most L keeps |S| ≤ d·pmax·L ≤ 2^62 in int64 when L < narrow, and
    // every bucket sum (≤ n rows) below 2^62 when L < sums.
    const u128 two62 = u128{1} << 62;
    const u128 narrow = pmax == 0 ? two62 : two62 / (static_cast<u128>(pmax) * d);
    const u128 sums = two62 / std::max<std::size_t>(n, 1);
    const std::uint64_t row_limit = static_cast<std::uint64_t>(std::min(narrow, sums));
    const std::uint64_t sum_limit = static_cast<std::uint64_t>(sums);
    // Buckets pay while they hold several rows each: past present/4 of them (a layer row's
    // thousand scores spread over as many values) the rows go straight into the big sums.
    const auto present = static_cast<std::size_t>(std::count_if(
        marks.begin(), marks.begin() + static_cast<std::ptrdiff_t>(n), [](Mark mk) { return mk != Mark::Removed; }));
    const std::size_t cap = std::max<std::size_t>(present / 4, 64);
    r.count = present;
    // The scores up to the last row not removed: a causal layer's row i removes every key after
    // i, so the rows past it would only hold zeros (half of a layer's score columns, n² / 2
    // integers kept with the trace, each page touched on this machine a trap).
    std::size_t last = n;
    while (last > 0 && marks[last - 1] == Mark::Removed) --last;
    r.s.assign(last, 0);
    r.present.assign(n, false);
    // Adds row j (score sj) into its bucket; false (and no buckets any more) when the window
    // would pass `cap` buckets.
    auto add_to_bucket = [&](std::size_t j, std::int64_t sj) {
        if (r.buckets == 0 || sj < r.base ||
            static_cast<i128>(sj) >= static_cast<i128>(r.base) + static_cast<i128>(r.buckets)) {
            if (!grow_window(r, dv, sj, cap)) {
                r.dense = false;
                r.acc = {};
                r.buckets = 0;
                return false;
            }
        }
        std::int64_t* a = r.acc.data() + static_cast<std::size_t>(sj - r.base) * stride;
        if (v == k) {  // keys are the values (the chapter's read): the row is still in cache
            const std::int64_t* row = k + j * d;
            for (std::size_t i = 0; i < d; ++i) a[i] += row[i];
        } else {
            const std::int64_t* vrow = v + j * dv;
            for (std::size_t i = 0; i < dv; ++i) a[i] += vrow[i];
        }
        a[dv] += 1;
        return true;
    };
    // The scored rows before `end` into the buckets, unless their scores already spread wider
    // than the window may (then the whole read would too).
    auto into_buckets = [&](std::size_t end) {
        if (static_cast<i128>(r.smax) - r.smin + 1 > static_cast<i128>(cap)) {
            r.dense = false;
            return false;
        }
        for (std::size_t j = 0; j < end; ++j) {
            if (r.present[j] && !add_to_bucket(j, r.s[j])) return false;
        }
        return true;
    };
    constexpr std::size_t kProbe = 64;
    std::size_t probed = 0;
    bool probing = true;
    bool first = true;
    for (std::size_t j = 0; j < n; ++j) {
        const Mark mark = marks[j];
        if (mark == Mark::Removed) continue;
        r.present[j] = true;
        const std::int64_t* row = k + j * d;
        std::uint64_t bound = 0;  // ≥ |k| − 1 for every entry of the row
        for (std::size_t i = 0; i < d; ++i) {
            bound |= static_cast<std::uint64_t>(row[i] ^ (row[i] >> 63));
        }
        if (v == k) {
            r.vbound |= bound;
        } else {
            // The bucket sums add up to n value rows in 64 bits: every |v| must stay below
            // 2^62/n. An OR of |v| or |v| − 1 (it vectorises), the magnitudes only near there.
            const std::int64_t* vrow = v + j * dv;
            std::uint64_t vb = 0;
            for (std::size_t i = 0; i < dv; ++i) {
                const auto u = static_cast<std::uint64_t>(vrow[i]);
                vb |= u ^ (0 - (u >> 63));
            }
            if (vb + 1 >= sum_limit) {
                for (std::size_t i = 0; i < dv; ++i) {
                    const auto u = static_cast<std::uint64_t>(vrow[i]);
                    if ((vrow[i] < 0 ? 0 - u : u) >= sum_limit) return false;
                }
            }
            r.vbound |= vb;
        }
        std::int64_t sj = 0;
        if (bound < row_limit) {
            for (std::size_t i = 0; i < d; ++i) sj += p[i] * row[i];
        } else {
            if (bound >= sum_limit) return false;
            // Each product is below 2^124 in magnitude; stop before the sum could leave 128 bits.
            i128 wide = 0;
            for (std::size_t i = 0; i < d; ++i) {
                wide += static_cast<i128>(p[i]) * row[i];
                if (wide > (i128{1} << 125) || wide < -(i128{1} << 125)) return false;
            }
            if (wide > (i128{1} << 62) || wide < -(i128{1} << 62)) return false;
            sj = static_cast<std::int64_t>(wide);
        }
        if (mark == Mark::Zeroed) sj = 0;
        r.s[j] = sj;
        if (first) {
            r.smin = r.smax = sj;
            first = false;
        } else {
            r.smin = std::min(r.smin, sj);
            r.smax = std::max(r.smax, sj);
        }
        r.any_score = r.any_score || sj != 0;
        if (!r.dense) continue;
        if (probing) {
            // The first kProbe present rows are only scored: when their scores already spread
            // over more than `cap` values the window could never hold them all, and no bucket
            // is allocated (a layer's rows); otherwise they go into the buckets now.
            if (++probed < kProbe) continue;
            probing = false;
            (void)into_buckets(j + 1);
            continue;
        }
        (void)add_to_bucket(j, sj);
    }
    if (probing && r.dense) (void)into_buckets(n);
    return true;
}

}  // namespace

bool run_row_pass(const std::int64_t* k, std::size_t n, std::size_t d, const std::int64_t* p, std::uint64_t pmax,
                  const std::vector<Mark>& marks, const std::int64_t* v, std::size_t dv, RowPass& r) {
    switch (d) {
        case 2:
            return row_pass<2>(k, n, d, p, pmax, marks, v, dv, r);
        case 4:
            return row_pass<4>(k, n, d, p, pmax, marks, v, dv, r);
        case 8:
            return row_pass<8>(k, n, d, p, pmax, marks, v, dv, r);
        case 16:
            return row_pass<16>(k, n, d, p, pmax, marks, v, dv, r);
        case 32:
            return row_pass<32>(k, n, d, p, pmax, marks, v, dv, r);
        default:
            return row_pass<0>(k, n, d, p, pmax, marks, v, dv, r);
    }
}

}  // namespace exactattn::detail::fastpath
