// SPDX-License-Identifier: MIT
// exactattn: `manuscript audit` — the number-like claims of the prose that no mark covers,
// each with the report quantities it equals, and the coverage of the marks.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "tools/manuscript/claims.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/manuscript.hpp"
#include "exactattn/print.hpp"
#include "exactattn/value.hpp"
#include "tools/manuscript/marks.hpp"
#include "tools/manuscript/quantities.hpp"

namespace exactattn {

namespace {

using detail::Json;

/// Work units charged for each number-like candidate of the prose audited (its reading and
/// lookups; the arithmetic of judging it is charged as it runs).
constexpr double kWorkPerCandidate = 2e5;

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

// The word before offset k (letters and §), lower-cased; at most the 32 bytes before k are
// read (no reference word is longer), so that a line of letters is not read again for each
// number in it.
std::string word_before(const std::string& s, std::size_t k) {
    constexpr std::size_t kLongest = 32;
    const std::size_t floor = k > kLongest ? k - kLongest : 0;
    std::size_t e = k;
    while (e > floor && (s[e - 1] == ' ' || s[e - 1] == '(' || s[e - 1] == '~')) --e;
    std::size_t b = e;
    while (b > floor && (letter(s[b - 1]) || s[b - 1] == '.' || (static_cast<unsigned char>(s[b - 1]) >= 0x80))) --b;
    if (b == floor && floor > 0) return {};  // longer than any reference word
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

// Where each line's leading blanks (spaces and tabs) end, and its leading blanks and `#`: the
// tests "nothing but blanks before" and "a heading's number" in O(1) on a one-line megabyte.
struct LineLeads {
    const manuscript::Source& src;
    std::vector<std::pair<std::size_t, std::size_t>> lead;  ///< per line: (blanks end, blanks and # end)
    LineLeads(const manuscript::Source& source, const std::string& s) : src(source) {
        for (const std::size_t start : src.line_starts) {
            std::size_t w = start;
            while (w < s.size() && (s[w] == ' ' || s[w] == '\t')) ++w;
            std::size_t h = w;
            while (h < s.size() && (s[h] == ' ' || s[h] == '\t' || s[h] == '#')) ++h;
            lead.emplace_back(w, h);
        }
    }
    [[nodiscard]] const std::pair<std::size_t, std::size_t>& of(std::size_t offset) const {
        const auto it = std::upper_bound(src.line_starts.begin(), src.line_starts.end(), offset);
        return lead[static_cast<std::size_t>(it - src.line_starts.begin()) - 1];
    }
};

bool excluded(const std::string& s, std::size_t b, std::size_t e, const AuditOptions& o, const LineLeads& lines) {
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
    const auto& [blanks_end, heading_end] = lines.of(b);
    const bool only_blanks_before = b <= blanks_end;
    if (o.ignore_lists && only_blanks_before && e < s.size() && (s[e] == '.' || s[e] == ')') &&
        text.find('.') == std::string::npos) {
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
        if (b <= heading_end && !only_blanks_before) return true;  // only blanks and # before it, and a #
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

std::vector<Candidate> candidates(const std::string& s, const AuditOptions& o, const LineLeads& lines) {
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
        if (!excluded(s, k, e, o, lines)) out.push_back({k, e});
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

// A decimal as written in prose, `0.3466`, `−0.75`, `33.3%` (a percentage is the decimal with
// two more places): its digits as an integer and its places. Nothing for other text.
struct WrittenDecimal {
    mpz_class scaled;
    int places = 0;
};
std::optional<WrittenDecimal> written_decimal(std::string_view t) {
    bool negative = false;
    if (t.starts_with("−")) {
        negative = true;
        t.remove_prefix(3);
    } else if (t.starts_with('-')) {
        negative = true;
        t.remove_prefix(1);
    }
    int extra = 0;
    if (t.ends_with('%')) {
        extra = 2;
        t.remove_suffix(1);
    }
    const std::size_t point = t.find('.');
    if (point == std::string_view::npos || point == 0 || point + 1 == t.size() || t.size() > 200) return std::nullopt;
    std::string digits(t.substr(0, point));
    digits += t.substr(point + 1);
    if (digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    WrittenDecimal d;
    d.scaled = mpz_class(digits, 10);
    if (negative) d.scaled = -d.scaled;
    d.places = static_cast<int>(t.size() - point - 1) + extra;
    return d;
}

// The report's scalars by their decimal roundings: a written decimal is judged only against the
// quantities whose rounding to its places is within one unit of it (a value that rounds to d
// is within half a unit of d, and its own rounding within half a unit of it), and the tokens.
// Auditing a thousand decimals against a report of hundreds of quantities so costs a rounding
// of each quantity per number of places, not a judgement of each pair.
class DecimalIndex {
  public:
    explicit DecimalIndex(const std::vector<std::pair<std::string, const Json*>>& scalars) {
        for (std::size_t i = 0; i < scalars.size(); ++i) {
            const Json& j = *scalars[i].second;
            std::optional<Value> v;
            if (j.is_number_integer()) {
                v = Value(j.get<long long>());
            } else if (j.is_string()) {
                try {
                    v = detail::json_value(j, Location{});
                } catch (const Error& e) {
                    if (manuscript::work_refusal(e)) throw;
                }
            }
            if (!v && j.is_string()) tokens_.emplace(j.get<std::string>(), i);  // text, compared as written
            if (!v && !j.is_string()) others_.push_back(i);
            values_.push_back(std::move(v));
        }
    }
    /// The scalars that may round to `d`, or are the token `text`, in the report's order.
    std::vector<std::size_t> near(const WrittenDecimal& d, const std::string& text) {
        auto& by = by_places_[d.places];
        if (by.empty() && !values_.empty()) {
            for (std::size_t i = 0; i < values_.size(); ++i) {
                if (!values_[i]) continue;
                try {
                    if (const auto r = written_decimal(to_fixed(*values_[i], d.places))) by.emplace(r->scaled, i);
                } catch (const Error& e) {  // no rounding (a precision limit): judged as before, always
                    if (manuscript::work_refusal(e)) throw;
                    unrounded_[d.places].push_back(i);
                }
            }
        }
        std::vector<std::size_t> out = others_;
        for (const std::string& t : {text, manuscript::plain_notation(text)}) {
            const auto [tb, te] = tokens_.equal_range(t);
            for (auto it = tb; it != te; ++it) out.push_back(it->second);
        }
        const auto& unrounded = unrounded_[d.places];
        out.insert(out.end(), unrounded.begin(), unrounded.end());
        for (const mpz_class& k : {mpz_class(d.scaled - 1), d.scaled, mpz_class(d.scaled + 1)}) {
            const auto [b, e] = by.equal_range(k);
            for (auto it = b; it != e; ++it) out.push_back(it->second);
        }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }

  private:
    std::vector<std::optional<Value>> values_;
    std::multimap<std::string, std::size_t> tokens_;  ///< a token equals the decimal written as it
    std::vector<std::size_t> others_;                 ///< booleans, nulls: judged as before
    std::map<int, std::multimap<mpz_class, std::size_t>> by_places_;
    std::map<int, std::vector<std::size_t>> unrounded_;
};

}  // namespace

std::string audit_line(const std::string& file, const AuditFinding& f) {
    if (f.equals.empty()) {
        return escape_controls(
            fmt::format("{}:{}:{}: {} equals no computed quantity (unverified)", file, f.line, f.column, f.text));
    }
    std::string names;
    for (std::size_t i = 0; i < f.equals.size() && i < 3; ++i) names += (i ? ", " : "") + f.equals[i];
    if (f.equals.size() > 3) names += ", …";
    return escape_controls(fmt::format("{}:{}:{}: {} equals {}; mark it", file, f.line, f.column, f.text, names));
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
    const LineLeads lines(src, s);
    DecimalIndex decimals(scalars);
    for (const auto& c : candidates(s, audit, lines)) {
        AuditFinding f;
        const Location where = src.at(c.begin);
        f.line = where.line;
        f.column = where.column;
        f.text = src.text.substr(c.begin, c.end - c.begin);
        // The job's budget runs out at a number: the refusal names it (file:line:col).
        placed(where, [&] {
            if (!charge_work(kWorkPerCandidate)) throw over_work(kWorkPerCandidate, "auditing a number of the prose");
            const auto parsed = manuscript::parse_element(manuscript::plain_notation(f.text));
            if (!parsed.numeric) return;
            if (f.text.find('.') != std::string::npos && !parsed.as_json.is_array()) {
                // A decimal equals what it rounds: judged against the quantities that may round to it.
                const auto d = written_decimal(f.text);
                std::vector<std::size_t> near;
                if (d) {
                    near = decimals.near(*d, f.text);
                } else {
                    for (std::size_t i = 0; i < scalars.size(); ++i) near.push_back(i);
                }
                for (const std::size_t i : near) {
                    try {
                        if (f.equals.size() < 8 && manuscript::judge_claim(f.text, *scalars[i].second).passed)
                            f.equals.push_back(scalars[i].first);
                    } catch (const Error& e) {  // a quantity this text cannot be compared with
                        if (manuscript::work_refusal(e)) throw;
                    }
                }
            } else if (parsed.exact) {
                const auto [b, e] = by_value.equal_range(key_of(parsed.as_json));
                for (auto it = b; it != e && f.equals.size() < 8; ++it) f.equals.push_back(it->second);
            }
            r.unmarked.push_back(std::move(f));
        });
    }
    return r;
}

}  // namespace exactattn
