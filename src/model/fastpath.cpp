// SPDX-License-Identifier: MIT
// exactattn: fast exact reads by bucketed shifted-integer sums (see fastpath.hpp).
//
// The work, for n rows of width d:
//  1. one pass over the memory's integers: each row's dot product S_j = Σ_i p_i k_ji with the
//     query's integers (int64 while the row's magnitude allows it, 128-bit otherwise), and,
//     while the scores stay in a window of at most max(rows/4, 64) values (so that a bucket
//     holds four rows on average), the row added into its score's bucket (d sums and a count;
//     the first 64 rows are only scored, so that a read whose scores spread wider from the
//     start makes no buckets at all);
//  2. if the scores spread wider than that (large exponents, or few rows per score), a second
//     pass adds each row straight into the big shifted sums instead of into buckets; the sums
//     are int64 digits added without carries (DigitSums) when the values' magnitudes allow,
//     carried 64-bit limbs (ShiftedSums) otherwise;
//  3. the big integers N_r, C_{r,i} (one per residue r = T mod M), then the field arithmetic:
//     for M = 1 one gcd per context entry, or, when the numbers are large, one full-size gcd
//     for all of them (common_factors below); for M > 1 one inversion in K_M. The reductions
//     to canonical form are deferred (deferred.hpp): the context when it is first looked at,
//     and for M > 1 the weights' factor 1/D when a weight is.
// Nothing here holds more than the scores (one int64 per row), the buckets, and until the
// context is looked at its unreduced integers.
#include "model/fastpath.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <optional>

#include "core/assert.hpp"
#include "core/field_detail.hpp"
#include "exactattn/error.hpp"
#include "model/memory_detail.hpp"
#include "exactattn/limits.hpp"

namespace exactattn::detail {

namespace {

__extension__ typedef __int128 i128;  // GCC/Clang extension; every bound is checked below
__extension__ typedef unsigned __int128 u128;

// Signed big integers assembled from small signed integers added at bit offsets. They come in
// records of `width` integers that always receive additions at the same offset (a row's d
// entries and its count), so the storage is limb-major: limb l of every integer of a record
// is contiguous, and one record's additions touch a few cache lines. Each integer is kept as
// two unsigned magnitudes (positive and negative parts), so every addition only carries
// upward and carries are amortized O(1).
class ShiftedSums {
  public:
    ShiftedSums(std::size_t records, std::size_t width, std::uint64_t bits)
        : width_(width),
          ints_(records * width),
          limbs_(static_cast<std::size_t>(bits / 64 + 3)),
          data_(limbs_ * ints_ * 2, 0),
          row_(width, 1) {}

    // Adds values[i] · 2^bit to integer i of `record` (i < width). Branch-free but for the
    // rare carries: the signs of the values are unpredictable.
    void add_record(std::size_t record, const std::int64_t* values, std::uint64_t bit) {
        const std::size_t limb = static_cast<std::size_t>(bit / 64);
        const unsigned sh = static_cast<unsigned>(bit % 64);
        std::uint64_t* base = data_.data() + 2 * (limb * ints_ + record * width_);
        for (std::size_t i = 0; i < width_; ++i) {
            const std::int64_t c = values[i];
            const auto neg = static_cast<std::uint64_t>(c >> 63);  // all ones when c < 0
            const std::uint64_t mag = (static_cast<std::uint64_t>(c) ^ neg) - neg;
            std::uint64_t* a = base + 2 * i + (neg & 1);
            add_at(a, mag << sh);
            add_at(a + 2 * ints_, (mag >> 1) >> (63 - sh));  // the bits shifted out (0 if sh = 0)
        }
    }

    // Adds values[i] · 2^bit to integer i < width − 1 of `record` and 2^bit to the last (a count).
    void add_row(std::size_t record, const std::int64_t* values, std::uint64_t bit) {
        std::copy(values, values + (width_ - 1), row_.begin());
        add_record(record, row_.data(), bit);
    }

    [[nodiscard]] mpz_class value(std::size_t record, std::size_t i) const {
        return magnitude(record, i, 0) - magnitude(record, i, 1);
    }

  private:
    void add_at(std::uint64_t* a, std::uint64_t v) {
        *a += v;
        if (__builtin_expect(*a >= v, 1)) return;
        do {  // carry (the storage has headroom: the totals are bounded)
            a += 2 * ints_;
        } while (++*a == 0);
    }
    [[nodiscard]] mpz_class magnitude(std::size_t record, std::size_t i, std::size_t sign) const {
        static_assert(sizeof(mp_limb_t) == sizeof(std::uint64_t), "GMP limbs of 64 bits");
        const std::size_t at = 2 * (record * width_ + i) + sign;
        mpz_class z;
        mp_limb_t* out = mpz_limbs_write(z.get_mpz_t(), static_cast<mp_size_t>(limbs_));
        for (std::size_t l = 0; l < limbs_; ++l) out[l] = data_[2 * l * ints_ + at];
        mpz_limbs_finish(z.get_mpz_t(), static_cast<mp_size_t>(limbs_));  // drops the high zeros
        return z;
    }
    std::size_t width_;
    std::size_t ints_;
    std::size_t limbs_;
    std::vector<std::uint64_t> data_;
    std::vector<std::int64_t> row_;  // add_row's values and count
};

// The same big integers as redundant signed digits: integer i of a record is Σ_k D_k·2^(w·k)
// with int64 digits D_k, w = 32, 16 or 8 bits. v·2^bit is added as v·2^(bit mod w) into digit
// ⌊bit / w⌋ alone: no carries and no signs to separate, so one record's additions are `width`
// contiguous int64 additions by one shift count (they vectorise), where ShiftedSums does two
// carried additions per value. Exact while no digit leaves int64: a digit is a sum of terms
// v·2^s with s < w, so |D_k| ≤ total·2^(w−1) where `total` bounds Σ|v| over the additions into
// one integer; digit_bits picks the widest w with total·2^(w−1) ≤ 2^61 (or none: then the
// caller uses ShiftedSums). Reading an integer out propagates the carries once.
class DigitSums {
  public:
    // The digit width for additions whose magnitudes sum to at most `total` per integer, 0 when
    // even 8-bit digits could leave int64.
    static unsigned digit_bits(u128 total) {
        for (const unsigned w : {32U, 16U, 8U}) {
            if (total <= (u128{1} << (62 - w))) return w;
        }
        return 0;
    }

    // Room for offsets below `bits` − 63 (as ShiftedSums) with `w` from digit_bits: every
    // integer is below 2^(bits − 1) in magnitude (total < 2^62 at offsets < bits − 63), so
    // digits·w ≥ bits leaves the top carry 0 or −1 (see value). digits·w is a multiple of 64.
    DigitSums(std::size_t records, std::size_t width, std::uint64_t bits, unsigned w)
        : width_(width),
          ints_(records * width),
          w_(w),
          shift_(static_cast<unsigned>(std::countr_zero(w))),
          limbs_(static_cast<std::size_t>(bits / 64 + 1)),
          digits_(limbs_ * (64 / w)),
          data_(digits_ * ints_, 0) {}

