// SPDX-License-Identifier: MIT
// exactattn internal: the names a scenario file gives its enums — one table each, which the
// loader reads, the writer writes and the messages list (the regimes' table is the decoder's,
// regime_names()).
#pragma once

#include "core/names.hpp"
#include "exactattn/scenario.hpp"

namespace exactattn::detail {

/// "score": dot, scaled-dot.
const EnumNames<ScoreRule>& score_rule_names();
/// An encoder's or decoder's "activation": relu, identity.
const EnumNames<Activation>& activation_names();
/// An intervention's "kind": remove-state, zero-score, delete-token.
const EnumNames<InterventionKind>& intervention_kind_names();
/// A decoder's "ties": first, refuse.
const EnumNames<TieRule>& tie_rule_names();
/// A figure's "kind": read-comparison, dependency, heatmap, intervention, crosscheck.
const EnumNames<FigureKind>& figure_kind_names();

}  // namespace exactattn::detail
