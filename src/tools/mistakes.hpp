// SPDX-License-Identifier: MIT
// exactattn internal: the registry of known mistakes (src/check.cpp) for other commands — the
// variants' `mistakes_differ` constraint recomputes its answer with the same entries `check`
// names, not a copy of them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "exactattn/answer_entry.hpp"
#include "exactattn/error.hpp"
#include "exactattn/report.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

/// The quantity at a run-report pointer, right and recomputed by known mistakes.
struct MistakenAnswers {
    /// The report's value at the target, flattened row by row (empty where it has no entry).
    std::vector<std::optional<Value>> right;
    /// (id, values) for each of the asked mistakes that applies to the target, in registry
    /// order, flattened as `right`; e-instead-of-2's values are enclosed, not exact.
    std::vector<std::pair<std::string, std::vector<std::optional<Real>>>> by_id;
};

/// Recomputes the quantity at `target` (resolved in `doc`, report_to_json(rep)) with each
/// registry mistake named in `ids`. A mistake that does not apply there (forget-exp with scores
/// summing to 0, forget-renormalize without a removal) is left out. ReferenceError at `where`
/// when the target names no quantity.
MistakenAnswers mistaken_answers(const Report& rep, const Json& doc, const std::string& target,
                                 const std::vector<std::string>& ids, const Location& where);

}  // namespace exactattn::detail
