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

/// Whether printed() writes a long LaTeX value for the LaTeX writer (RenderOptions: a
/// document rendered as LaTeX), on this thread: `\exactattnValue{display}{breakable}`, a macro
/// of the LaTeX writer's body that sets the display form where it fits the line and the
/// breakable form (DisplayOptions::breakable) where it does not. Off by default: LaTeX math
/// elsewhere (Markdown's `$…$`, `eval --format latex`) is the display form alone.
bool latex_fit();
class LatexFitScope {
  public:
    explicit LatexFitScope(bool on);
    ~LatexFitScope();
    LatexFitScope(const LatexFitScope&) = delete;
    LatexFitScope& operator=(const LatexFitScope&) = delete;

  private:
    bool saved_;
};

}  // namespace exactattn::detail
