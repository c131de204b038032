// SPDX-License-Identifier: MIT
// exactattn: the number tokens of an unmarked manuscript's prose (numbers.hpp).
#include "tools/manuscript/numbers.hpp"

#include <set>
#include <string_view>

#include "tools/manuscript/bind_text.hpp"
#include "tools/manuscript/quantities.hpp"

namespace exactattn::manuscript::binding {

std::size_t vulgar_at(const std::string& s, std::size_t k) {
    for (const auto& [glyph, spelled] : kVulgarFractions) {
        if (s.compare(k, glyph.size(), glyph) == 0) return glyph.size();
    }
    return 0;
}

// A square, cube or fourth root sign at k (√, ∛, ∜: three bytes each).
bool root_at(const std::string& s, std::size_t k) {
    return s.compare(k, 3, "√") == 0 || s.compare(k, 3, "∛") == 0 || s.compare(k, 3, "∜") == 0;
}

// The end of a number token at k: 12, 0.75, 2a/3, a/2, 50%, 50\%, −0.75, ½; k when none.
std::size_t number_end(const std::string& s, std::size_t k) {
    std::size_t e = k;
    if (s.compare(e, 3, "−") == 0)
        e += 3;
    else if (s[e] == '-')
        ++e;
    const std::size_t digits_at = e;
    while (e < s.size() && (digit(s[e]) || (s[e] == '.' && e + 1 < s.size() && digit(s[e + 1])))) ++e;
    if (const std::size_t v = e < s.size() ? vulgar_at(s, e) : 0) return e + v;
    // A square, cube or fourth root, alone or after its coefficient: √2, 2√2, 3√5/2, ∛2, ∛4/2.
    if (root_at(s, e) && e + 3 < s.size() && digit(s[e + 3])) {
        e += 3;
        while (e < s.size() && digit(s[e])) ++e;
    }
    if (e == digits_at && !(e < s.size() && s[e] == 'a' && e + 2 < s.size() && s[e + 1] == '/' && digit(s[e + 2])))
        return k;
    if (e < s.size() && s[e] == 'a' && (e + 1 >= s.size() || !alpha(s[e + 1]))) ++e;
    if (e + 1 < s.size() && s[e] == '/' && digit(s[e + 1])) {
        ++e;
        while (e < s.size() && digit(s[e])) ++e;
    }
    if (e < s.size() && s[e] == '%') ++e;
    if (e + 1 < s.size() && s[e] == '\\' && s[e + 1] == '%') e += 2;
    return e;
}

std::size_t vector_end(const std::string& s, std::size_t k) {
    if (k > 0 && (s[k - 1] == '!' || s[k - 1] == ']')) return k;  // an image, a link's second part
    const std::size_t e = std::string_view(s).substr(0, std::min(s.size(), k + 200)).find(']', k);
    if (e == std::string::npos) return k;
    const std::string inner = s.substr(k + 1, e - k - 1);
    // One entry is a vector only when it is plainly a value ([a/2], [(2 − √2)a/2]), never a
    // citation ([1], [12]) or a note ([48 B]).
    const bool one = inner.find(',') == std::string::npos &&
                     (inner.find('a') != std::string::npos || inner.find('/') != std::string::npos ||
                      inner.find("√") != std::string::npos || inner.find("∛") != std::string::npos);
    if ((inner.find(',') == std::string::npos && !one) || inner.find('[') != std::string::npos) return k;
    bool number = false;
    for (std::size_t i = 0; i < inner.size(); ++i) {
        const char c = inner[i];
        if (digit(c)) number = true;
        if (!(digit(c) || c == 'a' || c == ',' || c == ' ' || c == '/' || c == '-' || c == '.' || c == '(' ||
              c == ')' || c == '+' || static_cast<unsigned char>(c) >= 0x80)) {
            return k;
        }
    }
    if (!number && inner.find('a') == std::string::npos) return k;
    return e + 1 < s.size() && (s[e + 1] == '(' || s[e + 1] == '{') ? k : e + 1;
}

namespace {

bool op_at(const std::string& s, std::size_t k, std::size_t& len) {
    for (std::string_view op : {"+", "−", "-", "×", "·", "=", "≈", "*", "÷"}) {
        if (s.compare(k, op.size(), op) == 0) {
            len = op.size();
            return true;
        }
    }
    return false;
}

}  // namespace

// A chain in prose: 2 + 1 + 1 = 4, 100 × 2 = 200: the token at [b, e) extended over operators.
std::size_t chain_end(const std::string& s, std::size_t e) {
    for (;;) {
        std::size_t k = e;
        while (k < s.size() && s[k] == ' ') ++k;
        std::size_t len = 0;
        if (k >= s.size() || !op_at(s, k, len)) return e;
        k += len;
        while (k < s.size() && s[k] == ' ') ++k;
        std::size_t next = k < s.size() && s[k] == '[' ? vector_end(s, k) : number_end(s, k);
        if (next == k && k < s.size() && s[k] == 'a' && (k + 1 >= s.size() || !alpha(s[k + 1]))) next = k + 1;
        if (next == k) return e;
        e = next;
    }
}

// A parenthesised sum over a number, (4 − √2)/7, (2√2 − 1)/7: the end after the divisor, or k
// when the parentheses hold anything but a sum or difference of numbers or no divisor follows.
std::size_t paren_fraction_end(const std::string& s, std::size_t k) {
    if (k >= s.size() || s[k] != '(') return k;
    const std::size_t close = std::string_view(s).substr(0, std::min(s.size(), k + 40)).find(')', k);
    if (close == std::string::npos) return k;
    // After it a divisor, or a's factor with or without one: (4 − √2)/7, (2 − √2)a/2, (1 + √2)a.
    std::size_t e = close + 1;
    const bool times_a = e < s.size() && s[e] == 'a' && (e + 1 >= s.size() || !alpha(s[e + 1]));
    if (times_a) ++e;
    const bool divisor = e + 1 < s.size() && s[e] == '/' && digit(s[e + 1]);
    if (!divisor && !times_a) return k;
    std::size_t i = k + 1;
    while (i < close && s[i] == ' ') ++i;
    const std::size_t first = number_end(s, i);
    if (first == i) return k;
    const std::size_t inner = chain_end(s, first);
    std::size_t j = inner;
    while (j < close && s[j] == ' ') ++j;
    if (j != close || inner == first) return k;
    if (divisor) {
        ++e;
        while (e < s.size() && digit(s[e])) ++e;
    }
    return e;
}

std::string word_before_at(const std::string& s, std::size_t k) {
    std::size_t e = k;
    while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == '(' || s[e - 1] == '~')) --e;
    std::size_t b = e;
    while (b > 0 && e - b < 32 &&
           (alpha(s[b - 1]) || s[b - 1] == '.' || s[b - 1] == '\\' || static_cast<unsigned char>(s[b - 1]) >= 0x80))
        --b;
    std::string w = lower(s.substr(b, e - b));
    while (!w.empty() && w.back() == '.') w.pop_back();
    return w;
}

