// SPDX-License-Identifier: MIT
// exactattn: the fast path's step 3 (fastpath.cpp): the big integers N_r, C_(r,i) of the shifted
// sums turned into the read's denominator, weights' factor and contexts, over Q for M = 1 (one
// gcd per context entry, or one shared full-size gcd) and in K_M = Q(θ) for M > 1 (one integral
// inverse); every reduction deferred to when the value is first looked at.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/field_detail.hpp"
#include "model/fastpath_detail.hpp"
#include "model/memory_detail.hpp"

namespace exactattn::detail::fastpath {

namespace {

// Reads `unit` = q·a^e with q rational; false otherwise (zero, radicals, several powers of a).
bool unit_parts(const Value& unit, mpq_class& q, int& e) {
    detail::Monomial mono;
    const mpq_class* r = detail::monomial_of(unit, mono);
    if (r == nullptr || mono.m != 1) return false;
    q = *r;
    e = mono.e;
    return true;
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

}  // namespace

// ---------------------------------------------------------------------------------------------
// Step 3 for M = 1 and for M > 1.

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

}  // namespace exactattn::detail::fastpath
