// SPDX-License-Identifier: MIT
// exactattn oracle: the diagnosis of a batch of heads' gradients (grad_batch_detail.hpp;
// docs/oracle.md, "Diagnoses of the backward"): the wrong GQA group, a failing head's mistake,
// or a failing group's read on the group's own problem.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "exactattn/limits.hpp"
#include "exactattn/oracle_grad_batch.hpp"
#include "grad_batch_detail.hpp"

namespace exactattn::oracle::detail::batch {

namespace {

// The diagnosis of kv head (b, k)'s group from every gradient given of it: its query heads' dQ
// rows and its dK, dV, judged and diagnosed as the group's own problem's (group_problem): each
// backward mistake of diagnose_grads is per row, so a kernel that makes it in every head of the
// group gives that problem's mistaken gradients. The causal alignment is not tried (the stacked
// rows carry their mask, not a diagonal). "" when nothing fits or the problem is over a limit.
std::string diagnose_group(const Batch& batch, const BatchShape& s, const Tensor& d_out, FloatFormat f,
                           const GradSpec& spec, std::int64_t b, std::int64_t k, const Tensor* dq,
                           const std::vector<std::pair<std::string, std::vector<Tensor>>>& kv_given, std::size_t kx) {
    const std::int64_t group = s.h_q / s.h_kv;
    try {
        const auto [p, dot] = group_problem(batch, s, d_out, b, k);
        const GradReference g = grad_reference(p, dot, f);
        const GradBounds gb = grad_bounds(p, dot, g, spec);
        std::vector<std::pair<std::string, Tensor>> given;
        if (dq != nullptr) {
            Tensor y{{group * s.n_q, s.d}, {}, f};
            for (std::int64_t h = k * group; h < (k + 1) * group; ++h) {
                const Tensor x = head_slice(*dq, batch.layout, s, b, h, s.d, "dq");
                y.data.insert(y.data.end(), x.data.begin(), x.data.end());
            }
            given.emplace_back("dq", std::move(y));
        }
        for (const auto& [name, slices] : kv_given) given.emplace_back(name, slices[kx]);
        std::vector<GradComparison> compared;
        for (const auto& [name, t] : given) compared.push_back(judge_grad(g, gb, name, t));
        const std::string d = diagnose_grads(p, dot, g, gb, spec, given, compared);
        if (d.empty()) return "";
        return fmt::format("kv head (b={}, h={}) and its query heads h = {} to {}: {}", b, k, k * group,
                           (k + 1) * group - 1, d);
    } catch (const WorkRefusal&) {
        throw;
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Limit) throw;
        return "";
    }
}

// The "wrong GQA group" hypothesis (docs/oracle.md, "Diagnoses of the backward"): a kernel that
// sums kv head k's dK or dV over the query heads h with h mod H_kv = k (the heads interleaved)
// instead of h div G = k. Named (with the tensors it explains: "dK/dV", "dK" or "dV") when, in
// every failing kv tensor, the gradients it gives fit at least 99% of the entries within their
// (wrong group's) bound and fit 4 times better in all than the true sums; else "".
std::string wrong_group(const BatchShape& s, const std::vector<GradReference>& g, const std::vector<GradBounds>& gb,
                        const std::vector<std::pair<std::string, std::vector<Tensor>>>& kv_given,
                        const std::vector<GradComparison>* kv_c, FloatFormat f, FloatFormat acc,
                        const std::vector<Summed>* sums) {
    const std::int64_t group = s.h_q / s.h_kv;
    if (group == 1 || s.h_kv == 1) return "";  // the two mappings agree
    const auto misfit = [](double y, double lo, double hi, double bd) {
        if (!std::isfinite(y) || !std::isfinite(bd)) return 1e300;
        const double e = std::max(std::fabs(y - lo), std::fabs(y - hi));
        return bd > 0 ? e / bd : (e > 0 ? 1e300 : 0.0);
    };
    std::string names;
    for (const auto& [name, slices] : kv_given) {
        const int t = name == "dk" ? 0 : 1;
        bool failed = false;
        for (const auto& c : kv_c[t]) failed = failed || c.over > 0;
        if (!failed) continue;
        std::int64_t entries = 0, fit = 0;
        double misfit_wrong = 0, misfit_true = 0;
        for (std::int64_t b = 0; b < s.b; ++b)
            for (std::int64_t k = 0; k < s.h_kv; ++k) {
                std::vector<const GradField*> heads;
                std::vector<const std::vector<double>*> bounds;
                for (std::int64_t h = k; h < s.h_q; h += s.h_kv) {
                    const auto x = static_cast<std::size_t>(b * s.h_q + h);
                    heads.push_back(t == 0 ? &g[x].dk : &g[x].dv);
                    bounds.push_back(t == 0 ? &gb[x].dk : &gb[x].dv);
                }
                const Summed wrong = group_sum(heads, bounds, f, acc);
                const auto kx = static_cast<std::size_t>(b * s.h_kv + k);
                const Summed& right = sums[t][kx];
                const Tensor& y = slices[kx];
                for (std::size_t at = 0; at < y.data.size(); ++at) {
                    const double mw = misfit(y.data[at], wrong.field.lo[at], wrong.field.hi[at], wrong.bound[at]);
                    ++entries;
                    fit += mw <= 1 ? 1 : 0;
                    misfit_wrong += mw;
                    misfit_true += misfit(y.data[at], right.field.lo[at], right.field.hi[at], right.bound[at]);
                }
            }
        if (entries == 0 || 100 * fit < 99 * entries || !(4 * misfit_wrong < misfit_true)) return "";
        names += names.empty() ? (t == 0 ? "dK" : "dV") : (t == 0 ? "/dK" : "/dV");
    }
    if (names.empty()) return "";
    return fmt::format(
        "{} gathered over the wrong GQA group: kv head k summed the query heads h with h mod {} = k "
        "instead of h div {} = k",
        names, s.h_kv, group);
}

// The diagnosis of the first query head that fails, named (dk and dv are a head's own only in
// groups of one); "" when none fails or its gradients fit no mistake.
std::string head_diagnosis(const BatchWork& w) {
    const BatchShape& s = w.s;
    for (std::size_t x = 0; x < w.heads; ++x) {
        const auto b = static_cast<std::int64_t>(x) / s.h_q, h = static_cast<std::int64_t>(x) % s.h_q;
        const auto kx = static_cast<std::size_t>(b * s.h_kv + h / w.group);
        std::vector<std::pair<std::string, Tensor>> given;
        std::vector<GradComparison> compared;
        bool failed = false;
        if (w.dq_t != nullptr) {
            given.emplace_back("dq", w.dq_slice(b, h));
            compared.push_back(w.dq_c[x]);
            failed = failed || w.dq_c[x].over > 0;
        }
        if (w.group == 1)
            for (const auto& [name, slices] : w.kv_slices) {
                const int which = name == "dk" ? 0 : 1;
                given.emplace_back(name, slices[kx]);
                compared.push_back(w.kv_c[which][kx]);
                failed = failed || w.kv_c[which][kx].over > 0;
            }
        if (!failed) continue;
        const Problem p = head_problem(w.batch, s, b, h);
        const Tensor dot = head_slice(w.d_out, w.batch.layout, s, b, h, s.d_v, "do");
        const std::string d = diagnose_grads(p, dot, w.g[x], w.gb[x], w.spec, given, compared);
        return d.empty() ? d : fmt::format("head (b={}, h={}): {}", b, h, d);
    }
    return "";
}

}  // namespace

