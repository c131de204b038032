// SPDX-License-Identifier: MIT
// exactattn oracle, private: the 8-bit formats' bit patterns and the terms an 8-bit P adds to the
// online algorithm's bounds (docs/oracle.md, "8-bit floats").
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "exactattn/oracle.hpp"

namespace exactattn::oracle {

/// The value of the low 8 bits of an 8-bit format's pattern (E4M3's S.1111.111 and E5M2's
/// exponent 31 with a nonzero fraction: NaN; E5M2's S.11111.00: ±inf).
double decode_fp8(std::uint64_t bits, FloatFormat f);
/// The pattern of a value of the format (NaN as S.1111.111 for E4M3, 0x7E for E5M2).
std::uint64_t encode_fp8(double x, FloatFormat f);

/// The terms an 8-bit P cast with a descale adds to the online algorithm's per-term errors
/// (docs/oracle.md, "8-bit floats"): `relative`, the factor 1 + relative on each P̃_j v_jc besides
/// P's own rounding u_p (σ's product and the division by σ in the accumulator); `absolute`, the
/// absolute error of P̃_j/σ where P·σ falls below the least normal (η_p/σ_min); `why` nonempty
/// when the cast may leave the range (σ above the largest finite value: no guarantee).
struct PCastTerms {
    double relative = 0;
    double absolute = 0;
    std::string why;
};
PCastTerms p_cast_terms(const AlgorithmSpec& s);

/// The 8-bit events as the reports' `fp8` object (docs/oracle.md, "8-bit floats"): the value
/// each report puts in its tree, and fp8_events_json's text.
nlohmann::ordered_json fp8_events_object(const Fp8Events& e);

/// UsageError at `accumulate` when `f` is 8-bit: no kernel accumulates there.
void refuse_fp8_accumulator(FloatFormat f);

/// The per-block descale of a block whose largest probability is `largest`:
/// 2^⌊log2(max finite of `p_format` / largest)⌋ (a power of two: P·σ is exact in the accumulator),
/// at most 2^100; 1 when every probability of the block is 0.
double block_descale(double largest, FloatFormat p_format);

/// `x` cast to `f` under the declared overflow (cast_fp8); a finite value past an 8-bit range is
/// counted in `events` at `tensor[i, j]` as saturated (clamped) or overflowed (NaN or ±inf).
double cast_counted(double x, FloatFormat f, Fp8Overflow o, Fp8Events& events, const char* tensor, std::int64_t i,
                    std::int64_t j);

}  // namespace exactattn::oracle
