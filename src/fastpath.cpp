// SPDX-License-Identifier: MIT
// exactattn: fast exact reads by bucketed shifted-integer sums (see fastpath.hpp).
#include "exactattn/fastpath.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>

#include "exactattn/limits.hpp"

namespace exactattn::detail {

namespace {

__extension__ typedef __int128 i128;  // GCC/Clang extension; bounds are checked below

// A signed big integer assembled from small signed integers added at bit offsets, kept as
// two unsigned limb arrays (positive and negative parts); carries are amortized O(1).
class BitAccumulator {
public:
    explicit BitAccumulator(std::uint64_t bits) : pos_(bits / 64 + 3, 0), neg_(bits / 64 + 3, 0) {}

    void add(std::int64_t c, std::uint64_t bit) {
        if (c == 0) return;
        auto& a = c > 0 ? pos_ : neg_;
        const std::uint64_t mag = c > 0 ? static_cast<std::uint64_t>(c)
                                        : static_cast<std::uint64_t>(-(c + 1)) + 1;
        const std::size_t limb = bit / 64;
        const unsigned sh = bit % 64;
        const std::uint64_t lo = mag << sh;
        const std::uint64_t hi = sh == 0 ? 0 : mag >> (64 - sh);
        add_at(a, limb, lo);
        if (hi != 0) add_at(a, limb + 1, hi);
    }

