// SPDX-License-Identifier: MIT
// exactattn oracle (include/exactattn/oracle.hpp's own file): the certified reference
// softmax(c Q Kᵀ) V, row by row, in Ziv's manner: doubles with proven bounds first, then MPFR
// at doubling precision for the entries whose rounding the enclosure did not decide, and the
// exact value where the entry is rational.
#include <fmt/format.h>

#include <algorithm>
#include <type_traits>

#include "bounds.hpp"
#include "arith.hpp"
#include "exact_entries.hpp"
#include "kernels.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"

namespace exactattn::oracle {

namespace {

using detail::decide_by_sign;
using detail::DoubleArith;
using detail::MpfrArith;
using detail::store_exact;
using detail::store_exact_base2;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One row enclosed in arithmetic A: exponentials E_j = base^(s_j − m), their sum D and the
// numerators N_c = Σ_j E_j v_jc. m is any double: the softmax does not depend on it.
template <class A>
struct RowEnclosure {
    std::vector<typename A::Iv> e;
    std::vector<typename A::Acc> num;
    typename A::Acc den;
    typename A::Shift m;
    bool may_tie = true;  // every score enclosure overlaps every other: all may be equal
    RowFacts facts;
    std::vector<double> key_abs;  // per key: ≥ |c|·Σ_x |q_x k_jx| (0 for a masked key)
    std::vector<double> key_lo;   // per key: ≤ s_j
    std::vector<double> key_h;    // under a softcap, per key: ≥ sech²(x_j/C), the cap's slope (else empty)
    std::vector<double> abs_hi;   // the double stage's Σ_j E_j^hi |v_jc| per column (empty in MPFR's)
    explicit RowEnclosure(const A& a) : den(a.make_acc()), m(a.make_shift()) {}
};

// `skip`, when given, marks the output columns already decided: their numerators are not
// formed (the MPFR stage redoes a row for its few undecided entries).
// `kt`, when given (the double stage), is K transposed: the row's Dot2 products are then formed
// for every key at once (kernels.hpp), the same operations as DoubleArith::dot key by key.
template <class A>
RowEnclosure<A> enclose_row(const Problem& p, const A& a, std::int64_t i, const std::vector<std::uint8_t>& keep,
                            const std::vector<std::uint8_t>* skip = nullptr, const double* kt = nullptr) {
    const std::int64_t nk = p.k.rows(), d = p.q.cols(), dv = p.v.cols();
    constexpr bool kDouble = std::is_same_v<A, DoubleArith>;
    RowEnclosure<A> r(a);
    std::vector<typename A::Iv> s;
    s.reserve(nk);
    std::vector<double> ds, dc, dabs, slo, shi, sabs;
    if (kDouble && kt != nullptr) {  // every key's Dot2, finish and scale at once (kernels.hpp)
        ds.resize(static_cast<std::size_t>(nk));
        dc = dabs = slo = shi = sabs = ds;
        detail::dot2_keys(&p.q.data[i * d], kt, nk, d, ds.data(), dc.data(), dabs.data());
        const auto [c_lo, c_hi] = a.bounds(a.scale);
        detail::scores_keys(ds.data(), dc.data(), dabs.data(), nk, d, c_lo, c_hi, slo.data(), shi.data(), sabs.data());
    }
    double smax = -std::numeric_limits<double>::infinity(), smin = -smax, abs_max = 0, max_lo = smax, min_hi = smin;
    bool first = true;
    for (std::int64_t j = 0; j < nk; ++j) {
        s.push_back(a.make());
        if (!keep[j]) continue;
        double abs_up = 0;
        if (kDouble && kt != nullptr) {  // dot_of and mul by the scale, from scores_keys
            if constexpr (kDouble) s.back() = {slo[j], shi[j]};
            abs_up = sabs[j];
        } else {
            a.dot(s.back(), &p.q.data[i * d], &p.k.data[j * d], d, &abs_up);
            a.mul(s.back(), s.back(), a.scale);
        }
        if (p.softcap > 0) {
            a.softcap(s.back(), p.softcap);  // before the bias, as FlashAttention
            // The slope 1 − tanh²(x/C) = sech²(x/C) from the capped score's enclosure, rounded up
            // (the bounds' h_j, docs/oracle.md, "The logit softcap").
            const auto [cl, ch] = a.bounds(s.back());
            DoubleArith::Iv slope;
            DoubleArith{}.softcap_slope(slope, {cl, ch}, p.softcap);
            r.key_h.resize(static_cast<std::size_t>(nk), 0.0);
            r.key_h[j] = slope.hi;
        }
        if (!p.bias.empty()) a.add_const(s.back(), bias_at(p, i, j));
        const auto [lo, hi] = a.bounds(s.back());
        r.key_abs.resize(static_cast<std::size_t>(nk), 0.0);
        r.key_lo.resize(static_cast<std::size_t>(nk), 0.0);
        r.key_abs[j] = abs_up;
        r.key_lo[j] = lo;
        abs_max = std::max(abs_max, abs_up);
        smax = std::max(smax, hi);
        smin = std::min(smin, lo);
        max_lo = std::max(max_lo, lo);
        min_hi = std::min(min_hi, hi);
        a.pick(r.m, s.back(), first);
        first = false;
        ++r.facts.keys;
    }
    const double c_up = std::max(std::fabs(a.bounds(a.scale).first), std::fabs(a.bounds(a.scale).second));
    r.facts.abs_score_max = detail::up(abs_max * c_up);
    r.facts.abs_dot_max = abs_max;
    for (double& x : r.key_abs) x = detail::up(x * c_up);
    // A bias b_j adds |b_j| to what the kernel's score arithmetic handles: the bounds' terms in
    // |c|Σ|q k| (docs/oracle.md, "Bias") then cover the rounding of the addition, u_a|s_j + b_j|.
    for (std::int64_t j = 0; j < nk && !p.bias.empty() && !r.key_abs.empty(); ++j) {
        if (!keep[j]) continue;
        r.key_abs[j] = detail::up(r.key_abs[j] + std::fabs(bias_at(p, i, j)));
        r.facts.abs_score_max = std::max(r.facts.abs_score_max, r.key_abs[j]);
    }
    if (!r.key_h.empty()) {  // max_j h_j a_j, each product rounded up
        r.facts.slope_abs_max = 0;
        for (std::int64_t j = 0; j < nk; ++j)
            if (keep[j]) r.facts.slope_abs_max = std::max(r.facts.slope_abs_max, detail::up(r.key_h[j] * r.key_abs[j]));
    }
    r.facts.score_max = smax;
    r.facts.score_range = detail::up(smax - smin);
    r.facts.masked = r.facts.keys == 0;
    r.may_tie = max_lo <= min_hi;
    for (std::int64_t c = 0; c < dv; ++c) r.num.push_back(a.make_acc());
    auto t = a.make();
    const bool columns_at_once = kDouble && skip == nullptr;
    std::vector<double> elo, ehi;
    if constexpr (kDouble) {  // every key's sub and exp at once (kernels.hpp), as a.sub and a.exp
        elo.resize(static_cast<std::size_t>(nk));
        ehi = elo;
        slo.resize(elo.size());
        shi.resize(elo.size());
        for (std::int64_t j = 0; j < nk; ++j) slo[j] = s[j].lo, shi[j] = s[j].hi;
        detail::exp_keys(slo.data(), shi.data(), nk, r.m, a.base == ExpBase::Two, elo.data(), ehi.data());
    }
    for (std::int64_t j = 0; j < nk; ++j) {
        r.e.push_back(a.make());
        if (!keep[j]) continue;
        if constexpr (kDouble) {
            r.e.back() = {elo[j], ehi[j]};
        } else {
            a.sub(t, s[j], r.m);
            a.exp(r.e.back(), t);
        }
        a.add(r.den, r.e.back());
        if (columns_at_once) continue;
        for (std::int64_t c = 0; c < dv; ++c)
            if (skip == nullptr || !(*skip)[c]) a.add_mul(r.num[c], r.e.back(), p.v.data[j * dv + c]);
    }
    if constexpr (kDouble) {
        if (columns_at_once) {  // every column at once (kernels.hpp), as add_mul key by key (visible keys)
            std::vector<double> ns(static_cast<std::size_t>(dv), 0.0), nc = ns, nabs = ns, nrad = ns;
            r.abs_hi.assign(static_cast<std::size_t>(dv), 0.0);
            detail::accumulate_numerators(elo.data(), ehi.data(), keep.data(), p.v.data.data(), nk, dv, ns.data(),
                                          nc.data(), nabs.data(), nrad.data(), r.abs_hi.data());
            for (std::int64_t c = 0; c < dv; ++c)
                r.num[c] = DoubleArith::Acc{ns[c], nc[c], nabs[c], nrad[c], r.facts.keys};
        }
    }
    return r;
}

// Writes the entries of row i that `a` decides; returns how many are still undecided. Entries
// already decided are not computed again (the log of the lse is the costliest operation of a
// high-precision row).
template <class A>
std::int64_t store_row(const Problem& p, const A& a, std::int64_t i, const RowEnclosure<A>& r, Reference& ref,
                       std::vector<std::uint8_t>& done, const std::vector<std::uint8_t>& keep) {
    const std::int64_t nk = p.k.rows(), dv = p.v.cols();
    std::int64_t left = 0;
    auto x = a.make(), den = a.make(), num = a.make();
    a.finish(den, r.den);
    auto put = [&](std::size_t slot, std::size_t at, std::vector<double>& v, std::vector<double>& lo,
                   std::vector<double>& hi, std::optional<std::int64_t> column) {
        auto [l, h] = a.bounds(x);
        std::optional<double> d = a.decide(x, ref.format);
        if (!d && column) d = decide_by_sign(p, *column, keep, l, h, ref.format);
        if (d) {
            v[at] = *d;
            lo[at] = l;
            hi[at] = h;
            done[slot] = 1;
            if (column && !ref.out_resid.empty()) ref.out_resid[at] = a.residual(x, *d);
        } else {
            ++left;
        }
    };
    for (std::int64_t c = 0; c < dv; ++c) {
        if (done[c]) continue;
        a.finish(num, r.num[c]);
        a.div(x, num, den);
        put(c, i * dv + c, ref.out, ref.out_lo, ref.out_hi, c);
    }
    if (!done[dv]) {
        a.log_plus(x, den, r.m);
        put(dv, i, ref.lse, ref.lse_lo, ref.lse_hi, std::nullopt);
    }
    for (std::int64_t j = 0; j < nk && !ref.w.empty(); ++j) {
        if (done[dv + 1 + j]) continue;
        a.div(x, r.e[j], den);
        put(dv + 1 + j, i * nk + j, ref.w, ref.w_lo, ref.w_hi, std::nullopt);
    }
    return left;
}

void store_masked_row(const Problem& p, std::int64_t i, Reference& ref) {
    if (p.masked_rows == MaskedRows::Error)
        throw domain_error(
            fmt::format("query row {}: every key is masked (declare what such a row gives: nan or zeros)", i));
    const double v = p.masked_rows == MaskedRows::NaN ? kNaN : 0.0;
    const std::int64_t nk = p.k.rows(), dv = p.v.cols();
    for (std::int64_t c = 0; c < dv; ++c) {
        ref.out[i * dv + c] = ref.out_lo[i * dv + c] = ref.out_hi[i * dv + c] = v;
        ref.out_exact[i * dv + c] = 1;
    }
    ref.lse[i] = ref.lse_lo[i] = ref.lse_hi[i] = p.masked_lse == MaskedLse::PosInf
                                                     ? std::numeric_limits<double>::infinity()
                                                     : -std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < nk && !ref.w.empty(); ++j)
        ref.w[i * nk + j] = ref.w_lo[i * nk + j] = ref.w_hi[i * nk + j] = v;
}

// The work of one row at `prec` bits, charged before it runs (docs/limits.md, "The work
// budget"): per visible key its dot product, two exponentials (about 200 products each at
// high precision) and the numerators still undecided; the log of the lse (about 2000
// products: MPFR's log is ten times its exp) and the weights still undecided.
void charge_precision(const Problem& p, std::int64_t i, mpfr_prec_t prec, const std::vector<std::uint8_t>& done,
                      std::int64_t keys) {
    const std::int64_t dv = p.v.cols();
    const auto open_out = std::count(done.begin(), done.begin() + dv, 0);
    const auto open_w = std::count(done.begin() + dv + 1, done.end(), 0);
    const double products = static_cast<double>(keys) * (static_cast<double>(p.q.cols()) + 400 + 4.0 * open_out) +
                            (done[dv] ? 0 : 4000) + 2.0 * open_w;
    const double units = products * multiplication_work(static_cast<double>(prec));
    if (!charge_work(units))
        throw over_work(units, fmt::format("query row {}: a rounding at {} bits of working precision", i, prec));
}

// The sums of the sharper bounds and of the systematic tests (docs/oracle.md, "The running bound
// for the declared order", "The probabilistic bound", "Systematic errors"), beside running_sums'
// and from the same double stage: per key the index-order dot product's squared coefficients and
// magnitudes; then, keys in the outer loop and every column at once, the sums of squares and
// the key-order partial sums Σ_{j≤t} w_j v_jc. Only for the bounds that read them
// (needs_sharp_sums): for the others this second pass over the row's keys would be half the
// reference's time.
void sharp_sums(const Problem& p, const DoubleArith& da, const RowEnclosure<DoubleArith>& r, const DoubleArith::Iv& d,
                const std::vector<std::uint8_t>& keep, std::int64_t i, const std::vector<DoubleArith::Iv>& o,
                const std::vector<double>& w, Reference& ref) {
    const std::int64_t nk = p.k.rows(), dv = p.v.cols(), dk = p.q.cols();
    const double widen = (1 + static_cast<double>(nk + 5) * 0x1p-52) * (1 + 0x1p-40);
    const double wide2 = (1 + static_cast<double>(nk + dk + 8) * 0x1p-51) * (1 + 0x1p-30);
    const double c_up = std::max(std::fabs(da.scale.lo), std::fabs(da.scale.hi));
    std::vector<double> dotq(static_cast<std::size_t>(nk), 0.0), sigma = dotq, doth = dotq, expr = dotq;
    double pd = 0, pd1 = 0, wsum = 0;
    // The half-ulp bound (docs/oracle.md, "The half-ulp bound"): every deviation of the kernel's
    // results from the exact ones within the allowance A (partial sums: A Σ|terms|), the
    // exponentials in the frame of the largest score, E_j ≥ b^(s_j^lo − max s^hi), their partial
    // sums D_t from them (each double sum within nk·2^−52 relative: the lower bound D_lo).
    // Formed only for that bound (the reference allocated them): a frexp per partial sum.
    const bool half = !ref.run_hd.empty();
    constexpr double al = kHalfUlpAllowance;
    const double dd = static_cast<double>(dk) * 0x1p-52;
    double pdh = 0, dlo = 0, dsum = 0;
    const bool two = p.base == ExpBase::Two;
    std::vector<double> elo(static_cast<std::size_t>(nk), 0.0);
    for (std::int64_t j = 0; j < nk && half; ++j)
        if (keep[j]) {
            const double x = r.key_lo[j] - r.facts.score_max;
            elo[j] = (two ? std::exp2(x) : std::exp(x)) * (1 - 0x1p-50);
            dlo += elo[j];
        }
    dlo *= 1 - static_cast<double>(nk + 2) * 0x1p-52;
    const double* q = &p.q.data[i * dk];
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        const double* k = &p.k.data[j * dk];
        double part = 0, sq = 0, mag = 0, abs = 0, hsq = 0;
        for (std::int64_t x = 0; x < dk; ++x) {
            const double prod = q[x] * k[x];
            part += prod;
            abs += std::fabs(prod);
            sq += prod * prod + (x > 0 ? part * part : 0);
            mag += std::fabs(prod) + (x > 0 ? std::fabs(part) : 0);
            if (!half) continue;
            const double hp = ulp_mag(std::fabs(prod), std::fabs(prod));  // the product of exact inputs
            const double hs = x > 0 ? ulp_mag(std::fabs(part), std::fabs(part) + (al + dd) * abs) : 0;
            hsq += hp * hp + hs * hs;
        }
        sq += part * part;  // the scale's product
        mag += std::fabs(part);
        dotq[j] = sq * c_up * c_up * wide2;
        const double hc = ulp_mag(c_up * std::fabs(part), c_up * (std::fabs(part) + (al + dd) * abs) * (1 + al));
        doth[j] = (hsq * c_up * c_up + hc * hc) * wide2;
        // σ_j: the magnitudes of the products, the partial sums and the score (index order); each
        // partial sum in double is within d·2^−53 Σ|q k| of the exact one, 2d of them.
        sigma[j] = detail::up((mag + 2 * static_cast<double>(dk * dk) * 0x1p-53 * abs) * c_up * (1 + 0x1p-40));
        wsum += w[j];
        pd += wsum * wsum;
        pd1 += wsum;
        if (!half) continue;
        // The exponential's error relative to E_j (at most 1 ulp: 2u·2^⌊log2 Ê_j⌋), and the
        // denominator's partial sum's (the output moves by o·e_t/D).
        expr[j] = std::min(1.0, pow2_floor(elo[j] * std::exp(2 * al) * (1 + 0x1p-40)) / elo[j]);
        dsum += elo[j];
        const double hd = std::min(wsum, pow2_floor(dsum * std::exp(2 * al) * (1 + 0x1p-40)) / dlo);
        pdh += hd * hd;
    }
    ref.run_pd[i] = pd * wide2;
    ref.run_pd1[i] = pd1 * widen;
    if (half) ref.run_hpd[i] = pdh * wide2;
    const auto n = static_cast<std::size_t>(dv);
    std::vector<double> s1o(n, 0.0), qa = s1o, qd = s1o, q2 = s1o, q3 = s1o, qv = s1o, pv = s1o, part = s1o;
    std::vector<double> pv1 = s1o, h1o = s1o, hd = s1o, h3 = s1o, h2 = s1o, hv = s1o, hp = s1o, pabs = s1o;
    const double pslack = 0x1p-40 * static_cast<double>(nk);
    const bool slope = !r.key_h.empty() && !ref.run_h1o.empty();
    const double dmid = d.lo + d.hi;
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        const double* vj = &p.v.data[j * dv];
        const double gap = detail::up(r.facts.score_max - r.key_lo[j]), a = r.key_abs[j];
        const double wmid = (r.e[j].lo + r.e[j].hi) / dmid;
        const double gh = ulp_mag(gap, gap + al), wh = ulp_mag(w[j], w[j] * (1 + 2 * al));
        for (std::int64_t c = 0; c < dv; ++c) {
            const double v = vj[c];
            const double dev = detail::up(std::max(std::fabs(v - o[c].lo), std::fabs(v - o[c].hi)));
            const double wd = w[j] * dev, wd2 = wd * wd;
            s1o[c] += wd * sigma[j];
            if (slope) h1o[c] += wd * r.key_h[j] * sigma[j];  // as S1°, one more product
            qa[c] += wd2 * a * a;
            qd[c] += wd2 * dotq[j];
            q2[c] += wd2;
            q3[c] += wd2 * gap * gap;
            qv[c] += w[j] * w[j] * v * v;
            part[c] += wmid * v;
            pv[c] += part[c] * part[c];
            pv1[c] += std::fabs(part[c]);
            // The half-ulp bound's: the scores, the subtraction, the exponential, the division
            // and the product, the numerator's partial sum (within 2A Σ_{j≤t} w_j |v_jc| and the
            // midpoints' slack of the kernel's).
            if (!half) continue;
            hd[c] += wd2 * doth[j];
            h3[c] += wd2 * gh * gh;
            h2[c] += wd2 * expr[j] * expr[j];
            const double av = std::fabs(v), pr = ulp_mag(w[j] * av, w[j] * av * (1 + 2 * al));
            hv[c] += wh * wh * v * v + pr * pr;
            pabs[c] += w[j] * av;
            const double ph =
                ulp_mag(std::fabs(part[c]), std::fabs(part[c]) + 2 * al * pabs[c] + pslack * ref.out_abs[i * dv + c]);
            hp[c] += ph * ph;
        }
    }
    for (std::int64_t c = 0; c < dv; ++c) {
        const std::size_t at = static_cast<std::size_t>(i * dv + c);
        const double slack = 0x1p-40 * ref.out_abs[at] * static_cast<double>(nk);
        ref.run_s1o[at] = s1o[c] * widen;
        if (slope) ref.run_h1o[at] = h1o[c] * widen;
        ref.run_pv1[at] = (pv1[c] + slack) * widen;
        ref.run_qa[at] = qa[c] * wide2;
        ref.run_qd[at] = qd[c] * wide2;
        ref.run_q2[at] = q2[c] * wide2;
        ref.run_q3[at] = q3[c] * wide2;
        ref.run_qv[at] = qv[c] * wide2;
        // The partial sums from midpoints: each within a few units of 2^−50 of Σ_j w_j |v_j| (added).
        ref.run_pv[at] = (std::sqrt(pv[c]) + slack) * (std::sqrt(pv[c]) + slack) * wide2;
        if (!half) continue;
        ref.run_hd[at] = hd[c] * wide2;
        ref.run_h3[at] = h3[c] * wide2;
        ref.run_h2[at] = h2[c] * wide2;
        ref.run_hv[at] = hv[c] * wide2;
        ref.run_hp[at] = (std::sqrt(hp[c]) + slack) * (std::sqrt(hp[c]) + slack) * wide2;
    }
}

