// SPDX-License-Identifier: MIT
// exactattn oracle internal: how well a hypothesis fits a kernel's output, and the rule by which
// every diagnosis (forward and backward) names one (docs/oracle.md, "Diagnoses").
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace exactattn::oracle {

/// Entries within their tolerance of a candidate, and Σ of the distances in units of it (each
/// capped, so a NaN or a wild entry counts as 10^6).
struct Fit {
    std::int64_t within = 0, entries = 0;
    double cost = 0;

    /// One entry: the kernel's value, the candidate's and the entry's tolerance.
    void add(double kernel, double candidate, double tol) {
        double dist = 0;
        if (std::isnan(candidate) || std::isnan(kernel))
            dist = std::isnan(candidate) && std::isnan(kernel) ? 0 : 1e6;
        else
            dist = std::min(1e6, std::fabs(kernel - candidate) / tol);
        within += dist <= 1 ? 1 : 0;
        cost += dist;
        ++entries;
    }

    /// A hypothesis explains the output when at least 99% of the entries are within their
    /// tolerance of it and it is at least 4 times closer, in all, than the declared algorithm.
    [[nodiscard]] bool explains_better_than(const Fit& declared) const {
        return static_cast<double>(within) >= 0.99 * static_cast<double>(entries) && cost * 4 <= declared.cost;
    }
};

/// The element in the middle of `v` (the upper of the two for an even count); 0 when empty.
inline double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    const auto mid = static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), v.begin() + mid, v.end());
    return v[static_cast<std::size_t>(mid)];
}

}  // namespace exactattn::oracle
