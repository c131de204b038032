// SPDX-License-Identifier: MIT
// exactattn: `manuscript audit` — the number-like claims of the prose that no mark covers,
// each with the report quantities it equals, and the coverage of the marks.
#include <fmt/format.h>

#include <cctype>
#include <map>

#include "tools/manuscript/claims.hpp"
#include "exactattn/manuscript.hpp"
#include "tools/manuscript/marks.hpp"
#include "tools/manuscript/quantities.hpp"

namespace exactattn {

namespace {

using detail::Json;

double coverage_of(std::size_t marked, std::size_t unmarked) {
    return marked + unmarked == 0 ? 1.0 : static_cast<double>(marked) / static_cast<double>(marked + unmarked);
}

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool letter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

// Everything that is no candidate blanked: marks, .noclaim spans, and indices in math
// (c_1, \sum_{k=1}^{n}: a subscript or superscript is a name, not a number stated).
std::string prose_only(const manuscript::Source& src, const std::vector<manuscript::Mark>& marks) {
    std::string s = src.scan;
    auto blank = [&s](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to && i < s.size(); ++i) {
            if (s[i] != '\n') s[i] = ' ';
        }
    };
    for (const auto& m : marks) blank(m.begin, m.end);
    for (const auto& [b, e] : manuscript::noclaim_spans(src)) blank(b, e);
    for (std::size_t k = 0; k < s.size(); ++k) {
        if (s[k] != '_' && s[k] != '^') continue;
        if (k + 1 < s.size() && s[k + 1] == '{') {
            const std::size_t e = manuscript::brace_group_end(s, k + 1);
            blank(k, e == std::string::npos ? s.size() : e);
        } else {
            std::size_t e = k + 1;
            while (e < s.size() && (digit(s[e]) || letter(s[e]))) ++e;
            blank(k, e);
        }
    }
    return s;
}

// The word before offset k (letters and §), lower-cased.
std::string word_before(const std::string& s, std::size_t k) {
    std::size_t e = k;
    while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == '(' || s[e - 1] == '~')) --e;
    std::size_t b = e;
    while (b > 0 && (letter(s[b - 1]) || s[b - 1] == '.' || (static_cast<unsigned char>(s[b - 1]) >= 0x80))) --b;
    std::string w = s.substr(b, e - b);
    for (auto& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    while (!w.empty() && w.back() == '.') w.pop_back();
    return w;
}

bool reference_word(const std::string& w) {
    for (const char* r : {"chapter", "chapters", "section",  "sections",  "table",    "tables",    "figure", "figures",
                          "example", "examples", "exercise", "exercises", "equation", "equations", "eq",     "part",
                          "§",       "step",     "steps",    "appendix",  "page",     "pages",     "p",      "pp"}) {
        if (w == r || (w.size() > 2 && w.ends_with("§"))) return true;
    }
    return false;
}

/// One candidate: its byte range in the text.
struct Candidate {
    std::size_t begin;
    std::size_t end;
};

// The end of a number-like token at k: 12, 0.75, 2a/3, a/2, 50%, −0.75.
std::size_t number_end(const std::string& s, std::size_t k) {
    std::size_t e = k;
    if (s.compare(e, 3, "−") == 0)
        e += 3;
    else if (s[e] == '-')
        ++e;
    const std::size_t digits_at = e;
    while (e < s.size() && (digit(s[e]) || (s[e] == '.' && e + 1 < s.size() && digit(s[e + 1])))) ++e;
    if (e == digits_at && !(s[e] == 'a' && e + 2 < s.size() && s[e + 1] == '/' && digit(s[e + 2]))) return k;
    if (e < s.size() && s[e] == 'a' && (e + 1 >= s.size() || !letter(s[e + 1]))) ++e;
    if (e + 1 < s.size() && s[e] == '/' && digit(s[e + 1])) {
        ++e;
        while (e < s.size() && digit(s[e])) ++e;
    }
    if (e < s.size() && s[e] == '%') ++e;
    return e;
}

// A vector written in prose: [ … ] holding only what values are made of, with a comma.
std::size_t vector_end(const std::string& s, std::size_t k) {
    const std::size_t e = std::string_view(s).substr(0, std::min(s.size(), k + 200)).find(']', k);  // bounded
    if (e == std::string::npos) return k;
    const std::string inner = s.substr(k + 1, e - k - 1);
    if (inner.find(',') == std::string::npos || inner.find('[') != std::string::npos) return k;
    bool number = false;
    for (const char c : inner) {
        if (digit(c)) number = true;
        if (!(digit(c) || c == 'a' || c == ',' || c == ' ' || c == '/' || c == '-' || c == '.' || c == '(' ||
              c == ')' || c == '+' || static_cast<unsigned char>(c) >= 0x80)) {
            return k;
        }
    }
    if (!number && inner.find('a') == std::string::npos) return k;
    return e + 1 < s.size() && (s[e + 1] == '(' || s[e + 1] == '{') ? k : e + 1;  // not a link or a span
}