// The running bound's sums (docs/oracle.md, "The running bound"), from the double stage:
// w_j ≤ E_j^hi/D^lo, |v_jc − o_c| ≤ max(|v_jc − o^lo|, |v_jc − o^hi|), max s − s_j ≤ max s^hi − s_j^lo,
// each sum of n nonnegative terms in double widened by its rounding (γ_{n+4} and 2^−40).
// Beside them the probabilistic bound's sums of squares ("The probabilistic bound"): per key
// the dot product's coefficients in any order ((d + 1)a_j²) and in index order (the squares of
// the products, of the partial sums and of the score), and the squared partial sums of the
// weights and of Σ_j w_j v_jc in key order; and the signed Σ_j w_j s_j (v_jc − o_c), the
// derivative of o_c in the log of the scale (a temperature), bounded in magnitude.
void running_sums(const Problem& p, const DoubleArith& da, const RowEnclosure<DoubleArith>& r, const DoubleArith::Iv& d,
                  const std::vector<std::uint8_t>& keep, std::int64_t i, Reference& ref, bool sharp) {
    const std::int64_t nk = p.k.rows(), dv = p.v.cols();
    std::vector<DoubleArith::Iv> o(static_cast<std::size_t>(dv));
    for (std::int64_t c = 0; c < dv; ++c) {
        DoubleArith::Iv num;
        da.finish(num, r.num[c]);
        da.div(o[c], num, d);
    }
    // Per key once: w_j rounded up and max s − s_j rounded up; then every column at once, keys in
    // the outer loop (V read row by row). |v − o| is rounded to nearest, one more relative rounding
    // per term (γ_{n+5} in all: that, the two products and the n − 1 additions).
    const double widen = (1 + static_cast<double>(nk + 5) * 0x1p-52) * (1 + 0x1p-40);
    // Beside them the signed Σ_j w_j s_j (v_jc − o_c) from midpoints (ws_j = w_j s_j).
    std::vector<double> w(static_cast<std::size_t>(nk), 0.0), g(w.size(), 0.0), ws(w.size(), 0.0);
    const double dmid = d.lo + d.hi;
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        w[j] = detail::up(r.e[j].hi / d.lo);
        g[j] = detail::up(r.facts.score_max - r.key_lo[j]);
        ws[j] = (r.e[j].lo + r.e[j].hi) / dmid * r.key_lo[j];
    }
    std::vector<double> olo(static_cast<std::size_t>(dv)), ohi(olo.size()), omid(olo.size());
    for (std::int64_t c = 0; c < dv; ++c) olo[c] = o[c].lo, ohi[c] = o[c].hi, omid[c] = (o[c].lo + o[c].hi) / 2;
    std::vector<double> s1(static_cast<std::size_t>(dv), 0.0), s2 = s1, s3 = s1, v1 = s1, gs = s1;
    detail::running_sums_row(w.data(), r.key_abs.data(), g.data(), ws.data(), keep.data(), p.v.data.data(), nk, dv,
                             olo.data(), ohi.data(), omid.data(), s1.data(), s2.data(), s3.data(), v1.data(),
                             gs.data());
    for (std::int64_t c = 0; c < dv; ++c) {
        const std::size_t at = static_cast<std::size_t>(i * dv + c);
        ref.run_s1[at] = s1[c] * widen;
        ref.run_s2[at] = s2[c] * widen;
        ref.run_s3[at] = s3[c] * widen;
        ref.run_v1[at] = v1[c] * widen;
        // |Σ_j w_j s_j (v_jc − o_c)|: the midpoint sum, off by at most 2^−40 S1 (enclosures of
        // width below 2^−45 relative, n terms, every |s_j| ≤ a_j).
        ref.run_g[at] = gs[c];
        ref.run_gabs[at] = std::fabs(gs[c]) + 0x1p-40 * ref.run_s1[at] + 0x1p-60;
    }
    // Under a softcap Σ_j w_j h_j a_j |v_jc − o_c| as S1 (the same rounding: one more product per
    // term, within the same γ_{n+5} widening's slack of 2^−40).
    if (!r.key_h.empty() && !ref.run_h1.empty()) {
        std::vector<double> h1(static_cast<std::size_t>(dv), 0.0);
        for (std::int64_t j = 0; j < nk; ++j) {
            if (!keep[j]) continue;
            const double wha = w[j] * r.key_h[j] * r.key_abs[j];
            const double* vj = p.v.data.data() + j * dv;
            for (std::int64_t c = 0; c < dv; ++c)
                h1[c] += wha * std::max(std::fabs(vj[c] - olo[c]), std::fabs(vj[c] - ohi[c]));
        }
        for (std::int64_t c = 0; c < dv; ++c) ref.run_h1[static_cast<std::size_t>(i * dv + c)] = h1[c] * widen;
    }
    if (sharp) sharp_sums(p, da, r, d, keep, i, o, w, ref);
}

