// SPDX-License-Identifier: MIT
// exactattn internal: a value as printed in a table cell or a formula, at the display width the
// renderer that runs sets.
#pragma once

#include <cstddef>
#include <string>

#include "exactattn/print.hpp"

namespace exactattn::detail {

/// A value as printed in a table cell: the display form (docs/notation.md) in Unicode, LaTeX
/// and MathML (the content of one <math> element), the canonical form in ascii.
std::string printed(const Value& v, Notation n);

/// Whether a value printed in Unicode is one plain token that a product may show without
/// brackets: not negative, not a sum, fraction or product ("a", "2a", "√2"; not "a/2", "−a").
bool plain_factor(const std::string& unicode);

/// The width in terminal columns that printed() fits each value to while a renderer runs
/// (RenderOptions::max_width; 0, the default: every digit), on this thread.
std::size_t display_max_width();
class DisplayWidthScope {
  public:
    explicit DisplayWidthScope(std::size_t width);
    ~DisplayWidthScope();
    DisplayWidthScope(const DisplayWidthScope&) = delete;
    DisplayWidthScope& operator=(const DisplayWidthScope&) = delete;

  private:
    std::size_t saved_;
};

/// How printed() writes a LaTeX value on this thread, set by the renderer that runs:
/// - Display: the display form (LaTeX math elsewhere: Markdown's `$…$`, `eval --format latex`);
/// - Fit (the LaTeX writer's documents): a long value as `\\exactattnValue{display}{breakable}`, a
///   macro of the writer's body that sets the display form where it fits the line and the
///   breakable form (DisplayOptions::breakable) where it does not;
/// - Linear (TikZ labels): the breakable form, a sum over a denominator written with a slash as
///   in the SVG (`(20 − 5√2)a/14`), so that a label is no taller than a line of text.
enum class LatexValues { Display, Fit, Linear };
/// A printed LaTeX value in parentheses as a factor: \left( \right), or \bigl( \bigr) around a
/// long value of the Fit mode, whose breakable form would be one unbreakable group inside
/// \left( \right) (the readout c_1 + 3c_2 of weights in Q(2^(1/48))).
std::string latex_factor(const std::string& printed);
/// LaTeX math with every `\\left(\\exactattnValue{…}{…}\\right)` written with \\bigl( \\bigr)
/// (a formula's parentheses around one long value, as latex_factor writes them).
std::string breakable_parentheses(const std::string& latex);
LatexValues latex_values();
class LatexValuesScope {
  public:
    explicit LatexValuesScope(LatexValues mode);
    ~LatexValuesScope();
    LatexValuesScope(const LatexValuesScope&) = delete;
    LatexValuesScope& operator=(const LatexValuesScope&) = delete;

  private:
    LatexValues saved_;
};

}  // namespace exactattn::detail