// The diagnosis: the wrong GQA group first (it is the batch's, not a head's), else that of the
// first query head that fails; in groups of two or more, when that named nothing, the first
// failing group's dQ, dK and dV read together on the group's own problem (its rows stacked).
std::string batch_diagnosis(const BatchWork& w) {
    if (!w.judged) return "";
    std::string d = wrong_group(w.s, w.g, w.gb, w.kv_slices, w.kv_c, w.f, w.spec.accumulate, w.sums);
    if (d.empty()) d = head_diagnosis(w);
    for (std::size_t kx = 0; kx < w.kv_heads && w.group > 1 && d.empty(); ++kx) {
        const auto [b, k] = w.kv_head(kx);
        bool failed = false;
        for (std::int64_t h = k * w.group; h < (k + 1) * w.group && w.dq_t != nullptr; ++h)
            failed = failed || w.dq_c[static_cast<std::size_t>(b * w.s.h_q + h)].over > 0;
        for (const auto& c : w.kv_c) failed = failed || (!c.empty() && c[kx].over > 0);
        if (!failed) continue;
        return diagnose_group(w.batch, w.s, w.d_out, w.f, w.spec, b, k, w.dq_t, w.kv_slices, kx);
    }
    return d;
}

}  // namespace exactattn::oracle::detail::batch