    [[nodiscard]] mpz_class value() const { return to_mpz(pos_) - to_mpz(neg_); }

private:
    static void add_at(std::vector<std::uint64_t>& a, std::size_t i, std::uint64_t v) {
        std::uint64_t before = a[i];
        a[i] += v;
        while (a[i] < before) {  // carry
            ++i;
            before = a[i];
            a[i] += 1;
        }
    }
    static mpz_class to_mpz(const std::vector<std::uint64_t>& a) {
        mpz_class z;
        mpz_import(z.get_mpz_t(), a.size(), -1, sizeof(std::uint64_t), 0, 0, a.data());
        return z;
    }
    std::vector<std::uint64_t> pos_;
    std::vector<std::uint64_t> neg_;
};

// Reads `unit` = q·a^e with q rational; false otherwise.
bool unit_parts(const Value& unit, mpq_class& q, int& e) {
    if (unit.is_zero()) return false;
    const auto& t = unit.terms();
    for (std::size_t k = 0; k + 1 < t.size(); ++k) {
        if (!t[k].is_zero()) return false;
    }
    if (!t.back().is_rational()) return false;
    q = t.back().rational();
    e = unit.degree();
    return true;
}

std::int64_t floor_div(std::int64_t x, std::int64_t m) {
    std::int64_t q = x / m;
    if ((x % m != 0) && ((x < 0) != (m < 0))) --q;
    return q;
}

}  // namespace

std::optional<ReadTrace> fast_attend(const Memory& memory_in, const ReadRequest& request,
                                     const std::vector<Mark>& marks) {
    if (request.rule != ScoreRule::Dot) return std::nullopt;
    const std::size_t n = memory_in.rows();
    const std::size_t d = memory_in.width();
    if (d == 0 || request.query.size() != d) return std::nullopt;

    const Memory memory = memory_in.compacted();
    if (!memory.is_compact()) return std::nullopt;
    const Memory qmem = Memory(Matrix{request.query}).compacted();
    if (!qmem.is_compact()) return std::nullopt;

    mpq_class u;
    mpq_class w;
    int e = 0;
    int f = 0;
    const bool query_zero = std::all_of(qmem.integers().begin(), qmem.integers().end(),
                                        [](std::int64_t k) { return k == 0; });
    const bool memory_zero = std::all_of(memory.integers().begin(), memory.integers().end(),
                                         [](std::int64_t k) { return k == 0; });
    if (!unit_parts(memory.unit(), u, e) || !unit_parts(qmem.unit(), w, f)) return std::nullopt;
    // Scores must be rational multiples of a (or all zero).
    if (!query_zero && !memory_zero && e + f != 1) return std::nullopt;
    if (query_zero || memory_zero) {
        w = 0;
    }

    const auto& k = memory.integers();
    const auto& p = qmem.integers();
    // Bound the products so the 128-bit score sums and 64-bit bucket sums cannot overflow.
    std::int64_t kmax = 0;
    for (auto x : k) kmax = std::max<std::int64_t>(kmax, x < 0 ? -x : x);
    std::int64_t pmax = 0;
    for (auto x : p) pmax = std::max<std::int64_t>(pmax, x < 0 ? -x : x);
    if (kmax >= (std::int64_t{1} << 40) || pmax >= (std::int64_t{1} << 40)) return std::nullopt;
    if (static_cast<double>(kmax) * static_cast<double>(n) >= 0x1p61) return std::nullopt;

    // Score of position j is S_j · (u·w) · a; exponent of 2 is T_j / M with T_j = S_j·P.
    mpq_class rho = u * w;
    rho.canonicalize();
    if (!mpz_fits_slong_p(rho.get_num_mpz_t()) || !mpz_fits_slong_p(rho.get_den_mpz_t())) {
        return std::nullopt;
    }
    const i128 big_p = rho.get_num().get_si();
    std::int64_t big_m = rho.get_den().get_si();
    const i128 exp_cap = static_cast<i128>(limits().max_exponent) + 1;

    std::vector<std::int64_t> t(n, 0);
    std::vector<bool> present(n, false);
    std::int64_t g = big_m;  // gcd of M and every T_j, to reach the smallest root degree
    for (std::size_t j = 0; j < n; ++j) {
        if (marks[j] == Mark::Removed) continue;
        present[j] = true;
        if (marks[j] == Mark::Zeroed) continue;
        i128 s = 0;
        const std::int64_t* row = &k[j * d];
        for (std::size_t i = 0; i < d; ++i) s += static_cast<i128>(p[i]) * row[i];
        const i128 tj = s * big_p;
        if (tj > exp_cap * big_m || -tj > exp_cap * big_m) return std::nullopt;  // general path: limit
        t[j] = static_cast<std::int64_t>(tj);
        g = std::gcd(g, t[j] < 0 ? -t[j] : t[j]);
    }
    if (g > 1) {
        big_m /= g;
        for (auto& x : t) x /= g;
    }
    if (big_m > limits().max_root) return std::nullopt;  // general path reports the limit

    // Buckets: key = (⌊T/M⌋ − fmin)·M + (T mod M).
    std::int64_t fmin = std::numeric_limits<std::int64_t>::max();
    std::int64_t fmax = std::numeric_limits<std::int64_t>::min();
    for (std::size_t j = 0; j < n; ++j) {
        if (!present[j]) continue;
        const std::int64_t fj = floor_div(t[j], big_m);
        fmin = std::min(fmin, fj);
        fmax = std::max(fmax, fj);
    }
    const std::uint64_t range = static_cast<std::uint64_t>(fmax - fmin + 1) *
                                static_cast<std::uint64_t>(big_m);
    auto key_of = [&](std::size_t j) {
        const std::int64_t fj = floor_div(t[j], big_m);
        return static_cast<std::uint64_t>(fj - fmin) * static_cast<std::uint64_t>(big_m) +
               static_cast<std::uint64_t>(t[j] - fj * big_m);
    };
    // Dense buckets when the key range is small, else the sorted distinct keys.
    const bool dense = range <= std::max<std::uint64_t>(4 * n, 1 << 16);
    std::vector<std::uint64_t> keys;
    if (!dense) {
        keys.reserve(n);
        for (std::size_t j = 0; j < n; ++j) {
            if (present[j]) keys.push_back(key_of(j));
        }
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    }
    const std::size_t buckets = dense ? static_cast<std::size_t>(range) : keys.size();
    std::vector<std::int64_t> count(buckets, 0);
    std::vector<std::int64_t> acc(buckets * d, 0);
    for (std::size_t j = 0; j < n; ++j) {
        if (!present[j]) continue;
        const std::uint64_t key = key_of(j);
        const std::size_t b =
            dense ? static_cast<std::size_t>(key)
                  : static_cast<std::size_t>(std::lower_bound(keys.begin(), keys.end(), key) - keys.begin());
        ++count[b];
        std::int64_t* a = &acc[b * d];
        const std::int64_t* row = &k[j * d];
        for (std::size_t i = 0; i < d; ++i) a[i] += row[i];
    }

    // Assemble N_r and C_{r,i} as big integers, one accumulator per residue.
    const auto m = static_cast<std::size_t>(big_m);
    const std::uint64_t bits = static_cast<std::uint64_t>(fmax - fmin) + 64;
    std::vector<BitAccumulator> den_acc(m, BitAccumulator(bits));
    std::vector<BitAccumulator> num_acc(m * d, BitAccumulator(0));
    std::vector<bool> residue_used(m, false);
    for (std::size_t b = 0; b < buckets; ++b) {
        if (count[b] == 0) continue;
        const std::uint64_t key = dense ? b : keys[b];
        const std::size_t r = key % m;
        const std::uint64_t shift = key / m;
        if (!residue_used[r]) {
            residue_used[r] = true;
            for (std::size_t i = 0; i < d; ++i) num_acc[r * d + i] = BitAccumulator(bits);
        }
        den_acc[r].add(count[b], shift);
        for (std::size_t i = 0; i < d; ++i) num_acc[r * d + i].add(acc[b * d + i], shift);
    }
    std::vector<mpq_class> den_coeffs(m);
    std::vector<std::vector<mpq_class>> num_coeffs(d, std::vector<mpq_class>(m));
    for (std::size_t r = 0; r < m; ++r) {
        if (!residue_used[r]) continue;
        den_coeffs[r] = mpq_class(den_acc[r].value());
        for (std::size_t i = 0; i < d; ++i) num_coeffs[i][r] = mpq_class(num_acc[r * d + i].value());
    }
    const int mi = static_cast<int>(big_m);
    const FieldElem den_scaled = FieldElem::from_coefficients(mi, den_coeffs);
    const FieldElem inv_scaled = den_scaled.inverse();
    const FieldElem two_fmin = FieldElem::pow2(mpq_class(static_cast<long>(fmin)));

    ReadTrace tr;
    tr.query = request.query;
    tr.marks = marks;
    tr.fast_path = true;
    tr.denominator = Value(den_scaled * two_fmin);
    const Value inv_true = Value(inv_scaled * FieldElem::pow2(mpq_class(static_cast<long>(-fmin))));
    tr.context.resize(d);
    Value unit_value = memory.unit();
    for (std::size_t i = 0; i < d; ++i) {
        const FieldElem num = FieldElem::from_coefficients(mi, num_coeffs[i]);
        tr.context[i] = Value(num * inv_scaled) * unit_value;
    }
    const Value score_unit = Value(mpq_class(1, static_cast<long>(big_m))) * Value::ln2();
    tr.scores = Column::multiples(t, present, score_unit);
    tr.exponentials = Column::powers_of_two(t, big_m, present, Value(1), std::nullopt);
    tr.weights = Column::powers_of_two(std::move(t), big_m, std::move(present), inv_true, Value());
    if (request.readout) tr.readout = apply_readout(*request.readout, tr.context);
    return tr;
}

}  // namespace exactattn::detail
