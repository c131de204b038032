// SPDX-License-Identifier: MIT
// exactattn: the chapter's computed teaching diagrams (docs/figures.md), drawn from a run's
// exact traces: read comparison (Figure 14.1), dependency diagram (Figure 14.2), attention
// heatmap, intervention chart and crosscheck plot. Every label is a computed value in its display
// form (the crosscheck plot also prints the double path's errors, three digits).
#pragma once

#include <string>

#include "exactattn/document.hpp"
#include "exactattn/report.hpp"

namespace exactattn {

/// The declared figure, drawn from the report's traces: its picture, number, caption, label
/// ("figure-14.1", or "figure-<name>") and a description with its numbers.
FigureBlock figure_block(const Report& report, const FigureSpec& spec);

/// The declared figure named `name_or_number` (its key in `figures`, or its number "14.1").
/// ReferenceError naming the declared figures when there is none.
const FigureSpec& find_figure(const Scenario& scenario, const std::string& name_or_number);

}  // namespace exactattn
