// SPDX-License-Identifier: MIT
// exactattn internal: escaping text for the markup the renderers write.
#include "render/text.hpp"

namespace exactattn::detail {

std::string html_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

}  // namespace exactattn::detail
