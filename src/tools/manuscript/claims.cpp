// SPDX-License-Identifier: MIT
// exactattn: reading what an author wrote (2a/3, √2 − 1, \tfrac{2a}{3}, 2/4 = 1/2,
// ≈ [0.346574, 0.173287], 50%, 1600 bytes, twelve) and judging it exactly against the report.
#include "tools/manuscript/claims.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <optional>

#include "exactattn/answer_entry.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/value.hpp"
#include "tools/manuscript/marks.hpp"

namespace exactattn::manuscript {

using detail::Json;

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// "twelve" → "12", "one hundred" → "100"; the text itself when it is no number word.
std::string number_word(const std::string& text) {
    const std::string w = lower(text);
    for (std::size_t n = 0; n < kNumberWords.size(); ++n) {
        if (w == kNumberWords[n]) return std::to_string(n);
    }
    if (w == "a hundred" || w == "one hundred" || w == "hundred") return "100";
    return text;
}

bool is_function_word(const std::string& w) {
    return w == "ln" || w == "log" || w == "exp" || w == "sqrt" || w == "a" || w == "e";
}

// "1600 bytes" → "1600", "twelve dot products" → "twelve": trailing unit words are not part
// of the value.
std::string without_units(std::string s) {
    for (;;) {
        const std::size_t sp = s.find_last_of(' ');
        if (sp == std::string::npos) return s;
        const std::string last = s.substr(sp + 1);
        bool word = last.size() >= 2;
        for (const char c : last) word = word && (is_letter(c) || c == '-');
        if (!word || is_function_word(last)) return s;
        s = trim(s.substr(0, sp));
    }
}

// Splits at the top-level (outside () and []) occurrences of any of `seps`.
std::vector<std::pair<std::string, std::string>> split_top(const std::string& s, const std::vector<std::string>& seps) {
    std::vector<std::pair<std::string, std::string>> out;
    int depth = 0;
    std::string sep;
    std::size_t from = 0;
    for (std::size_t k = 0; k < s.size(); ++k) {
        const char c = s[k];
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (depth != 0) continue;
        for (const auto& x : seps) {
            if (s.compare(k, x.size(), x) == 0) {
                out.emplace_back(sep, s.substr(from, k - from));
                sep = x;
                from = k + x.size();
                k = from - 1;
                break;
            }
        }
    }
    out.emplace_back(sep, s.substr(from));
    return out;
}

std::string strip_punctuation(std::string s) {
    s = trim(s);
    while (!s.empty() && (s.back() == '.' || s.back() == ',' || s.back() == ';' || s.back() == ':')) {
        s.pop_back();
        s = trim(s);
    }
    return s;
}

/// A written element: a scalar as an answer entry (or text, a token), or a list.
struct Claimed {
    bool list = false;
    std::vector<Claimed> items;
    std::string text;
    std::string raw;  ///< as written (a token is compared with this: `.`, `end token`, `one`)
    std::optional<AnswerEntry> entry;
    std::string error;  ///< why the text is not a value
};

Claimed scalar(const std::string& raw) {
    Claimed c;
    c.raw = trim(raw);
    c.text = number_word(without_units(strip_punctuation(raw)));
    try {
        c.entry = parse_answer_entry(c.text);
    } catch (const Error& e) {
        if (work_refusal(e)) throw;  // the job's budget spent is not "no value"
        c.error = e.reason();
    }
    return c;
}

std::optional<std::size_t> top_bracket(const std::string& s) {
    int depth = 0;
    for (std::size_t k = 0; k < s.size(); ++k) {
        if (s[k] == '(') ++depth;
        if (s[k] == ')') --depth;
        if (s[k] == '[' && depth == 0) return k;
    }
    return std::nullopt;
}

Claimed element(const std::string& raw);

// `[x, y]` or `[[…], […]]` as written, entry by entry.
Claimed bracket_list(const std::string& inner) {
    Claimed c;
    c.list = true;
    if (trim(inner).empty()) return c;
    for (const auto& [sep, part] : split_top(inner, {","})) c.items.push_back(element(part));
    return c;
}

// A sum of scaled vectors, ½[a,0] + ¼[0,a] + ¼[0,0], evaluated exactly.
std::optional<Claimed> vector_sum(const std::string& s) {
    const auto terms = split_top(s, {"+", " - ", "−"});
    std::vector<Value> sum;
    bool scaled = terms.size() > 1;
    for (const auto& [sep, term] : terms) {
        const auto open = top_bracket(term);
        if (!open) return std::nullopt;
        const std::size_t close = term.rfind(']');
        if (close == std::string::npos || close < *open) return std::nullopt;
        std::string coef = trim(term.substr(0, *open)) + trim(term.substr(close + 1));
        for (const char* op : {"×", "·", "*"}) {
            for (std::size_t p = coef.find(op); p != std::string::npos; p = coef.find(op))
                coef.erase(p, std::string_view(op).size());
        }
        coef = trim(coef);
        scaled = scaled || !coef.empty();
        if (!scaled) return std::nullopt;  // one plain list: read entry by entry (tokens, decimals)
        Value k = coef.empty() ? Value(1) : parse_value(coef);
        if (sep == " - " || sep == "−") k = -k;
        std::vector<Value> v = parse_vector(term.substr(*open, close - *open + 1));
        if (sum.empty()) {
            sum.assign(v.size(), Value());
        } else if (sum.size() != v.size()) {
            throw parse_error(Location{}, "a sum of vectors of different widths");
        }
        for (std::size_t i = 0; i < v.size(); ++i) sum[i] = sum[i] + k * v[i];
    }
    Claimed c;
    c.list = true;
    for (const auto& v : sum) c.items.push_back(scalar(to_ascii(v)));
    return c;
}

Claimed element(const std::string& raw) {
    const std::string s = strip_punctuation(raw);
    const auto rows = split_top(s, {";"});
    if (rows.size() > 1) {  // rows of a matrix, [0,a]; [0,0] (or h_1=[a,0], h_2=[0,a])
        Claimed m;
        m.list = true;
        for (const auto& [sep, row] : rows) {
            std::string r = strip_punctuation(row);
            if (r.empty()) continue;
            const auto parts = split_top(r, {"="});
            m.items.push_back(element(parts.back().second));
        }
        return m;
    }
    if (const auto open = top_bracket(s)) {
        if (auto sum = vector_sum(s)) return *sum;
        if (*open == 0 && split_top(s, {","}).size() == 1 && s.back() == ']')
            return bracket_list(s.substr(1, s.size() - 2));
    }
    if (split_top(s, {","}).size() > 1) return bracket_list(s);  // a list without its brackets
    return scalar(raw);                                          // unstripped: a token may be `.`
}

bool is_label(const std::string& text) {
    const std::string t = trim(text);
    if (t.empty()) return true;
    const auto c = static_cast<unsigned char>(t[0]);
    if (std::isdigit(c) || t[0] == '[' || t[0] == '(' || t[0] == '-' || t.starts_with("−") || t.starts_with("√") ||
        t.starts_with("∛") || t.starts_with("∜")) {
        return false;
    }
    try {
        (void)parse_value(t);
        return false;
    } catch (const Error& e) {
        if (work_refusal(e)) throw;
        return true;
    }
}

std::string null_words(const std::string& t) {
    const std::string w = lower(trim(t));
    return w == "—" || w == "–" || w == "-" || w == "null" || w == "none" || w == "n/a" || w == "removed" ? "null" : w;
}

/// Compares a claimed element with the target; empty on success, else why not.
std::string compare(const Claimed& c, const Json& t, const std::string& link);

std::string compare_list(const Claimed& c, const Json& t, const std::string& link) {
    if (!c.list) return fmt::format("written {}, a single value, for a vector of {}", c.text, t.size());
    if (c.items.size() != t.size()) return fmt::format("{} entries written, {} computed", c.items.size(), t.size());
    for (std::size_t i = 0; i < t.size(); ++i) {
        const std::string why = compare(c.items[i], t[i], link);
        if (!why.empty()) return fmt::format("entry {}: {}", i + 1, why);
    }
    return {};
}

std::string compare_value(const Claimed& c, const Value& target, const std::string& link) {
    if (!c.entry) throw parse_error(Location{}, fmt::format("\"{}\" is not a value: {}", c.text, c.error));
    AnswerEntry e = *c.entry;
    const bool decimal = e.form == AnswerEntry::Form::Decimal || e.form == AnswerEntry::Form::Percent;
    const bool has_point = e.text.find('.') != std::string::npos;
    // A count (no point) and any decimal after `=` must be exact; a decimal standing alone or
    // after ≈ is judged by correct rounding to the places written.
    // The written element by its value (2+1+2 is 5, \tfrac{a}{3} is a/3).
    const std::string written = e.value.exact ? to_ascii(*e.value.exact) : e.text;
    if (decimal && (!has_point || link == "=") && e.form == AnswerEntry::Form::Decimal) {
        if (e.value.exact && *e.value.exact == target) return {};
        return fmt::format("{} ≠ {}", written, to_ascii(target));
    }
    const EntryVerdict v = judge_entry(e, Real::of(target), Tolerance{});
    if (v.match) return {};
    if (decimal) {
        const int places = e.form == AnswerEntry::Form::Percent ? e.decimals - 2 : e.decimals;
        std::string rounded = to_fixed(e.form == AnswerEntry::Form::Percent ? target * Value(100) : target, places);
        if (e.form == AnswerEntry::Form::Percent) rounded += "%";
        return fmt::format("{}: {} rounds to {}", v.rule, to_ascii(target), rounded);
    }
    return fmt::format("{} ≠ {}", written, to_ascii(target));
}

std::string compare(const Claimed& c, const Json& t, const std::string& link) {
    if (t.is_array()) return compare_list(c, t, link);
    if (c.list) return fmt::format("a vector written for the single value {}", quantity_text(t));
    if (t.is_null())
        return null_words(c.text) == "null" ? "" : fmt::format("{} written for a removed position", c.text);
    if (t.is_boolean()) {
        const std::string w = null_words(c.text);
        const bool yes = w == "true" || w == "yes";
        if (!yes && w != "false" && w != "no") return fmt::format("{} is not true or false", c.text);
        return yes == t.get<bool>() ? "" : fmt::format("{} ≠ {}", c.text, t.dump());
    }
    if (t.is_number_integer()) return compare_value(c, Value(t.get<long long>()), link);
    if (t.is_string()) {
        Value v;
        try {
            v = detail::json_value(t, Location{});
        } catch (const Error&) {  // a token: compared as written, without quotes or a sentence's full stop
            std::string w = c.raw;
            if (w.size() >= 2 && (w.front() == '"' || w.front() == '\'') && w.back() == w.front())
                w = w.substr(1, w.size() - 2);
            const std::string& token = t.get<std::string>();
            return w == token || strip_punctuation(w) == token ? "" : fmt::format("token {} ≠ {}", w, token);
        }
        return compare_value(c, v, link);
    }
    return fmt::format("the quantity {} is not a value", t.dump());
}

}  // namespace

