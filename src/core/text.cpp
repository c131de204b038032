// SPDX-License-Identifier: MIT
// exactattn internal: control characters and trimming (core/text.hpp).
#include "core/text.hpp"

#include <fmt/format.h>

#include <cctype>

namespace exactattn::detail {

namespace {

template <class Blank>
std::string_view trim_where(std::string_view s, Blank blank) {
    while (!s.empty() && blank(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && blank(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

}  // namespace

std::size_t control_length(std::string_view s, std::size_t i) {
    if (i >= s.size()) return 0;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) return 1;
    if (c == 0xC2 && i + 1 < s.size()) {
        const auto next = static_cast<unsigned char>(s[i + 1]);
        if (next >= 0x80 && next <= 0x9F) return 2;
    }
    return 0;
}

bool has_control(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (control_length(s, i) > 0) return true;
    }
    return false;
}

std::size_t append_shown_control(std::string& out, std::string_view s, std::size_t i) {
    const std::size_t n = control_length(s, i);
    if (n == 0) return 0;
    // C1 is C2 followed by its code point's low byte (U+0080 to U+009F is C2 80 to C2 9F).
    const unsigned cp = static_cast<unsigned char>(s[i + n - 1]);
    out += fmt::format("<U+{:04X}>", cp);
    return n;
}

std::string trim(std::string_view s) {
    return std::string(trim_where(s, [](unsigned char c) { return std::isspace(c) != 0; }));
}

std::string_view trim_json_space(std::string_view s) {
    return trim_where(s, [](unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

}  // namespace exactattn::detail
