// SPDX-License-Identifier: MIT
// exactattn oracle, backward pass (docs/oracle.md, "Certified gradients"): the true gradients
// dQ, dK, dV of attention under an upstream gradient dO, and the intermediates a backward kernel
// prints (P, dP, D, dS, the LSE), each entry enclosed and correctly rounded to a format.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "exactattn/oracle.hpp"

namespace exactattn::oracle {

/// One tensor of the certified gradient, row-major: each entry correctly rounded (`val`), the
/// certified enclosure of the true value in outward doubles (`lo` ≤ true ≤ `hi`), and 1 in
/// `exact` where the true value is known as an exact rational (then `lo`/`hi` enclose it too).
struct GradField {
    std::string name;  ///< dq, dk, dv, p, dp, d, ds, lse, out
    std::vector<std::int64_t> shape;
    std::vector<double> val, lo, hi;
    std::vector<std::uint8_t> exact;
};

/// The certified backward pass of one problem. With S = c Q Kᵀ + bias (masked keys removed),
/// P = softmax(S) (base e, or base 2: P_ij ∝ 2^S_ij), O = P V:
///   dP = dO Vᵀ, D_i = Σ_c dO_ic O_ic, dS = ∂L/∂S = λ P ∘ (dP − D) (λ = 1, or ln 2 for base 2),
///   dQ = c dS K, dK = c dSᵀ Q, dV = Pᵀ dO.
/// dS is the gradient with respect to the scaled scores S, not to Q Kᵀ.
struct GradReference {
    FloatFormat format = FloatFormat::Float32;
    ExpBase base = ExpBase::E;
    std::int64_t n_q = 0, n_k = 0, d = 0, d_v = 0;
    GradField dq, dk, dv, p, dp, delta, ds, lse, out;
    std::int64_t max_precision = 53;  ///< the largest MPFR precision any entry needed
    std::int64_t exact_entries = 0;   ///< entries known exactly (rational)
    /// The fields in report order: dq, dk, dv, out, lse, d, p, dp, ds.
    [[nodiscard]] std::vector<const GradField*> fields() const;
};

/// The certified gradients of `p` (validated as the forward's reference does) under the upstream
/// gradient `d_out` (n_q × d_v, finite values of its format; ShapeError/DomainError placed at
/// `do`). DomainError for a fully masked row under MaskedRows::Error (other semantics: the row
/// does not depend on the inputs, its gradients are 0); LimitError past limits().max_cells, the
/// work budget or limits().max_precision.
GradReference grad_reference(const Problem& p, const Tensor& d_out, FloatFormat format);

/// A kernel's gradient compared with the reference, entry by entry, in ULPs of the format at the
/// correctly rounded reference value: |actual − ref| / ulp(ref). No a-priori bound is applied
/// (docs/oracle.md, "Certified gradients"): this is a measurement, never a verdict.
struct GradComparison {
    std::string name;  ///< dq, dk or dv
    std::int64_t entries = 0, differing = 0;
    double max_ulps = 0;
    std::int64_t worst = -1;  ///< row-major index of the largest error (−1: all equal)
    double worst_actual = 0, worst_reference = 0;
    /// Filled by judge_grad (docs/oracle.md, "Bounds for the backward"): entries over their bound
    /// (an unbounded entry always counts), the largest |actual − exact|/bound over the bounded
    /// entries and where, the first entry over and the reason of the first unbounded one.
    bool judged = false;
    std::int64_t over = 0, unbounded = 0, first_over = -1, worst_fraction = -1;
    double max_fraction = 0, worst_bound = 0;
    std::string unbounded_reason;
};

/// Compares `actual` (the shape of the field, values of the reference's format; ShapeError or
/// DomainError placed at `name`: dq, dk or dv) with the reference's field of that name.
GradComparison compare_grad(const GradReference& g, const std::string& name, const Tensor& actual);

/// The backward algorithm a kernel claims (docs/oracle.md, "Bounds for the backward"): the
/// standard one (P materialised by a safe softmax and kept, dP = dO·Vᵀ, D, dS = P∘(dP − D), the
/// products) or FlashAttention-2's (P recomputed from the saved LSE per key block, D from O).
enum class GradAlgorithm { Standard, Flash2 };
/// Where D comes from: rowsum(dO ∘ O) with the forward's stored O, or rowsum(P ∘ dP).
enum class DeltaFrom { Out, P };
/// `standard` | `flash2` (alias `fa2`), and `o` | `p`; UsageError at `where` otherwise.
GradAlgorithm parse_grad_algorithm(std::string_view name, const Location& where = {});
const char* grad_algorithm_name(GradAlgorithm a);
DeltaFrom parse_delta_from(std::string_view name, const Location& where = {});

/// A backward claim: its algorithm, the format every operation is rounded in (`accumulate`), the
/// format its tensors are stored in between the steps (`storage`: the forward's O, the standard
/// algorithm's S, P, dP, D, dS; FlashAttention-2's P before dV and dS before dQ and dK; default:
/// the gradients' format), where D comes from (default: P for standard, O for flash2) and the
/// key block of flash2 (which the bound does not depend on; the emulation's order).
struct GradSpec {
    GradAlgorithm algorithm = GradAlgorithm::Standard;
    FloatFormat accumulate = FloatFormat::Float32;
    std::optional<FloatFormat> storage;
    std::optional<DeltaFrom> delta;
    std::int64_t block = 64;
    /// The format P is cast to before dV = Pᵀ·dO (an FP8 backward's E4M3 P; docs/oracle.md,
    /// "8-bit floats"), as P̃ = fl_p(fl(P·σ)) with the descale σ (static, or per block of `block`
    /// keys of a row) divided out of dV; none: P as the algorithm keeps it (storage).
    std::optional<FloatFormat> p_format;
    PDescale p_descale = {};
    /// The format dS is cast to before dQ = dS·K and dK = dSᵀ·Q, as dS̃ = fl_8(fl(dS·σ)) with its own
    /// descale (static, or per block of `block` keys of a row from the block's largest |dS|),
    /// divided out of dQ and dK; none: dS as stored.
    std::optional<FloatFormat> ds_format;
    PDescale ds_descale = {};
    /// What a cast past an 8-bit range gives (P·σ, dS·σ, the gradients rounded to an 8-bit format).
    Fp8Overflow fp8_overflow = Fp8Overflow::Error;
    /// True when the claim casts P or dS to an 8-bit format (its emulation names the events).
    [[nodiscard]] bool casts_fp8() const {
        return (p_format && is_fp8(*p_format)) || (ds_format && is_fp8(*ds_format));
    }
    [[nodiscard]] DeltaFrom delta_from() const {
        return delta ? *delta : algorithm == GradAlgorithm::Standard ? DeltaFrom::P : DeltaFrom::Out;
    }
    /// The storage format: `storage`, or the gradients' format, float32 when that is 8-bit (a
    /// kernel keeps only the tensors it declares in 8 bits: P through p_format).
    [[nodiscard]] FloatFormat storage_format(FloatFormat output) const {
        return storage ? *storage : is_fp8(output) ? FloatFormat::Float32 : output;
    }
};

/// Refuses a claim no kernel runs (UsageError): flash2 with D from P, an 8-bit accumulator.
void check_grad_spec(const GradSpec& s);

/// The running bound on |actual − exact| of every entry of dQ, dK and dV (row-major, the fields'
/// shapes) of a kernel that runs `s` and rounds its gradients to g.format, from the problem's
/// actual magnitudes (docs/oracle.md, "Bounds for the backward"); +inf where the claim guarantees
/// nothing, with the reason in `why` (by tensor: dq, dk, dv).
struct GradBounds {
    std::vector<double> dq, dk, dv;
    std::string why_dq, why_dk, why_dv;
};
GradBounds grad_bounds(const Problem& p, const Tensor& d_out, const GradReference& g, const GradSpec& s);

/// `compare_grad` and then the verdict: each entry within its bound when every x of the exact
/// value's enclosure has |actual − x| ≤ bound; an unbounded entry, NaN or ±inf is over.
GradComparison judge_grad(const GradReference& g, const GradBounds& b, const std::string& name, const Tensor& actual);
/// True when every judged comparison has no entry over its bound.
bool grads_passed(const std::vector<GradComparison>& compared);

/// The backward emulated with every operation correctly rounded in s.accumulate, the stored
/// tensors rounded to the storage format, the gradients to `output` (docs/oracle.md, "Emulating
/// the backward"): also the forward's stored O and its LSE, and on request a trace of the steps
/// where the formats show.
struct GradEmulation {
    Tensor dq, dk, dv, out, lse;
    std::vector<std::string> trace;
    Fp8Events fp8;  ///< P-collapse and saturation of the 8-bit casts (P·σ, the gradients)
};
GradEmulation grad_emulate(const Problem& p, const Tensor& d_out, const GradSpec& s, FloatFormat output, bool trace);
/// The claim in words: "flash2 backward, accumulate float32, storage bfloat16, D from O, key blocks of 64".
std::string grad_spec_text(const GradSpec& s, FloatFormat output);
std::string grad_emulation_text(const GradEmulation& e, const GradSpec& s);
std::string grad_emulation_json(const GradEmulation& e, const GradSpec& s);

/// After a failed judgement, the backward mistake that explains the kernel's gradients `actual`
/// (name and tensor, judged in `compared` under `b`), or "" (docs/oracle.md, "Diagnoses of the
/// backward"): the scale missing from dS or applied twice, the mask or the causal alignment
/// dropped in the backward only, D from the unnormalised accumulator or from O rounded to a
/// narrower format, the LSE's base mixed up, the last key tile dropped. Each is named only when
/// the gradients it produces (computed in double) fit at least 99% of the entries within the
/// claim's running bound and fit 4 times better in all than the true gradients.
std::string diagnose_grads(const Problem& p, const Tensor& d_out, const GradReference& g, const GradBounds& b,
                           const GradSpec& s, const std::vector<std::pair<std::string, Tensor>>& actual,
                           const std::vector<GradComparison>& compared);

/// The certified gradients of `p` under `d_out` in format `f` and, for each of a kernel's
/// gradients in `actual` (dq, dk, dv), its judgement under the running bound of `spec` and the
/// diagnosis: what grad-reference and Python's judge_grads report, computed once for both. A
/// judged claim that casts to 8 bits adds its emulation's events to `events` (as judge does).
struct GradVerdict {
    GradReference g;
    std::optional<GradBounds> bounds;  ///< when judged
    std::vector<GradComparison> compared;
    std::string diagnosis;
};
GradVerdict judge_grads(const Problem& p, const Tensor& d_out, FloatFormat f,
                        const std::vector<std::pair<std::string, Tensor>>& actual, const GradSpec& spec,
                        Fp8Events& events);
/// The 8-bit events a gradients' report names (`fp8`): `events` when any happened or a claim
/// that casts to 8 bits was judged (its counts, zero or not, are part of the verdict); else none.
const Fp8Events* reported_fp8(const Fp8Events& events, const GradSpec& spec, bool judged);

/// The reports, text and JSON (docs/oracle.md, "Certified gradients").
/// `spec`: the claim the comparisons were judged under (named in the report), when judged;
/// `diagnosis`: diagnose_grads()'s verdict (a line `diagnosis: …` / the JSON key `diagnosis`);
/// `fp8`: the 8-bit events (inputs saturated, the claim's P-collapse; lines `fp8: …` / key `fp8`).
std::string grad_reference_text(const GradReference& g, const std::vector<GradComparison>& compared,
                                const GradSpec* spec = nullptr, const std::string& diagnosis = "",
                                const Fp8Events* fp8 = nullptr);
std::string grad_reference_json(const GradReference& g, const std::vector<GradComparison>& compared,
                                const GradSpec* spec = nullptr, const std::string& diagnosis = "",
                                const Fp8Events* fp8 = nullptr);

}  // namespace exactattn::oracle
