// SPDX-License-Identifier: MIT
// exactattn: the library's seeded generator, specified so that any implementation reproduces it
// (docs/variants.md): the variants of an exercise and the oracle's test vectors draw from it.
#pragma once

#include <cstdint>

namespace exactattn {

/// SplitMix64 (Steele, Lea and Flood, 2014), exactly as docs/variants.md specifies it: the
/// state advances by 0x9E3779B97F4A7C15 and each output is the advanced state mixed by
/// z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31,
/// all arithmetic modulo 2^64. Only unsigned 64-bit operations: the same seed gives the same
/// numbers on every platform and compiler.
class SplitMix64 {
  public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next();
    /// A uniform integer in [0, n), n ≥ 1, by rejection: draw x = next() until
    /// x < 2^64 − (2^64 mod n), then return x mod n (no modulo bias).
    std::uint64_t below(std::uint64_t n);
    /// A uniform integer in [low, high]: low + below(high − low + 1) (2^64 draws next()).
    std::int64_t between(std::int64_t low, std::int64_t high);

  private:
    std::uint64_t state_;
};

}  // namespace exactattn
