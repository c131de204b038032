// SPDX-License-Identifier: MIT
// The oracle's float formats: bit patterns decoded by hand, ties and subnormals constructed from
// each format's layout, and the two rounding routes checked against the compiler's own
// conversions (float, _Float16) on a sweep of doubles.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "exactattn/oracle.hpp"

using namespace exactattn;
using namespace exactattn::oracle;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

TEST(OracleFormats, Float16BitPatternsDecodeToTheirValues) {
    EXPECT_EQ(decode_bits(0x3C00, FloatFormat::Float16), 1.0);
    EXPECT_EQ(decode_bits(0xC000, FloatFormat::Float16), -2.0);
    EXPECT_EQ(decode_bits(0x0001, FloatFormat::Float16), std::ldexp(1.0, -24));  // least subnormal
    EXPECT_EQ(decode_bits(0x0400, FloatFormat::Float16), std::ldexp(1.0, -14));  // least normal
    EXPECT_EQ(decode_bits(0x7BFF, FloatFormat::Float16), 65504.0);               // largest finite
    EXPECT_EQ(decode_bits(0x7C00, FloatFormat::Float16), kInf);
    EXPECT_TRUE(std::isnan(decode_bits(0x7E00, FloatFormat::Float16)));
    EXPECT_TRUE(std::signbit(decode_bits(0x8000, FloatFormat::Float16)));
    EXPECT_EQ(decode_bits(0x3F80, FloatFormat::BFloat16), 1.0);
    EXPECT_EQ(decode_bits(0x0001, FloatFormat::BFloat16), std::ldexp(1.0, -133));
    for (std::uint64_t b = 0; b < 0x10000; ++b) {  // encode inverts decode on every finite pattern
        const double x = decode_bits(b, FloatFormat::Float16);
        if (std::isfinite(x)) {
            EXPECT_EQ(encode_bits(x, FloatFormat::Float16), b) << b;
        }
        const double y = decode_bits(b, FloatFormat::BFloat16);
        if (std::isfinite(y)) {
            EXPECT_EQ(encode_bits(y, FloatFormat::BFloat16), b) << b;
        }
    }
}

TEST(OracleFormats, FormatConstantsFollowFromTheLayouts) {
    EXPECT_EQ(max_finite(FloatFormat::Float16), 65504.0);
    EXPECT_EQ(max_finite(FloatFormat::Float32), static_cast<double>(std::numeric_limits<float>::max()));
    EXPECT_EQ(max_finite(FloatFormat::BFloat16), std::ldexp(255.0, 120));  // 0x7F7F
    EXPECT_EQ(least_subnormal(FloatFormat::Float32), static_cast<double>(std::numeric_limits<float>::denorm_min()));
    EXPECT_EQ(unit_roundoff(FloatFormat::BFloat16), std::ldexp(1.0, -8));
    EXPECT_EQ(ulp(1.0, FloatFormat::Float16), std::ldexp(1.0, -10));
    EXPECT_EQ(ulp(std::ldexp(1.0, -20), FloatFormat::Float16), std::ldexp(1.0, -24));  // subnormal spacing
}

TEST(OracleRounding, Float16TiesRoundToEven) {
    const double u = std::ldexp(1.0, -11);                                               // half an ulp of 1
    EXPECT_EQ(round_to(1 + u, FloatFormat::Float16), 1.0);                               // tie: 1 is even
    EXPECT_EQ(round_to(1 + 3 * u, FloatFormat::Float16), 1 + 4 * u);                     // tie: 1 + 2^-9 is even
    EXPECT_EQ(round_to(1 + u + std::ldexp(1.0, -40), FloatFormat::Float16), 1 + 2 * u);  // past the tie
    EXPECT_EQ(round_exact(mpq_class(2049, 2048), FloatFormat::Float16), 1.0);
    EXPECT_EQ(round_exact(mpq_class(2051, 2048), FloatFormat::Float16), 1 + 4 * u);
}

TEST(OracleRounding, Float16SubnormalsRoundToNearestEven) {
    const double s = std::ldexp(1.0, -24);                        // the least subnormal
    EXPECT_EQ(round_to(s / 2, FloatFormat::Float16), 0.0);        // tie between 0 and s: 0 is even
    EXPECT_EQ(round_to(3 * s / 2, FloatFormat::Float16), 2 * s);  // tie between s and 2s
    EXPECT_EQ(round_to(s / 2 + std::ldexp(1.0, -60), FloatFormat::Float16), s);
    EXPECT_TRUE(std::signbit(round_to(-s / 4, FloatFormat::Float16)));
    EXPECT_EQ(round_exact(mpq_class(1, 3) * mpq_class(std::ldexp(1.0, -22)), FloatFormat::Float16), s);  // 4s/3 → s
}

TEST(OracleRounding, OverflowGoesToInfinityAtTheHalfwayPoint) {
    EXPECT_EQ(round_to(65519.0, FloatFormat::Float16), 65504.0);
    EXPECT_EQ(round_to(65520.0, FloatFormat::Float16), kInf);  // (65504 + 65536)/2 rounds to inf
    EXPECT_EQ(round_to(-1e300, FloatFormat::Float16), -kInf);
    EXPECT_EQ(round_exact(mpq_class(65520), FloatFormat::Float16), kInf);
    EXPECT_EQ(round_exact(mpq_class(mpz_class(1) << 200), FloatFormat::Float32), kInf);
    EXPECT_EQ(round_exact(mpq_class(mpz_class(1) << 200), FloatFormat::Float64), std::ldexp(1.0, 200));
}

TEST(OracleRounding, BothRoutesAgreeWithTheCompilersConversions) {
    std::mt19937_64 rng(7);
    for (int n = 0; n < 20000; ++n) {
        const int e = static_cast<int>(rng() % 80) - 60;
        const double sign = (rng() & 1) ? 1 : -1;  // drawn first: the same order for every compiler
        const double x = std::ldexp(static_cast<double>(rng() >> 11) / 0x1p53, e) * sign;
        const double f32 = static_cast<float>(x);
        EXPECT_EQ(round_to(x, FloatFormat::Float32), f32) << x;
        EXPECT_EQ(round_exact(mpq_class(x), FloatFormat::Float32), f32) << x;
#ifdef __FLT16_MANT_DIG__  // GCC 12 has _Float16 on x86-64; Clang 14 (the sanitizer build) does not
        const double f16 = static_cast<double>(static_cast<_Float16>(x));
        EXPECT_EQ(round_to(x, FloatFormat::Float16), f16) << x;
        EXPECT_EQ(round_exact(mpq_class(x), FloatFormat::Float16), f16) << x;
#endif
        EXPECT_EQ(round_exact(mpq_class(x), FloatFormat::BFloat16), round_to(x, FloatFormat::BFloat16)) << x;
    }
}

TEST(OracleRounding, OneThirdRoundsToTheNearestFloat32) {
    // 1/3 = 0.0101…₂: 24 significant bits 1.01010101010101010101010|1010… round up, 0x3EAAAAAB.
    EXPECT_EQ(round_exact(mpq_class(1, 3), FloatFormat::Float32), 0x1.555556p-2);
    EXPECT_EQ(encode_bits(0x1.555556p-2, FloatFormat::Float32), 0x3EAAAAABu);
}

TEST(OracleFormats, NamesParseAndUnknownOnesAreUsageErrors) {
    EXPECT_EQ(parse_format("bf16"), FloatFormat::BFloat16);
    EXPECT_EQ(parse_format("half"), FloatFormat::Float16);
    try {
        (void)parse_format("float8");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("float8"), std::string::npos);
    }
}
