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
//     for all of them (common_factors, fastpath_finish.cpp); for M > 1 one inversion in K_M. The reductions
//     to canonical form are deferred (deferred.hpp): the context when it is first looked at,
//     and for M > 1 the weights' factor 1/D when a weight is.
// Nothing here holds more than the scores (one int64 per row), the buckets, and until the
// context is looked at its unreduced integers.
//
// Step 1 is fastpath_rows.cpp, step 2's big integers big_sums.hpp, step 3 fastpath_finish.cpp;
// this file holds the driver and its stages.

#include "model/fastpath.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <optional>

#include "core/assert.hpp"
#include "core/field_detail.hpp"
#include "exactattn/error.hpp"
#include "model/fastpath_detail.hpp"
#include "model/memory_detail.hpp"
#include "exactattn/limits.hpp"

namespace exactattn::detail::fastpath {

namespace {

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

// The per-position columns, computed on demand: T_j = (S_j / g)·P in place of S_j, one copy of
// the integers and the marks shared by the three columns.
void position_columns(ReadTrace& tr, RowPass& rp, const Exponents& e, Deferred<Value> inv_true) {
    if (e.g != 1 || e.big_p != 1) {
        for (auto& sj : rp.s) sj = e.of(sj);
    }
    const Value score_unit = Value(mpq_class(1, static_cast<long>(e.m))) * Value::ln2();
    const auto keys = std::make_shared<const std::vector<std::int64_t>>(std::move(rp.s));
    const auto present = std::make_shared<const std::vector<bool>>(std::move(rp.present));
    tr.scores = Column::multiples(keys, present, score_unit);
    tr.exponentials = Column::powers_of_two(keys, e.m, present, Value(1), std::nullopt);
    tr.weights = Column::powers_of_two(keys, e.m, present, std::move(inv_true), Value());
}

}  // namespace

}  // namespace exactattn::detail::fastpath

namespace exactattn::detail {

std::optional<ReadTrace> fast_attend(const Memory& keys_in, const Memory& values_in, const ReadRequest& request,
                                     const std::vector<Mark>& marks, const Value& scale) {
    using namespace fastpath;  // the stages (fastpath_detail.hpp and above)
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
    position_columns(tr, rp, *e, std::move(inv_true));
    return tr;
}

}  // namespace exactattn::detail
