// SPDX-License-Identifier: MIT
// exactattn oracle: naive, safe and online softmax attention emulated with every operation
// correctly rounded in a declared format (MPFR at its precision and exponent range, subnormals
// by mpfr_subnormalize), with a trace of the steps where the format shows.
#include <fmt/format.h>
#include <mpfr.h>

#include <cmath>
#include <limits>

#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"
#include "fp8.hpp"
#include "ieee.hpp"

namespace exactattn::oracle {

namespace {

using detail::Ieee;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct RowRun {
    const Problem& p;
    const EmulationSpec& s;
    std::int64_t i;
    std::vector<std::string>* trace;
    Fp8Events* fp8;
    void note(const std::string& m) const {
        if (trace != nullptr) trace->push_back(fmt::format("row {}: {}", i, m));
    }
};

// The scores of row i in order: fl(fl(Σ_x q_x k_x) · c), c = fl(1/fl(√d)) for 1/√d_k; under a
// softcap then fl(fl(tanh(fl(s/cap))) · cap), cap rounded to the format (and, unfused, each of the
// three written to the stored format as FlashAttention's attention_ref does with its tensors).
std::vector<double> scores(const RowRun& r, Ieee& a, const std::vector<std::uint8_t>& keep) {
    const std::int64_t d = r.p.q.cols(), nk = r.p.k.rows();
    double c = 1;
    if (r.p.scale.kind == ScaleKind::SqrtDk) c = a.div(1, a.sqrt(static_cast<double>(d)));
    if (r.p.scale.kind == ScaleKind::Given) c = round_to(r.p.scale.value, a.format());
    const double cap = r.p.softcap > 0 ? round_to(r.p.softcap, a.format()) : 0;
    const bool stored = r.s.stored && r.s.algorithm != Algorithm::Online;
    std::vector<double> s(static_cast<std::size_t>(nk), -kInf);
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        double acc = 0;
        for (std::int64_t x = 0; x < d; ++x) acc = a.add(acc, a.mul(r.p.q.data[r.i * d + x], r.p.k.data[j * d + x]));
        s[j] = c == 1 ? acc : a.mul(acc, c);
        if (cap > 0) {  // the softcap, before the bias; unfused: x/cap, tanh and the product stored
            const auto st = [&](double x) { return stored ? round_to(x, *r.s.stored) : x; };
            s[j] = st(a.mul(st(a.tanh(st(a.div(s[j], cap)))), cap));
        }
        if (!r.p.bias.empty()) s[j] = a.add(s[j], bias_at(r.p, r.i, j));  // the bias added, then rounded
        if (stored) s[j] = round_to(s[j], *r.s.stored);                   // S written
    }
    return s;
}

double exp_noted(const RowRun& r, Ieee& a, double t, std::int64_t j, std::int64_t& underflows) {
    const bool two = r.p.base == ExpBase::Two;
    const double e = a.exp(t, r.p.base);
    if (std::isinf(e))
        r.note(fmt::format("{}({:.6g}) overflows {} at key {} (x > {} max = {:.4g})", two ? "exp2" : "exp", t,
                           info(a.format()).name, j, two ? "log2" : "ln",
                           two ? std::log2(max_finite(a.format())) : std::log(max_finite(a.format()))));
    if (e == 0) ++underflows;
    return e;
}

// Naive and safe: exponentials, their sum in key order, weights e/D, then Σ w v in key order.
std::vector<double> plain_row(const RowRun& r, Ieee& a, const std::vector<double>& s,
                              const std::vector<std::uint8_t>& keep) {
    const std::int64_t nk = r.p.k.rows(), dv = r.p.v.cols();
    double m = 0;
    if (r.s.algorithm == Algorithm::Safe) {
        m = -kInf;
        for (std::int64_t j = 0; j < nk; ++j)
            if (keep[j]) m = std::max(m, s[j]);
    }
    std::vector<double> e(static_cast<std::size_t>(nk), 0);
    double den = 0;
    std::int64_t under = 0;
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        e[j] = exp_noted(r, a, m == 0 ? s[j] : a.sub(s[j], m), j, under);
        den = a.add(den, e[j]);
    }
    if (under > 0) r.note(fmt::format("{} exponentials underflow to 0", under));
    if (std::isinf(den)) r.note("the sum of the exponentials overflows");
    if (den == 0) r.note("every exponential underflows: 0/0 = NaN");
    std::vector<double> o(static_cast<std::size_t>(dv), 0);
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        const double w = r.s.stored ? round_to(a.div(e[j], den), *r.s.stored) : a.div(e[j], den);  // P written
        for (std::int64_t c = 0; c < dv; ++c) o[c] = a.add(o[c], a.mul(w, r.p.v.data[j * dv + c]));
    }
    return o;
}

