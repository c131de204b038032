// SPDX-License-Identifier: MIT
// exactattn internal: what a learner answer's target names in the run report: a quantity
// (a value, a vector or a matrix of values) or tokens.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "exactattn/error.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

/// The report's value at a target, flattened row by row (a matrix: `columns` per row; a single
/// value: `scalar`); an entry without a value (a removed position) is nullopt.
struct Flat {
    std::vector<std::optional<Value>> values;
    std::size_t columns = 0;
    bool scalar = false;
};
/// ReferenceError at `where` (naming `target`) when `j` is not a quantity: tokens, text, a
/// ragged array, or a single value the report does not have.
Flat flatten(const Json& j, const Location& where, const std::string& target);

/// The quantity at `target`, resolved against the report's own values (exact values, vectors,
/// matrices, memories and counts), not printed to JSON text and parsed back: the same Flat, and
/// the same ReferenceError, as flatten(resolve_pointer(report_to_json(rep), target, where),
/// where, target). What the values do not answer (a pointer that names nothing, text, tokens,
/// a flag, a decimal, a section, a rollout's entries) is resolved in `doc`, the JSON report,
/// which also names what is there instead of a missing part.
Flat report_quantity(const Report& rep, const std::string& target, const Location& where, const Json& doc);

/// The tokens at a pointer that names_tokens(): one (`scalar`) or a list. ReferenceError at
/// `where` when the report has none there (a tie the rule refused, no divergence) or holds
/// something else.
struct TokensAt {
    std::vector<std::optional<std::string>> tokens;  ///< none: a step whose tie the rule refused (null)
    bool scalar = false;
};
TokensAt tokens_at(const Json& doc, const std::string& target, const Location& where);

/// Throws ReferenceError at `where` unless the learner answer's target names a quantity of
/// the report (a value, a vector or a matrix of values) or, for a token target, tokens; `doc`
/// is the JSON report.
void check_answer_target(const Report& rep, const LearnerAnswer& la, const Location& where, const Json& doc);

}  // namespace exactattn::detail
