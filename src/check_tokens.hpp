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
#include "json_io.hpp"

namespace exactattn::detail {

/// The tokens at a pointer that names_tokens(): one (`scalar`) or a list. ReferenceError at
/// `where` when the report has none there (a tie the rule refused, no divergence) or holds
/// something else.
struct TokensAt {
    std::vector<std::string> tokens;
    bool scalar = false;
};
TokensAt tokens_at(const Json& doc, const std::string& target, const Location& where);

/// The reference tokens of a JSON pointer (RFC 6901 decoded); none when it is not a valid pointer.
std::optional<std::vector<std::string>> pointer_parts(std::string_view pointer);

/// read_proposal() for a token target: `blue`, `[a, blue, key, .]`, `["," , x]`. ParseError
/// (with its column) for invalid UTF-8, an unclosed list or quote, an empty token.
void read_token_proposal(std::string_view text, LearnerAnswer& la);

/// Tokens as an answer writes them: `blue`, `[a, blue, key, .]` (token_text() each).
std::string tokens_text(const std::vector<std::string>& tokens, bool scalar);

/// Tokens in prose (an answer key, a variant's parts): each set as a token, a list in brackets.
Inline tokens_inline(const std::vector<std::string>& tokens, bool scalar);

/// One entry of a token answer: the token itself.
AnswerEntry token_entry(std::string token);

/// judge() for a target that names_tokens(): exact comparison of the tokens (a step's argmax
/// as a set), findings (a token outside the vocabulary, a difference in letter case only), and
/// the token mistakes of docs/check.md (other-tied-token, other-regime, reference-token).
Judgement judge_tokens(const Report& rep, const Json& doc, const LearnerAnswer& answer, const Location& where);

}  // namespace exactattn::detail
