// SPDX-License-Identifier: MIT
// exactattn internal: a written claim (the tool's, Unicode or LaTeX notation; chains of
// links; decimals, percentages, counts, tokens) judged against one quantity of the report.
#pragma once

#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "scenario/json.hpp"

namespace exactattn::manuscript {

/// Whether an error is the job's work budget refusing a step (docs/limits.md): what reads a
/// manuscript takes "not a value" for an error, but never this one, which ends the command.
bool work_refusal(const Error& e);

/// An ASCII letter (as the C locale's isalpha says): what the claims' words and the plain
/// notation's commands are spelled with.
inline bool is_letter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

/// The vulgar fractions a claim may be written with (`½`), each with the fraction it spells out:
/// the one table that plain_notation() reads and the binder finds numbers by.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kVulgarFractions{{
    {"½", "(1/2)"},
    {"⅓", "(1/3)"},
    {"⅔", "(2/3)"},
    {"¼", "(1/4)"},
    {"¾", "(3/4)"},
    {"⅕", "(1/5)"},
    {"⅖", "(2/5)"},
    {"⅙", "(1/6)"},
}};
/// The number words a claim may be written in ("twelve"), each at the index of its value.
inline constexpr std::array<std::string_view, 21> kNumberWords{
    "zero",     "one",     "two",     "three",     "four",     "five",     "six",
    "seven",    "eight",   "nine",    "ten",       "eleven",   "twelve",   "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"};

/// The claim in the tool's input notation: LaTeX (`\tfrac{a}{2}`, `\left[…\right]`, `\times`,
/// `\sqrt{2}`, `\approx`) and Markdown escapes rewritten, `$` dropped, vulgar fractions (½)
/// spelled out. `\qquad` separates the rows of a list (`h_1=[a,0],\qquad h_2=[0,a]`).
std::string plain_notation(std::string_view written);

/// The verdict on one claim.
struct ClaimJudgement {
    bool passed = false;
    std::string detail;  ///< which link or entry failed, and the rule for a decimal
};

/// Judges `written` against the report's value `target`. A chain `x = y ≈ z` holds when every
/// element other than a leading name (c_1, r, e^a) equals the quantity: exactly after `=`,
/// by correct rounding to the places written for a decimal standing alone or after `≈`.
/// ParseError (placed by the caller) when an element is not a value and the quantity is not a
/// token.
ClaimJudgement judge_claim(std::string_view written, const detail::Json& target);

/// Whether a written claim nests brackets, parentheses or braces deeper than any claim needs (64):
/// judge_claim refuses it before its recursive readers see it.
bool nests_too_deep(std::string_view written);

/// Whether a chain contradicts itself (`1 + 2 + 1 = 5`, `2/4 = 1/3`, `[a/4, a/3]` after a sum
/// that is `[a/4, a/2]`, `a/2 ≈ 0.35`): every element after an optional leading name is compared
/// with the first, exactly, or by correct rounding to the places written for a decimal (after
/// `=` too: the chain is judged by its own values, not by the strictness of `check`). Nothing
/// when it holds, or when an element is not an exact value or the first is a decimal; else which
/// link fails, as judge_claim says it. Used by audit for a chain no quantity verifies.
std::optional<std::string> chain_contradiction(std::string_view written);

/// The report's value as a claim would print it: `a/2`, `[a/2, a/4]`, `[[a, 0], [0, a]]`.
std::string quantity_text(const detail::Json& target);

/// The elements of a chain written in plain notation, split at top-level `=` and `≈`, with
/// their separators: ("=", "2/4"), … The first has an empty separator.
std::vector<std::pair<std::string, std::string>> chain_elements(const std::string& plain);

/// Whether a plain element is a value that can stand for a quantity (a number, an exact
/// expression, a vector or vector sum, a decimal, a percentage), and the exact value when it is
/// exact; used by audit. Nothing for text.
struct ParsedElement {
    bool numeric = false;
    detail::Json as_json;  ///< the exact value(s) as report strings, when exact
    bool exact = false;
};
ParsedElement parse_element(const std::string& plain);

/// What a statement in plain notation claims, for audit: whether it is a claim at all (every
/// element after an optional leading name is a value), that name (`h_1`, `c_1`, `r`), and the
/// shape of its last value (-1: a scalar; n: a vector of n entries; a matrix: n rows).
struct StatementShape {
    bool numeric = false;
    std::string label;
    int entries = -1;
    bool matrix = false;
};
StatementShape statement_shape(const std::string& plain);

}  // namespace exactattn::manuscript