// Words naming what a plain integer after them is an index or a reference of.
bool reference_word(const std::string& w) {
    static const std::set<std::string, std::less<>> words = {
        "chapter", "chapters", "section",   "sections",  "table",    "tables",    "figure",   "figures", "fig",
        "example", "examples", "exercise",  "exercises", "equation", "equations", "eq",       "part",    "§",
        "step",    "steps",    "appendix",  "page",      "pages",    "p",         "pp",       "query",   "queries",
        "head",    "heads",    "row",       "rows",      "column",   "columns",   "layer",    "layers",  "item",
        "items",   "position", "positions", "read",      "sec",      "tab",       "theorem",  "lemma",   "line",
        "lines",   "version",  "token",     "tokens",    "listing",  "problem",   "question", "case"};
    return words.contains(w) || (w.size() > 2 && w.ends_with("§"));
}

// The start of the word that ends at e, and whether it is a name written with digits ("r2",
// "q1"), which a number word's name may stand before ("the denominator of r2 becomes seven").
std::size_t word_start(const std::string& s, std::size_t e, bool& name) {
    std::size_t b = e;
    bool letters = false, digits = false;
    while (b > 0 && (alpha(s[b - 1]) || digit(s[b - 1]))) {
        --b;
        (alpha(s[b]) ? letters : digits) = true;
    }
    name = letters && digits;
    if (!name) {  // a word of letters only
        b = e;
        while (b > 0 && alpha(s[b - 1])) --b;
    }
    return b;
}

}  // namespace exactattn::manuscript::binding
