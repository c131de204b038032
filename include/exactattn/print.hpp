// SPDX-License-Identifier: MIT
// exactattn: printers for exact values (docs/notation.md), kept apart from the arithmetic.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "exactattn/value.hpp"

namespace exactattn {

/// The printed forms of docs/notation.md ("Printed forms"): three plain-text ones and
/// presentation MathML for HTML.
enum class Notation { Ascii, Unicode, Latex, MathML };

/// How `to_display` writes a value (docs/notation.md, "Display form").
struct DisplayOptions {
    /// The author's form: over a common denominator where shorter ((3√2 − 2)/7, (√2 − 1)a/3),
    /// integers of more than 12 digits as powers of two where shorter (2^1100, 2^(−1100),
    /// 3·2^1099 + 1). false: the canonical term-by-term form (`to_string`).
    bool display = true;
    /// 0: every digit (the default). Otherwise the width in terminal columns (of the unicode
    /// form, whatever the notation) that the value should fit: long integers are elided to
    /// their first and last digits with their length, `12345…6789 (332 digits)`, keeping as
    /// many digits as fit, at least 9. Elided text no longer names the exact value. In a row
    /// vector each entry is fitted to max_width on its own (a table cell's width).
    std::size_t max_width = 0;
    /// LaTeX only: the form TeX can break across lines (docs/output.md, "A value wider than a
    /// line"). A fraction whose numerator is a sum, or whose integers are long, is written with a
    /// slash as in the Unicode form, and a sum's parentheses are \bigl( \bigr) instead of
    /// \left( \right), so that every + and − of the value stands at the formula's top level,
    /// where TeX may end a line: `\bigl(68 \cdot 2^{1/6} - 40 - \dots\bigr)/188`.
    bool breakable = false;
};

/// Canonical ascii form: `2a/3`, `-a/4`, `1 - 2^(1/2)/2`, `(2^(1/2) - 1)a`, `a^2`.
/// `parse_value(to_ascii(v)) == v` for every value, and SymPy's `parse_expr` with implicit
/// multiplication and `^` as power reads it to the same number.
/// Terms go by rising power of a and, inside a coefficient, by rising power of 2^(1/m); when
/// the first term is negative the first positive one is moved to the front (`2^(1/2) - 1`).
std::string to_ascii(const Value& v);
/// Terminal form: `2a/3`, `√2 − 1`, `a²`, `∛4` (U+2212 minus).
std::string to_unicode(const Value& v);
/// LaTeX math-mode form: `\tfrac{2a}{3}`, `\sqrt{2} - 1`, `\left(\sqrt{2} - 1\right)a`.
std::string to_latex(const Value& v);
/// The canonical term-by-term form in notation n (MathML: one `<math>` element).
std::string to_string(const Value& v, Notation n);

/// The display form of docs/notation.md: what an author would print, `(3√2 − 2)/7`,
/// `(√2 − 1)a/3`, `2^1100/(2^1100 + 1)`; LaTeX `\tfrac{3\sqrt{2} - 2}{7}`, `2^{1100}`; MathML one
/// `<math>` element (`<mfrac>`, `<msqrt>`, `<msup>`, `<mi>a</mi>`), well-formed XML. Without
/// elision the unicode and ascii display forms read back with `parse_value` to v.
std::string to_display(const Value& v, Notation n, const DisplayOptions& options = {});
/// A row vector in display form: `[a/2, a/4]`; MathML: one `<math>` element for the row.
std::string to_display(const std::vector<Value>& row, Notation n, const DisplayOptions& options = {});
/// Presentation MathML of the display form: `to_display(v, Notation::MathML)`.
std::string to_mathml(const Value& v);

/// A row vector in the chapter's style: `[a/2, a/4]` (LaTeX: `[\tfrac{a}{2}, \tfrac{a}{4}]`).
std::string to_string(const std::vector<Value>& row, Notation n = Notation::Ascii);

/// Display width of UTF-8 text in terminal columns (CJK ideographs and full-width forms are 2).
std::size_t display_width(const std::string& utf8);

}  // namespace exactattn

/// `fmt::format("{}", v)` prints the ascii form.
template <>
struct fmt::formatter<exactattn::Value> : fmt::formatter<std::string> {
    fmt::format_context::iterator format(const exactattn::Value& v, fmt::format_context& ctx) const;
};
