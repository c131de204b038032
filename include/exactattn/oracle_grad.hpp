// SPDX-License-Identifier: MIT
// exactattn oracle, backward pass (docs/oracle.md, "Certified gradients"): the true gradients
// dQ, dK, dV of attention under an upstream gradient dO, and the intermediates a backward kernel
// prints (P, dP, D, dS, the LSE), each entry enclosed and correctly rounded to a format.
#pragma once

#include <cstdint>
#include <string>
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
};

/// Compares `actual` (the shape of the field, values of the reference's format; ShapeError or
/// DomainError placed at `name`: dq, dk or dv) with the reference's field of that name.
GradComparison compare_grad(const GradReference& g, const std::string& name, const Tensor& actual);

/// The reports, text and JSON (docs/oracle.md, "Certified gradients").
std::string grad_reference_text(const GradReference& g, const std::vector<GradComparison>& compared);
std::string grad_reference_json(const GradReference& g, const std::vector<GradComparison>& compared);

}  // namespace exactattn::oracle