    // Adds values[i] · 2^bit to integer i of `record` (i < width).
    void add_record(std::size_t record, const std::int64_t* values, std::uint64_t bit) {
        std::int64_t* a = at(record, bit);
        const unsigned sh = static_cast<unsigned>(bit) & (w_ - 1);
        for (std::size_t i = 0; i < width_; ++i) a[i] += shifted(values[i], sh);
    }
    // Adds values[i] · 2^bit to integer i < width − 1 of `record` and 2^bit to the last (a count).
    void add_row(std::size_t record, const std::int64_t* values, std::uint64_t bit) {
        std::int64_t* a = at(record, bit);
        const unsigned sh = static_cast<unsigned>(bit) & (w_ - 1);
        const std::size_t last = width_ - 1;
        for (std::size_t i = 0; i < last; ++i) a[i] += shifted(values[i], sh);
        a[last] += shifted(1, sh);
    }

    [[nodiscard]] mpz_class value(std::size_t record, std::size_t i) const {
        static_assert(sizeof(mp_limb_t) == sizeof(std::uint64_t), "GMP limbs of 64 bits");
        // X = Σ_k (D_k + carry_k mod 2^w)·2^(w·k) in [0, 2^(w·digits)), and the integer is
        // X + carry·2^(w·digits): with |integer| < 2^(w·digits), carry is 0, or −1 when the
        // integer is negative and its magnitude is 2^(w·digits) − X (the two's complement).
        mpz_class z;
        mp_limb_t* out = mpz_limbs_write(z.get_mpz_t(), static_cast<mp_size_t>(limbs_));
        const std::uint64_t mask = (std::uint64_t{1} << w_) - 1;
        const std::size_t per_limb = 64 / w_;
        const std::int64_t* d = data_.data() + record * width_ + i;
        std::int64_t carry = 0;
        for (std::size_t l = 0; l < limbs_; ++l) {
            std::uint64_t limb = 0;
            for (std::size_t s = 0; s < per_limb; ++s) {
                const std::int64_t t = d[(l * per_limb + s) * ints_] + carry;  // |t| < 2^62
                limb |= (static_cast<std::uint64_t>(t) & mask) << (s * w_);
                carry = t >> w_;  // floor division (arithmetic shift)
            }
            out[l] = limb;
        }
        EXACTATTN_ASSERT(carry == 0 || carry == -1);
        if (carry < 0) {
            std::uint64_t borrow = 1;
            for (std::size_t l = 0; l < limbs_; ++l) {
                out[l] = ~out[l] + borrow;
                borrow &= out[l] == 0 ? 1 : 0;
            }
        }
        mpz_limbs_finish(z.get_mpz_t(), static_cast<mp_size_t>(limbs_));  // drops the high zeros
        if (carry < 0) mpz_neg(z.get_mpz_t(), z.get_mpz_t());
        return z;
    }

  private:
    std::int64_t* at(std::size_t record, std::uint64_t bit) {
        return data_.data() + static_cast<std::size_t>(bit >> shift_) * ints_ + record * width_;
    }
    // v·2^sh as the bits of an unsigned shift (sh < w ≤ 32: within the bound, no overflow).
    static std::int64_t shifted(std::int64_t v, unsigned sh) {
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(v) << sh);
    }
    std::size_t width_;
    std::size_t ints_;
    unsigned w_;
    unsigned shift_;
    std::size_t limbs_;
    std::size_t digits_;
    std::vector<std::int64_t> data_;  // digit-major: digit k of every integer is contiguous
};

// Step 2's integers: DigitSums when `total` (a bound on Σ|v| over the additions into any one
// integer) allows its digits, ShiftedSums otherwise. fill(f) calls f with the accumulator.
class BigSums {
  public:
    BigSums(std::size_t records, std::size_t width, std::uint64_t bits, u128 total) {
        if (const unsigned w = DigitSums::digit_bits(total))
            digits_.emplace(records, width, bits, w);
        else
            shifted_.emplace(records, width, bits);
    }
    template <class F>
    void fill(F&& f) {
        if (digits_)
            f(*digits_);
        else
            f(*shifted_);
    }
    [[nodiscard]] mpz_class value(std::size_t record, std::size_t i) const {
        return digits_ ? digits_->value(record, i) : shifted_->value(record, i);
    }

