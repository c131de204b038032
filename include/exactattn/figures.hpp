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

/// The run's document: report_document() with every figure the scenario declares drawn in its
/// place (what `run` prints in every format but JSON).
Document run_document(const Report& report);

/// The report in a format. JSON is the document `expect` pointers address (docs/report.md):
/// /sources/<name>/states, /reads/<name>/{scores,exponentials,denominator,weights,context,readout},
/// /interventions/<name>/rows/<k>/…, /costs/<name>/…; the other formats render run_document().
std::string render_report(const Report& report, Format format, const RenderOptions& options = {});

}  // namespace exactattn