bool work_refusal(const Error& e) {
    return e.kind() == ErrorKind::Limit &&
           e.reason().find(fmt::format("(limits: {}", limit_name(Limit::max_work))) != std::string::npos;
}

std::vector<std::pair<std::string, std::string>> chain_elements(const std::string& plain) {
    return split_top(plain, {"=", "≈"});
}

namespace {

constexpr int kMaxNesting = 64;

}  // namespace

bool nests_too_deep(std::string_view written) {
    int depth = 0;
    for (const char c : written) {
        if (c == '[' || c == '(' || c == '{') ++depth;
        if (c == ']' || c == ')' || c == '}') --depth;
        if (depth > kMaxNesting) return true;
    }
    return false;
}

namespace {

// Brackets, parentheses and braces nested deeper than any claim needs are refused before the
// recursive readers see them (a stack overflow is not an error message).
void check_nesting(std::string_view written) {
    if (nests_too_deep(written)) {
        throw parse_error(Location{}, fmt::format("the claim nests brackets more than {} deep", kMaxNesting));
    }
}

}  // namespace

ClaimJudgement judge_claim(std::string_view written, const Json& target) {
    check_nesting(written);
    const std::string plain = plain_notation(written);
    ClaimJudgement j;
    if (split_top(plain, {";"}).size() > 1) {  // rows, each perhaps named: h_1=[a,0]; h_2=[0,a]
        j.detail = compare(element(plain), target, "");
        j.passed = j.detail.empty();
        return j;
    }
    const auto parts = chain_elements(plain);
    std::size_t values = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const auto& [sep, text] = parts[i];
        if (i == 0 && parts.size() > 1 && is_label(text)) continue;
        ++values;
        const std::string why = compare(element(text), target, sep);
        if (!why.empty()) {
            j.detail = parts.size() > 1 ? fmt::format("link {} of the chain: {}", values, why) : why;
            return j;
        }
    }
    j.passed = true;
    return j;
}

