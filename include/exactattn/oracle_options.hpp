// SPDX-License-Identifier: MIT
// exactattn oracle: what a front end hands the oracle — the problem's tensors and the texts of
// its options, a kernel's forward or backward claim as text — parsed and checked once for the
// command line and Python (docs/oracle.md). Each refusal is placed at the argument's Python
// name; the command line renames the place to its option.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exactattn/oracle.hpp"
#include "exactattn/oracle_grad.hpp"
#include "exactattn/oracle_grad_batch.hpp"

namespace exactattn::oracle {

/// A front end's problem, checked once for the command line and Python: the tensors it read,
/// `options` (problem_options) and the texts of the layout and the 8-bit overflow rule. A batch
/// of heads when q is 4-D (every shape checked: batch_shape), else a matrix problem with its mask
/// and bias set and validated; before either, an 8-bit input past the range is clamped and
/// counted under fp8_overflow `saturate` (refused under `error`). Refusals at `q`, `k`, `v`,
/// `mask`, `bias`, `layout` and `fp8_overflow` (Python's names; the command line renames them).
struct ProblemInputs {
    Problem p;
    std::optional<Batch> batch;
    Fp8Events fp8;  ///< the inputs saturated
};
ProblemInputs problem_inputs(Problem options, Tensor q, Tensor k, Tensor v, std::optional<Tensor> mask,
                             std::optional<Tensor> bias, std::string_view layout, std::string_view fp8_overflow);
/// The references of the problem: every head's of a batch (reference_batch, on `threads`
/// threads; `batch` and `heads` are its B and H_q) or the matrix problem's one (both 0), with
/// the weights too when `weights`.
struct References {
    std::vector<Reference> refs;
    std::int64_t batch = 0, heads = 0;
};
References reference_inputs(const ProblemInputs& in, FloatFormat f, bool weights, int threads);
/// A kernel's output judged under `spec` as both front ends judge it: a batch's by judge_batch
/// (heads on `threads` threads; weights are refused there, a UsageError at `weights`), a matrix
/// problem's by judge_problem.
JudgeReport judge_inputs(const ProblemInputs& in, FloatFormat f, const Tensor& out, const Tensor* weights,
                         const Tensor* lse, const AlgorithmSpec& spec, std::optional<double> tolerance_ulps,
                         int threads);
/// The gradients of the problem under `d_out` and, for each of a kernel's gradients in `actual`,
/// their judgement under `spec`: a batch's by grad_batch (heads on `threads` threads), a matrix
/// problem's by judge_grads. `events` are the 8-bit events so far (the inputs', dO's); the
/// claim's follow them, and fp8() is what the report names (reported_fp8).
struct GradsJudged {
    std::optional<GradBatch> batch;     ///< a batch of heads
    std::optional<GradVerdict> matrix;  ///< a matrix problem
    Fp8Events events;
    bool report_fp8 = false;
    [[nodiscard]] const Fp8Events* fp8() const { return report_fp8 ? &events : nullptr; }
    [[nodiscard]] bool passed() const { return batch ? batch->passed() : grads_passed(matrix->compared); }
};
GradsJudged judge_grad_inputs(const ProblemInputs& in, const Tensor& d_out, Fp8Events events, FloatFormat f,
                              const std::vector<std::pair<std::string, Tensor>>& actual, const GradSpec& spec,
                              int threads);
/// `spec` emulated on the batch (emulate_batch, on `threads` threads) or the matrix problem
/// (emulate), its 8-bit events after the inputs' own (in.fp8 first, then the kernel's).
Emulation emulate_inputs(const ProblemInputs& in, const EmulationSpec& spec, bool trace, int threads);
/// UsageError at `q` when the problem is a batch of heads: the backward is emulated for matrix
/// problems only (one reason for both front ends, each naming `q` as it writes it).
void refuse_grad_emulate_batch(const ProblemInputs& in);
/// The backward claim `spec` emulated on the matrix problem (grad_emulate; a batch refused by
/// refuse_grad_emulate_batch), its 8-bit events after `events` (the inputs', dO's).
GradEmulation grad_emulate_inputs(const ProblemInputs& in, const Tensor& d_out, Fp8Events events, const GradSpec& spec,
                                  FloatFormat f, bool trace);

/// A kernel's claim as a front end receives it, each option as its text (none: the default),
/// parsed and checked by parse_claim for the command line and Python alike (docs/oracle.md).
/// Each refusal is placed at the argument's Python name (`algorithm`, `accumulate`, `p_fmt`,
/// `bound`, `stored`, `p_descale`, `fp8_overflow`); the command line renames it to its option.
struct ClaimText {
    std::string algorithm = "safe";
    std::optional<std::string> accumulate;  ///< none: float32 (float64 for a float64 problem); never 8-bit
    std::optional<std::string> p_format;    ///< none: the problem's format
    std::int64_t block = 64;
    std::optional<std::string> bound;  ///< none: running
    std::optional<std::string> stored;
    std::string p_descale = "1";
    std::string fp8_overflow = "error";
};
/// The claim `c` on a problem in format `f`, each option parsed in the order above.
AlgorithmSpec parse_claim(const ClaimText& c, FloatFormat f);
/// The accumulator of a claim, forward or backward, judged or emulated, on the command line or
/// in Python: `accumulate` parsed (at `accumulate`; an 8-bit format refused there, as no kernel
/// accumulates in 8 bits), or float32 (float64 for a float64 problem) when none.
FloatFormat accumulate_of(const std::optional<std::string>& accumulate, FloatFormat f);

/// A backward claim as a front end receives it, each option as its text (none: the default),
/// parsed and checked (check_grad_spec) by parse_grad_claim for the command line and Python
/// alike. Each refusal is placed at the argument's Python name (`backward`, `accumulate`,
/// `storage`, `delta_from`, `p_fmt`, `p_descale`, `fp8_overflow`, `ds_fmt`, `ds_descale`); the
/// command line renames it to its option.
struct GradClaimText {
    std::string backward = "standard";
    std::optional<std::string> accumulate;  ///< none: float32 (float64 for float64 gradients)
    std::optional<std::string> storage;
    std::optional<std::string> delta_from;
    std::int64_t block = 64;
    std::optional<std::string> p_format;
    std::string p_descale = "1";
    std::string fp8_overflow = "error";
    std::optional<std::string> ds_format;
    std::string ds_descale = "1";
};
/// The backward claim `c` on gradients in format `f`, each option parsed in the order above.
GradSpec parse_grad_claim(const GradClaimText& c, FloatFormat f);

}  // namespace exactattn::oracle
