// SPDX-License-Identifier: MIT
// exactattn internal: the one home of two small text rules — what a control character is (and
// how it is shown: <U+000A>), and what trimming removes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace exactattn::detail {

/// The length in bytes of the control character that starts at s[i]: 1 for C0 (U+0000 to
/// U+001F) and DEL (U+007F), 2 for C1 (U+0080 to U+009F, the bytes C2 80 to C2 9F in UTF-8), 0
/// when s[i] starts anything else (or i is past the end).
std::size_t control_length(std::string_view s, std::size_t i);

/// Whether `s` holds a control character (control_length above).
bool has_control(std::string_view s);

/// When a control character starts at s[i], appends it as error messages show it,
/// `<U+XXXX>`, and returns its length (1 or 2); otherwise appends nothing and returns 0.
std::size_t append_shown_control(std::string& out, std::string_view s, std::size_t i);

/// `s` without its leading and trailing white space as std::isspace has it (space, \t, \n, \v,
/// \f, \r in the C locale): the trimming of answer entries, manuscript marks and claims.
std::string trim(std::string_view s);

/// `s` without its leading and trailing JSON white space (RFC 8259: space, \t, \n, \r), as a
/// view into `s` (a proposal's reader places an error by its offset in the whole text). It
/// differs from trim: a vertical tab or form feed is kept, so `\v[1, 2]` is not a bracketed
/// list to `check` (its entries are then read through trim, which drops the \v).
std::string_view trim_json_space(std::string_view s);

}  // namespace exactattn::detail