bool excluded(const std::string& s, std::size_t b, std::size_t e, const AuditOptions& o) {
    const std::string text = s.substr(b, e - b);
    const bool glued_before = b > 0 && (letter(s[b - 1]) || s[b - 1] == '_' || s[b - 1] == '/' || s[b - 1] == '\\' ||
                                        (s[b - 1] == '-' && b > 1 && letter(s[b - 2])) || s[b - 1] == '.');
    const bool glued_after = e < s.size() && (letter(s[e]) || s[e] == '_' || s[e] == '/' ||
                                              (s[e] == '-' && e + 1 < s.size() && letter(s[e + 1])));
    if (glued_before || glued_after) return true;  // part of a name or path: seq2seq, part-iii/02-…
    if (o.ignore_years && text.size() == 4 && text.find_first_not_of("0123456789") == std::string::npos &&
        (text.starts_with("1") || text.starts_with("20"))) {
        return true;
    }
    const std::size_t line_start = s.rfind('\n', b) == std::string::npos ? 0 : s.rfind('\n', b) + 1;
    const std::string before = s.substr(line_start, b - line_start);
    if (o.ignore_lists && before.find_first_not_of(" \t") == std::string::npos && e < s.size() &&
        (s[e] == '.' || s[e] == ')') && text.find('.') == std::string::npos) {
        return true;
    }
    if (o.ignore_sections) {
        // A label (1: color, Read 2: q), and a name's number after an upper-case abbreviation
        // (CC BY-SA 4.0, ISO 8601).
        if (e + 1 < s.size() && s[e] == ':' && s[e + 1] == ' ') return true;
        std::size_t p = b;
        while (p > 0 && s[p - 1] == ' ') --p;
        std::size_t q = p;
        while (q > 0 && std::isupper(static_cast<unsigned char>(s[q - 1]))) --q;
        if (p - q >= 2 && p < b) return true;
        if (before.find_first_not_of(" \t#") == std::string::npos && before.find('#') != std::string::npos) return true;
        if (reference_word(word_before(s, b))) return true;
        // The second number of a range of references: Tables 14.2–14.3.
        if (b >= 3 && s.compare(b - 3, 3, "–") == 0) {
            std::size_t p = b - 3;
            while (p > 0 && (digit(s[p - 1]) || s[p - 1] == '.')) --p;
            if (reference_word(word_before(s, p))) return true;
        }
    }
    if (o.ignore_citations && b > 0 && s[b - 1] == '(' && e < s.size() && s[e] == ')' &&
        word_before(s, b - 1) == "equation") {
        return true;
    }
    return false;
}

std::vector<Candidate> candidates(const std::string& s, const AuditOptions& o) {
    std::vector<Candidate> out;
    for (std::size_t k = 0; k < s.size();) {
        std::size_t e = k;
        if (s[k] == '[') e = vector_end(s, k);
        if (e == k && (digit(s[k]) || s[k] == 'a' || s[k] == '-' || s.compare(k, 3, "−") == 0)) {
            const bool starts = k == 0 || !(digit(s[k - 1]) || letter(s[k - 1]) || s[k - 1] == '.');
            if (starts) e = number_end(s, k);
        }
        if (e == k) {
            ++k;
            continue;
        }
        if (!excluded(s, k, e, o)) out.push_back({k, e});
        k = e;
    }
    return out;
}

std::string key_of(const Json& j) {
    if (j.is_array()) {
        std::string out = "[";
        for (const auto& x : j) out += key_of(x) + ",";
        return out + "]";
    }
    return j.is_string() ? j.get<std::string>() : j.dump();
}

}  // namespace

std::string audit_line(const std::string& file, const AuditFinding& f) {
    if (f.equals.empty())
        return fmt::format("{}:{}:{}: {} equals no computed quantity (unverified)", file, f.line, f.column, f.text);
    std::string names;
    for (std::size_t i = 0; i < f.equals.size() && i < 3; ++i) names += (i ? ", " : "") + f.equals[i];
    if (f.equals.size() > 3) names += ", …";
    return fmt::format("{}:{}:{}: {} equals {}; mark it", file, f.line, f.column, f.text, names);
}

double AuditResult::coverage() const { return coverage_of(marked, unmarked.size()); }

AuditResult audit_manuscript_text(std::string_view text, const std::string& file, ManuscriptFormat format,
                                  const ManuscriptOptions& options, const AuditOptions& audit) {
    const manuscript::Source src = manuscript::prepare(text, file, format);
    const auto marks = manuscript::find_marks(src);
    manuscript::Quantities q(src, options.scenario);
    std::multimap<std::string, std::string> by_value;  // exact value → pointers holding it
    std::vector<std::pair<std::string, const Json*>> scalars;
    for (const auto& [pointer, j] : q.all_values()) {
        by_value.emplace(key_of(*j), pointer);
        if (!j->is_array()) scalars.emplace_back(pointer, j);
    }
    AuditResult r;
    r.file = file;
    r.marked = marks.size();
    const std::string s = prose_only(src, marks);
    for (const auto& c : candidates(s, audit)) {
        AuditFinding f;
        const Location where = src.at(c.begin);
        f.line = where.line;
        f.column = where.column;
        f.text = src.text.substr(c.begin, c.end - c.begin);
        const auto parsed = manuscript::parse_element(manuscript::plain_notation(f.text));
        if (!parsed.numeric) continue;
        if (f.text.find('.') != std::string::npos && !parsed.as_json.is_array()) {
            for (const auto& [pointer, j] : scalars) {  // a decimal equals what it rounds
                try {
                    if (f.equals.size() < 8 && manuscript::judge_claim(f.text, *j).passed) f.equals.push_back(pointer);
                } catch (const Error&) {  // a quantity this text cannot be compared with
                }
            }
        } else if (parsed.exact) {
            const auto [b, e] = by_value.equal_range(key_of(parsed.as_json));
            for (auto it = b; it != e && f.equals.size() < 8; ++it) f.equals.push_back(it->second);
        }
        r.unmarked.push_back(std::move(f));
    }
    return r;
}

}  // namespace exactattn
