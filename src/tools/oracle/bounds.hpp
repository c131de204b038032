// SPDX-License-Identifier: MIT
// exactattn oracle: the bounds on a kernel's output error, entry by entry (docs/oracle.md,
// "Bounds"), private to the oracle (bounds.cpp; judge.cpp and oracle.cpp read them); the
// public entry point is judge() with a BoundKind (include/exactattn/oracle.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "exactattn/oracle.hpp"

namespace exactattn::oracle {

/// The half-ulp bound's allowance A (docs/oracle.md, "The half-ulp bound"): its sums hold a
/// kernel whose relative deviations (scores, exponentials, sums) are at most A/4; the judge
/// checks that the claim's are and otherwise takes the declared order's terms.
constexpr double kHalfUlpAllowance = 0x1p-9;
/// The a-priori bound (docs/oracle.md, "Bounds") on |ô − o| of output (i, c) of a kernel that
/// runs `spec` and rounds its output to `ref.format`; +inf when the algorithm guarantees
/// nothing there, with the reason in `why`.
double output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c,
                    std::string* why = nullptr);
/// The running bound (docs/oracle.md, "The running bound") on output (i, c): from the row's
/// actual scores, weights and values; never above output_bound; +inf where it is.
double running_output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c,
                            std::string* why = nullptr, bool ordered = false);
/// The probabilistic bound (docs/oracle.md, "The probabilistic bound") on output (i, c): holds
/// with probability at least 1 − 2^−40 under Higham and Mary's model; never above the running
/// bound. `ordered`: the declared order's partial sums (naive and safe; online as any order).
double probabilistic_output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c,
                                  bool ordered, std::string* why = nullptr);
/// The half-ulp bound (docs/oracle.md, "The half-ulp bound") on output (i, c): the declared
/// order's probabilistic bound with each rounding error at most half an ulp of its result; never
/// above it. Naive and safe, fused, without a softcap, within the allowance kHalfUlpAllowance;
/// otherwise the declared order's probabilistic bound.
double half_ulp_output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c,
                             std::string* why = nullptr);

// 2^⌊log2 x⌋ for a finite x > 0: half an ulp of a normal result of magnitude x is u times it.
inline double pow2_floor(double x) {
    int e = 0;
    std::frexp(x, &e);
    return std::ldexp(0.5, e);
}
// The magnitude of a rounding's result in the half-ulp bound's sums (docs/oracle.md, "The
// half-ulp bound"): |x|, the first-order coefficient as the declared order's, but at most
// 2^⌊log2 hi⌋ when every result the kernel can compute there is at most hi (its rounding errs
// by at most u·2^⌊log2 |x̂|⌋); hi is rounded up by 2^−40.
inline double ulp_mag(double x, double hi) {
    hi *= 1 + 0x1p-40;
    return hi > 0 && std::isfinite(hi) ? std::min(x, pow2_floor(hi)) : x;
}

}  // namespace exactattn::oracle
