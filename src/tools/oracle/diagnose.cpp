// SPDX-License-Identifier: MIT
// exactattn oracle: after a failed judgement, the known kernel mistake that explains the
// output. Each diagnosis is a hypothesis: the suspected mistake is re-emulated (in double, or as
// a changed claim with its own certified reference and bound) and named only when it fits the
// output far better than the declared algorithm does (docs/oracle.md, "Diagnoses").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "exactattn/oracle.hpp"
#include "tools/oracle/fit.hpp"

namespace exactattn::oracle {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A kernel that skips max subtraction overflows exp where the exact output is finite.
std::string overflow_diagnosis(const Problem& p, const Tensor& out, const AlgorithmSpec& spec) {
    const Reference r = reference(p, out.format, false, BoundKind::APriori);
    for (std::size_t x = 0; x < out.data.size(); ++x) {
        if (std::isfinite(out.data[x]) || !std::isfinite(r.out[x])) continue;
        const std::int64_t i = static_cast<std::int64_t>(x) / r.d_v;
        for (FloatFormat f : {out.format, spec.accumulate}) {
            const double ln_max = std::log(max_finite(f));
            if (r.rows[i].score_max > ln_max)
                return fmt::format(
                    "non-finite output at [{}, {}] where the exact value is finite: row {}'s largest score {:.6g} "
                    "exceeds ln(max {}) = {:.4g}, so exp overflows: a softmax without max subtraction",
                    i, x % r.d_v, i, r.rows[i].score_max, info(f).name, ln_max);
        }
        // a non-finite output that overflow does not explain is left to the hypotheses below
    }
    return "";
}

// One re-emulated mistake: attention in double with the changes a kernel bug makes.
struct Variant {
    double scale = 1;                                        // c
    std::function<bool(std::int64_t, std::int64_t)> masked;  // key j hidden from query i
    bool over_queries = false;                               // softmax normalised down each key's column
    std::int64_t block = 0;                                  // > 0: the online algorithm in blocks of this many keys
    bool rescale_o = true, rescale_l = true;                 // online: O and ℓ multiplied by α
    bool drop_last_tile = false;                             // online: the last block of keys never read
    double softcap = 0;                                      // > 0: scores cap·tanh(c·q·k/cap)
    bool softcap_first = false;                              // the softcap before the scale: c·cap·tanh(q·k/cap)
};

// The outputs of `x` on p in double (NaN for a row with no visible key).
std::vector<double> run_variant(const Problem& p, const Variant& x) {
    const std::int64_t nq = p.q.rows(), nk = p.k.rows(), d = p.q.cols(), dv = p.v.cols();
    const double base = p.base == ExpBase::Two ? std::log(2.0) : 1.0;
    std::vector<double> s(static_cast<std::size_t>(nq * nk), -std::numeric_limits<double>::infinity());
    for (std::int64_t i = 0; i < nq; ++i)
        for (std::int64_t j = 0; j < nk; ++j) {
            if (x.masked(i, j)) continue;
            double t = 0;
            for (std::int64_t c = 0; c < d; ++c) t += p.q.data[i * d + c] * p.k.data[j * d + c];
            if (x.softcap > 0)
                t = x.softcap_first ? x.softcap * std::tanh(t / x.softcap) * x.scale
                                    : x.softcap * std::tanh(t * x.scale / x.softcap);
            else
                t *= x.scale;
            s[i * nk + j] = t * base;
        }
    std::vector<double> out(static_cast<std::size_t>(nq * dv), 0.0);
    if (x.over_queries) {
        std::vector<double> w(s.size(), 0.0);
        for (std::int64_t j = 0; j < nk; ++j) {
            double m = -std::numeric_limits<double>::infinity(), den = 0;
            for (std::int64_t i = 0; i < nq; ++i) m = std::max(m, s[i * nk + j]);
            if (std::isinf(m)) continue;
            for (std::int64_t i = 0; i < nq; ++i) den += std::exp(s[i * nk + j] - m);
            for (std::int64_t i = 0; i < nq; ++i) w[i * nk + j] = std::exp(s[i * nk + j] - m) / den;
        }
        for (std::int64_t i = 0; i < nq; ++i)
            for (std::int64_t j = 0; j < nk; ++j)
                for (std::int64_t c = 0; c < dv; ++c) out[i * dv + c] += w[i * nk + j] * p.v.data[j * dv + c];
        return out;
    }
    const std::int64_t b = x.block > 0 ? x.block : nk;
    const std::int64_t blocks = (nk + b - 1) / b, last = x.drop_last_tile ? blocks - 1 : blocks;
    for (std::int64_t i = 0; i < nq; ++i) {
        double m = -std::numeric_limits<double>::infinity(), l = 0;
        std::vector<double> o(static_cast<std::size_t>(dv), 0.0);
        for (std::int64_t t = 0; t < last; ++t) {
            double mb = m;
            for (std::int64_t j = t * b; j < std::min(nk, (t + 1) * b); ++j) mb = std::max(mb, s[i * nk + j]);
            if (std::isinf(mb)) continue;
            const double alpha = std::isinf(m) ? 0 : std::exp(m - mb);
            l = (x.rescale_l ? alpha : (std::isinf(m) ? 0 : 1)) * l;
            for (double& y : o) y *= x.rescale_o ? alpha : (std::isinf(m) ? 0 : 1);
            for (std::int64_t j = t * b; j < std::min(nk, (t + 1) * b); ++j) {
                const double e = std::exp(s[i * nk + j] - mb);
                l += e;
                for (std::int64_t c = 0; c < dv; ++c) o[c] += e * p.v.data[j * dv + c];
            }
            m = mb;
        }
        const double none = p.masked_rows == MaskedRows::Zeros ? 0 : kNaN;  // every key hidden
        for (std::int64_t c = 0; c < dv; ++c) out[i * dv + c] = l > 0 ? o[c] / l : none;
    }
    return out;
}

// x rounded toward zero to f (a cast that truncates).
double truncate_to(double x, FloatFormat f) {
    const double r = round_to(x, f);
    if (std::fabs(r) <= std::fabs(x) || r == 0) return r;
    // the neighbour of r toward zero: one ulp below, half of one below a power of two
    const double a = std::fabs(r), u = ulp(a, f);
    int e = 0;
    const double below = std::frexp(a, &e) == 0.5 && a > std::ldexp(1.0, info(f).emin) ? u / 2 : u;
    return std::copysign(a - below, x);
}

Fit fit(const std::vector<double>& cand, const Tensor& out, const std::vector<double>& tol) {
    Fit f;
    for (std::size_t x = 0; x < out.data.size(); ++x) f.add(out.data[x], cand[x], tol[x]);
    return f;
}

// The mask of p as a predicate, and the variants of it a kernel gets wrong.
std::function<bool(std::int64_t, std::int64_t)> declared_mask(const Problem& p) {
    return [&p](std::int64_t i, std::int64_t j) {
        return (p.causal && j > i) || (!p.mask.empty() && p.mask[i * p.k.rows() + j] != 0);
    };
}

// The declared claim's value of each of the n entries and its tolerance: the claim's bound, at
// least the median bound of the tensor (a changed mask changes the rows' lengths, and with them
// their bounds), or 4 ulps where the bound is infinite.
struct Declared {
    std::vector<double> tol, ref;
};
Declared declared_of(const Judgement& j, FloatFormat f, std::int64_t n) {
    Declared r{std::vector<double>(static_cast<std::size_t>(n)), std::vector<double>(static_cast<std::size_t>(n))};
    std::vector<double> finite;
    for (const Judged& e : j.entries)
        if (std::isfinite(e.bound) && e.bound > 0) finite.push_back(e.bound);
    const double median = median_of(std::move(finite));
    for (std::int64_t x = 0; x < n && x < static_cast<std::int64_t>(j.entries.size()); ++x) {
        const Judged& e = j.entries[x];
        const double u4 = 4 * ulp(std::isfinite(e.rounded) ? e.rounded : 0, f);
        r.tol[x] = std::isfinite(e.bound) ? std::max({e.bound, median, ulp(e.rounded, f)}) : u4;
        r.ref[x] = std::isfinite(e.rounded) ? (e.lo + e.hi) / 2 : e.rounded;
    }
    return r;
}

// Each hypothesis: the sentence that names the mistake, and the kernel that makes it.
using Hypotheses = std::vector<std::pair<std::string, Variant>>;

// No softcap, or the softcap before the scale (docs/oracle.md, "The logit softcap").
void add_softcap_mistakes(const Problem& p, const Variant& base, Hypotheses& hyps) {
    if (!(p.softcap > 0)) return;
    Variant x = base;
    x.softcap = 0;
    hyps.emplace_back(fmt::format("the output matches no softcap: the scores are not capped at {:g}", p.softcap), x);
    x.softcap = p.softcap;
    x.softcap_first = true;
    hyps.emplace_back(
        "the output matches the softcap applied before the scale: c·cap·tanh(q·k/cap) instead of "
        "cap·tanh(c·q·k/cap)",
        x);
}

// 1/d_k or no scale where the claim is 1/√d_k.
void add_scale_mistakes(const Problem& p, const Variant& base, Hypotheses& hyps) {
    if (p.scale.kind != ScaleKind::SqrtDk) return;
    Variant x = base;
    x.scale = 1 / static_cast<double>(p.q.cols());
    hyps.emplace_back(fmt::format("the output matches a scale of 1/d_k = 1/{} instead of 1/√d_k", p.q.cols()), x);
    x.scale = 1;
    hyps.emplace_back("the output matches no scale (1) instead of 1/√d_k", x);
}

// A scale off by a factor 1 + τ (a temperature), when the judgement's systematic τ is beyond
// rounding. Its least-squares τ is first order; three Newton steps on the re-emulated outputs
// (∂o/∂τ by a difference) fit the scale c(1 + τ) that the output follows.
void add_temperature(const Problem& p, const Tensor& output, const AlgorithmSpec& spec, const Judgement& j,
                     const Variant& base, Hypotheses& hyps) {
    if (!(std::fabs(j.systematic.temperature) > 8 * unit_roundoff(spec.accumulate))) return;
    const std::int64_t n = static_cast<std::int64_t>(output.data.size());
    Variant x = base;
    double tau = j.systematic.temperature;
    constexpr double kStep = 0x1p-20;  // ∂o/∂τ by a forward difference in τ
    for (int step = 0; step < 3; ++step) {
        x.scale = base.scale * (1 + tau);
        const auto h = run_variant(p, x);
        x.scale = base.scale * (1 + tau + kStep);
        const auto h2 = run_variant(p, x);
        double rg = 0, gg = 0;
        for (std::int64_t e = 0; e < n; ++e) {
            const double g = (h2[e] - h[e]) / kStep;
            if (!std::isfinite(g) || !std::isfinite(output.data[e]) || !std::isfinite(h[e])) continue;
            rg += (output.data[e] - h[e]) * g;
            gg += g * g;
        }
        if (gg > 0) tau += rg / gg;
    }
    x.scale = base.scale * (1 + tau);
    hyps.emplace_back(fmt::format("the output matches a scale (temperature) off by {:+.3g}%: c·(1 {} {:.3g})",
                                  100 * tau, tau < 0 ? "−" : "+", std::fabs(tau)),
                      x);
}

// The mask one key off either way, inverted, or ignored.
void add_mask_mistakes(const Problem& p, const Variant& base, Hypotheses& hyps) {
    if (!p.causal && p.mask.empty()) return;
    const std::int64_t nk = p.k.rows();
    for (int shift : {-1, 1}) {  // the mask one key off either way
        Variant x = base;
        x.masked = [&p, shift, nk](std::int64_t i, std::int64_t k) {
            bool hidden = p.causal && k > i + shift;
            const std::int64_t from = k - shift;
            if (!p.mask.empty()) hidden = hidden || (from >= 0 && from < nk && p.mask[i * nk + from] != 0);
            return hidden;
        };
        hyps.emplace_back(shift < 0 ? "the mask is off by one: the diagonal (each query's own key) is hidden"
                                    : "the mask is off by one: each query also sees the next key",
                          x);
    }
    const auto m = base.masked;
    Variant x = base;
    x.masked = [m](std::int64_t i, std::int64_t k) { return !m(i, k); };
    hyps.emplace_back(p.causal && p.mask.empty()
                          ? "the causal mask is inverted: each query sees the keys after it, not those up to it"
                          : "the mask is inverted: keys it keeps are hidden and keys it hides are seen (a keep-mask "
                            "read as masked, SDPA's bool convention)",
                      x);
    x.masked = [](std::int64_t, std::int64_t) { return false; };
    hyps.emplace_back("the mask is ignored: every query sees every key", x);
}

// The softmax over the wrong axis, and an online kernel's rescaling missing from O, ℓ or both.
void add_softmax_mistakes(const Problem& p, const AlgorithmSpec& spec, const Variant& base, Hypotheses& hyps) {
    if (p.q.rows() > 1) {
        Variant x = base;
        x.over_queries = true;
        hyps.emplace_back("the softmax is taken over the queries (axis 0), not over the keys", x);
    }
    if (spec.algorithm == Algorithm::Online && p.k.rows() > base.block) {
        Variant x = base;
        x.rescale_o = x.rescale_l = false;
        hyps.emplace_back("the online rescaling is missing: O and ℓ are not multiplied by exp(m_old − m_new)", x);
        x.rescale_o = true;
        hyps.emplace_back("ℓ is wrong: O is rescaled by exp(m_old − m_new) but the running sum ℓ is not", x);
        x.rescale_l = true;
        x.rescale_o = false;
        hyps.emplace_back("O is not rescaled by exp(m_old − m_new) while ℓ is", x);
    }
}

// The last tile of keys never read, by a safe or an online kernel: the declared block and the
// powers of two below n_k (the kernel's own tile, whatever the claim), each first key once.
void add_tile_mistakes(const Problem& p, const AlgorithmSpec& spec, const Variant& base, Hypotheses& hyps) {
    const std::int64_t nk = p.k.rows();
    std::vector<std::int64_t> tiles, starts;
    if (spec.algorithm == Algorithm::Online) tiles.push_back(base.block);
    for (std::int64_t t = 1; t < nk; t *= 2) tiles.push_back(t);
    for (std::int64_t t : tiles) {
        const std::int64_t start = (nk - 1) / t * t;
        if (t >= nk || std::find(starts.begin(), starts.end(), start) != starts.end()) continue;
        starts.push_back(start);
        Variant x = base;
        x.block = t;
        x.drop_last_tile = true;
        hyps.emplace_back(
            fmt::format("the last tile is dropped: keys {} to {} are never read (a tile of {} keys)", start, nk - 1, t),
            x);
    }
}

// A kernel that accumulates in the output's format f, narrower than the claim's: the errors
// must be within that claim's bound, and their median under a quarter of its median (such a
// kernel uses a small part of the worst case). "" when not.
std::string accumulation_diagnosis(const Problem& p, const Tensor& output, const AlgorithmSpec& spec) {
    const FloatFormat f = output.format;
    if (spec.accumulate == f || !(unit_roundoff(f) > unit_roundoff(spec.accumulate))) return "";
    AlgorithmSpec s = spec;
    s.accumulate = s.p_format = f;
    std::vector<double> err, bnd;
    bool all = true;
    try {
        const Reference r = reference(p, f, false, s.bound);
        const Judgement jf = judge_output(r, output, s, std::nullopt);
        all = jf.over == 0;
        for (const Judged& e : jf.entries) {
            err.push_back(e.abs_error);
            bnd.push_back(e.bound);
        }
    } catch (const Error&) {
        all = false;
    }
    if (!all || err.empty() || !(median_of(err) * 4 <= median_of(bnd))) return "";
    return fmt::format(
        "the errors exceed the bound of accumulation in {} but are within that of accumulation "
        "in {}: the kernel accumulates in {}",
        info(spec.accumulate).name, info(f).name, info(f).name);
}

}  // namespace

