// SPDX-License-Identifier: MIT
// exactattn: the input grammar of docs/notation.md (expressions, vectors, matrices).
#pragma once

#include <string>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exactattn/value.hpp"

namespace exactattn {

/// Parses and evaluates an expression exactly.
///
/// Accepts integers, exact decimals and scientific literals (`0.25` is 1/4, `1e-3` is 1/1000),
/// `a`, `ln2`, `ln(...)`, `log(...)` (natural), `exp(...)`, `sqrt(...)`, `√`, `∛`, `∜`,
/// `2^(p/q)`, `^` and `**`, superscript powers (`a²`), `+ - * /`, `·`, `×`, `÷`, the Unicode
/// minus `−`, parentheses and implicit multiplication (`2a`, `3ln2`, `(1+a)(1-a)`).
///
/// Throws ParseError (with the column, in code points, and what was expected),
/// DomainError (`exp(1)`, `1/(a-a)`, `sqrt(3)`), or LimitError. Errors carry the context
/// "expression"; callers add the file or option with Error::located.
///
/// Example: `parse_value("2^(1/2)/(2+2^(1/2))")` is `2^(1/2) - 1`.
Value parse_value(std::string_view text);

/// A row vector `[e1, e2, ...]` of expressions.
std::vector<Value> parse_vector(std::string_view text);
/// A matrix `[[...], [...]]` of expressions; rows must have equal width (ShapeError).
std::vector<std::vector<Value>> parse_matrix(std::string_view text);

/// The first byte of a text that is not valid UTF-8, and where it stands.
struct Utf8Fault {
    unsigned char byte = 0;
    int line = 1;    ///< 1-based
    int column = 1;  ///< 1-based, in code points
    /// `invalid UTF-8 byte 0xFF`: the place is the caller's (an option's column, a CSV field).
    [[nodiscard]] std::string reason() const;
};
/// The first byte of text that is not valid UTF-8, or none.
std::optional<Utf8Fault> find_invalid_utf8(std::string_view text);
/// Checks that text is valid UTF-8; otherwise a ParseError at `what`, the line and the column:
/// `invalid UTF-8 byte 0xFF at line 2, column 5`.
void check_utf8(std::string_view text, std::string_view what);

}  // namespace exactattn
