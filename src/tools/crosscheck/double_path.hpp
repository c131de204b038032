// SPDX-License-Identifier: MIT
// exactattn internal: crosscheck's independent double path — every state, score, weight, context
// and readout recomputed in binary64 from the scenario's declarations (never from the exact
// results), each with an a-priori bound on its error (docs/crosscheck.md).
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "exactattn/crosscheck.hpp"
#include "exactattn/report.hpp"

namespace exactattn::detail::fp {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// A double the path computes, v, with e ≥ |v − exact|, where "exact" is the mathematical value
/// the double path approximates (docs §3).
struct D {
    double v = 0;
    double e = 0;
};
using DVec = std::vector<D>;
using DMat = std::vector<DVec>;

/// Inputs as a floating-point program forms them: Σ_k double(F_k) · a^k, with their rounding.
DVec input_vector(const Vector& v);

/// The encoder's states of `tokens` in double.
DMat encode_double(const Scenario& s, const std::vector<std::string>& tokens);
/// A source's states in double: encoded from its tokens, or its declared states.
DMat source_double(const Scenario& s, const Source& src);

struct DRead {
    DVec scores;   /// NaN where removed
    DVec weights;  /// 0 where removed
    DVec context;
    std::optional<D> readout;
    double max_score = 0;
};

/// One read in double: scores, the max-subtracted softmax, context and readout (docs §4).
DRead read_double(const DMat& mem, const DVec& q, const std::vector<Mark>& marks, const std::optional<DVec>& readout,
                  ScoreRule rule);
/// The naive softmax, exp(s_j) / Σ_k exp(s_k) without max subtraction, for contrast (docs §6).
NaiveRow naive_softmax(const DRead& r, const std::vector<Mark>& marks);
/// A declared readout in double (none when the read has none).
std::optional<DVec> readout_double(const std::optional<NamedVector>& r);

/// One decoder step in double: the read, the state, the output scores and the first largest
/// score's index (what a floating-point argmax picks).
struct DStep {
    DRead read;
    DVec state;
    DVec scores;
    std::size_t argmax = 0;
};

/// The rollout recomputed in double from the declarations: generation feeds the double path's
/// own choices, so after a split its inputs are its own.
std::vector<DStep> rollout_double(const Scenario& s, const RolloutSpec& spec, Regime regime, std::size_t steps);

}  // namespace exactattn::detail::fp
