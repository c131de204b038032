// SPDX-License-Identifier: MIT
// exactattn oracle: after a failed judgement, the known kernel mistake that explains the
// output: each hypothesis is a changed problem or algorithm whose own certified reference and
// bound the output meets.
#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "exactattn/oracle.hpp"

namespace exactattn::oracle {

namespace {

bool passes(const Problem& p, const Tensor& out, FloatFormat f, const AlgorithmSpec& spec) {
    try {
        const Reference r = reference(p, f, false);
        return judge_output(r, out, spec, std::nullopt).passed();
    } catch (const Error&) {
        return false;  // the changed problem is itself invalid (a fully masked row)
    }
}

// A kernel that skips max subtraction overflows exp where the exact output is finite.
std::string overflow_diagnosis(const Problem& p, const Tensor& out, const AlgorithmSpec& spec) {
    const Reference r = reference(p, out.format, false);
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
        return fmt::format("non-finite output at [{}, {}] where the exact value is finite", i, x % r.d_v);
    }
    return "";
}

// The mask shifted by one key: causal with the diagonal masked, or one future key visible.
std::vector<std::pair<std::string, Problem>> mask_variants(const Problem& p) {
    std::vector<std::pair<std::string, Problem>> v;
    const std::int64_t nq = p.q.rows(), nk = p.k.rows();
    for (int shift : {-1, 1}) {
        Problem x = p;
        x.causal = false;
        x.mask.assign(static_cast<std::size_t>(nq * nk), 0);
        for (std::int64_t i = 0; i < nq; ++i)
            for (std::int64_t j = 0; j < nk; ++j) {
                bool m = false;
                if (p.causal) m = j > i + shift;
                if (!p.mask.empty()) m = m || (j - shift >= 0 && j - shift < nk && p.mask[i * nk + j - shift]);
                x.mask[i * nk + j] = m ? 1 : 0;
            }
        v.emplace_back(shift < 0 ? "the mask is off by one: the diagonal (each query's own key) is masked"
                                 : "the mask is off by one: each query also sees the next key",
                       std::move(x));
    }
    return v;
}

}  // namespace

std::string diagnose(const Problem& p, const Tensor& output, const AlgorithmSpec& spec, const Judgement& j) {
    if (j.passed()) return "";
    if (std::string d = overflow_diagnosis(p, output, spec); !d.empty()) return d;
    const FloatFormat f = output.format;
    if (p.scale.kind == ScaleKind::SqrtDk) {
        Problem x = p;
        x.scale = {ScaleKind::Given, round_to(1.0 / static_cast<double>(p.q.cols()), FloatFormat::Float64)};
        if (passes(x, output, f, spec))
            return fmt::format("the output matches a scale of 1/d_k = 1/{} instead of 1/√d_k", p.q.cols());
        x.scale = {ScaleKind::None, 1};
        if (passes(x, output, f, spec)) return "the output matches no scale (1) instead of 1/√d_k";
    }
    if (p.causal || !p.mask.empty()) {
        for (auto& [why, x] : mask_variants(p))
            if (passes(x, output, f, spec)) return why;
    }
    if (spec.accumulate != f && unit_roundoff(f) > unit_roundoff(spec.accumulate)) {
        AlgorithmSpec s = spec;
        s.accumulate = s.p_format = f;
        if (passes(p, output, f, s))
            return fmt::format(
                "the errors exceed the bound of accumulation in {} but are within that of accumulation "
                "in {}: the kernel accumulates in {}",
                info(spec.accumulate).name, info(f).name, info(f).name);
    }
    return "";
}

}  // namespace exactattn::oracle