std::optional<std::string> chain_contradiction(std::string_view written) {
    check_nesting(written);
    const std::string plain = plain_notation(written);
    if (split_top(plain, {";"}).size() > 1) return std::nullopt;
    const auto parts = chain_elements(plain);
    const std::size_t first = parts.size() > 1 && is_label(parts[0].second) ? 1 : 0;
    if (parts.size() < first + 2) return std::nullopt;
    if (parts[first].second.find('.') != std::string::npos) return std::nullopt;  // 0.35 = …: approximate
    const ParsedElement base = parse_element(parts[first].second);
    if (!base.exact) return std::nullopt;
    std::optional<std::string> first_false;
    for (std::size_t i = first + 1; i < parts.size(); ++i) {
        const ParsedElement p = parse_element(parts[i].second);
        if (!p.exact) return std::nullopt;  // a chain with an element that is no exact value is not judged
        if (first_false) continue;
        const std::string why = compare(element(parts[i].second), base.as_json, "≈");
        if (!why.empty()) first_false = fmt::format("link {} of the chain: {}", i - first + 1, why);
    }
    return first_false;
}

std::string quantity_text(const Json& t) {
    if (t.is_array()) {
        std::string out = "[";
        for (std::size_t i = 0; i < t.size(); ++i) out += (i ? ", " : "") + quantity_text(t[i]);
        return out + "]";
    }
    if (t.is_string()) return t.get<std::string>();
    return t.dump();
}

