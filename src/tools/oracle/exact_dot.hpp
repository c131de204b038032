// SPDX-License-Identifier: MIT
// exactattn oracle (private): exact dot products of doubles — every product an integer times a
// power of two, summed in fixed point — and their rounding toward zero (the exact stages of the
// reference and the gradients).
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace exactattn::oracle::detail {

/// Σ_i x_i·y_i exactly, for finite doubles: every product is an integer times a power of two
/// (two 53-bit significands), summed in a fixed-point integer wide enough for the products'
/// span of exponents, one rational at the end (no gcd a term, as a sum of mpq_class would take).
mpq_class exact_dot(const double* x, const double* y, std::int64_t n);

/// toward_zero(exact_dot(x, y, n)) without a rational: the products' significands (trailing
/// zeros dropped: 24 bits for a float32) summed in one signed 128-bit integer, when they fit it
/// (n ≤ 128, the bits of the largest product plus the span of exponents plus log2 n below 127)
/// and the sum is 0 or a normal double; nothing otherwise (then the caller takes exact_dot).
std::optional<std::pair<double, bool>> toward_zero_dot(const double* x, const double* y, std::int64_t n);
/// A finite double as ±m·2^e with m odd (0 for zero): what toward_zero_dot reads of each factor.
struct Split {
    std::uint64_t m = 0;
    int e = 0;
    bool negative = false;
};
Split split(double x);
/// toward_zero_dot of factors split once (a row of dO or V meets every row of the other).
std::optional<std::pair<double, bool>> toward_zero_dot(const Split* x, const Split* y, std::int64_t n);

/// A row of finite doubles as signed integers times one power of two, x_c = m_c·2^e, when every
/// |m_c| fits 63 bits (ok; the row's exponents span at most 62 bits with the significands);
/// bits: the widest |m_c|. One a row of dO or V: then dP's exact dot products are integer ones.
struct FixedRow {
    std::vector<std::int64_t> m;
    int e = 0, bits = 0;
    bool ok = false;
};
FixedRow fixed_row(const double* x, std::int64_t n);
/// toward_zero_dot of two fixed rows of the same length: Σ_c m_c m'_c in one signed 128-bit
/// integer (when bits + bits' + bit_width(n) ≤ 126), rounded as toward_zero_dot rounds (the same
/// exact value: the same answer); nothing otherwise.
std::optional<std::pair<double, bool>> toward_zero_dot(const FixedRow& x, const FixedRow& y);

/// v rounded toward zero to a double, and whether that is v itself: by shifts when v is dyadic
/// (as every exact dot product of floats is) and in the normal range, else by mpq's division.
std::pair<double, bool> toward_zero(const mpq_class& v);

}  // namespace exactattn::oracle::detail
