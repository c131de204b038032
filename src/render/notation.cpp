// SPDX-License-Identifier: MIT
// exactattn: notation in generated prose set as math (render/notation.hpp).
#include "render/notation.hpp"

#include <cstddef>

namespace exactattn::detail {

namespace {

bool ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool alnum(char c) { return ascii_letter(c) || digit(c); }

const std::string kSqrt = "\xE2\x88\x9A";   // √
const std::string kDot = "\xC2\xB7";        // ·
const std::string kMinus = "\xE2\x88\x92";  // −

/// Whether the character before `i` lets notation start there: not inside a word, a pointer
/// (`/reads/x_1`), a file name (`a.b_1`) or a TeX command.
bool starts_word(const std::string& s, std::size_t i) {
    if (i == 0) return true;
    const char p = s[i - 1];
    return !alnum(p) && p != '_' && p != '/' && p != '.' && p != '\\' && p != '-' &&
           static_cast<unsigned char>(p) < 0x80;
}

/// Whether notation may end before `i`: not followed by more of a word, a pointer or a path.
bool ends_word(const std::string& s, std::size_t i) {
    if (i >= s.size()) return true;
    const char c = s[i];
    if (c == '.' || c == '-') return i + 1 >= s.size() || !alnum(s[i + 1]);  // a sentence's full stop
    return !alnum(c) && c != '_' && c != '/' && c != '^' && static_cast<unsigned char>(c) < 0x80;
}

/// The TeX of a script's content: `k·a` → `k\cdot a`, `t-1` kept, `d_k` → `d_{k}`.
std::string script_tex(const std::string& in) {
    std::string out;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (in.compare(i, kDot.size(), kDot) == 0) {
            out += "\\cdot ";
            i += kDot.size() - 1;
        } else if (in.compare(i, kMinus.size(), kMinus) == 0) {
            out += "-";
            i += kMinus.size() - 1;
        } else if (in[i] == '_' && i + 1 < in.size() && alnum(in[i + 1])) {
            out += "_{";
            out += in[++i];
            out += "}";
        } else {
            out += in[i];
        }
    }
    return out;
}

/// A script after `^` or `_` at `i`: `(…)` without nested parentheses or spaces, or an optional
/// minus and a run of letters and digits (at most 3 for a subscript). Its end, or npos.
std::size_t script_end(const std::string& s, std::size_t i, bool sub, std::string& content) {
    if (i >= s.size()) return std::string::npos;
    if (s[i] == '(') {
        const std::size_t close = s.find(')', i + 1);
        if (close == std::string::npos || close == i + 1) return std::string::npos;
        content = s.substr(i + 1, close - i - 1);
        if (content.find_first_of(" (") != std::string::npos) return std::string::npos;
        return close + 1;
    }
    std::size_t j = i;
    if (!sub && s[j] == '-') ++j;
    const std::size_t first = j;
    while (j < s.size() && alnum(s[j])) ++j;
    if (j == first || (sub && j - first > 3)) return std::string::npos;
    content = s.substr(i, j - i);
    return j;
}

/// Notation starting at `i`: its end and TeX, or npos.
std::size_t notation_at(const std::string& s, std::size_t i, std::string& tex) {
    const bool root = s.compare(i, kSqrt.size(), kSqrt) == 0;
    // A root may follow a slash or a digit (1/√d_k, 2√2); other notation starts a word.
    if (!(root ? i == 0 || s[i - 1] != '\\' : starts_word(s, i))) return std::string::npos;
    if (root) {  // √4, √d_k
        std::size_t j = i + kSqrt.size();
        const std::size_t first = j;
        if (j < s.size() && digit(s[j])) {
            while (j < s.size() && digit(s[j])) ++j;
        } else if (j < s.size() && ascii_letter(s[j])) {
            ++j;
            std::string sub;
            if (j < s.size() && s[j] == '_') {
                const std::size_t e = script_end(s, j + 1, true, sub);
                if (e == std::string::npos) return std::string::npos;
                j = e;
            }
        }
        if (j == first || !ends_word(s, j)) return std::string::npos;
        tex = "\\sqrt{" + script_tex(s.substr(first, j - first)) + "}";
        return j;
    }
    std::size_t j = i;
    const bool number = digit(s[j]);
    while (j < s.size() && (number ? digit(s[j]) : ascii_letter(s[j]))) ++j;
    if (j == i || (!number && j - i > 2)) return std::string::npos;
    std::string out = s.substr(i, j - i);
    bool scripted = false;
    for (int k = 0; k < 2 && j < s.size() && (s[j] == '^' || (s[j] == '_' && !number)); ++k) {
        const bool sub = s[j] == '_';
        std::string content;
        const std::size_t e = script_end(s, j + 1, sub, content);
        if (e == std::string::npos) return std::string::npos;
        out += (sub ? "_{" : "^{") + script_tex(content) + "}";
        scripted = true;
        j = e;
    }
    if (!scripted || !ends_word(s, j)) return std::string::npos;
    tex = out;
    return j;
}

}  // namespace

std::vector<NotationPiece> split_notation(const std::string& prose) {
    std::vector<NotationPiece> out;
    if (prose.find_first_of("^_") == std::string::npos && prose.find(kSqrt) == std::string::npos) {
        out.push_back({false, prose});
        return out;
    }
    std::string text;
    for (std::size_t i = 0; i < prose.size();) {
        std::string tex;
        const std::size_t end = notation_at(prose, i, tex);
        if (end == std::string::npos) {
            text += prose[i++];
            continue;
        }
        if (!text.empty()) out.push_back({false, text});
        text.clear();
        out.push_back({true, tex});
        i = end;
    }
    if (!text.empty()) out.push_back({false, text});
    return out;
}

}  // namespace exactattn::detail