  private:
    std::optional<DigitSums> digits_;
    std::optional<ShiftedSums> shifted_;
};

// Reads `unit` = q·a^e with q rational; false otherwise (zero, radicals, several powers of a).
bool unit_parts(const Value& unit, mpq_class& q, int& e) {
    detail::Monomial mono;
    const mpq_class* r = detail::monomial_of(unit, mono);
    if (r == nullptr || mono.m != 1) return false;
    q = *r;
    e = mono.e;
    return true;
}

// x·y = ρ·a with ρ rational, read off two monomials r·2^(l/m)·a^e without building the product
// (a layer row has d_k query entries to multiply; a Value product allocates): true when both
// are monomials whose powers of a add to 1 and whose powers of 2 add to an integer k, with
// ρ = r_x·r_y·2^k. False: undecided here (the caller multiplies the values).
bool multiple_of_a_product(const Value& x, const Value& y, mpq_class& rho) {
    detail::Monomial mx;
    detail::Monomial my;
    const mpq_class* rx = detail::monomial_of(x, mx);
    const mpq_class* ry = detail::monomial_of(y, my);
    if (rx == nullptr || ry == nullptr || mx.e + my.e != 1) return false;
    const long num = static_cast<long>(mx.l) * my.m + static_cast<long>(my.l) * mx.m;  // l_x/m_x + l_y/m_y
    const long den = static_cast<long>(mx.m) * my.m;
    if (num % den != 0) return false;
    mpq_mul(rho.get_mpq_t(), rx->get_mpq_t(), ry->get_mpq_t());
    if (num / den != 0) mpq_mul_2exp(rho.get_mpq_t(), rho.get_mpq_t(), static_cast<mp_bitcnt_t>(num / den));
    return true;
}

std::int64_t floor_div(std::int64_t x, std::int64_t m) {  // m > 0
    const std::int64_t q = x / m;
    return x % m != 0 && x < 0 ? q - 1 : q;
}

// ---------------------------------------------------------------------------------------------
// Step 1: the pass over the rows.

struct RowPass {
    std::vector<std::int64_t> s;  // S_j = Σ_i p_i k_ji (0 where removed or zeroed)
    std::vector<bool> present;    // not removed
    std::int64_t smin = 0;        // over present rows
    std::int64_t smax = 0;
    bool any_score = false;    // some S_j ≠ 0
    std::size_t count = 0;     // present rows
    std::uint64_t vbound = 0;  // ≥ |v| − 1 for every value integer of a present row
    bool dense = true;         // the buckets hold every present row
    std::int64_t base = 0;     // the score of bucket 0
    std::size_t buckets = 0;
    std::vector<std::int64_t> acc;  // buckets × (d + 1): the rows' sums, then the count
};

// Grows the bucket window to hold score `sj`; false when it would pass `cap` buckets.
bool grow_window(RowPass& r, std::size_t d, std::int64_t sj, std::size_t cap) {
    const std::size_t stride = d + 1;
    const i128 lo = r.buckets == 0 ? sj : std::min<i128>(r.base, sj);
    const i128 hi = r.buckets == 0 ? sj : std::max<i128>(r.base + static_cast<i128>(r.buckets) - 1, sj);
    const i128 need = hi - lo + 1;
    if (need > static_cast<i128>(cap)) return false;
    std::size_t size = std::max<std::size_t>({static_cast<std::size_t>(need), 2 * r.buckets, 64});
    size = std::min(size, cap);
    // Extend toward the new score, keeping the old window inside (|scores| ≤ 2^62: no overflow).
    i128 base = lo;
    if (r.buckets == 0)
        base = lo - static_cast<i128>(size / 2);
    else if (sj < r.base)
        base = hi - static_cast<i128>(size) + 1;
    std::vector<std::int64_t> acc(size * stride, 0);
    if (r.buckets != 0) {
        const auto off = static_cast<std::size_t>(static_cast<i128>(r.base) - base);
        std::copy(r.acc.begin(), r.acc.end(), acc.begin() + static_cast<std::ptrdiff_t>(off * stride));
    }
    r.acc = std::move(acc);
    r.base = static_cast<std::int64_t>(base);
    r.buckets = size;
    return true;
}

// One pass: scores, bounds, and (while they fit a window) the bucket sums. D is the width when
// known at compile time (the common widths are unrolled), 0 otherwise. False: decline.
template <std::size_t D>
bool row_pass(const std::int64_t* k, std::size_t n, std::size_t d_runtime, const std::int64_t* p, std::uint64_t pmax,
              const std::vector<Mark>& marks, const std::int64_t* v, std::size_t dv, RowPass& r) {
    const std::size_t d = D != 0 ? D : d_runtime;
    const std::size_t stride = dv + 1;
    // A row whose |k| are at most L keeps |S| ≤ d·pmax·L ≤ 2^62 in int64 when L < narrow, and
    // every bucket sum (≤ n rows) below 2^62 when L < sums.
    const u128 two62 = u128{1} << 62;
    const u128 narrow = pmax == 0 ? two62 : two62 / (static_cast<u128>(pmax) * d);
    const u128 sums = two62 / std::max<std::size_t>(n, 1);
    const std::uint64_t row_limit = static_cast<std::uint64_t>(std::min(narrow, sums));
    const std::uint64_t sum_limit = static_cast<std::uint64_t>(sums);
    // Buckets pay while they hold several rows each: past present/4 of them (a layer row's
    // thousand scores spread over as many values) the rows go straight into the big sums.
    const auto present = static_cast<std::size_t>(std::count_if(
        marks.begin(), marks.begin() + static_cast<std::ptrdiff_t>(n), [](Mark mk) { return mk != Mark::Removed; }));
    const std::size_t cap = std::max<std::size_t>(present / 4, 64);
    r.count = present;
    r.s.assign(n, 0);
    r.present.assign(n, false);
    // Adds row j (score sj) into its bucket; false (and no buckets any more) when the window
    // would pass `cap` buckets.
    auto add_to_bucket = [&](std::size_t j, std::int64_t sj) {
        if (r.buckets == 0 || sj < r.base ||
            static_cast<i128>(sj) >= static_cast<i128>(r.base) + static_cast<i128>(r.buckets)) {
            if (!grow_window(r, dv, sj, cap)) {
                r.dense = false;
                r.acc = {};
                r.buckets = 0;
                return false;
            }
        }
        std::int64_t* a = r.acc.data() + static_cast<std::size_t>(sj - r.base) * stride;
        if (v == k) {  // keys are the values (the chapter's read): the row is still in cache
            const std::int64_t* row = k + j * d;
            for (std::size_t i = 0; i < d; ++i) a[i] += row[i];
        } else {
            const std::int64_t* vrow = v + j * dv;
            for (std::size_t i = 0; i < dv; ++i) a[i] += vrow[i];
        }
        a[dv] += 1;
        return true;
    };
    // The scored rows before `end` into the buckets, unless their scores already spread wider
    // than the window may (then the whole read would too).
    auto into_buckets = [&](std::size_t end) {
        if (static_cast<i128>(r.smax) - r.smin + 1 > static_cast<i128>(cap)) {
            r.dense = false;
            return false;
        }
        for (std::size_t j = 0; j < end; ++j) {
            if (r.present[j] && !add_to_bucket(j, r.s[j])) return false;
        }
        return true;
    };
    constexpr std::size_t kProbe = 64;
    std::size_t probed = 0;
    bool probing = true;
    bool first = true;
    for (std::size_t j = 0; j < n; ++j) {
        const Mark mark = marks[j];
        if (mark == Mark::Removed) continue;
        r.present[j] = true;
        const std::int64_t* row = k + j * d;
        std::uint64_t bound = 0;  // ≥ |k| − 1 for every entry of the row
        for (std::size_t i = 0; i < d; ++i) {
            bound |= static_cast<std::uint64_t>(row[i] ^ (row[i] >> 63));
        }
        if (v == k) {
            r.vbound |= bound;
        } else {
            // The bucket sums add up to n value rows in 64 bits: every |v| must stay below
            // 2^62/n. An OR of |v| or |v| − 1 (it vectorises), the magnitudes only near there.
            const std::int64_t* vrow = v + j * dv;
            std::uint64_t vb = 0;
            for (std::size_t i = 0; i < dv; ++i) {
                const auto u = static_cast<std::uint64_t>(vrow[i]);
                vb |= u ^ (0 - (u >> 63));
            }
            if (vb + 1 >= sum_limit) {
                for (std::size_t i = 0; i < dv; ++i) {
                    const auto u = static_cast<std::uint64_t>(vrow[i]);
                    if ((vrow[i] < 0 ? 0 - u : u) >= sum_limit) return false;
                }
            }
            r.vbound |= vb;
        }
        std::int64_t sj = 0;
        if (bound < row_limit) {
            for (std::size_t i = 0; i < d; ++i) sj += p[i] * row[i];
        } else {
            if (bound >= sum_limit) return false;
            // Each product is below 2^124 in magnitude; stop before the sum could leave 128 bits.
            i128 wide = 0;
            for (std::size_t i = 0; i < d; ++i) {
                wide += static_cast<i128>(p[i]) * row[i];
                if (wide > (i128{1} << 125) || wide < -(i128{1} << 125)) return false;
            }
            if (wide > (i128{1} << 62) || wide < -(i128{1} << 62)) return false;
            sj = static_cast<std::int64_t>(wide);
        }
        if (mark == Mark::Zeroed) sj = 0;
        r.s[j] = sj;
        if (first) {
            r.smin = r.smax = sj;
            first = false;
        } else {
            r.smin = std::min(r.smin, sj);
            r.smax = std::max(r.smax, sj);
        }
        r.any_score = r.any_score || sj != 0;
        if (!r.dense) continue;
        if (probing) {
            // The first kProbe present rows are only scored: when their scores already spread
            // over more than `cap` values the window could never hold them all, and no bucket
            // is allocated (a layer's rows); otherwise they go into the buckets now.
            if (++probed < kProbe) continue;
            probing = false;
            (void)into_buckets(j + 1);
            continue;
        }
        (void)add_to_bucket(j, sj);
    }
    if (probing && r.dense) (void)into_buckets(n);
    return true;
}

bool run_row_pass(const std::int64_t* k, std::size_t n, std::size_t d, const std::int64_t* p, std::uint64_t pmax,
                  const std::vector<Mark>& marks, const std::int64_t* v, std::size_t dv, RowPass& r) {
    switch (d) {
        case 2:
            return row_pass<2>(k, n, d, p, pmax, marks, v, dv, r);
        case 4:
            return row_pass<4>(k, n, d, p, pmax, marks, v, dv, r);
        case 8:
            return row_pass<8>(k, n, d, p, pmax, marks, v, dv, r);
        case 16:
            return row_pass<16>(k, n, d, p, pmax, marks, v, dv, r);
        case 32:
            return row_pass<32>(k, n, d, p, pmax, marks, v, dv, r);
        default:
            return row_pass<0>(k, n, d, p, pmax, marks, v, dv, r);
    }
}

// ---------------------------------------------------------------------------------------------
// Step 3: reducing the contexts C_i / N.

// Below this size one gcd per entry is cheap; above it the shared gcd of common_factors wins
// (a gcd costs about twenty multiplications of the same size). A layer row over Q(2^(1/4))
// has 4·d_v entries of about a thousand bits each: there the shared gcd is several times faster.
constexpr std::size_t kSharedGcdBits = 256;

// x mod n for 0 ≤ x < n², n of `bits` bits, with inv = ⌊2^(2·bits) / n⌋ (Barrett: two
// multiplications instead of a division; the estimate of the quotient is short by at most 2).
void barrett_reduce(mpz_class& x, const mpz_class& n, const mpz_class& inv, mp_bitcnt_t bits, mpz_class& scratch) {
    mpz_tdiv_q_2exp(scratch.get_mpz_t(), x.get_mpz_t(), bits - 1);
    scratch *= inv;
    mpz_tdiv_q_2exp(scratch.get_mpz_t(), scratch.get_mpz_t(), bits + 1);
    scratch *= n;
    x -= scratch;
    while (x >= n) x -= n;
}

// Up to this many limbs a product mod N_o is cheaper as a Montgomery product (a schoolbook
// reduction, one mpn_addmul_1 per limb) than as Barrett's two extra multiplications; above it
// the multiplications are subquadratic and Barrett wins (measured: 1.7x at 1200 bits, even at
// about 5000).
constexpr mp_size_t kMontgomeryLimbs = 64;

// Some P with gcd(N_o, P) = gcd(N_o, Π_i C_i) over the nonzero C_i (at least one), N_o odd,
// computed mod N_o. Barrett: P = Π_i C_i mod N_o.
mpz_class barrett_chain(const mpz_class& odd, const std::vector<mpz_class>& c) {
    const mp_bitcnt_t bits = mpz_sizeinbase(odd.get_mpz_t(), 2);
    mpz_class inv;
    mpz_setbit(inv.get_mpz_t(), 2 * bits);
    mpz_tdiv_q(inv.get_mpz_t(), inv.get_mpz_t(), odd.get_mpz_t());
    mpz_class prod;
    mpz_class x;
    mpz_class scratch;
    bool first = true;
    for (const auto& ci : c) {
        if (sgn(ci) == 0) continue;
        mpz_fdiv_r(x.get_mpz_t(), ci.get_mpz_t(), odd.get_mpz_t());  // 0 ≤ x < N_o
        if (first) {
            prod = x;
            first = false;
            continue;
        }
        prod *= x;
        barrett_reduce(prod, odd, inv, bits, scratch);
    }
    return prod;
}

// As barrett_chain, by Montgomery products: with R = 2^(64·k) for N_o of k limbs, each step
// is p ← p·x·R⁻¹ mod N_o, so P = Π_i |C_i| · R^-(m-1) mod N_o for m nonzero entries. R is a
// power of two and N_o odd, so R is a unit mod N_o and gcd(N_o, P) = gcd(N_o, Π_i C_i): no
// conversion into or out of Montgomery form is needed. A factor x after the first needs only to
// fit in k limbs (p < N_o and x < R keep p·x < N_o·R, so each reduced product is < 2·N_o),
// which spares the division of every C_i no longer than N_o.
mpz_class montgomery_chain(const mpz_class& odd, const std::vector<mpz_class>& c) {
    const auto k = static_cast<mp_size_t>(mpz_size(odd.get_mpz_t()));
    const mp_limb_t* np = mpz_limbs_read(odd.get_mpz_t());
    mp_limb_t ninv = np[0];  // N_o⁻¹ mod 2^64 by Newton's iteration (3, 6, ..., 96 bits)
    for (int step = 0; step < 5; ++step) ninv *= 2 - np[0] * ninv;
    ninv = -ninv;
    std::vector<mp_limb_t> prod(static_cast<std::size_t>(k));
    std::vector<mp_limb_t> x(static_cast<std::size_t>(k));
    std::vector<mp_limb_t> t(2 * static_cast<std::size_t>(k));
    mpz_class r;
    bool first = true;
    for (const auto& ci : c) {
        if (sgn(ci) == 0) continue;
        const mpz_srcptr src = ci.get_mpz_t();
        if (first || static_cast<mp_size_t>(mpz_size(src)) > k) {
            mpz_fdiv_r(r.get_mpz_t(), src, odd.get_mpz_t());  // the first factor starts p < N_o
        } else {
            mpz_abs(r.get_mpz_t(), src);  // gcd(N_o, −x) = gcd(N_o, x)
        }
        mp_limb_t* dst = first ? prod.data() : x.data();
        const auto rs = static_cast<mp_size_t>(mpz_size(r.get_mpz_t()));
        std::fill(dst, dst + k, mp_limb_t{0});
        if (rs > 0) mpn_copyi(dst, mpz_limbs_read(r.get_mpz_t()), rs);
        if (first) {
            first = false;
            continue;
        }
        mpn_mul_n(t.data(), prod.data(), x.data(), k);
        // REDC, one limb at a time; each step's carry is kept in the limb it zeroed and added
        // with the high half at the end.
        mp_limb_t* up = t.data();
        for (mp_size_t j = 0; j < k; ++j, ++up) up[0] = mpn_addmul_1(up, np, k, up[0] * ninv);
        const mp_limb_t carry = mpn_add_n(prod.data(), up, t.data(), k);
        if (carry != 0 || mpn_cmp(prod.data(), np, k) >= 0) mpn_sub_n(prod.data(), prod.data(), np, k);
    }
    mpz_class out;
    mpn_copyi(mpz_limbs_write(out.get_mpz_t(), k), prod.data(), k);
    mpz_limbs_finish(out.get_mpz_t(), k);
    return out;
}

// gcd(C_i, N) for a C_i ≠ 0, as its odd part and its power of two: gcd = odd·2^twos. The odd
// part is held only when it is not 1 (an mpz_class of 1 is an allocation, one per entry).
struct Factor {
    std::optional<mpz_class> odd;
    mp_bitcnt_t twos = 0;
};

// gcd(C_i, N) for every i, N > 0 (anything for C_i = 0). For large N, with one full-size gcd
// instead of d: write N = 2^z·N_o with N_o odd; every gcd(C_i, N_o) divides
// G = gcd(N_o, Π_i C_i), which is gcd(N_o, P) for the P of barrett_chain or montgomery_chain, so
// gcd(C_i, N_o) = gcd(C_i, G) (G is small unless the data has a common factor by construction,
// and never larger than N_o) and gcd(C_i, N) = 2^min(z, v_2(C_i)) · gcd(C_i, G).
std::vector<Factor> common_factors(const mpz_class& big_n, const std::vector<mpz_class>& c) {
    std::vector<Factor> g(c.size());
    std::size_t nonzero = 0;
    for (const auto& x : c) nonzero += sgn(x) != 0 ? 1 : 0;
    if (mpz_sizeinbase(big_n.get_mpz_t(), 2) < kSharedGcdBits || nonzero < 2) {
        for (std::size_t i = 0; i < c.size(); ++i) {
            if (sgn(c[i]) == 0) continue;
            mpz_class x;
            mpz_gcd(x.get_mpz_t(), c[i].get_mpz_t(), big_n.get_mpz_t());
            g[i].twos = mpz_scan1(x.get_mpz_t(), 0);
            mpz_tdiv_q_2exp(x.get_mpz_t(), x.get_mpz_t(), g[i].twos);
            if (x != 1) g[i].odd = std::move(x);
        }
        return g;
    }
    const mp_bitcnt_t z = mpz_scan1(big_n.get_mpz_t(), 0);
    mpz_class odd;
    mpz_tdiv_q_2exp(odd.get_mpz_t(), big_n.get_mpz_t(), z);
    const mpz_class prod = static_cast<mp_size_t>(mpz_size(odd.get_mpz_t())) <= kMontgomeryLimbs
                               ? montgomery_chain(odd, c)
                               : barrett_chain(odd, c);
    mpz_class shared;
    mpz_gcd(shared.get_mpz_t(), odd.get_mpz_t(), prod.get_mpz_t());
    const bool coprime = shared == 1;  // the usual case: only powers of two to take out
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (sgn(c[i]) == 0) continue;
        if (!coprime) {
            mpz_class x;
            mpz_gcd(x.get_mpz_t(), c[i].get_mpz_t(), shared.get_mpz_t());
            if (x != 1) g[i].odd = std::move(x);
        }
        g[i].twos = std::min(mpz_scan1(c[i].get_mpz_t(), 0), z);
    }
    return g;
}

