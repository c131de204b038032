// SPDX-License-Identifier: MIT
// exactattn: what an author wrote, in LaTeX or Markdown math, as the plain notation the claims
// are read in (claims.hpp, plain_notation): commands, fractions, roots, matrices.
#include <fmt/format.h>

#include <array>
#include <cctype>
#include <optional>

#include "exactattn/parse.hpp"
#include "tools/manuscript/claims.hpp"
#include "tools/manuscript/marks.hpp"

namespace exactattn::manuscript {

namespace {

// One LaTeX argument at k: a brace group, a command, or one character (\tfrac12).
std::string latex_argument(std::string_view s, std::size_t& k) {
    while (k < s.size() && s[k] == ' ') ++k;
    if (k >= s.size()) return {};
    if (s[k] == '{') {
        int depth = 0;
        const std::size_t start = k;
        for (; k < s.size(); ++k) {
            if (s[k] == '{') ++depth;
            if (s[k] == '}' && --depth == 0) {
                ++k;
                return std::string(s.substr(start + 1, k - start - 2));
            }
        }
        return std::string(s.substr(start + 1));
    }
    if (s[k] == '\\') {
        const std::size_t start = k++;
        while (k < s.size() && is_letter(s[k])) ++k;
        return std::string(s.substr(start, k - start));
    }
    return std::string(1, s[k++]);
}

const std::array<std::pair<std::string_view, std::string_view>, 24> kCommands{{
    {"times", "×"},  {"cdot", "·"}, {"div", "÷"},        {"approx", "≈"}, {"ln", "ln"},   {"log", "log"},
    {"exp", "exp"},  {"quad", ";"}, {"qquad", ";"},      {"left", ""},    {"right", ""},  {"bigl", ""},
    {"bigr", ""},    {"Bigl", ""},  {"Bigr", ""},        {"big", ""},     {"Big", ""},    {"lbrack", "["},
    {"rbrack", "]"}, {"to", "→"},   {"rightarrow", "→"}, {"minus", "−"},  {"ldots", "…"}, {"dots", "…"},
}};

// Commands whose argument is kept as text (\text{…}, \mathrm{e}).
bool wrapper(std::string_view name) {
    for (std::string_view w : {"text", "mathrm", "mathit", "textrm", "operatorname", "mathbf", "boldsymbol", "textup",
                               "mathsf", "textnormal", "mbox", "ensuremath"}) {
        if (name == w) return true;
    }
    return false;
}

std::string latex_to_plain(std::string_view s);

// The command at s[k] == '\\', rewritten; k moves past it and its arguments.
std::string latex_command(std::string_view s, std::size_t& k) {
    ++k;
    if (k >= s.size()) return {};
    if (!is_letter(s[k])) {
        const char c = s[k++];
        switch (c) {
            case '%':
                return "%";
            case '[':
                return "[";
            case ']':
                return "]";
            case '{':
            case '}':
                return "";
            case '\\':
            case ',':
            case ';':
            case ':':
            case '!':
            case ' ':
                return " ";
            case '*':
                return "*";
            case '$':
                return "$";
            default:
                return std::string(1, c);
        }
    }
    const std::size_t start = k;
    while (k < s.size() && is_letter(s[k])) ++k;
    const std::string_view name = s.substr(start, k - start);
    if (name == "frac" || name == "tfrac" || name == "dfrac" || name == "cfrac") {
        const std::string num = latex_to_plain(latex_argument(s, k));
        const std::string den = latex_to_plain(latex_argument(s, k));
        return fmt::format("(({})/({}))", num, den);
    }
    if (name == "sqrt") {
        std::string degree;
        if (k < s.size() && s[k] == '[') {
            const std::size_t e = s.find(']', k);
            degree = std::string(s.substr(k + 1, e - k - 1));
            k = e == std::string_view::npos ? s.size() : e + 1;
        }
        const std::string arg = latex_to_plain(latex_argument(s, k));
        return degree.empty() ? fmt::format("sqrt({})", arg) : fmt::format("(({})^(1/{}))", arg, degree);
    }
    if (name == "begin" || name == "end") {
        (void)latex_argument(s, k);
        return " ";
    }
    if (wrapper(name)) return latex_to_plain(latex_argument(s, k));
    for (const auto& [n, plain] : kCommands) {
        if (name == n) {
            // \left. and \right. are invisible delimiters.
            if ((name == "left" || name == "right") && k < s.size() && s[k] == '.') ++k;
            return std::string(plain);
        }
    }
    return "\\" + std::string(name);  // unknown: left for the parser to refuse (or a name)
}

std::string latex_to_plain(std::string_view s) {
    std::string out;
    for (std::size_t k = 0; k < s.size();) {
        const char c = s[k];
        if (c == '\\') {
            out += latex_command(s, k);
        } else if (c == '^' || c == '_') {
            ++k;
            const bool group = k < s.size() && s[k] == '{';
            const std::string arg = latex_to_plain(latex_argument(s, k));
            out += c;
            out += group ? "(" + arg + ")" : arg;
        } else if (c == '{' || c == '}') {
            out += c == '{' ? '(' : ')';
            ++k;
        } else if (c == '$' || c == '&' || c == '~') {
            out += c == '$' ? "" : " ";
            ++k;
        } else {
            out += c;
            ++k;
        }
    }
    return out;
}

// A matrix environment (`\begin{bmatrix} a & 0 \\ 0 & a \end{bmatrix}`, `pmatrix`, `vmatrix`,
// `matrix`) in the tool's notation: rows split at `\\`, entries at `&`, `[[a, 0], [0, a]]`.
std::string matrix_environments(std::string s) {
    for (const std::string_view kind : {"bmatrix", "pmatrix", "Bmatrix", "vmatrix", "matrix"}) {
        const std::string open = "\\begin{" + std::string(kind) + "}";
        const std::string close = "\\end{" + std::string(kind) + "}";
        for (std::size_t b = s.find(open); b != std::string::npos; b = s.find(open, b + 1)) {
            const std::size_t e = s.find(close, b + open.size());
            if (e == std::string::npos) break;
            const std::string body = s.substr(b + open.size(), e - b - open.size());
            std::string rows = "[";
            std::size_t from = 0;
            bool first = true;
            while (from <= body.size()) {
                const std::size_t cut = body.find("\\\\", from);
                std::string row = trim(body.substr(from, cut == std::string::npos ? std::string::npos : cut - from));
                if (!row.empty()) {
                    for (std::size_t p = row.find('&'); p != std::string::npos; p = row.find('&', p + 1)) row[p] = ',';
                    rows += (first ? "[" : ", [") + row + "]";
                    first = false;
                }
                if (cut == std::string::npos) break;
                from = cut + 2;
            }
            rows += "]";
            s.replace(b, e + close.size() - b, rows);
        }
    }
    return s;
}

}  // namespace

std::string plain_notation(std::string_view written) {
    std::string s;
    s.reserve(written.size());
    for (std::size_t k = 0; k < written.size(); ++k) {  // Markdown escapes of brackets
        if (written[k] == '\\' && k + 1 < written.size() &&
            (written[k + 1] == '[' || written[k + 1] == ']' || written[k + 1] == '*' || written[k + 1] == '_')) {
            continue;
        }
        s += written[k];
    }
    s = latex_to_plain(matrix_environments(std::move(s)));
    for (const auto& [glyph, spelled] : kVulgarFractions) {
        for (std::size_t p = s.find(glyph); p != std::string::npos; p = s.find(glyph, p)) {
            // Right after digits the glyph ends a mixed number: 3½ is 3 + 1/2 = 7/2, read as
            // (3+(1/2)), never 3(1/2), which the parser reads as the product 3/2.
            std::size_t start = p;
            while (start > 0 && std::isdigit(static_cast<unsigned char>(s[start - 1]))) --start;
            if (start == p) {
                s.replace(p, glyph.size(), spelled);
            } else {
                const std::string mixed = "(" + s.substr(start, p - start) + "+" + std::string(spelled) + ")";
                s.replace(start, p - start + glyph.size(), mixed);
                p = start + mixed.size();
            }
        }
    }
    for (std::size_t p = s.find("\xC2\xA0"); p != std::string::npos; p = s.find("\xC2\xA0", p)) s.replace(p, 2, " ");
    // `\ln 2` and `ln 2` are ln2 (the parser reads ln2 and ln(2)).
    for (std::size_t p = s.find("ln "); p != std::string::npos; p = s.find("ln ", p + 2)) {
        std::size_t q = p + 3;
        while (q < s.size() && s[q] == ' ') ++q;
        if (q < s.size() && (std::isdigit(static_cast<unsigned char>(s[q])) || s[q] == '(')) s.erase(p + 2, q - p - 2);
    }
    return trim(s);
}

}  // namespace exactattn::manuscript
