// SPDX-License-Identifier: MIT
// exactattn internal: the registry of known mistakes — each a named recomputation of a target
// quantity the wrong way —, read by `check`'s judge and by the variants' `mistakes_differ`
// constraint, which recomputes its answer with the same entries `check` names, not a copy of them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "exactattn/answer_entry.hpp"
#include "exactattn/error.hpp"
#include "exactattn/report.hpp"
#include "scenario/json.hpp"
#include "tools/check/locate.hpp"

namespace exactattn::detail {

/// The target computed the wrong way, flattened as the report's quantity (nullopt: no entry).
struct Wrong {
    std::string explain;
    std::vector<std::optional<Real>> values;
};

/// One known mistake: its id (docs/check.md), whether an exercise may accept it as right
/// ("accept": [id]), and the recomputation (none where it does not apply).
struct Mistake {
    const char* id;
    bool acceptable;
    std::function<std::optional<Wrong>(const Ctx&)> recompute;
};

/// The registry, in the order the mistakes are tried. A new mistake is a new entry, not a new
/// code path.
const std::vector<Mistake>& registry();

/// The quantity at a run-report pointer, right and recomputed by known mistakes.
struct MistakenAnswers {
    /// The report's value at the target, flattened row by row (empty where it has no entry).
    std::vector<std::optional<Value>> right;
    /// (id, values) for each of the asked mistakes that applies to the target, in registry
    /// order, flattened as `right`; e-instead-of-2's values are enclosed, not exact.
    std::vector<std::pair<std::string, std::vector<std::optional<Real>>>> by_id;
    /// The sentence `check` names each of by_id's mistakes with, in the same order.
    std::vector<std::string> explain;
};

/// Recomputes the quantity at `target` (resolved in `doc`, report_to_json(rep)) with each
/// registry mistake named in `ids`. A mistake that does not apply there (forget-exp with scores
/// summing to 0, forget-renormalize without a removal) is left out. ReferenceError at `where`
/// when the target names no quantity.
MistakenAnswers mistaken_answers(const Report& rep, const Json& doc, const std::string& target,
                                 const std::vector<std::string>& ids, const Location& where);

/// Two registry mistakes made one after the other (docs/check.md, "Two-step mistakes"): `id`
/// joins the two ids in registry order with `+` (`divide-by-count+forget-scale`).
struct TwoStep {
    std::string id;
    std::string explain;
    std::vector<std::optional<Real>> values;
};

/// The rows of the head quantity a layer context names as a whole (…/heads/<h>/weights, outputs
/// or denominators), each a read with its own context, located once for every mistake; none for
/// any other target.
const RowContexts* head_rows(const Ctx& c);

/// The two-step mistakes at the context: a read set up the wrong way (forget-scale,
/// zero-score-for-removal) then normalised the wrong way (divide-by-count, forget-exp,
/// e-instead-of-2, unnormalized-exponentials, forget-renormalize), on a read or row by row on a
/// layer head's whole quantity, and any single mistake's answer with the factor a dropped (drop-a). A composition whose
/// values equal the right answer's, a single mistake's or an earlier composition's is left out.
std::vector<TwoStep> two_step_mistakes(const Ctx& c);

}  // namespace exactattn::detail
