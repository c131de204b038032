// SPDX-License-Identifier: MIT
// exactattn internal: the one UTF-8 decoder (RFC 3629) of the library — the parser, the error
// messages, the terminal width of text and the XML escaper all read text through it.
#pragma once

#include <cstddef>
#include <string_view>

namespace exactattn::detail {

/// Decodes the code point at s[i] into `cp` and returns the length of its sequence (1 to 4), or
/// 0 when the bytes at s[i] are not well-formed UTF-8: a stray continuation byte, a lead byte
/// C0, C1 or F5 to FF, a sequence cut short, an overlong form, a surrogate (U+D800 to U+DFFF)
/// or a code point past U+10FFFF.
std::size_t decode_utf8(std::string_view s, std::size_t i, char32_t& cp);

}  // namespace exactattn::detail