void reference_row(const Problem& p, std::int64_t i, Reference& ref, const std::vector<double>& kt, bool sharp) {
    const std::int64_t nk = p.k.rows(), dv = p.v.cols();
    const auto keep = visible_keys(p, i);
    DoubleArith da;
    da.base = p.base;
    da.scale = detail::double_scale(p.scale, p.q.cols());
    const auto r = enclose_row(p, da, i, keep, nullptr, kt.data());
    ref.rows[i] = r.facts;
    if (r.facts.masked) return store_masked_row(p, i, ref);
    {  // Σ_j w_j |v_jc| ≤ Σ_j E_j^hi |v_jc| / D^lo; the double sums err by at most γ_n (Higham)
        DoubleArith::Iv d;
        da.finish(d, r.den);
        const std::vector<double>& acc = r.abs_hi;  // formed beside the numerators (kernels.hpp)
        const double g = static_cast<double>(nk + 2) * 0x1p-53;
        for (std::int64_t c = 0; c < dv; ++c) ref.out_abs[i * dv + c] = acc[c] / d.lo * (1 + 2 * g) * (1 + 0x1p-40);
        running_sums(p, da, r, d, keep, i, ref, sharp);
    }
    std::vector<std::uint8_t> done(static_cast<std::size_t>(dv + 1 + nk), 0);
    for (std::int64_t j = 0; j < nk; ++j)
        if (!keep[j] && !ref.w.empty())
            ref.w[i * nk + j] = ref.w_lo[i * nk + j] = ref.w_hi[i * nk + j] = 0, done[dv + 1 + j] = 1;
    if (ref.w.empty()) std::fill(done.begin() + dv + 1, done.end(), 1);
    if (r.may_tie)
        store_exact(p, i, keep, ref, done);  // equal scores: 1/n and means, exactly
    else
        store_exact_base2(p, i, keep, ref, done);  // an exp2 kernel's exact domain
    if (store_row(p, da, i, r, ref, done, keep) == 0) return;
    for (mpfr_prec_t prec = 128;; prec *= 2) {
        if (prec > limits().max_precision)
            throw over_limit(Limit::max_precision,
                             fmt::format("query row {}: a rounding needs more bits of working precision", i));
        if (prec == 256 && !r.may_tie) {
            store_exact(p, i, keep, ref, done);
            if (std::count(done.begin(), done.end(), 0) == 0) return;
        }
        charge_precision(p, i, prec, done, r.facts.keys);
        const MpfrArith ma(prec, p.base, p.scale, p.q.cols());
        ref.max_precision = std::max<std::int64_t>(ref.max_precision, prec);
        if (store_row(p, ma, i, enclose_row(p, ma, i, keep, &done), ref, done, keep) == 0) return;
    }
}

