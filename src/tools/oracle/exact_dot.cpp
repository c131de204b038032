// SPDX-License-Identifier: MIT
// exactattn oracle: exact dot products of doubles, in fixed-point integers (exact_dot.hpp):
// the exact stages' scores and gradients, and their rounding toward zero.
#include "exact_dot.hpp"

#include <gmpxx.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace exactattn::oracle::detail {

namespace {

__extension__ typedef unsigned __int128 U128;  // GCC's and Clang's 128-bit product
__extension__ typedef __int128 I128;

std::optional<std::pair<double, bool>> toward_zero_of(I128 sum, int emin);

// x = ±m·2^e with m < 2^53, read from the bits (frexp and ldexp were a tenth of the gradients'
// exact stage).
struct Parts {
    std::uint64_t m;
    int e;
    bool negative;
};
Parts parts(double x) {
    std::uint64_t b = 0;
    std::memcpy(&b, &x, sizeof b);
    const auto biased = static_cast<int>((b >> 52) & 0x7ff);
    const std::uint64_t frac = b & ((std::uint64_t{1} << 52) - 1);
    if (biased == 0) return {frac, -1074, (b >> 63) != 0};  // subnormal
    return {frac | (std::uint64_t{1} << 52), biased - 1075, (b >> 63) != 0};
}

}  // namespace

mpq_class exact_dot(const double* x, const double* y, std::int64_t n) {
    struct Term {
        U128 m;  // |significand product| < 2^106
        int e;   // the product is ±m·2^e
        bool negative;
    };
    // The products' exponents lie in [−2148, 1942], so the sum never needs more than 80 limbs.
    constexpr std::size_t kLimbs = 80, kSmall = 128;
    std::array<Term, kSmall> small{};
    std::vector<Term> large;
    Term* terms = small.data();
    if (n > static_cast<std::int64_t>(kSmall)) {
        large.resize(static_cast<std::size_t>(n));
        terms = large.data();
    }
    std::size_t count = 0;
    int emin = std::numeric_limits<int>::max(), emax = std::numeric_limits<int>::min();
    for (std::int64_t i = 0; i < n; ++i) {
        if (x[i] == 0 || y[i] == 0) continue;
        const Parts a = parts(x[i]), b = parts(y[i]);
        const int e = a.e + b.e;
        terms[count++] = {static_cast<U128>(a.m) * b.m, e, a.negative != b.negative};
        emin = std::min(emin, e), emax = std::max(emax, e);
    }
    if (count == 0) return 0;
    // The sum's magnitude is below n·2^(106 + emax − emin) in units of 2^emin.
    const int span = emax - emin;
    const auto limbs = static_cast<std::size_t>((span + 106 + 64 + 63) / 64 + 1);
    std::array<std::uint64_t, kLimbs> pos{}, neg{};
    for (std::size_t t = 0; t < count; ++t) {
        const Term& term = terms[t];
        const int sh = term.e - emin, b = sh % 64;
        const auto m0 = static_cast<std::uint64_t>(term.m), m1 = static_cast<std::uint64_t>(term.m >> 64);
        const std::uint64_t w[3] = {b == 0 ? m0 : m0 << b, b == 0 ? m1 : (m1 << b) | (m0 >> (64 - b)),
                                    b == 0 ? 0 : m1 >> (64 - b)};
        std::uint64_t* acc = term.negative ? neg.data() : pos.data();
        unsigned carry = 0;
        for (std::size_t k = static_cast<std::size_t>(sh / 64);
             k < limbs && (k < static_cast<std::size_t>(sh / 64) + 3 || carry != 0); ++k) {
            const std::size_t at = k - static_cast<std::size_t>(sh / 64);
            const std::uint64_t add = at < 3 ? w[at] : 0;
            const std::uint64_t s1 = acc[k] + add;
            const unsigned c1 = s1 < add ? 1U : 0U;
            const std::uint64_t s2 = s1 + carry;
            const unsigned c2 = s2 < carry ? 1U : 0U;
            acc[k] = s2;
            carry = c1 + c2;
        }
    }
    mpz_class p, q;
    mpz_import(p.get_mpz_t(), limbs, -1, sizeof(std::uint64_t), 0, 0, pos.data());
    mpz_import(q.get_mpz_t(), limbs, -1, sizeof(std::uint64_t), 0, 0, neg.data());
    p -= q;
    mpq_class r(p);
    if (emin >= 0)
        mpq_mul_2exp(r.get_mpq_t(), r.get_mpq_t(), static_cast<mp_bitcnt_t>(emin));
    else
        mpq_div_2exp(r.get_mpq_t(), r.get_mpq_t(), static_cast<mp_bitcnt_t>(-emin));
    return r;
}

Split split(double x) {
    if (x == 0) return {};
    Parts a = parts(x);
    const int z = std::countr_zero(a.m);
    return {a.m >> z, a.e + z, a.negative};
}

std::optional<std::pair<double, bool>> toward_zero_dot(const double* x, const double* y, std::int64_t n) {
    constexpr std::int64_t kMax = 128;
    if (n > kMax) return std::nullopt;
    std::array<Split, kMax> a, b;  // NOLINT(cppcoreguidelines-pro-type-member-init): the first n are written
    for (std::int64_t i = 0; i < n; ++i) {
        if (!std::isfinite(x[i]) || !std::isfinite(y[i])) return std::nullopt;
        a[i] = split(x[i]), b[i] = split(y[i]);
    }
    return toward_zero_dot(a.data(), b.data(), n);
}

