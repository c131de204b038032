// SPDX-License-Identifier: MIT
// exactattn internal: a value as printed in a table cell or a formula, in the style (display
// width, LaTeX mode) the renderer hands down.
#pragma once

#include <string>

#include "exactattn/document.hpp"
#include "exactattn/print.hpp"

namespace exactattn::detail {

/// A value as printed in a table cell: the display form (docs/notation.md) in Unicode, LaTeX
/// and MathML (the content of one <math> element), fitted to the style's max_width and in
/// LaTeX written as its `latex` says; the canonical form in ascii. (`n` is the notation; the
/// style's form is not read.)
std::string printed(const Value& v, Notation n, const MathStyle& style);

/// Whether a value printed in Unicode is one plain token that a product may show without
/// brackets: not negative, not a sum, fraction or product ("a", "2a", "√2"; not "a/2", "−a").
bool plain_factor(const std::string& unicode);

/// A printed LaTeX value in parentheses as a factor: \left( \right), or \bigl( \bigr) around a
/// long value of the Fit mode, whose breakable form would be one unbreakable group inside
/// \left( \right) (the readout c_1 + 3c_2 of weights in Q(2^(1/48))).
std::string latex_factor(const std::string& printed);
/// LaTeX math with every `\\left(\\exactattnValue{…}{…}\\right)` written with \\bigl( \\bigr)
/// (a formula's parentheses around one long value, as latex_factor writes them).
std::string breakable_parentheses(const std::string& latex);

}  // namespace exactattn::detail
