// SPDX-License-Identifier: MIT
// exactattn: text extents of the figures' fonts, from a table of advance widths generated once
// from the fonts Debian ships (scripts/font_metrics.py). Lengths only: no value is measured.
#include "render/metrics.hpp"

#include <algorithm>
#include <array>
#include <iterator>

#include "core/utf8.hpp"

namespace exactattn::detail {

namespace {

struct Advance {
    char32_t first;
    char32_t last;
    int regular;
    int bold;
};

constexpr Advance kAdvances[] = {
#include "render/font_metrics.inc"
};
constexpr double kUnitsPerEm = 2048;

// The advance of one code point in 1/2048 em.
int advance(char32_t cp, bool bold) {
    const auto* it = std::upper_bound(std::begin(kAdvances), std::end(kAdvances), cp,
                                      [](char32_t c, const Advance& a) { return c < a.first; });
    if (it != std::begin(kAdvances) && cp <= std::prev(it)->last)
        return bold ? std::prev(it)->bold : std::prev(it)->regular;
    return static_cast<int>(kUnitsPerEm);
}

// The code point at s[i] and the length of its sequence (the library's one decoder; a byte that
// starts no well-formed sequence counts as one code point of its own, U+FFFD).
std::size_t next(const std::string& s, std::size_t i, char32_t& cp) {
    const std::size_t len = decode_utf8(s, i, cp);
    if (len == 0) cp = 0xFFFD;
    return len == 0 ? 1 : len;
}

}  // namespace

double text_width(const std::string& utf8, double size, bool bold) {
    double units = 0;
    char32_t cp = 0;
    for (std::size_t i = 0; i < utf8.size();) {
        i += next(utf8, i, cp);
        units += advance(cp, bold);
    }
    return units / kUnitsPerEm * size;
}

std::string text_prefix(const std::string& utf8, const std::string& tail, double room, double size, bool bold) {
    double used = text_width(tail, size, bold);
    std::size_t keep = 0;
    char32_t cp = 0;
    for (std::size_t i = 0; i < utf8.size();) {
        i += next(utf8, i, cp);
        used += advance(cp, bold) / kUnitsPerEm * size;
        if (used > room) break;
        keep = i;
    }
    return utf8.substr(0, keep);
}

}  // namespace exactattn::detail
