// SPDX-License-Identifier: MIT
// exactattn: the one UTF-8 decoder (RFC 3629).
#include "core/utf8.hpp"

namespace exactattn::detail {

std::size_t decode_utf8(std::string_view s, std::size_t i, char32_t& cp) {
    const auto c = static_cast<unsigned char>(s[i]);
    auto cont = [&](std::size_t k) {
        return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0U) == 0x80U;
    };
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]) & 0x3FU; };
    if (c < 0x80) {
        cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF && cont(1)) {
        cp = ((c & 0x1FU) << 6U) | byte(1);
        return 2;
    }
    if (c >= 0xE0 && c <= 0xEF && cont(1) && cont(2)) {
        cp = ((c & 0x0FU) << 12U) | (byte(1) << 6U) | byte(2);
        if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4 && cont(1) && cont(2) && cont(3)) {
        cp = ((c & 0x07U) << 18U) | (byte(1) << 12U) | (byte(2) << 6U) | byte(3);
        if (cp < 0x10000 || cp > 0x10FFFF) return 0;
        return 4;
    }
    return 0;
}

}  // namespace exactattn::detail
