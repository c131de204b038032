// SPDX-License-Identifier: MIT
// exactattn: the names a scenario file gives its enums, one table each.
#include "scenario/enum_names.hpp"

namespace exactattn::detail {

const EnumNames<ScoreRule>& score_rule_names() {
    static const EnumNames<ScoreRule> names = {{"dot", ScoreRule::Dot}, {"scaled-dot", ScoreRule::ScaledDot}};
    return names;
}

const EnumNames<Activation>& activation_names() {
    static const EnumNames<Activation> names = {{"relu", Activation::Relu}, {"identity", Activation::Identity}};
    return names;
}

const EnumNames<InterventionKind>& intervention_kind_names() {
    static const EnumNames<InterventionKind> names = {{"remove-state", InterventionKind::RemoveState},
                                                      {"zero-score", InterventionKind::ZeroScore},
                                                      {"delete-token", InterventionKind::DeleteToken}};
    return names;
}

const EnumNames<TieRule>& tie_rule_names() {
    static const EnumNames<TieRule> names = {{"first", TieRule::First}, {"refuse", TieRule::Refuse}};
    return names;
}

const EnumNames<FigureKind>& figure_kind_names() {
    static const EnumNames<FigureKind> names = {{"read-comparison", FigureKind::ReadComparison},
                                                {"dependency", FigureKind::Dependency},
                                                {"heatmap", FigureKind::Heatmap},
                                                {"intervention", FigureKind::Intervention},
                                                {"crosscheck", FigureKind::Crosscheck}};
    return names;
}

}  // namespace exactattn::detail
