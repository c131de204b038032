// SPDX-License-Identifier: MIT
// exactattn internal: the one rule that sets the notation of generated prose as math
// (docs/output.md, "Notation in generated prose"): `e^k`, `e^(k·a)`, `2^k`, `√d_k`, `q_1`,
// `s_(t-1)`, `XW_K` in a sentence the tool writes become math in LaTeX, HTML and Markdown
// instead of literal carets and underscores.
#pragma once

#include <string>
#include <vector>

namespace exactattn::detail {

/// A run of prose: plain text, or notation as TeX source (`e^{k\cdot a}`, `\sqrt{d_{k}}`).
struct NotationPiece {
    bool math = false;
    std::string text;
};

/// Splits generated prose at its notation. Recognised, each standing as a word of its own (not
/// inside a longer word, a JSON pointer or a file name): a base of one or two ASCII letters
/// or of digits with a superscript (`^k`, `^-1`, `^(k·a)`), a base of one or two letters with a
/// subscript (`_1`, `_k`, `_3j`, `_(t-1)`), and √ before a number or such a name. The rest is
/// text. A text without ^, _ or √ is one text piece.
std::vector<NotationPiece> split_notation(const std::string& prose);

}  // namespace exactattn::detail