std::optional<std::pair<double, bool>> toward_zero_dot(const Split* x, const Split* y, std::int64_t n) {
    constexpr std::int64_t kMax = 128;
    if (n > kMax) return std::nullopt;
    std::array<std::uint64_t, kMax> mag;  // NOLINT(cppcoreguidelines-pro-type-member-init): the first count are written
    std::array<int, kMax> ex;             // NOLINT(cppcoreguidelines-pro-type-member-init)
    std::array<bool, kMax> neg;           // NOLINT(cppcoreguidelines-pro-type-member-init)
    int count = 0, emin = std::numeric_limits<int>::max(), emax = std::numeric_limits<int>::min(), bits = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        if (x[i].m == 0 || y[i].m == 0) continue;
        const int width = std::bit_width(x[i].m) + std::bit_width(y[i].m);  // the product is below 2^width
        if (width > 63) return std::nullopt;
        mag[count] = x[i].m * y[i].m;
        ex[count] = x[i].e + y[i].e;
        neg[count] = x[i].negative != y[i].negative;
        emin = std::min(emin, ex[count]), emax = std::max(emax, ex[count]);
        bits = std::max(bits, width);
        ++count;
    }
    if (count == 0) return std::pair{0.0, true};
    // |Σ| < count·2^(bits + emax − emin) in units of 2^emin: below 2^126 leaves the sign bit free.
    if (bits + (emax - emin) + std::bit_width(static_cast<unsigned>(count)) > 126) return std::nullopt;
    I128 sum = 0;
    for (int t = 0; t < count; ++t) {
        const auto term = static_cast<I128>(static_cast<U128>(mag[t]) << (ex[t] - emin));
        sum += neg[t] ? -term : term;
    }
    return toward_zero_of(sum, emin);
}

FixedRow fixed_row(const double* x, std::int64_t n) {
    FixedRow r;
    r.m.assign(static_cast<std::size_t>(n), 0);
    int emin = std::numeric_limits<int>::max(), top = std::numeric_limits<int>::min();
    for (std::int64_t c = 0; c < n; ++c) {
        if (!std::isfinite(x[c])) return r;
        if (x[c] == 0) continue;
        const Split a = split(x[c]);
        emin = std::min(emin, a.e);
        top = std::max(top, a.e + static_cast<int>(std::bit_width(a.m)));  // |x_c| < 2^top
    }
    if (emin == std::numeric_limits<int>::max()) {  // every entry 0
        r.ok = true;
        return r;
    }
    if (top - emin > 62) return r;  // |m_c| < 2^(top − emin) must fit an int64_t's 63 bits
    for (std::int64_t c = 0; c < n; ++c) {
        if (x[c] == 0) continue;
        const Split a = split(x[c]);
        const auto m = static_cast<std::int64_t>(a.m << (a.e - emin));
        r.m[static_cast<std::size_t>(c)] = a.negative ? -m : m;
        r.bits = std::max(r.bits, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(m))));
    }
    r.e = emin;
    r.ok = true;
    return r;
}

std::optional<std::pair<double, bool>> toward_zero_dot(const FixedRow& x, const FixedRow& y) {
    const std::size_t n = x.m.size();
    if (!x.ok || !y.ok || y.m.size() != n) return std::nullopt;
    // |Σ| < n·2^(bits + bits') ≤ 2^126 leaves the sign bit free.
    if (x.bits + y.bits + static_cast<int>(std::bit_width(n)) > 126) return std::nullopt;
    I128 sum = 0;
    for (std::size_t c = 0; c < n; ++c) sum += static_cast<I128>(x.m[c]) * y.m[c];
    return toward_zero_of(sum, x.e + y.e);
}

namespace {

// The exact sum·2^emin rounded toward zero to a double, and whether that is the sum itself;
// nothing unless 0 or a normal double.
std::optional<std::pair<double, bool>> toward_zero_of(I128 sum, int emin) {
    if (sum == 0) return std::pair{0.0, true};
    const bool negative = sum < 0;
    const U128 m = negative ? static_cast<U128>(-sum) : static_cast<U128>(sum);
    const auto hi = static_cast<std::uint64_t>(m >> 64), lo = static_cast<std::uint64_t>(m);
    const int width = hi != 0 ? 64 + std::bit_width(hi) : std::bit_width(lo);
    if (width - 1 + emin < -1022 || width - 1 + emin > 1023) return std::nullopt;  // not a normal double
    const int drop = std::max(0, width - 53);
    const U128 top = m >> drop;  // below 2^53: exact as a double
    const bool exact = drop == 0 || (m & ((U128{1} << drop) - 1)) == 0;
    const double t = std::ldexp(static_cast<double>(static_cast<std::uint64_t>(top)), emin + drop);
    return std::pair{negative ? -t : t, exact};
}

}  // namespace

std::pair<double, bool> toward_zero(const mpq_class& v) {
    const mpz_srcptr num = v.get_num_mpz_t(), den = v.get_den_mpz_t();
    if (mpz_sgn(num) == 0) return {0.0, true};
    const auto twos = static_cast<long>(mpz_scan1(den, 0));
    if (static_cast<long>(mpz_sizeinbase(den, 2)) - 1 == twos) {
        long ex = 0;
        const double f = mpz_get_d_2exp(&ex, num);  // |f| in [1/2, 1), toward zero: 53 bits
        const long e = ex - twos;                   // v ≈ f·2^e
        if (e - 1 >= -1022 && e <= 1024) {          // a normal double: the scaling is exact
            const auto bits = static_cast<long>(mpz_sizeinbase(num, 2));
            const auto low = static_cast<long>(mpz_scan1(num, 0));  // the same bit for −num
            return {std::ldexp(f, static_cast<int>(e)), bits - low <= 53};
        }
    }
    const double t = v.get_d();  // toward zero
    return {t, mpq_class(t) == v};
}

}  // namespace exactattn::oracle::detail