void check_size(const Problem& p, bool weights) {
    const auto nq = p.q.rows(), nk = p.k.rows(), dv = p.v.cols();
    const std::int64_t cap = limits().max_cells;
    if (nq > cap || nk > cap || dv > cap || nq * dv > cap || (weights && nq > cap / std::max<std::int64_t>(nk, 1)))
        throw over_limit(Limit::max_cells, fmt::format("{} × {} outputs{}", nq, dv,
                                                       weights ? fmt::format(" and {} × {} weights", nq, nk) : ""));
}

}  // namespace

Reference reference(const Problem& p, FloatFormat format, bool weights) {
    return reference(p, format, weights, BoundKind::ProbabilisticUlp);  // every sum
}

bool needs_sharp_sums(BoundKind b) { return b != BoundKind::Running && b != BoundKind::APriori; }

Reference reference(const Problem& p, FloatFormat format, bool weights, BoundKind sums_for) {
    const bool sharp = needs_sharp_sums(sums_for);
    validate(p);
    check_size(p, weights);
    {  // the double stage, predicted before it runs over the keys each row sees (docs/limits.md,
        // "Predictions that refuse"), and charged row by row as it runs
        const double units = reference_work(p, format, weights);
        if (!work_fits(units))
            throw over_work(units, fmt::format("the reference of {} queries over {} keys (d = {}, d_v = {})",
                                               p.q.rows(), p.k.rows(), p.q.cols(), p.v.cols()));
    }
    Reference ref;
    ref.format = format;
    ref.base = p.base;
    ref.n_q = p.q.rows();
    ref.n_k = p.k.rows();
    ref.d_v = p.v.cols();
    ref.d = p.q.cols();
    {
        const auto c = detail::double_scale(p.scale, ref.d);
        ref.scale_exact = c.lo == c.hi;
        ref.scale = (c.lo + c.hi) / 2;
    }
    ref.softcap = p.softcap;
    ref.biased = std::any_of(p.bias.begin(), p.bias.end(), [](double b) { return b != 0 && std::isfinite(b); });
    ref.v_abs_max.assign(static_cast<std::size_t>(ref.d_v), 0);
    for (std::size_t x = 0; x < p.v.data.size(); ++x)
        ref.v_abs_max[x % ref.d_v] = std::max(ref.v_abs_max[x % ref.d_v], std::fabs(p.v.data[x]));
    const auto no = static_cast<std::size_t>(ref.n_q * ref.d_v);
    ref.out.assign(no, 0);
    ref.out_lo = ref.out_hi = ref.out_abs = ref.out;
    ref.out_exact.assign(no, 0);
    ref.run_s1 = ref.run_s2 = ref.run_s3 = ref.run_v1 = ref.out;
    ref.run_g = ref.run_gabs = ref.out;
    if (p.softcap > 0) ref.run_h1 = ref.out;
    if (sharp) {
        ref.run_qa = ref.run_qd = ref.run_q2 = ref.run_q3 = ref.run_qv = ref.run_pv = ref.out;
        ref.run_s1o = ref.run_pv1 = ref.out;
        if (p.softcap > 0) ref.run_h1o = ref.out;
        ref.run_pd.assign(static_cast<std::size_t>(ref.n_q), 0);
        ref.run_pd1 = ref.run_pd;
        if (sums_for == BoundKind::ProbabilisticUlp) {
            ref.run_hd = ref.run_h3 = ref.run_h2 = ref.run_hv = ref.run_hp = ref.out;
            ref.run_hpd = ref.run_pd;
        }
    }
    if (format == FloatFormat::Float64) ref.out_resid.assign(no, kNaN);
    ref.lse.assign(static_cast<std::size_t>(ref.n_q), 0);
    ref.lse_lo = ref.lse_hi = ref.lse;
    if (weights) {
        ref.w.assign(static_cast<std::size_t>(ref.n_q * ref.n_k), 0);
        ref.w_lo = ref.w_hi = ref.w;
    }
    ref.rows.resize(static_cast<std::size_t>(ref.n_q));
    std::vector<double> kt(p.k.data.size());  // K transposed, for the double stage's loops over keys
    for (std::int64_t j = 0; j < ref.n_k; ++j)
        for (std::int64_t x = 0; x < ref.d; ++x) kt[x * ref.n_k + j] = p.k.data[j * ref.d + x];
    for (std::int64_t i = 0; i < ref.n_q; ++i) {
        const double units = reference_row_work(p, i, weights);
        if (!charge_work(units))
            throw over_work(units,
                            fmt::format("query row {}: the double stage over {} keys", i, visible_key_count(p, i)));
        reference_row(p, i, ref, kt, sharp);
    }
    return ref;
}