std::string diagnose(const Problem& p, const Tensor& output, const AlgorithmSpec& spec, const Judgement& j) {
    if (j.passed()) return "";
    if (std::string d = overflow_diagnosis(p, output, spec); !d.empty()) return d;
    const FloatFormat f = output.format;
    const std::int64_t n = static_cast<std::int64_t>(output.data.size());
    const Declared claim = declared_of(j, f, n);
    const Fit declared = fit(claim.ref, output, claim.tol);
    const auto explains = [&](const std::vector<double>& cand) {
        return fit(cand, output, claim.tol).explains_better_than(declared);
    };
    Variant base;
    base.scale = p.scale.kind == ScaleKind::SqrtDk ? 1 / std::sqrt(static_cast<double>(p.q.cols()))
                                                   : (p.scale.kind == ScaleKind::None ? 1 : p.scale.value);
    base.masked = declared_mask(p);
    if (spec.algorithm == Algorithm::Online) base.block = std::max<std::int64_t>(1, spec.block);
    base.softcap = p.softcap;
    Hypotheses hyps;
    add_softcap_mistakes(p, base, hyps);
    add_scale_mistakes(p, base, hyps);
    add_temperature(p, output, spec, j, base, hyps);
    add_mask_mistakes(p, base, hyps);
    add_softmax_mistakes(p, spec, base, hyps);
    add_tile_mistakes(p, spec, base, hyps);
    for (const auto& [why, x] : hyps)
        if (explains(run_variant(p, x))) return why;
    if (unit_roundoff(f) > unit_roundoff(spec.accumulate) || least_subnormal(f) > least_subnormal(spec.accumulate)) {
        std::vector<double> cut(static_cast<std::size_t>(n));
        for (std::int64_t x = 0; x < n; ++x)
            cut[x] = std::isfinite(claim.ref[x]) ? truncate_to(claim.ref[x], f) : claim.ref[x];
        if (explains(cut))
            return fmt::format(
                "the output matches the exact values truncated (rounded toward zero) to {}: a cast "
                "that truncates instead of rounding to nearest",
                info(f).name);
    }
    return accumulation_diagnosis(p, output, spec);
}

}  // namespace exactattn::oracle
