// SPDX-License-Identifier: MIT
// exactattn oracle: the float formats, their exact values and correct rounding to them.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "exactattn/oracle.hpp"
#include "fp8.hpp"

namespace exactattn::oracle {

namespace {

// clang-format off
const FormatInfo kFormats[] = {
    {"float16", 11, -14, 15},
    {"bfloat16", 8, -126, 127},
    {"float32", 24, -126, 127},
    {"float64", 53, -1022, 1023},
    {"float8_e4m3fn", 4, -6, 8, 448},  // OCP E4M3: bias 7, no infinities, S.1111.111 the NaN
    {"float8_e5m2", 3, -14, 15},       // OCP E5M2: bias 15, IEEE-like
};
// clang-format on

// ⌊log2 |q|⌋ for q ≠ 0, exactly: from the bit sizes, corrected by one comparison.
long floor_log2(const mpq_class& q) {
    const mpz_class num = abs(q.get_num());
    const mpz_class& den = q.get_den();
    long e =
        static_cast<long>(mpz_sizeinbase(num.get_mpz_t(), 2)) - static_cast<long>(mpz_sizeinbase(den.get_mpz_t(), 2));
    // 2^e ≤ |q| < 2^(e+2) here; step down once if |q| < 2^(e).
    mpz_class lhs = num, rhs = den;
    if (e >= 0)
        rhs <<= static_cast<mp_bitcnt_t>(e);
    else
        lhs <<= static_cast<mp_bitcnt_t>(-e);
    if (lhs < rhs) --e;
    return e;
}

}  // namespace

const FormatInfo& info(FloatFormat f) { return kFormats[static_cast<int>(f)]; }

FloatFormat parse_format(std::string_view name, const Location& where) {
    if (name == "float16" || name == "f16" || name == "half") return FloatFormat::Float16;
    if (name == "bfloat16" || name == "bf16") return FloatFormat::BFloat16;
    if (name == "float32" || name == "f32" || name == "float") return FloatFormat::Float32;
    if (name == "float64" || name == "f64" || name == "double") return FloatFormat::Float64;
    if (name == "float8_e4m3fn" || name == "e4m3fn") return FloatFormat::Float8E4M3FN;
    if (name == "float8_e5m2" || name == "e5m2") return FloatFormat::Float8E5M2;
    throw usage_error(fmt::format("unknown float format '{}' (float16, bfloat16, float32, float64, float8_e4m3fn, "
                                  "float8_e5m2)",
                                  escape_controls(name)),
                      where);
}

double unit_roundoff(FloatFormat f) { return std::ldexp(1.0, -info(f).precision); }
double least_subnormal(FloatFormat f) { return std::ldexp(1.0, info(f).emin - info(f).precision + 1); }
double max_finite(FloatFormat f) {
    const auto& i = info(f);
    if (i.largest > 0) return i.largest;
    return std::ldexp(2.0 - std::ldexp(1.0, 1 - i.precision), i.emax);
}

namespace {
// 2^n for −1022 ≤ n ≤ 1023, from its bits (std::ldexp was a tenth of the gradients' double stage).
double pow2(int n) { return std::bit_cast<double>(static_cast<std::uint64_t>(n + 1023) << 52); }
}  // namespace

double round_to(double x, FloatFormat f) {
    if (!std::isfinite(x) || x == 0 || f == FloatFormat::Float64) return x;
    // float32: the conversion to float is IEEE's narrowing, correctly rounded to nearest even with
    // float32's quantum 2^−149 below its normals and ±inf past the largest float where the rounded
    // magnitude would be 2^128: the value the general path below computes, without its two ldexp
    // (a judgement rounds every entry several times).
    if (f == FloatFormat::Float32) return static_cast<double>(static_cast<float>(x));
    const auto& fi = info(f);
    // ⌊log2 |x|⌋ from the exponent bits; a subnormal double reads −1023, below every format's
    // emin (≥ −126 for the formats rounded here), where only emin matters.
    const int e = static_cast<int>((std::bit_cast<std::uint64_t>(x) >> 52) & 0x7ff) - 1023;
    const int q = std::max(e, fi.emin) - (fi.precision - 1);  // the quantum's exponent
    // x / 2^q has at most 54 significant bits' worth of magnitude below 2^p: exact scaling (2^−q
    // and 2^q are normal doubles, −149 ≤ q ≤ 1022, and so are both products, or 0), and
    // nearbyint rounds to nearest even under the default rounding mode.
    const double n = std::nearbyint(x * pow2(-q));
    const double r = n * pow2(q);
    // |r| ≤ 2^(e + 1) ≤ 2^emax ≤ max_finite(f) below e = emax: the test only from there.
    if (e >= fi.emax && std::fabs(r) > max_finite(f)) return std::copysign(std::numeric_limits<double>::infinity(), x);
    return r;
}

namespace {

// ±m·2^k (m > 0) rounded to nearest, ties to even, by shifts alone: the denominator of every
// sum of products of floats is a power of two, and dividing by it (as a general rational needs)
// was most of what rounding the gradients' n² exact dot products cost.
double round_dyadic(const mpz_class& m, long k, bool negative, const FormatInfo& fi, FloatFormat f) {
    const long e = static_cast<long>(mpz_sizeinbase(m.get_mpz_t(), 2)) - 1 + k;  // ⌊log2 m·2^k⌋
    const double inf = std::numeric_limits<double>::infinity();
    if (e > fi.emax + 1) return negative ? -inf : inf;
    if (e < fi.emin - fi.precision) return negative ? -0.0 : 0.0;
    const long q = std::max<long>(e, fi.emin) - (fi.precision - 1);
    mpz_class n;
    if (k >= q) {
        n = m << static_cast<mp_bitcnt_t>(k - q);  // exact: below 2^precision
    } else {
        const auto s = static_cast<mp_bitcnt_t>(q - k);
        mpz_fdiv_q_2exp(n.get_mpz_t(), m.get_mpz_t(), s);
        const bool half = mpz_tstbit(m.get_mpz_t(), s - 1) != 0;
        const bool below_half = mpz_scan1(m.get_mpz_t(), 0) < s - 1;  // a 1 below the half bit
        if (half && (below_half || mpz_odd_p(n.get_mpz_t()))) ++n;
    }
    const double mag = std::ldexp(n.get_d(), static_cast<int>(q));  // n ≤ 2^precision: exact
    if (mag > max_finite(f)) return negative ? -inf : inf;
    return negative ? -mag : mag;
}

}  // namespace

double round_exact(const mpq_class& x, FloatFormat f) {
    if (sgn(x) == 0) return 0.0;
    const auto& fi = info(f);
    const mpz_class& d = x.get_den();
    const auto twos = static_cast<long>(mpz_scan1(d.get_mpz_t(), 0));
    if (static_cast<long>(mpz_sizeinbase(d.get_mpz_t(), 2)) - 1 == twos)  // d = 2^twos
        return round_dyadic(abs(x.get_num()), -twos, sgn(x) < 0, fi, f);
    const long e = floor_log2(x);
    if (e > fi.emax + 1) return sgn(x) * std::numeric_limits<double>::infinity();
    // Below half the least subnormal, 2^(emin − p): rounds to zero, decided without the shift
    // by −q bits that a weight like e^(−2.4·10^21) would need (hundreds of megabytes).
    if (e < fi.emin - fi.precision) return sgn(x) < 0 ? -0.0 : 0.0;
    const long q = std::max<long>(e, fi.emin) - (fi.precision - 1);
    // n = x / 2^q rounded to nearest, ties to even, in exact integers.
    mpz_class num = abs(x.get_num()), den = x.get_den();
    if (q >= 0)
        den <<= static_cast<mp_bitcnt_t>(q);
    else
        num <<= static_cast<mp_bitcnt_t>(-q);
    mpz_class n, r;
    mpz_fdiv_qr(n.get_mpz_t(), r.get_mpz_t(), num.get_mpz_t(), den.get_mpz_t());
    const int c = cmp(mpz_class(2 * r), den);
    if (c > 0 || (c == 0 && mpz_odd_p(n.get_mpz_t()))) ++n;
    const double mag = std::ldexp(n.get_d(), static_cast<int>(q));  // n < 2^54: exact
    if (mag > max_finite(f)) return sgn(x) * std::numeric_limits<double>::infinity();
    return sgn(x) < 0 ? -mag : mag;
}

bool representable(double x, FloatFormat f) { return std::isfinite(x) && round_to(x, f) == x; }

double ulp(double x, FloatFormat f) {
    const auto& fi = info(f);
    const int e = (x == 0 || !std::isfinite(x)) ? fi.emin : std::max(std::ilogb(x), fi.emin);
    const int k = std::min(e, fi.emax) - fi.precision + 1;
    // 2^k from its bits where it is a normal double (ldexp's value, without the call)
    if (k >= -1022) return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52);
    return std::ldexp(1.0, k);
}

