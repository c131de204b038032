// SPDX-License-Identifier: MIT
// exactattn internal: the small text rules the binder of an unmarked manuscript's numbers
// (bind.cpp) reads with: character classes, lower case, the ordinals it knows, a byte span.
#pragma once

#include <array>
#include <cctype>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <algorithm>

namespace exactattn::manuscript::binding {

// The ordinals the binder reads ("the second read", "the first query", "the third head"); each
// rule reads as many of them as it needs (ordinals(n): the first n).
constexpr std::array<std::string_view, 10> kOrdinals{"first", "second",  "third",  "fourth", "fifth",
                                                     "sixth", "seventh", "eighth", "ninth",  "tenth"};
constexpr std::span<const std::string_view> ordinals(std::size_t n) { return std::span(kOrdinals).first(n); }

inline bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
inline bool alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
// A cue that must not run into a word after it: one ending in a letter ("the second read") or a
// name written as one word ("r1", "blue-q1").
inline bool alnum_end(std::string_view cue) { return !cue.empty() && (alpha(cue.back()) || cue.find(' ') == cue.npos); }
inline bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

inline std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The text without its spaces: "[1, 0]" reads "[1,0]".
inline std::string compact(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return s;
}

/// A byte range [b, e) of the text.
struct Span {
    std::size_t b = 0, e = 0;
};

}  // namespace exactattn::manuscript::binding
