// SPDX-License-Identifier: MIT
// exactattn oracle (private): the constants of the double stage's exponential, exp_double in
// arith.cpp and its four-keys-at-a-time copy in kernels_body.hpp, which must compute the same
// bits: ln 2 split for the reduction under base e, 1/ln 2, ln 2 rounded for base 2, and the
// Taylor coefficients 1/n! (n ≤ 13) of e^r for |r| ≤ ln 2/2.
#pragma once

namespace exactattn::oracle::detail::exp_double_constants {

inline constexpr double kLn2Hi = 0x1.62e42fee00000p-1, kLn2Lo = 0x1.a39ef35793c76p-33;
inline constexpr double kInvLn2 = 0x1.71547652b82fep0, kLn2 = 0x1.62e42fefa39efp-1;
inline constexpr double kTaylor[14] = {
    1.0,        1.0,         1.0 / 2,      1.0 / 6,       1.0 / 24,       1.0 / 120,       1.0 / 720,
    1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0};

}  // namespace exactattn::oracle::detail::exp_double_constants