// num / den (den > 0) as a canonical rational, given f = gcd(num, den) (num ≠ 0). `num` is
// consumed: moved into the result when f = 1, divided in place otherwise.
mpq_class reduced(mpz_class& num, const mpz_class& den, const Factor& f) {
    mpq_class q;
    if (sgn(num) == 0) return q;
    mpz_ptr qn = q.get_num_mpz_t();
    mpz_ptr qd = q.get_den_mpz_t();
    if (!f.odd) {  // only powers of two: shifts, not divisions
        mpz_swap(qn, num.get_mpz_t());
        if (f.twos == 0) {
            mpz_set(qd, den.get_mpz_t());
            return q;
        }
        mpz_tdiv_q_2exp(qn, qn, f.twos);  // exact: 2^twos divides num
        mpz_tdiv_q_2exp(qd, den.get_mpz_t(), f.twos);
        return q;
    }
    mpz_class g;
    mpz_mul_2exp(g.get_mpz_t(), f.odd->get_mpz_t(), f.twos);
    mpz_divexact(qn, num.get_mpz_t(), g.get_mpz_t());
    mpz_divexact(qd, den.get_mpz_t(), g.get_mpz_t());
    return q;
}

// x · 2^e, canonical.
mpq_class times_pow2(const mpq_class& x, std::int64_t e) {
    mpq_class y;
    if (e >= 0)
        mpq_mul_2exp(y.get_mpq_t(), x.get_mpq_t(), static_cast<mp_bitcnt_t>(e));
    else
        mpq_div_2exp(y.get_mpq_t(), x.get_mpq_t(), static_cast<mp_bitcnt_t>(-e));
    return y;
}

