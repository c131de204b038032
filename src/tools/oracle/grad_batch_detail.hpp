// SPDX-License-Identifier: MIT
// exactattn oracle (private): what the steps of grad_batch share (oracle_grad_batch.cpp, the
// certification, the sums and the judgements; grad_batch_diagnose.cpp, the diagnosis): the
// work of one call, a kv head's summed gradients and the group's own problem.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "exactattn/oracle_grad_batch.hpp"

namespace exactattn::oracle::detail::batch {

// An error of head (b, h), the head named first (as the forward's batch names it).
template <class F>
void in_head(std::int64_t b, std::int64_t h, F&& f) {
    try {
        f();
    } catch (const Error& e) {
        throw Error(e.kind(), e.where(), fmt::format("head (b={}, h={}): {}", b, h, e.reason()));
    }
}

// The kv tensors' shape as a BatchShape whose "query" heads are the kv heads (for head_slice).
inline BatchShape kv_shape(const BatchShape& s) {
    BatchShape k = s;
    k.h_q = s.h_kv;
    k.n_q = s.n_k;
    return k;
}

// The true dK (or dV) of a kv head: the sum over the query heads of its group of each head's,
// enclosed by the sum of their enclosures rounded outward, and the bound of a kernel that sums
// the heads' gradients (each within its own bound b_h) with G − 1 additions and one rounding to
// the gradients' format: Σ b_h + γ_G(u) Σ (|x_h| + b_h) + η, u and η of the coarser of the
// gradients' format and the accumulator (docs/oracle.md, "Gradients of a batch of heads").
struct Summed {
    GradField field;
    std::vector<double> bound;
    /// 1 where field.val is the correctly rounded sum (both ends of its enclosure round alike),
    /// 0 where the enclosure straddles a rounding boundary of the format: there val is the
    /// enclosure's midpoint rounded, an ulp from the correctly rounded sum at most, until
    /// refine_group decides it.
    std::vector<std::uint8_t> rounded;
};
Summed group_sum(const std::vector<const GradField*>& heads, const std::vector<const std::vector<double>*>& bounds,
                 FloatFormat f, FloatFormat acc);

/// The query heads of kv head k of batch b as one matrix problem: their rows stacked (each with
/// the keys its own head sees, as a mask, and its bias), K and V the kv head's, dO stacked alike
/// (oracle_grad_batch.cpp).
std::pair<Problem, Tensor> group_problem(const Batch& batch, const BatchShape& s, const Tensor& d_out, std::int64_t b,
                                         std::int64_t k);

// What grad_batch's steps share: the problem, the claim and the gradients given (their shapes
// checked before any work), then each step's results in turn.
struct BatchWork {
    const Batch& batch;
    const Tensor& d_out;
    FloatFormat f;
    const GradSpec& spec;
    int threads;
    BatchShape s, kv;
    std::int64_t group = 1;
    std::size_t heads = 0, kv_heads = 0;
    const Tensor* dq_t = nullptr;
    std::vector<std::pair<std::string, const Tensor*>> kv_t;
    bool judged = false;
    // certify_heads: each query head's gradients, bounds, dQ judgement and 8-bit events
    std::vector<GradReference> g;
    std::vector<GradBounds> gb;
    std::vector<GradComparison> dq_c;
    std::vector<Fp8Events> events;
    /// certify_heads: P, dP and dS of every query head as one (B, H, n_q, n_k) field each, a head's
    /// block written by its builder in place (grad_wide.hpp); `g`'s have no entries
    std::vector<GradField> wide;
    std::vector<Summed> sums[2];  ///< sum_groups: dk, dv of each kv head
    // judge_kv_heads: each kv head's dK and dV judged, and the slices judged
    std::vector<GradComparison> kv_c[2];
    std::vector<std::pair<std::string, std::vector<Tensor>>> kv_slices;

    BatchWork(const Batch& b, const Tensor& d, FloatFormat format, const GradSpec& claim, int jobs)
        : batch(b), d_out(d), f(format), spec(claim), threads(jobs), s(batch_shape(b)), kv(kv_shape(s)) {
        group = s.h_q / s.h_kv;
        heads = static_cast<std::size_t>(s.b * s.h_q), kv_heads = static_cast<std::size_t>(s.b * s.h_kv);
    }
    // (b, k) of kv head kx.
    [[nodiscard]] std::pair<std::int64_t, std::int64_t> kv_head(std::size_t kx) const {
        return {static_cast<std::int64_t>(kx) / s.h_kv, static_cast<std::int64_t>(kx) % s.h_kv};
    }
    // Query head (b, h)'s slice of a 4-D tensor in the batch's layout, in the gradients' format.
    [[nodiscard]] Tensor dq_slice(std::int64_t b, std::int64_t h) const {
        Tensor y = head_slice(*dq_t, batch.layout, s, b, h, s.d, "dq");
        y.format = f;
        return y;
    }
};

/// The diagnosis of a judged batch: the wrong GQA group first (it is the batch's, not a head's),
/// else that of the first query head that fails, else the first failing group's (groups of two
/// or more); "" when nothing fits (grad_batch_diagnose.cpp).
std::string batch_diagnosis(const BatchWork& w);

}  // namespace exactattn::oracle::detail::batch