StatementShape statement_shape(const std::string& plain) {
    StatementShape out;
    try {
        check_nesting(plain);
        std::vector<std::pair<std::string, std::string>> parts;
        if (split_top(plain, {";"}).size() > 1) {
            parts.emplace_back("", plain);
        } else {
            parts = chain_elements(plain);
        }
        std::size_t first = 0;
        if (parts.size() > 1 && is_label(parts[0].second)) {
            out.label = trim(parts[0].second);
            first = 1;
        }
        for (std::size_t i = first; i < parts.size(); ++i) {
            const Claimed c = element(parts[i].second);
            auto values = [](const Claimed& x, auto& self) -> bool {
                if (!x.list) return x.entry.has_value();
                for (const auto& y : x.items) {
                    if (!self(y, self)) return false;
                }
                return !x.items.empty();
            };
            if (!values(c, values)) return StatementShape{};
            if (i + 1 == parts.size()) {
                out.entries = c.list ? static_cast<int>(c.items.size()) : -1;
                out.matrix = c.list && !c.items.empty() && c.items[0].list;
            }
        }
        out.numeric = first < parts.size();
    } catch (const Error& e) {
        if (work_refusal(e)) throw;
        return StatementShape{};
    }
    return out;
}

ParsedElement parse_element(const std::string& plain) {
    ParsedElement p;
    Claimed c;
    try {
        check_nesting(plain);
        c = element(plain);
    } catch (const Error& e) {
        if (work_refusal(e)) throw;
        return p;
    }
    auto to_json = [](const Claimed& x, auto& self) -> std::optional<Json> {
        if (x.list) {
            Json a = Json::array();
            for (const auto& i : x.items) {
                auto j = self(i, self);
                if (!j) return std::nullopt;
                a.push_back(*j);
            }
            return a;
        }
        if (!x.entry || !x.entry->value.exact) return std::nullopt;
        return Json(to_ascii(*x.entry->value.exact));
    };
    if (!c.list && !c.entry) return p;
    p.numeric = true;
    if (auto j = to_json(c, to_json)) {
        p.exact = true;
        p.as_json = *j;
    }
    return p;
}

}  // namespace exactattn::manuscript