// P's descale σ for a block (docs/oracle.md, "8-bit floats"): the static one, or per block
// 2^⌊log2(max finite / max_j P_j)⌋ (a power of two: P·σ exact in the accumulator), at most 2^100.
double p_descale_of(const RowRun& r, const std::vector<double>& ex) {
    if (!r.s.p_descale.per_block) return r.s.p_descale.value;
    double mx = 0;
    for (double e : ex) mx = std::max(mx, e);
    return block_descale(mx, r.s.p_format);
}

// P̃ = fl_p(fl(P·σ)), cast to an 8-bit P under the declared overflow; P-collapse (a P that the
// cast flushes to zero) and saturation counted where they happen.
double p_cast(const RowRun& r, Ieee& a, double e, double sigma, std::int64_t j) {
    const double x = sigma == 1 ? e : a.mul(e, sigma);
    if (!is_fp8(r.s.p_format)) return round_to(x, r.s.p_format);
    if (r.fp8 == nullptr) return cast_fp8(x, r.s.p_format, r.s.fp8_overflow);
    const std::int64_t before = r.fp8->saturated + r.fp8->overflowed;
    const double pj = cast_counted(x, r.s.p_format, r.s.fp8_overflow, *r.fp8, "P", r.i, j);
    if (e > 0 && pj == 0) r.fp8->collapse(e, r.i, j);
    if (r.fp8->saturated + r.fp8->overflowed > before)  // past the range
        r.note(fmt::format("key {}: P·σ = {:.6g} past {}'s {:.6g}: {}", j, x, info(r.s.p_format).name,
                           max_finite(r.s.p_format), std::isfinite(pj) ? "saturated" : "overflows"));
    return pj;
}

// Online (FlashAttention): per block of B keys the running max m, α = exp(m − m_new),
// ℓ = α ℓ + Σ e, O = α O + Σ fl_P(e) v; at the end O / ℓ.
std::vector<double> online_row(const RowRun& r, Ieee& a, const std::vector<double>& s,
                               const std::vector<std::uint8_t>& keep) {
    const std::int64_t nk = r.p.k.rows(), dv = r.p.v.cols(), b = std::max<std::int64_t>(1, r.s.block);
    double m = -kInf, ell = 0;
    std::vector<double> o(static_cast<std::size_t>(dv), 0), blk(static_cast<std::size_t>(dv));
    std::int64_t under = 0;
    for (std::int64_t start = 0; start < nk; start += b) {
        const std::int64_t end = std::min(nk, start + b);
        double m_new = m;
        for (std::int64_t j = start; j < end; ++j)
            if (keep[j]) m_new = std::max(m_new, s[j]);
        if (m_new == -kInf) continue;  // a block with every key masked
        const double alpha = m == -kInf ? 0 : a.exp(a.sub(m, m_new), r.p.base);
        if (m != -kInf && m_new > m)
            r.note(fmt::format("block {}: max {:.6g} → {:.6g}, rescale by α = {:a}", start / b, m, m_new, alpha));
        double sum = 0;
        std::fill(blk.begin(), blk.end(), 0.0);
        std::vector<double> ex(static_cast<std::size_t>(end - start), 0);
        for (std::int64_t j = start; j < end; ++j) {
            if (!keep[j]) continue;
            ex[j - start] = exp_noted(r, a, a.sub(s[j], m_new), j, under);
            sum = a.add(sum, ex[j - start]);
        }
        const double sigma = p_descale_of(r, ex);
        for (std::int64_t j = start; j < end; ++j) {
            if (!keep[j]) continue;
            const double pj = p_cast(r, a, ex[j - start], sigma, j);
            for (std::int64_t c = 0; c < dv; ++c) blk[c] = a.add(blk[c], a.mul(pj, r.p.v.data[j * dv + c]));
        }
        if (r.s.p_descale.per_block)  // each block's P̃·V back to P's scale before it joins O
            for (auto& x : blk) x = a.div(x, sigma);
        const double scaled = a.mul(alpha, ell);
        if (scaled != 0 && std::fabs(scaled) < std::ldexp(1.0, info(a.format()).emin))
            r.note(fmt::format(
                "block {}: α·ℓ = {:a} is subnormal: the running sum keeps {} of {} bits", start / b, scaled,
                std::max(0, std::ilogb(scaled) - (info(a.format()).emin - info(a.format()).precision + 1) + 1),
                info(a.format()).precision));
        ell = a.add(scaled, sum);
        for (std::int64_t c = 0; c < dv; ++c) o[c] = a.add(a.mul(alpha, o[c]), blk[c]);
        m = m_new;
    }
    if (under > 0) r.note(fmt::format("{} exponentials underflow to 0", under));
    if (!r.s.p_descale.per_block && r.s.p_descale.value != 1)
        for (auto& x : o) x = a.div(x, r.s.p_descale.value);  // the static descale undone
    for (auto& x : o) x = a.div(x, ell);
    return o;
}

}  // namespace