// ---------------------------------------------------------------------------------------------
// Step 3 for M > 1: C_i / D in K_M = Q(θ), θ^M = 2, with D and C_i integral.

using ZPoly = std::vector<mpz_class>;  // Σ_r z_r θ^r, M integer coefficients

// a·b in Z[θ]/(θ^M − 2) given b2 = 2·b, one output coefficient at a time:
// out_k = Σ_(i+j=k) a_i·b_j + Σ_(i+j=k+M) a_i·(2·b_j) (θ^M = 2), each product added in place
// (mpz_addmul). A caller that multiplies many a by one b doubles b once.
ZPoly mul_mod(const ZPoly& a, const ZPoly& b, const ZPoly& b2, std::size_t m) {
    ZPoly out(m);
    for (std::size_t k = 0; k < m; ++k) {
        mpz_ptr o = out[k].get_mpz_t();
        for (std::size_t i = 0; i <= k; ++i) mpz_addmul(o, a[i].get_mpz_t(), b[k - i].get_mpz_t());
        for (std::size_t i = k + 1; i < m; ++i) mpz_addmul(o, a[i].get_mpz_t(), b2[k + m - i].get_mpz_t());
    }
    return out;
}

// 2·b, for mul_mod.
ZPoly doubled(const ZPoly& b) {
    ZPoly b2(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) mpz_mul_2exp(b2[i].get_mpz_t(), b[i].get_mpz_t(), 1);
    return b2;
}

ZPoly mul_mod(const ZPoly& a, const ZPoly& b, std::size_t m) { return mul_mod(a, b, doubled(b), m); }

// An integral A with D·A = N for an integer N ≠ 0 (N is ± the norm of D), for M a power of
// two: D(θ)·D(−θ) = E(θ²) lies in the subfield Q(θ²) of degree M/2, so A = D(−θ)·A_E(θ²)
// recursively, with integer products only. False for other M.
bool integral_adjugate(const ZPoly& d, std::size_t m, ZPoly& adj, mpz_class& norm) {
    if (m == 1) {
        adj = ZPoly{mpz_class(1)};
        norm = d[0];
        return true;
    }
    if (m % 2 != 0) return false;
    ZPoly neg = d;
    for (std::size_t i = 1; i < m; i += 2) neg[i] = -neg[i];
    const ZPoly p = mul_mod(d, neg, m);  // odd coefficients cancel
    ZPoly e(m / 2);
    for (std::size_t k = 0; k < m / 2; ++k) e[k] = p[2 * k];
    ZPoly adj_e;
    if (!integral_adjugate(e, m / 2, adj_e, norm)) return false;
    ZPoly lifted(m);
    for (std::size_t k = 0; k < m / 2; ++k) lifted[2 * k] = adj_e[k];
    adj = mul_mod(neg, lifted, m);
    return true;
}

// f · a^e as a value.
Value times_a_power(FieldElem f, int e) {
    if (e == 0) return Value(std::move(f));
    std::vector<FieldElem> terms(static_cast<std::size_t>(e) + 1);
    terms.back() = std::move(f);
    return Value::from_terms(std::move(terms));
}

