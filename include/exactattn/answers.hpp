// SPDX-License-Identifier: MIT
// exactattn: exercise answer keys generated from the exact traces.
#pragma once

#include <string>

#include "exactattn/report.hpp"

namespace exactattn {

/// The answer key of every exercise in the report's scenario: the prompt, the exact numbers
/// and short derivation sentences generated from the traces, in the style of a textbook's
/// reference answers (for a read: scores, exponentials, total, weights, context, readout with its
/// arithmetic; for an intervention: each row, and whether the largest weight identifies the
/// removal that changes the readout most; for costs: the products that give them; for learner
/// answers: the verdict and the mistake). Formats: Markdown, LaTeX, JSON.
/// Throws UsageError for other formats.
std::string render_answers(const Report& report, Format format);

}  // namespace exactattn
