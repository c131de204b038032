// SPDX-License-Identifier: MIT
// exactattn: the fast path's big integers (fastpath.cpp, step 2): small signed integers added at
// bit offsets, as carried limbs (ShiftedSums) or as digits without carries (DigitSums).
#pragma once

#include <gmpxx.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/assert.hpp"

namespace exactattn::detail::fastpath {

__extension__ typedef __int128 i128;  // GCC/Clang extension; every bound is checked where used
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

}  // namespace exactattn::detail::fastpath