double decode_bits(std::uint64_t bits, FloatFormat f) {
    switch (f) {
        case FloatFormat::Float64:
            return std::bit_cast<double>(bits);
        case FloatFormat::Float32:
            return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
        case FloatFormat::BFloat16:
            return std::bit_cast<float>(static_cast<std::uint32_t>((bits & 0xFFFFu) << 16));
        case FloatFormat::Float8E4M3FN:
        case FloatFormat::Float8E5M2:
            return decode_fp8(bits, f);
        case FloatFormat::Float16:
            break;
    }
    const int sign = (bits >> 15) & 1, expo = (bits >> 10) & 0x1F, frac = bits & 0x3FF;
    double mag;
    if (expo == 0x1F)
        mag = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else if (expo == 0)
        mag = std::ldexp(frac, -24);
    else
        mag = std::ldexp(1024 + frac, expo - 25);
    return sign ? -mag : mag;
}

std::uint64_t encode_bits(double x, FloatFormat f) {
    switch (f) {
        case FloatFormat::Float64:
            return std::bit_cast<std::uint64_t>(x);
        case FloatFormat::Float32:
            return std::bit_cast<std::uint32_t>(static_cast<float>(x));
        case FloatFormat::BFloat16: {
            const std::uint32_t b = std::bit_cast<std::uint32_t>(static_cast<float>(x));
            return std::isnan(x) ? 0x7FC0u : b >> 16;  // exact for representable x
        }
        case FloatFormat::Float8E4M3FN:
        case FloatFormat::Float8E5M2:
            return encode_fp8(x, f);
        case FloatFormat::Float16:
            break;
    }
    const std::uint64_t sign = std::signbit(x) ? 0x8000u : 0u;
    if (std::isnan(x)) return 0x7E00u;
    if (std::isinf(x)) return sign | 0x7C00u;
    const double a = std::fabs(x);
    if (a < std::ldexp(1.0, -14)) return sign | static_cast<std::uint64_t>(std::ldexp(a, 24));
    const int e = std::ilogb(a);
    const auto frac = static_cast<std::uint64_t>(std::ldexp(a, 10 - e)) - 1024;
    return sign | (static_cast<std::uint64_t>(e + 15) << 10) | frac;
}

}  // namespace exactattn::oracle