// A memory's column units: one for all columns, or one each.
struct ColumnUnits {
    std::vector<Value> all;
    const Value& operator[](std::size_t i) const { return all.size() == 1 ? all[0] : all[i]; }
};

// D⁻¹ = A / N with A integral and N > 0 an integer (the adjugate and ± the norm of D), over the
// denominator big_den = N·q_den that the contexts share when the unit q·a^e folds in.
struct Inverse {
    bool folded = false;  // the values' unit is q·a^e with q rational
    mpq_class uq = 1;
    int ue = 0;
    ZPoly adj;
    mpz_class norm;
    mpz_class big_den;
};

Inverse integral_inverse(const ZPoly& den, std::size_t mm, int mi, Inverse inv) {
    if (!integral_adjugate(den, mm, inv.adj, inv.norm)) {
        // M not a power of two: D⁻¹ = A / L with L the lcm of its denominators.
        std::vector<mpq_class> dq(mm);
        for (std::size_t r = 0; r < mm; ++r) dq[r] = mpq_class(den[r]);
        const std::vector<mpq_class> d_inv = FieldElem::from_coefficients(mi, dq).inverse().lifted(mi);
        inv.norm = 1;
        for (const auto& x : d_inv) mpz_lcm(inv.norm.get_mpz_t(), inv.norm.get_mpz_t(), x.get_den_mpz_t());
        inv.adj.assign(mm, mpz_class());
        for (std::size_t r = 0; r < mm; ++r) inv.adj[r] = d_inv[r].get_num() * (inv.norm / d_inv[r].get_den());
    }
    if (sgn(inv.norm) < 0) {
        inv.norm = -inv.norm;
        for (auto& x : inv.adj) x = -x;
    }
    inv.big_den = inv.norm;
    if (inv.folded) inv.big_den *= inv.uq.get_den();
    return inv;
}

// ---------------------------------------------------------------------------------------------
// The driver, in stages: the compact memories; the score factors p_i and ρ; the row pass; the
// exponent structure (root degree m, offsets); the big shifted sums; the finish (m = 1: over
// Q; m > 1: in Z[θ]), deferred; the per-position columns.

// The keys and values in a compact form (one unit, or one a column), without copying a memory
// that has one; the copies live here.
struct CompactInputs {
    Memory keys_copy;
    Memory values_copy;
    const Memory* keys = nullptr;
    const Memory* values = nullptr;
};

bool compact_inputs(const Memory& keys_in, const Memory& values_in, CompactInputs& out) {
    auto compact = [](const Memory& x) { return x.is_compact() || x.is_columnwise(); };
    out.keys = &keys_in;
    if (!compact(keys_in)) {
        out.keys_copy = keys_in.compacted();
        if (!compact(out.keys_copy)) return false;
        out.keys = &out.keys_copy;
    }
    out.values = &values_in == &keys_in ? out.keys : &values_in;
    if (!compact(*out.values)) {
        out.values_copy = values_in.compacted();
        if (!compact(out.values_copy)) return false;
        out.values = &out.values_copy;
    }
    return true;
}

// Score at j: Σ_i k_ji · (q_i·u_i·scale). Each factor q_i·u_i·scale must be ρ_i·a with ρ_i
// rational (or the column all zero); with ρ_i = P_i/L over a common L and g = gcd(P_i), the
// score is S_j·ρ·a with S_j = Σ_i p_i k_ji, p_i = P_i/g and ρ = g/L.
struct ScoreFactors {
    std::vector<std::int64_t> p;
    std::uint64_t pmax = 0;
    mpq_class rho = 0;
};

// The rational ρ_i of every column (0 for a column the query or the unit makes zero); false
// when some q_i·u_i·scale is no rational multiple of a on a column with a nonzero entry.
// u_i·scale is computed once per unit (one unit per memory, or per column), and q_i·(u_i·scale)
// read off the two monomials: no product of values per entry.
bool column_factors(const Memory& keys, const Vector& query, const Value& scale, std::vector<mpq_class>& rho_i,
                    mpz_class& big_l) {
    const std::size_t d = keys.width();
    rho_i.assign(d, mpq_class(0));
    big_l = 1;
    const Value* last_unit = nullptr;  // u_i·scale, once per distinct unit (one for a compact memory)
    Value unit_scaled;
    for (std::size_t i = 0; i < d; ++i) {
        if (query[i].is_zero() || keys.column_unit(i).is_zero()) continue;
        if (&keys.column_unit(i) != last_unit) {
            last_unit = &keys.column_unit(i);
            unit_scaled = *last_unit * scale;
        }
        if (multiple_of_a_product(query[i], unit_scaled, rho_i[i])) {
            mpz_lcm(big_l.get_mpz_t(), big_l.get_mpz_t(), rho_i[i].get_den_mpz_t());
            continue;
        }
        const Value c = query[i] * unit_scaled;
        if (c.as_rational_multiple_of_a(rho_i[i])) {
            mpz_lcm(big_l.get_mpz_t(), big_l.get_mpz_t(), rho_i[i].get_den_mpz_t());
            continue;
        }
        const auto& k = keys.integers();
        for (std::size_t at = i; at < k.size(); at += d) {
            if (k[at] != 0) return false;  // the general path reports the score
        }
        rho_i[i] = 0;
    }
    return true;
}

std::optional<ScoreFactors> score_factors(const Memory& keys, const Vector& query, const Value& scale) {
    const std::size_t d = keys.width();
    std::vector<mpq_class> rho_i;
    mpz_class big_l;
    if (!column_factors(keys, query, scale, rho_i, big_l)) return std::nullopt;
    std::vector<mpz_class> big_pi(d);
    mpz_class g0 = 0;
    for (std::size_t i = 0; i < d; ++i) {
        mpz_divexact(big_pi[i].get_mpz_t(), big_l.get_mpz_t(), rho_i[i].get_den_mpz_t());
        big_pi[i] *= rho_i[i].get_num();
        mpz_gcd(g0.get_mpz_t(), g0.get_mpz_t(), big_pi[i].get_mpz_t());
    }
    ScoreFactors f;
    f.p.assign(d, 0);
    if (sgn(g0) != 0) {
        for (std::size_t i = 0; i < d; ++i) {
            mpz_divexact(big_pi[i].get_mpz_t(), big_pi[i].get_mpz_t(), g0.get_mpz_t());
            if (mpz_sizeinbase(big_pi[i].get_mpz_t(), 2) > 62) return std::nullopt;
            f.p[i] = big_pi[i].get_si();
            f.pmax = std::max(f.pmax,
                              f.p[i] < 0 ? 0 - static_cast<std::uint64_t>(f.p[i]) : static_cast<std::uint64_t>(f.p[i]));
        }
        f.rho = mpq_class(g0, big_l);
        f.rho.canonicalize();
    }
    return f;
}

// The exponent of 2 at j is T_j/m with T_j = (S_j / g)·P: m the smallest root degree, and the
// shifts ⌊T_j/m⌋ between fmin and fmax.
struct Exponents {
    std::int64_t big_p = 0;
    std::int64_t g = 1;
    std::int64_t m = 1;
    std::int64_t fmin = 0;
    std::int64_t fmax = 0;
    [[nodiscard]] std::int64_t of(std::int64_t sj) const { return big_p == 0 ? 0 : (sj / g) * big_p; }
};

