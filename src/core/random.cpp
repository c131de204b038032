// SPDX-License-Identifier: MIT
// exactattn: SplitMix64, exactly as docs/variants.md specifies it.
#include "exactattn/random.hpp"

#include <limits>

namespace exactattn {

std::uint64_t SplitMix64::next() {
    state_ += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

std::uint64_t SplitMix64::below(std::uint64_t n) {
    const std::uint64_t rem = (0 - n) % n;                                       // 2^64 mod n, in unsigned arithmetic
    const std::uint64_t last = std::numeric_limits<std::uint64_t>::max() - rem;  // 2^64 − rem − 1
    for (;;) {
        const std::uint64_t x = next();
        if (x <= last) return x % n;
    }
}

std::int64_t SplitMix64::between(std::int64_t low, std::int64_t high) {
    const std::uint64_t span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low) + 1;
    const std::uint64_t offset = span == 0 ? next() : below(span);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + offset);
}

}  // namespace exactattn
