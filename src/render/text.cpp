// SPDX-License-Identifier: MIT
// exactattn internal: escaping text for the markup the renderers and exports write.
#include "render/text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace exactattn::detail {

std::string xml_escape(std::string_view s, bool attribute) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
            case '&': out += "&amp;"; continue;
            case '<': out += "&lt;"; continue;
            case '>': out += "&gt;"; continue;
            case '"': out += "&quot;"; continue;
            default: break;
        }
        if (attribute && c == '\'') {
            out += "&apos;";
        } else if (c == '\t' || c == '\n' || c == '\r') {
            if (attribute) out += fmt::format("&#x{:X};", u);
            else out += c;
        } else if (u < 0x20) {
            out += fmt::format("&lt;U+{:04X}&gt;", u);
        } else if (u == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
                   (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xBE) {
            // U+FFFE or U+FFFF (EF BF BE, EF BF BF): not characters of XML 1.0
            out += static_cast<unsigned char>(s[i + 2]) == 0xBE ? "&lt;U+FFFE&gt;" : "&lt;U+FFFF&gt;";
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}

std::string html_escape(const std::string& s) { return xml_escape(s); }


std::string markdown_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            default: out += c; break;
        }
    }
    return out;
}

std::string markdown_code(std::string_view s) {
    std::size_t longest = 0;
    std::size_t run = 0;
    for (const char c : s) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(longest + 1, '`');
    const bool pad = !s.empty() && (s.front() == '`' || s.back() == '`');
    const std::string space = pad ? " " : "";
    return fence + space + std::string(s) + space + fence;
}

}  // namespace exactattn::detail