std::optional<Exponents> exponents(const RowPass& rp, const mpq_class& rho, std::size_t n, std::size_t dv) {
    if (!mpz_fits_slong_p(rho.get_num_mpz_t()) || !mpz_fits_slong_p(rho.get_den_mpz_t())) {
        return std::nullopt;
    }
    Exponents e;
    e.big_p = rho.get_num().get_si();  // the exponent of 2 at j is S_j·P/M
    const std::int64_t big_m = rho.get_den().get_si();
    // The smallest root degree: M / gcd(M, every S_j) (P is prime to M).
    std::int64_t g = big_m;
    if (e.big_p != 0 && big_m > 1) {
        if (rp.dense) {
            const std::size_t stride = dv + 1;
            for (std::size_t b = 0; b < rp.buckets && g > 1; ++b) {
                if (rp.acc[b * stride + dv] == 0) continue;
                const std::int64_t sj = rp.base + static_cast<std::int64_t>(b);
                g = std::gcd(g, sj < 0 ? -sj : sj);
            }
        } else {
            for (std::size_t j = 0; j < n && g > 1; ++j) {
                if (rp.present[j]) g = std::gcd(g, rp.s[j] < 0 ? -rp.s[j] : rp.s[j]);
            }
        }
    }
    e.g = g;
    e.m = big_m / g;
    if (e.m > limits().max_root) return std::nullopt;  // the general path reports the limit
    // The general path refuses 2^r when |trunc(r)| > max_exponent; decline so that it does.
    // Past this, every exponent T_j = (S_j / g)·P fits comfortably in 64 bits.
    const i128 cap = (static_cast<i128>(limits().max_exponent) + 1) * e.m;
    const i128 lo_t = e.big_p == 0 ? 0 : static_cast<i128>(rp.smin / g) * e.big_p;
    const i128 hi_t = e.big_p == 0 ? 0 : static_cast<i128>(rp.smax / g) * e.big_p;
    if (lo_t >= cap || -lo_t >= cap || hi_t >= cap || -hi_t >= cap || cap > (i128{1} << 62)) {
        return std::nullopt;
    }
    e.fmin = floor_div(static_cast<std::int64_t>(std::min(lo_t, hi_t)), e.m);
    e.fmax = floor_div(static_cast<std::int64_t>(std::max(lo_t, hi_t)), e.m);
    return e;
}

// The big shifted sums: record r (residue T mod m) holds C_{r,0..dv-1} and N_r; `residue_used`
// says which records were added to.
BigSums shifted_sums(const RowPass& rp, const Exponents& e, const std::int64_t* v, std::size_t n, std::size_t dv,
                     std::vector<bool>& residue_used) {
    const std::int64_t m = e.m;
    const std::size_t mm = static_cast<std::size_t>(m);
    const std::size_t stride = dv + 1;
    // Σ|v| over the additions into one integer: at most every present row's |v| (a bucket is a
    // sum of rows), and the count at most the number of present rows.
    const u128 total = static_cast<u128>(rp.count) * (static_cast<u128>(rp.vbound) + 1);
    BigSums sums(mm, stride, static_cast<std::uint64_t>(e.fmax - e.fmin) + 64, total);
    residue_used.assign(mm, false);
    sums.fill([&](auto& acc) {
        // Record and offset of score sj: T = e.of(sj) = ⌊T/m⌋·m + r.
        // No divisions in the usual cases (a division costs as much as a row's additions):
        // g = 1, and M a power of two (then ⌊T/M⌋ is an arithmetic shift).
        const bool pow2 = (m & (m - 1)) == 0;
        const int log_m = std::countr_zero(static_cast<std::uint64_t>(m));
        auto add = [&](std::int64_t sj, const std::int64_t* values, bool row) {
            const std::int64_t t = e.g == 1 ? sj * e.big_p : e.of(sj);
            const std::int64_t fj = pow2 ? t >> log_m : floor_div(t, m);
            const auto r = static_cast<std::size_t>(t - fj * m);
            residue_used[r] = true;
            const auto bit = static_cast<std::uint64_t>(fj - e.fmin);
            if (row)
                acc.add_row(r, values, bit);  // dv values and a count of 1
            else
                acc.add_record(r, values, bit);  // dv sums and a count
        };
        if (rp.dense) {
            for (std::size_t b = 0; b < rp.buckets; ++b) {
                const std::int64_t* a = rp.acc.data() + b * stride;
                if (a[dv] != 0) add(rp.base + static_cast<std::int64_t>(b), a, false);
            }
        } else {
            // Scores too spread for buckets: each row goes straight into the big sums.
            for (std::size_t j = 0; j < n; ++j) {
                if (rp.present[j]) add(rp.s[j], v + j * dv, true);
            }
        }
    });
    return sums;
}

// m = 1: Σ_j 2^(T_j) = 2^fmin·N and context_i = C_i / N · unit. 1/N is canonical as it stands;
// the contexts are reduced (common_factors: one full-size gcd) when first looked at.
Deferred<Value> finish_rational(ReadTrace& tr, BigSums& sums, std::int64_t fmin, std::size_t dv,
                                const std::shared_ptr<ColumnUnits>& units, bool one_unit, const ReadRequest& request) {
    mpz_class big_n = sums.value(0, dv);
    std::vector<mpz_class> c(dv);
    for (std::size_t i = 0; i < dv; ++i) c[i] = sums.value(0, i);
    tr.denominator = Value(FieldElem(times_pow2(mpq_class(big_n), fmin)));
    Deferred<Value> inv_true = Value(FieldElem(times_pow2(mpq_class(mpz_class(1), big_n), -fmin)));
    if (one_unit && request.readout &&
        std::all_of(request.readout->begin(), request.readout->end(), [](const Value& v) { return v.is_rational(); })) {
        // r = Σ_i c_i C_i / N · unit: one gcd instead of d additions of reduced fractions.
        mpz_class l = 1;
        for (const auto& v : *request.readout) {
            const mpq_class q = v.rational();
            mpz_lcm(l.get_mpz_t(), l.get_mpz_t(), q.get_den_mpz_t());
        }
        mpz_class num = 0;
        for (std::size_t i = 0; i < dv; ++i) {
            const mpq_class q = (*request.readout)[i].rational();
            if (sgn(q) == 0) continue;
            mpz_class coeff = l / q.get_den();
            coeff *= q.get_num();
            num += coeff * c[i];
        }
        tr.readout = Value(FieldElem(mpq_class(num, l * big_n))) * (*units)[0];  // one gcd
    }
    tr.context = DeferredVector(dv, [big_n = std::move(big_n), c = std::move(c), units] {
        const std::vector<Factor> gi = common_factors(big_n, c);
        std::vector<Value> out(c.size());
        for (std::size_t i = 0; i < c.size(); ++i) {
            if (sgn(c[i]) == 0 || (*units)[i].is_zero()) continue;
            mpz_class ci = c[i];  // the captured integers stay: a throw runs this again
            out[i] = Value(from_canonical_unchecked(1, {reduced(ci, big_n, gi[i])})) * (*units)[i];
        }
        return out;
    });
    return inv_true;
}

