// SPDX-License-Identifier: MIT
// exactattn: exercise answer keys generated from the exact traces.
#pragma once

#include <string>

#include "exactattn/document.hpp"
#include "exactattn/report.hpp"

namespace exactattn {

/// The answer key of every exercise in the report's scenario: the prompt, the exact numbers
/// and short derivation sentences generated from the traces, in the style of a textbook's
/// reference answers (for a read: scores, exponentials, total, weights, context, readout with its
/// arithmetic; for an intervention: each row, and whether the largest weight identifies the
/// removal that changes the readout most; for costs: the products that give them; for learner
/// answers: the verdict and the mistake).
Document answers_document(const Report& report);

/// The answer key in a format: text, Markdown, LaTeX, HTML (the document) or JSON (per exercise:
/// id, title, prompt, answer sentences in Unicode text, exact values). UsageError for CSV.
std::string render_answers(const Report& report, Format format, const RenderOptions& options = {});

}  // namespace exactattn
