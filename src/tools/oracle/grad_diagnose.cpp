// SPDX-License-Identifier: MIT
// exactattn oracle, backward pass: after a failed judgement of dQ, dK and dV, the known backward
// mistake that explains them (docs/oracle.md, "Diagnoses of the backward"). Each diagnosis is a
// hypothesis: the gradients the mistake produces are computed in double and the mistake is
// named only when the kernel's gradients are within the running bound of them and far closer to
// them, in all, than to the true gradients, which they fail.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "exactattn/oracle_grad.hpp"
#include "tools/oracle/fit.hpp"

namespace exactattn::oracle {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Where a backward's D = rowsum(dO ∘ O) takes O from.
enum class DSource {
    Exact,         // the forward's O (the claim's)
    Rounded,       // O rounded to a narrower format than the claim's storage
    Unnormalised,  // the accumulator before its division by ℓ: O·exp(LSE − max s)
};

// One backward mistake, as a change to the true backward (oracle_grad.hpp's formulas).
struct BackVariant {
    std::string why;
    const Problem* seen = nullptr;  // the problem whose visible keys the backward uses (null: the forward's)
    bool renormalise = false;       // the backward's P is the softmax over `seen`'s keys (D from it)
    double ds_factor = 1;           // dS multiplied by this (the scale missing: 1/c; twice: c)
    double lse_factor = 1;          // P = exp(t − κ·LSE), LSE natural (a base mix-up: κ = 1/ln 2 or ln 2)
    DSource d = DSource::Exact;
    FloatFormat d_format = FloatFormat::Float32;
    std::int64_t keys_end = -1;  // ≥ 0: keys from here on missing from the backward (a dropped tile)
};

struct Grads {
    std::vector<double> dq, dk, dv;
    std::vector<double> aq, ak, av;  // Σ|terms| of each entry: what a kernel's rounding errors scale with
};

double scale_of(const Problem& p) {
    if (p.scale.kind == ScaleKind::None) return 1;
    if (p.scale.kind == ScaleKind::Given) return p.scale.value;
    return 1 / std::sqrt(static_cast<double>(p.q.cols()));
}

// The gradients of `x` on p under dO, in double. A row that sees no key in the forward adds
// nothing (its output is a declared constant).
Grads run_back(const Problem& p, const Tensor& d_out, const BackVariant& x) {
    const std::int64_t nq = p.q.rows(), nk = p.k.rows(), d = p.q.cols(), dv = p.v.cols();
    const double c = scale_of(p), lb = p.base == ExpBase::Two ? std::log(2.0) : 1.0;
    Grads g;
    g.dq.assign(static_cast<std::size_t>(nq * d), 0.0), g.aq = g.dq;
    g.dk.assign(static_cast<std::size_t>(nk * d), 0.0), g.ak = g.dk;
    g.dv.assign(static_cast<std::size_t>(nk * dv), 0.0), g.av = g.dv;
    const Problem& bp = x.seen != nullptr ? *x.seen : p;
    const std::int64_t end = x.keys_end >= 0 ? x.keys_end : nk;
    std::vector<double> t(static_cast<std::size_t>(nk)), w = t, o(static_cast<std::size_t>(dv)), dp = t;
    for (std::int64_t i = 0; i < nq; ++i) {
        const auto fwd = visible_keys(p, i), bwd = x.seen != nullptr ? visible_keys(bp, i) : fwd;
        double m = -kInf;
        for (std::int64_t j = 0; j < nk; ++j) {  // natural-base scores t = ln(b)·(c q·k + bias)
            double s = 0;
            for (std::int64_t y = 0; y < d; ++y) s += p.q.data[i * d + y] * p.k.data[j * d + y];
            t[j] = lb * (c * s + bias_at(p, i, j));
            if (fwd[j]) m = std::max(m, t[j]);
        }
        if (std::isinf(m)) continue;
        double den = 0;
        for (std::int64_t j = 0; j < nk; ++j) den += fwd[j] ? std::exp(t[j] - m) : 0;
        const double lse = m + std::log(den);
        std::fill(o.begin(), o.end(), 0.0);
        for (std::int64_t j = 0; j < nk; ++j)
            if (fwd[j])
                for (std::int64_t y = 0; y < dv; ++y) o[y] += std::exp(t[j] - lse) * p.v.data[j * dv + y];
        for (std::int64_t j = 0; j < nk; ++j) {
            dp[j] = 0;
            for (std::int64_t y = 0; y < dv; ++y) dp[j] += d_out.data[i * dv + y] * p.v.data[j * dv + y];
        }
        // The backward's P.
        double bden = 0, bm = -kInf;
        for (std::int64_t j = 0; j < nk; ++j)
            if (bwd[j]) bm = std::max(bm, t[j]);
        for (std::int64_t j = 0; j < nk; ++j) {
            w[j] = 0;
            if (!bwd[j] || j >= end) continue;
            w[j] = x.renormalise ? std::exp(t[j] - bm) : std::exp(t[j] - x.lse_factor * lse);
            bden += std::exp(t[j] - bm);
        }
        if (x.renormalise)
            for (double& y : w) y /= bden;
        double dd = 0;
        if (x.renormalise) {
            for (std::int64_t j = 0; j < nk; ++j) dd += w[j] * dp[j];
        } else {
            const double unnorm = std::exp(lse - m);  // ℓ = Σ exp(t − max t)
            for (std::int64_t y = 0; y < dv; ++y) {
                const double oy = x.d == DSource::Rounded        ? round_to(o[y], x.d_format)
                                  : x.d == DSource::Unnormalised ? o[y] * unnorm
                                                                 : o[y];
                dd += d_out.data[i * dv + y] * oy;
            }
        }
        for (std::int64_t j = 0; j < nk; ++j) {
            if (w[j] == 0) continue;
            const double ds = lb * w[j] * (dp[j] - dd) * x.ds_factor * c;  // c·dS: dQ's and dK's factor
            for (std::int64_t y = 0; y < d; ++y) {
                g.dq[i * d + y] += ds * p.k.data[j * d + y];
                g.dk[j * d + y] += ds * p.q.data[i * d + y];
                g.aq[i * d + y] += std::fabs(ds * p.k.data[j * d + y]);
                g.ak[j * d + y] += std::fabs(ds * p.q.data[i * d + y]);
            }
            for (std::int64_t y = 0; y < dv; ++y) {
                g.dv[j * dv + y] += w[j] * d_out.data[i * dv + y];
                g.av[j * dv + y] += std::fabs(w[j] * d_out.data[i * dv + y]);
            }
        }
    }
    return g;
}

struct Evidence {
    const Tensor* actual;
    std::vector<double> ref, tol;
};

// The fit of a candidate for one tensor; `grow`: each entry's tolerance is multiplied by this
// (1 when empty).
void add_fit(Fit& f, const std::vector<double>& cand, const Evidence& x, const std::vector<double>& grow = {}) {
    for (std::size_t at = 0; at < cand.size(); ++at)
        f.add(x.actual->data[at], cand[at], x.tol[at] * (grow.empty() ? 1 : grow[at]));
}

const char* format_name(FloatFormat f) { return info(f).name; }

// The named tensor ("dq", "dk" or "dv") of h, and its entries' Σ|terms|.
const std::vector<double>& grad_of(const Grads& h, const std::string& name) {
    return name == "dq" ? h.dq : name == "dk" ? h.dk : h.dv;
}
const std::vector<double>& terms_of(const Grads& h, const std::string& name) {
    return name == "dq" ? h.aq : name == "dk" ? h.ak : h.av;
}

// The kernel's gradients, each entry with the claim's reference and a tolerance: the claim's
// running bound, at least the tensor's median bound (a mistake changes which keys a row sees,
// and with them the bounds) and one ulp, or 4 ulps where the bound is infinite; twice that when
// the hypothesis, computed in double, is itself a float64 computation of the mistake. The median
// is over the entries the true backward gives terms, as the Σ|terms| median of
// floored_terms(): an entry with none (a key no query sees) has for bound only the output
// format's least subnormal, and counting those would pull the median bound down and out of
// proportion with the median Σ|terms| a mistake's tolerance grows from.
std::vector<Evidence> evidence_of(const GradReference& g, const GradBounds& b, const GradSpec& s, const Grads& truth,
                                  const std::vector<std::pair<std::string, Tensor>>& actual) {
    const double twice = info(g.format).precision >= 53 || info(s.accumulate).precision >= 53 ? 2 : 1;
    std::vector<Evidence> given;
    for (const auto& [name, t] : actual) {
        const GradField& f = name == "dq" ? g.dq : name == "dk" ? g.dk : g.dv;
        const std::vector<double>& bound = name == "dq" ? b.dq : name == "dk" ? b.dk : b.dv;
        const std::vector<double>& terms = terms_of(truth, name);
        std::vector<double> finite;
        for (std::size_t at = 0; at < bound.size(); ++at)
            if (std::isfinite(bound[at]) && bound[at] > 0 && terms[at] > 0) finite.push_back(bound[at]);
        const double median = median_of(std::move(finite));
        Evidence x{&t, {}, {}};
        for (std::size_t at = 0; at < f.val.size(); ++at) {
            const double r = f.val[at], u = ulp(std::isfinite(r) ? r : 0, g.format);
            x.ref.push_back(std::isfinite(r) ? (f.lo[at] + f.hi[at]) / 2 : r);
            x.tol.push_back(twice * (std::isfinite(bound[at]) ? std::max({bound[at], median, u}) : 4 * u));
        }
        given.push_back(std::move(x));
    }
    return given;
}

// The softmax scale c missing from dS, or applied twice (none when c is ±1 or 0).
void add_scale_mistakes(const Problem& p, std::vector<BackVariant>& hyps) {
    const double c = scale_of(p);
    if (std::fabs(c) == 1 || c == 0) return;
    BackVariant x;
    x.ds_factor = 1 / c;
    x.why = fmt::format(
        "the softmax scale is missing from dS: dQ and dK are 1/c = {:.6g} times the true gradients, dV is right",
        1 / c);
    hyps.push_back(x);
    x.ds_factor = c;
    x.why = fmt::format(
        "the softmax scale is applied twice in dS: dQ and dK are c = {:.6g} times the true gradients, dV is right", c);
    hyps.push_back(x);
}

// The forward's mask dropped in the backward (`unmasked`: p without it, set here and pointed to
// by the hypotheses), or a causal mask aligned to the other diagonal (`realigned`).
void add_mask_mistakes(const Problem& p, Problem& unmasked, Problem& realigned, std::vector<BackVariant>& hyps) {
    const bool masked = p.causal || !p.mask.empty() || p.window_left >= 0 || p.window_right >= 0;
    if (masked) {
        unmasked.mask.clear();
        unmasked.causal = false;
        unmasked.window_left = unmasked.window_right = -1;
        BackVariant x;
        x.seen = &unmasked;
        x.why =
            "the mask is applied in the forward but dropped in the backward: P = exp(S − LSE) is recomputed "
            "on the masked keys too, so dK and dV of masked positions are not 0";
        hyps.push_back(x);
        x.renormalise = true;
        x.why =
            "the mask is applied in the forward but dropped in the backward: the gradients are those of the "
            "unmasked attention";
        hyps.push_back(x);
    }
    if (p.causal && p.q.rows() != p.k.rows()) {
        realigned.align = p.align == Align::TopLeft ? Align::BottomRight : Align::TopLeft;
        const char* fa = p.align == Align::TopLeft ? "top-left" : "bottom-right";
        const char* ba = p.align == Align::TopLeft ? "bottom-right" : "top-left";
        BackVariant x;
        x.seen = &realigned;
        x.why = fmt::format(
            "the causal mask is aligned {} in the forward but {} in the backward (P = exp(S − LSE) recomputed "
            "under the other diagonal)",
            fa, ba);
        hyps.push_back(x);
    }
}

// D = rowsum(dO∘O) from the wrong O: the unnormalised accumulator, or O rounded to a format
// narrower than both the claim's storage and its accumulation.
void add_d_mistakes(const GradReference& g, const GradSpec& s, std::vector<BackVariant>& hyps) {
    BackVariant x;
    x.d = DSource::Unnormalised;
    x.why =
        "D = rowsum(dO∘O) is computed from the unnormalised accumulator (O·ℓ, before the division by ℓ): "
        "dS is off by a constant per row, dV is right";
    hyps.push_back(x);
    const FloatFormat stored = s.storage_format(g.format);
    for (FloatFormat f : {FloatFormat::Float16, FloatFormat::BFloat16}) {
        if (unit_roundoff(f) <= unit_roundoff(stored) || unit_roundoff(f) <= unit_roundoff(s.accumulate)) continue;
        x.d = DSource::Rounded;
        x.d_format = f;
        x.why = fmt::format(
            "D = rowsum(dO∘O) is computed from the output rounded to {} instead of the accumulator "
            "(the claim's O is {})",
            format_name(f), format_name(stored));
        hyps.push_back(x);
    }
}

// The LSE saved in one base and used in the other.
void add_lse_mistakes(std::vector<BackVariant>& hyps) {
    BackVariant x;
    x.lse_factor = 1 / std::log(2.0);
    x.why =
        "the LSE is saved in base 2 and used in base e: P = exp(S − LSE/ln 2), each row's P off by the "
        "factor exp(LSE(1 − 1/ln 2))";
    hyps.push_back(x);
    x.lse_factor = std::log(2.0);
    x.why =
        "the LSE is saved in base e and used in base 2: P = exp(S − LSE·ln 2), each row's P off by the "
        "factor exp(LSE(1 − ln 2))";
    hyps.push_back(x);
}

// The last tile of keys never read by the backward: the claim's block, and the powers of two
// below n_k (a kernel's own tile), each distinct start once.
void add_tile_mistakes(const Problem& p, const GradSpec& s, std::vector<BackVariant>& hyps) {
    const std::int64_t nk = p.k.rows();
    std::vector<std::int64_t> starts;
    std::vector<std::int64_t> blocks;
    if (s.algorithm == GradAlgorithm::Flash2) blocks.push_back(std::max<std::int64_t>(1, s.block));
    for (std::int64_t t = 1; t < nk; t *= 2) blocks.push_back(t);
    for (std::int64_t t : blocks) {
        if (t >= nk) continue;
        const std::int64_t start = (nk - 1) / t * t;
        if (std::find(starts.begin(), starts.end(), start) != starts.end()) continue;
        starts.push_back(start);
        BackVariant x;
        x.keys_end = start;
        x.why = fmt::format(
            "the last key tile is dropped in the backward: keys {} to {} are missing from dK and dV (0) and from "
            "dQ's sum (a tile of {} keys)",
            start, nk - 1, t);
        hyps.push_back(x);
    }
}

// Each entry's Σ|terms|, at least the tensor's median over the entries that have terms.
std::vector<double> floored_terms(std::vector<double> exact) {
    std::vector<double> pos;
    for (double a : exact)
        if (a > 0) pos.push_back(a);
    const double median = median_of(std::move(pos));
    for (double& a : exact) a = std::max(a, median);
    return exact;
}

// How much a mistake grows each entry's tolerance: the ratio of its Σ|terms| under the mistake
// to the true backward's (floored), never below 1.
std::vector<double> growth(const std::vector<double>& mistaken, const std::vector<double>& base) {
    std::vector<double> r(mistaken.size(), 1.0);
    for (std::size_t at = 0; at < r.size(); ++at) {
        if (base[at] > 0 && std::isfinite(mistaken[at])) r[at] = std::max(1.0, mistaken[at] / base[at]);
    }
    return r;
}

}  // namespace