// m > 1: D = Σ_r θ^r N_r and C_i = Σ_r θ^r C_{r,i}, integral. With D·A = N (A integral, N an
// integer), C_i / D = C_i·A / N: integer products, then the coefficients reduced against N with
// one shared full-size gcd (common_factors), instead of an inversion and d products over Q that
// reduce every partial fraction. All of it deferred: D⁻¹ (the weights' factor) when a weight is
// first looked at, the contexts when they are.
Deferred<Value> finish_field(ReadTrace& tr, BigSums& sums, const std::vector<bool>& residue_used, std::int64_t m,
                             std::int64_t fm, std::size_t dv, const std::shared_ptr<ColumnUnits>& units,
                             bool one_unit) {
    const int mi = static_cast<int>(m);
    const std::size_t mm = static_cast<std::size_t>(m);
    ZPoly den(mm);
    std::vector<ZPoly> num(dv, ZPoly(mm));
    for (std::size_t r = 0; r < mm; ++r) {
        if (!residue_used[r]) continue;
        den[r] = sums.value(r, dv);
        for (std::size_t i = 0; i < dv; ++i) num[i][r] = sums.value(r, i);
    }
    std::vector<mpq_class> den_true(mm);
    for (std::size_t r = 0; r < mm; ++r) den_true[r] = times_pow2(mpq_class(den[r]), fm);
    tr.denominator = Value(from_reduced_unchecked(mi, std::move(den_true)));
    // A unit q·a^e (q rational) folds into the fractions; any other multiplies at the end.
    Inverse inv;
    inv.folded = one_unit && !(*units)[0].is_zero() && unit_parts((*units)[0], inv.uq, inv.ue);
    const auto adjugate = std::make_shared<Deferred<Inverse>>(
        [den = std::move(den), mm, mi, inv]() mutable { return integral_inverse(den, mm, mi, std::move(inv)); });
    tr.context = DeferredVector(dv, [adjugate, num = std::move(num), units, mm, mi] {
        const Inverse& a = adjugate->get();
        const std::size_t width = num.size();
        // Every context coefficient C_i·A·q_num over big_den: one shared gcd reduces them all.
        std::vector<mpz_class> flat(width * mm);
        const ZPoly adj2 = doubled(a.adj);
        for (std::size_t i = 0; i < width; ++i) {
            ZPoly x = mul_mod(num[i], a.adj, adj2, mm);
            for (std::size_t r = 0; r < mm; ++r) {
                if (a.folded) x[r] *= a.uq.get_num();
                flat[i * mm + r] = std::move(x[r]);
            }
        }
        const std::vector<Factor> gi = common_factors(a.big_den, flat);
        std::vector<Value> out(width);
        for (std::size_t i = 0; i < width; ++i) {
            if ((*units)[i].is_zero()) continue;
            std::vector<mpq_class> c(mm);
            for (std::size_t r = 0; r < mm; ++r) c[r] = reduced(flat[i * mm + r], a.big_den, gi[i * mm + r]);
            FieldElem f = from_reduced_unchecked(mi, std::move(c));
            out[i] = a.folded ? times_a_power(std::move(f), a.ue) : Value(std::move(f)) * (*units)[i];
        }
        return out;
    });
    return Deferred<Value>([adjugate, mm, mi, fm] {
        const Inverse& a = adjugate->get();
        // A / N = A·q_den / big_den over the contexts' denominator.
        std::vector<mpz_class> flat(a.adj);
        if (a.folded) {
            for (auto& x : flat) x *= a.uq.get_den();
        }
        const std::vector<Factor> gi = common_factors(a.big_den, flat);
        std::vector<mpq_class> coeffs(mm);
        for (std::size_t r = 0; r < mm; ++r) coeffs[r] = times_pow2(reduced(flat[r], a.big_den, gi[r]), -fm);
        return Value(from_reduced_unchecked(mi, std::move(coeffs)));
    });
}

// The per-position columns, computed on demand: T_j = (S_j / g)·P in place of S_j, one copy of
// the integers and the marks shared by the three columns.
void position_columns(ReadTrace& tr, RowPass& rp, const Exponents& e, std::size_t n, Deferred<Value> inv_true) {
    if (e.g != 1 || e.big_p != 1) {
        for (std::size_t j = 0; j < n; ++j) rp.s[j] = e.of(rp.s[j]);
    }
    const Value score_unit = Value(mpq_class(1, static_cast<long>(e.m))) * Value::ln2();
    const auto keys = std::make_shared<const std::vector<std::int64_t>>(std::move(rp.s));
    const auto present = std::make_shared<const std::vector<bool>>(std::move(rp.present));
    tr.scores = Column::multiples(keys, present, score_unit);
    tr.exponentials = Column::powers_of_two(keys, e.m, present, Value(1), std::nullopt);
    tr.weights = Column::powers_of_two(keys, e.m, present, std::move(inv_true), Value());
}

}  // namespace

std::optional<ReadTrace> fast_attend(const Memory& keys_in, const Memory& values_in, const ReadRequest& request,
                                     const std::vector<Mark>& marks, const Value& scale) {
    const std::size_t n = keys_in.rows();
    const std::size_t d = keys_in.width();
    const std::size_t dv = values_in.width();
    if (n == 0 || d == 0 || dv == 0 || values_in.rows() != n || request.query.size() != d || marks.size() != n) {
        return std::nullopt;
    }
    CompactInputs in;
    if (!compact_inputs(keys_in, values_in, in)) return std::nullopt;
    const auto factors = score_factors(*in.keys, request.query, scale);
    if (!factors) return std::nullopt;
    // 1. The pass over the rows.
    RowPass rp;
    if (!run_row_pass(in.keys->integers().data(), n, d, factors->p.data(), factors->pmax, marks,
                      in.values->integers().data(), dv, rp)) {
        return std::nullopt;
    }
    const auto e = exponents(rp, factors->rho, n, dv);
    if (!e) return std::nullopt;
    // 2. The big shifted sums.
    std::vector<bool> residue_used;
    BigSums sums = shifted_sums(rp, *e, in.values->integers().data(), n, dv, residue_used);
    rp.acc = {};
    // 3. The finish, deferred.
    ReadTrace tr;
    tr.query = request.query;
    tr.marks = marks;
    tr.fast_path = true;
    const bool one_unit = in.values->is_compact();
    // The units the contexts are multiples of, held by the deferred reductions: they outlive
    // `in` (it may hold this function's compacted copy). One for a compact memory.
    const auto units = std::make_shared<ColumnUnits>();
    for (std::size_t i = 0; i < (one_unit ? 1 : dv); ++i) units->all.push_back(in.values->column_unit(i));
    Deferred<Value> inv_true = e->m == 1 ? finish_rational(tr, sums, e->fmin, dv, units, one_unit, request)
                                         : finish_field(tr, sums, residue_used, e->m, e->fmin, dv, units, one_unit);
    if (request.readout && !tr.readout) tr.readout = apply_readout(*request.readout, tr.context.values());
    position_columns(tr, rp, *e, n, std::move(inv_true));
    return tr;
}

}  // namespace exactattn::detail
