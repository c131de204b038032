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
/// Numbers the tables of a layer or rollout, doc.blocks[from…]: the first gets `number` (and
/// `caption`, Markdown written at `caption_place`, when given, before its own caption, so that
/// it still says what the table shows: "…: Scores (head 1) (masked: —)"), the k-th `number.k`
/// (docs/output.md); nothing without a number or caption.
void number_tables(Document& doc, std::size_t from, const std::string& number, const std::string& caption,
                   const Location& caption_place);

}  // namespace exactattn::detail