double reference_row_work(const Problem& p, std::int64_t i, bool weights) {
    const auto per_key = static_cast<double>(p.q.cols() + p.v.cols()) + 30 + (weights ? 10 : 0);
    return (static_cast<double>(visible_key_count(p, i)) * per_key + static_cast<double>(p.v.cols())) * 500;
}

double reference_work(const Problem& p, FloatFormat format, bool weights) {
    double units = 0;
    for (std::int64_t i = 0; i < p.q.rows(); ++i) {
        units += reference_row_work(p, i, weights);
        // A float64 rounding is almost never decided by the double stage's enclosure: every row
        // with a key takes the step at 128 bits, charged as charge_precision charges it.
        const auto keys = static_cast<double>(visible_key_count(p, i));
        if (format == FloatFormat::Float64 && keys > 0)
            units += (keys * (static_cast<double>(p.q.cols()) + 400 + 4.0 * static_cast<double>(p.v.cols())) + 4000 +
                      (weights ? 2 * keys : 0)) *
                     multiplication_work(128);
    }
    return units;
}

double emulation_row_work(const Problem& p, std::int64_t i) {
    const auto per_key = 2.0 * static_cast<double>(p.q.cols() + p.v.cols()) + 6;
    return (static_cast<double>(visible_key_count(p, i)) * per_key + static_cast<double>(p.v.cols())) * 3000;
}

double emulation_work(const Problem& p) {
    double units = 0;
    for (std::int64_t i = 0; i < p.q.rows(); ++i) units += emulation_row_work(p, i);
    return units;
}

}  // namespace exactattn::oracle
