// SPDX-License-Identifier: MIT
// exactattn internal: a rollout in the run report — its JSON object and its document sections.
#pragma once

#include "exactattn/document.hpp"
#include "exactattn/report.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

/// /rollouts/<name> of the report (docs/decoder.md).
Json rollout_to_json(const Report& rep, const RolloutResult& r);
/// A rollout's sections under a heading of `level`.
void add_rollout(Document& doc, const Report& rep, const RolloutResult& r, int level);

}  // namespace exactattn::detail