EmulationSpec emulation_of(const AlgorithmSpec& claim, FloatFormat output) {
    EmulationSpec s;
    s.algorithm = claim.algorithm;
    s.format = claim.accumulate;
    s.p_format = claim.p_format;
    s.output = output;
    s.block = claim.block;
    s.stored = claim.stored;
    s.p_descale = claim.p_descale;
    s.fp8_overflow = claim.fp8_overflow;
    return s;
}

Emulation emulate(const Problem& p, const EmulationSpec& s, bool trace) {
    validate(p);
    {  // predicted before it runs over the keys each row sees (docs/limits.md, "Predictions that
        // refuse"), and charged row by row as it runs
        const double units = emulation_work(p);
        if (!work_fits(units))
            throw over_work(units, fmt::format("emulating {} queries over {} keys", p.q.rows(), p.k.rows()));
    }
    refuse_fp8_accumulator(s.format);
    Emulation out;
    out.out.shape = {p.q.rows(), p.v.cols()};
    out.out.format = s.output;
    Ieee a(s.format);
    for (std::int64_t i = 0; i < p.q.rows(); ++i) {
        if (const double units = emulation_row_work(p, i); !charge_work(units))
            throw over_work(units, fmt::format("emulating query row {}", i));
        const RowRun r{p, s, i, trace ? &out.trace : nullptr, &out.fp8};
        const std::vector<std::uint8_t> keep = visible_keys(p, i);
        bool any = false;
        for (std::int64_t j = 0; j < p.k.rows(); ++j) {
            any = any || keep[j];
        }
        if (!any) {
            if (p.masked_rows == MaskedRows::Error)
                throw domain_error(
                    fmt::format("query row {}: every key is masked (declare what such a row gives: nan or zeros)", i));
            const double v = p.masked_rows == MaskedRows::NaN ? std::numeric_limits<double>::quiet_NaN() : 0.0;
            r.note(fmt::format("every key masked: {} by the declared semantics", v));
            out.out.data.insert(out.out.data.end(), static_cast<std::size_t>(p.v.cols()), v);
            continue;
        }
        const auto sc = scores(r, a, keep);
        std::vector<double> o;
        switch (s.algorithm) {  // no default: a new Algorithm does not compile without its emulation
            case Algorithm::Naive:
            case Algorithm::Safe:
                o = plain_row(r, a, sc, keep);
                break;
            case Algorithm::Online:
                o = online_row(r, a, sc, keep);
                break;
        }
        for (std::size_t c = 0; c < o.size(); ++c) {
            const double y =
                cast_counted(o[c], s.output, s.fp8_overflow, out.fp8, "out", i, static_cast<std::int64_t>(c));
            out.out.data.push_back(y);
        }
    }
    return out;
}

}  // namespace exactattn::oracle