std::string diagnose_grads(const Problem& p, const Tensor& d_out, const GradReference& g, const GradBounds& b,
                           const GradSpec& s, const std::vector<std::pair<std::string, Tensor>>& actual,
                           const std::vector<GradComparison>& compared) {
    if (grads_passed(compared) || actual.empty()) return "";
    if (p.softcap > 0) return "";  // the hypotheses' backward in double has no softcap yet: none named
    // The true backward in double: its Σ|terms| of each entry say which entries have terms at all.
    const Grads truth = run_back(p, d_out, BackVariant{});
    const std::vector<Evidence> given = evidence_of(g, b, s, truth, actual);
    Fit declared;
    for (const Evidence& x : given) add_fit(declared, x.ref, x);

    std::vector<BackVariant> hyps;
    Problem unmasked = p, realigned = p;  // outlive the hypotheses that point to them
    add_scale_mistakes(p, hyps);
    add_mask_mistakes(p, unmasked, realigned, hyps);
    add_d_mistakes(g, s, hyps);
    add_lse_mistakes(hyps);
    add_tile_mistakes(p, s, hyps);
    // GQA is not a hypothesis: the gradients are judged one head (one matrix problem) at a time.
    // A mistake that makes an entry's terms larger (P on masked keys, P off by a factor per row)
    // makes the kernel's rounding errors larger in proportion: the tolerance grows by the ratio of
    // the entry's Σ|terms| under the mistake to that of the true backward (at least the tensor's
    // median, as the bounds are), never shrinks. The true backward's, floored, computed once.
    const std::vector<double> base_q = floored_terms(truth.aq), base_k = floored_terms(truth.ak),
                              base_v = floored_terms(truth.av);
    const BackVariant* best = nullptr;
    double best_cost = kInf;
    for (const BackVariant& x : hyps) {
        const Grads h = run_back(p, d_out, x);
        Fit f;
        for (std::size_t n = 0; n < given.size(); ++n) {
            const std::string& name = actual[n].first;
            const auto grow = name == "dq"   ? growth(h.aq, base_q)
                              : name == "dk" ? growth(h.ak, base_k)
                                             : growth(h.av, base_v);
            add_fit(f, grad_of(h, name), given[n], grow);
        }
        if (f.explains_better_than(declared) && f.cost < best_cost) best = &x, best_cost = f.cost;
    }
    return best != nullptr ? best->why : "";
}

}  // namespace exactattn::oracle
