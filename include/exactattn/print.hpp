// SPDX-License-Identifier: MIT
// exactattn: printers for exact values (docs/notation.md), kept apart from the arithmetic.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "exactattn/value.hpp"

namespace exactattn {

/// The three printed forms of docs/notation.md ("Printed forms").
enum class Notation { Ascii, Unicode, Latex };

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
std::string to_string(const Value& v, Notation n);

/// A row vector in the chapter's style: `[a/2, a/4]` (LaTeX: `[\tfrac{a}{2}, \tfrac{a}{4}]`).
std::string to_string(const std::vector<Value>& row, Notation n = Notation::Ascii);

/// Display width of UTF-8 text in terminal columns (CJK ideographs and full-width forms are 2).
std::size_t display_width(const std::string& utf8);

namespace detail {
/// Text for an error message: up to 80 characters as is; a longer text keeps its start and
/// end around "…" and says how long it was, so that a message stays one readable line even
/// for a value with megabit coefficients.
std::string brief(const std::string& text);
/// brief(to_ascii(v)).
std::string brief_ascii(const Value& v);
}  // namespace detail

}  // namespace exactattn

/// `fmt::format("{}", v)` prints the ascii form.
template <>
struct fmt::formatter<exactattn::Value> : fmt::formatter<std::string> {
    fmt::format_context::iterator format(const exactattn::Value& v, fmt::format_context& ctx) const;
};
