// SPDX-License-Identifier: MIT
// exactattn internal: `check` for targets that hold tokens (a rollout's chosen token, its
// generated sequence, a source's tokens), used by check.cpp and the scenario loader.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exactattn/check.hpp"
#include "exactattn/document.hpp"
#include "exactattn/error.hpp"
#include "exactattn/report.hpp"
#include "report/targets.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

/// read_proposal() for a token target: `blue`, `[a, blue, key, .]`, `["," , x]`. ParseError
/// (with its column) for invalid UTF-8, an unclosed list or quote, an empty token.
void read_token_proposal(std::string_view text, LearnerAnswer& la);

/// Tokens as an answer writes them: `blue`, `[a, blue, key, .]` (token_text() each), `null` for
/// a step whose tie the rule refused: `[maybe, null]`.
std::string tokens_text(const std::vector<std::optional<std::string>>& tokens, bool scalar);
std::string tokens_text(const std::vector<std::string>& tokens, bool scalar);

/// Tokens in prose (an answer key, a variant's parts): each set as a token, a list in brackets.
Inline tokens_inline(const std::vector<std::optional<std::string>>& tokens, bool scalar);
Inline tokens_inline(const std::vector<std::string>& tokens, bool scalar);

/// The tokens a learner's entries propose: none for `null` (Form::NoToken).
std::vector<std::optional<std::string>> proposed_tokens(const std::vector<AnswerEntry>& entries);

/// A judgement of `answer` before any comparison: its name, target, entries and shape.
Judgement judgement_of(const LearnerAnswer& answer);

/// judge() for a target that names_tokens(): exact comparison of the tokens (a step's argmax
/// as a set), findings (a token outside the vocabulary, a difference in letter case only), and
/// the token mistakes of docs/check.md (other-tied-token, other-regime, reference-token).
Judgement judge_tokens(const Report& rep, const Json& doc, const LearnerAnswer& answer, const Location& where);

}  // namespace exactattn::detail
