// SPDX-License-Identifier: MIT
// exactattn oracle, backward pass of a batch of heads (docs/oracle.md, "Gradients of a batch of
// heads"): the certified gradients of 4-D (B, H, N, D) or (B, N, H, D) inputs, grouped-query
// heads summed into their kv head's dK and dV, and a kernel's gradients judged in one call, for
// the command line and Python alike.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "exactattn/oracle.hpp"
#include "exactattn/oracle_grad.hpp"

namespace exactattn::oracle {

/// One tensor of a batch's judgement: the counts over every head (a kv head for dk and dv), the
/// entries named (b, h, i, j) whatever the layout ({-1, -1, -1, -1}: none), and every entry's
/// bound in the caller's layout (`shape`).
struct GradBatchJudgement {
    std::string name;  ///< dq, dk or dv
    std::int64_t entries = 0, differing = 0, over = 0, unbounded = 0;
    double max_ulps = 0, max_fraction = 0;
    std::array<std::int64_t, 4> worst{-1, -1, -1, -1}, worst_fraction{-1, -1, -1, -1}, first_over{-1, -1, -1, -1};
    std::string unbounded_reason;  ///< the first unbounded entry's, its head named
    std::vector<std::int64_t> shape;
    std::vector<double> bound;
};

/// The certified gradients of every head of a batch, and the judgement of the gradients given.
/// `fields` are dq, dk, dv, out, lse, d, p, dp, ds (GradReference::fields()'s order): dq, dk, dv
/// and out in the caller's layout (dk and dv with the kv heads: (B, H_kv, n_k, ·) or
/// (B, n_k, H_kv, ·)), the others (B, H_q, …) with each head's matrix shape. `rounded[x]` is 1
/// where fields[x].val is the correctly rounded value and 0 where a group sum's enclosure still
/// straddles a rounding boundary after its refinement (val is then its midpoint rounded).
struct GradBatch {
    BatchShape shape;
    Layout layout = Layout::BHND;
    FloatFormat format = FloatFormat::Float32;
    ExpBase base = ExpBase::E;
    GradSpec spec;
    std::vector<GradField> fields;
    std::vector<std::vector<std::uint8_t>> rounded;
    std::int64_t max_precision = 53, exact_entries = 0;
    /// Summed dK/dV entries first enclosed across a rounding boundary, and how many of them the
    /// group's own certified problem then decided (docs/oracle.md, "Gradients of a batch of heads").
    std::int64_t straddled = 0, refined = 0;
    std::vector<GradBatchJudgement> judged;  ///< dq, dk, dv: those given
    /// The 8-bit events of a claim that casts P or dS to fp8, when judged: each query head's
    /// emulation's, counts summed over the heads, the largest collapse and the first saturated
    /// or overflowed value named with their head (b, h) (docs/oracle.md, "8-bit floats").
    Fp8Events fp8;
    std::string diagnosis;
    [[nodiscard]] bool passed() const;
    [[nodiscard]] const GradField& field(const std::string& name) const;
};

/// The certified gradients of `batch` under the upstream gradient `d_out` (4-D, the layout's
/// (B, H_q, n_q, d_v)) rounded to `f`, and the gradients `actual` (dq: (B, H_q, n_q, d); dk, dv:
/// the kv heads', each in the layout) judged under the claim `spec`, on `threads` threads (0:
/// every core). ShapeError placed at `do`, `dq`, `dk` or `dv` before any work; an error inside a
/// head names the head.
GradBatch grad_batch(const Batch& batch, const Tensor& d_out, FloatFormat f,
                     const std::vector<std::pair<std::string, Tensor>>& actual, const GradSpec& spec, int threads);

/// The batch's summary: its heads and layout, per judged tensor the entries over their bound and
/// the worst (`dk[b=0, h=1, i=3, j=2] at 4.1 × its bound`), the diagnosis, the verdict.
std::string grad_batch_summary(const GradBatch& g);
/// The command line's reports: the summary after every entry of every field (text), or one JSON
/// object (docs/oracle.md, "Gradients of a batch of heads"). `fp8`: the 8-bit events to report
/// (the inputs' and g.fp8 merged; lines `fp8: …` / key `fp8`), none when nullptr.
std::string grad_batch_text(const GradBatch& g, const Fp8Events* fp8 = nullptr);
std::string grad_batch_json(const GradBatch& g, const Fp8Events* fp8 = nullptr);

}  // namespace exactattn::oracle
