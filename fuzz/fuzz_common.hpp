// SPDX-License-Identifier: MIT
// What every fuzz target shares: small limits, installed by the one LLVMFuzzerInitialize below,
// so that every input runs in milliseconds while still reaching every limit's refusal path (the
// defaults allow megabit numbers that take seconds each). With them, any input that takes
// seconds or hundreds of megabytes escaped a limit's prediction: the watchdog of scripts/fuzz.sh
// (-timeout=2, -rss_limit_mb=1024, -malloc_limit_mb=256) reports it. And the input's framing:
// the bytes as text, or a first byte of flags before the text. Each target is its own program,
// which includes this header once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "exactattn/limits.hpp"

namespace exactattn::fuzz {

inline void install_small_limits() {
    Limits l;
    l.max_exponent = 1 << 12;
    l.max_root = 24;
    l.max_bits = 1 << 14;
    l.max_degree = 12;
    l.max_precision = 1 << 16;
    l.max_positions = 64;
    l.max_cells = 256;
    l.max_memory_bytes = 1 << 22;
    l.max_value_bits = 1 << 17;
    l.max_file_bytes = 1 << 16;
    l.max_nesting = 40;
    // A decoder step scores and compares every target token and reads every source position.
    l.max_decoder_steps = 32;
    l.max_target_vocabulary = 32;
    // Work bounds predicted before computing (issue 10) at fuzzing scale: an input whose cost
    // these do not bound shows up as a libFuzzer timeout (-timeout) or out-of-memory report
    // (-rss_limit_mb, -malloc_limit_mb), which scripts/fuzz.sh sets low enough to catch.
    l.max_work = std::int64_t{1} << 31;  // about 70 ms unsanitized
    // At most (2 + 3) seeds of 3 draws each for the fuzzer's two variants.
    l.max_variants = 4;
    l.max_variant_draws = 3;
    set_limits(l);
}

/// The input as text (any bytes: the readers decode and check UTF-8 themselves).
inline std::string_view input_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

/// An input whose first byte chooses options (its bits) and whose rest is text.
struct Flagged {
    unsigned flags = 0;
    std::string_view text;
};
/// The input as flags and text; none for an empty input.
inline std::optional<Flagged> flagged_input(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return std::nullopt;
    return Flagged{data[0], input_text(data + 1, size - 1)};
}

}  // namespace exactattn::fuzz

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
    exactattn::fuzz::install_small_limits();
    return 0;
}
