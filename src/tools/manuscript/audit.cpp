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
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/value.hpp"
#include "tools/manuscript/marks.hpp"
#include "tools/manuscript/quantities.hpp"
#include "tools/manuscript/bind.hpp"

namespace exactattn {

namespace {

using detail::Json;

/// Work units charged for each number-like candidate of the prose audited (its reading and
/// lookups; the arithmetic of judging it is charged as it runs).
constexpr double kWorkPerCandidate = 2e5;

double coverage_of(std::size_t marked, std::size_t unmarked) {
    return marked + unmarked == 0 ? 1.0 : static_cast<double>(marked) / static_cast<double>(marked + unmarked);
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

const char* audit_verdict_name(AuditVerdict v) {
    switch (v) {
        case AuditVerdict::Verified:
            return "verified";
        case AuditVerdict::Wrong:
            return "wrong";
        case AuditVerdict::Ambiguous:
            return "ambiguous";
        case AuditVerdict::Unbound:
            return "unbound";
        case AuditVerdict::NotAClaim:
            return "not a claim";
    }
    return "unbound";
}

std::string audit_message(const AuditFinding& f) {
    auto named = [](const AuditQuantity& q) { return fmt::format("{} ({}) is {}", q.description, q.pointer, q.value); };
    std::string line;
    switch (f.verdict) {
        case AuditVerdict::Wrong:
            if (f.bound.empty()) {  // its own arithmetic, no quantity needed
                line = fmt::format("written {}; {} is false", f.text, f.reason);
            } else if (f.bound.size() == 1) {
                line = fmt::format("written {}; {}", f.text, named(f.bound[0]));
            } else {
                std::string fits;
                for (const auto& q : f.bound) fits += (fits.empty() ? "" : "; ") + named(q);
                line = fmt::format("written {}; it equals none of what its context fits: {}", f.text, fits);
            }
            if (!f.detail.empty() && f.bound.size() <= 1) line += fmt::format(" ({})", f.detail);
            break;
        case AuditVerdict::Verified:
            line = fmt::format("{} verified: {} ({}){}", f.text, f.bound[0].description, f.bound[0].pointer,
                               f.reason.empty() ? "" : fmt::format(" [{}]", f.reason));
            break;
        case AuditVerdict::Ambiguous: {
            std::string fits;
            for (const auto& q : f.bound) fits += (fits.empty() ? "" : "; ") + named(q);
            line = fmt::format("{} ambiguous: its context fits {}", f.text, fits);
            break;
        }
        case AuditVerdict::Unbound:
            line = fmt::format("{} unbound: {}", f.text, f.reason);
            if (!f.equals.empty()) {
                std::string names;
                for (std::size_t i = 0; i < f.equals.size() && i < 3; ++i) names += (i ? ", " : "") + f.equals[i];
                if (f.equals.size() > 3) names += ", …";
                line += fmt::format(" (it equals {})", names);
            }
            break;
        case AuditVerdict::NotAClaim:
            line = fmt::format("{} not a claim: {}", f.text, f.reason);
            break;
    }
    return escape_controls(line);
}

std::string audit_line(const std::string& file, const AuditFinding& f) {
    return escape_controls(fmt::format("{}:{}:{}: ", file, f.line, f.column)) + audit_message(f);
}

double AuditResult::coverage() const { return coverage_of(marked, unmarked.size()); }

std::size_t AuditResult::count(AuditVerdict v) const {
    return static_cast<std::size_t>(
        std::count_if(unmarked.begin(), unmarked.end(), [v](const AuditFinding& f) { return f.verdict == v; }));
}

namespace {

AuditResult audit_text(std::string_view text, const std::string& file, ManuscriptFormat format,
                       const ManuscriptOptions& options, const AuditOptions& audit) {
    manuscript::Source src = manuscript::prepare(text, file, format);
    manuscript::inherit_scenario(src, options.inherited_scenario);
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
    DecimalIndex decimals(scalars);
    for (auto& n : manuscript::bind_numbers(src, marks, q, audit)) {
        AuditFinding f = std::move(n.finding);
        if (f.verdict == AuditVerdict::NotAClaim) {
            r.not_claims.push_back(std::move(f));
            continue;
        }
        // What it equals, whatever its context: the quantities of equal value (a decimal: the
        // quantities that round to it).
        placed(src.at(n.begin), [&] {
            const auto parsed = manuscript::parse_element(manuscript::plain_notation(f.text));
            if (!parsed.numeric) return;
            if (f.text.find('.') != std::string::npos && !parsed.as_json.is_array()) {
                const auto d = written_decimal(f.text);
                if (!d) return;
                for (const std::size_t i : decimals.near(*d, f.text)) {
                    try {
                        if (f.equals.size() < 8 && manuscript::judge_claim(f.text, *scalars[i].second).passed)
                            f.equals.push_back(scalars[i].first);
                    } catch (const Error& e) {
                        if (manuscript::work_refusal(e)) throw;
                    }
                }
            } else if (parsed.exact) {
                const auto [b, e] = by_value.equal_range(key_of(parsed.as_json));
                for (auto it = b; it != e && f.equals.size() < 8; ++it) f.equals.push_back(it->second);
            }
        });
        r.unmarked.push_back(std::move(f));
    }
    return r;
}

}  // namespace

// Every error is placed: a claim's own at its line and column, anything else (a work budget run
// out while binding or printing a value) at the manuscript.
AuditResult audit_manuscript_text(std::string_view text, const std::string& file, ManuscriptFormat format,
                                  const ManuscriptOptions& options, const AuditOptions& audit) {
    Location where;
    where.file = file;
    return placed(where, [&] { return audit_text(text, file, format, options, audit); });
}

namespace {

// The value of a setting line `key: value` without its blanks and one pair of quotes.
std::string setting_value(std::string_view raw) {
    while (!raw.empty() && (raw.front() == ' ' || raw.front() == '\t')) raw.remove_prefix(1);
    while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r')) raw.remove_suffix(1);
    if (raw.size() >= 2 && (raw.front() == '"' || raw.front() == '\'') && raw.back() == raw.front()) {
        raw = raw.substr(1, raw.size() - 2);
    }
    return std::string(raw);
}

// A percentage as the setting writes it (digits, at most one decimal point with digits on both
// sides) from 0 to 100, exactly; nullopt when it is none.
std::optional<mpq_class> setting_percentage(const std::string& text) {
    const std::size_t dot = text.find('.');
    const auto digits = [](std::string_view t) {
        return !t.empty() && t.size() <= 30 &&
               std::all_of(t.begin(), t.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    };
    const std::string_view v(text);
    if (!digits(v.substr(0, dot)) || (dot != std::string::npos && !digits(v.substr(dot + 1)))) return std::nullopt;
    const Value p = parse_value(text);
    if (!p.is_rational() || p.rational() > 100) return std::nullopt;
    return p.rational();
}

const std::map<std::string, AuditLevel, std::less<>>& audit_levels() {
    static const std::map<std::string, AuditLevel, std::less<>> levels = {
        {"false", AuditLevel::Off},    {"no", AuditLevel::Off},    {"off", AuditLevel::Off},
        {"true", AuditLevel::Wrong},   {"yes", AuditLevel::Wrong}, {"on", AuditLevel::Wrong},
        {"strict", AuditLevel::Strict}};
    return levels;
}

// One setting `key: value` (the key `exactattn-audit` or `exactattn-audit-min-coverage`) merged
// into `into`, the strictest level and the highest minimum kept; refused at `where`.
void take_setting(bool min, const std::string& value, const Location& where, AuditSetting& into) {
    if (min) {
        const auto p = setting_percentage(value);
        if (!p) {
            throw usage_error(fmt::format("exactattn-audit-min-coverage: {} is not a percentage from 0 to 100",
                                          escape_controls(value)),
                              where);
        }
        const auto least = into.min_coverage.empty() ? std::nullopt : setting_percentage(into.min_coverage);
        if (!least || *p > *least) into.min_coverage = value;
        return;
    }
    std::string word = value;
    std::transform(word.begin(), word.end(), word.begin(),
                   [](char ch) { return ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch - 'A' + 'a') : ch; });
    const auto it = audit_levels().find(word);
    if (it == audit_levels().end()) {
        throw usage_error(fmt::format("exactattn-audit: {} is none of true, false and strict (the audit of the "
                                      "unmarked prose: docs/manuscript.md)",
                                      escape_controls(value)),
                          where);
    }
    into.level = std::max(into.level, it->second);
}

// A YAML value as written on its key's line: one pair of quotes taken off, or a plain value
// without a trailing ` # comment`.
std::string yaml_setting_value(std::string_view raw) {
    while (!raw.empty() && (raw.front() == ' ' || raw.front() == '\t')) raw.remove_prefix(1);
    if (raw.empty() || (raw.front() != '"' && raw.front() != '\'')) {
        for (std::size_t k = 1; k < raw.size(); ++k) {
            if (raw[k] == '#' && (raw[k - 1] == ' ' || raw[k - 1] == '\t')) {
                raw = raw.substr(0, k);
                break;
            }
        }
    } else if (const std::size_t close = raw.find(raw.front(), 1); close != std::string_view::npos) {
        std::string_view after = raw.substr(close + 1);
        while (!after.empty() && (after.front() == ' ' || after.front() == '\t')) after.remove_prefix(1);
        if (after.empty() || after.front() == '#') raw = raw.substr(0, close + 1);
    }
    return setting_value(raw);
}

}  // namespace

void read_audit_setting(std::string_view latex, const std::string& file, AuditSetting& into) {
    int line = 0;
    for (std::size_t from = 0; from < latex.size(); ++line) {
        std::size_t e = latex.find('\n', from);
        if (e == std::string_view::npos) e = latex.size();
        const std::string_view l = latex.substr(from, e - from);
        from = e + 1;
        std::size_t k = l.find_first_not_of(" \t");
        if (k == std::string_view::npos || l[k] != '%') continue;
        k = l.find_first_not_of(" \t", k + 1);
        if (k == std::string_view::npos) continue;
        const std::string_view rest = l.substr(k);
        const bool min = rest.starts_with("exactattn-audit-min-coverage:");
        if (!min && !rest.starts_with("exactattn-audit:")) continue;
        const std::string_view key = min ? "exactattn-audit-min-coverage" : "exactattn-audit";
        // The key's column: only blanks and `%` stand before it, one byte a code point.
        take_setting(min, setting_value(rest.substr(key.size() + 1)),
                     Location{file, line + 1, static_cast<int>(k) + 1, {}, {}}, into);
    }
}

void read_audit_setting(std::string_view text, const std::string& file, ManuscriptFormat format, AuditSetting& into) {
    if (format == ManuscriptFormat::Latex) {
        read_audit_setting(text, file, into);
        return;
    }
    if (text.find("exactattn-audit") == std::string_view::npos) return;  // most files: nothing to read
    const manuscript::Source src = manuscript::prepare(text, file, format);
    const std::string_view t(src.text);
    // pandoc merges a file's blocks, a later key replacing an earlier one: the file's setting is the
    // last of each key.
    std::optional<std::pair<std::string, Location>> level;
    std::optional<std::pair<std::string, Location>> least;
    for (const auto& [b, e] : src.metadata_blocks) {
        for (std::size_t pos = b; pos < e;) {
            std::size_t eol = t.find('\n', pos);
            if (eol == std::string_view::npos || eol > e) eol = e;
            const std::string_view l = t.substr(pos, eol - pos);
            const bool min = l.starts_with("exactattn-audit-min-coverage:");
            if (min || l.starts_with("exactattn-audit:")) {
                const std::size_t key =
                    std::string_view(min ? "exactattn-audit-min-coverage:" : "exactattn-audit:").size();
                (min ? least : level) = std::pair(yaml_setting_value(l.substr(key)), src.at(pos));
            }
            pos = eol + 1;
        }
    }
    if (level) take_setting(false, level->first, level->second, into);
    if (least) take_setting(true, least->first, least->second, into);
}

void read_project_audit_setting(std::string_view yaml, const std::string& file, bool myst, AuditSetting& into) {
    if (yaml.find("exactattn-audit") == std::string_view::npos) return;
    std::optional<std::pair<std::string, Location>> level;
    std::optional<std::pair<std::string, Location>> least;
    bool in_project = false;
    int line = 0;
    for (std::size_t from = 0; from < yaml.size(); ++line) {
        std::size_t e = yaml.find('\n', from);
        if (e == std::string_view::npos) e = yaml.size();
        std::string_view l = yaml.substr(from, e - from);
        from = e + 1;
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        const std::size_t k = l.find_first_not_of(" \t");
        if (k == std::string_view::npos || l[k] == '#') continue;
        if (k == 0)
            in_project =
                myst && l.starts_with("project:") && l.substr(8).find_first_not_of(" \t") == std::string_view::npos;
        // Quarto: a top-level key; MyST: a key of the map `project:`, indented under it.
        if (myst ? (!in_project || k == 0) : k != 0) continue;
        const std::string_view rest = l.substr(k);
        const bool min = rest.starts_with("exactattn-audit-min-coverage:");
        if (!min && !rest.starts_with("exactattn-audit:")) continue;
        const std::size_t key = std::string_view(min ? "exactattn-audit-min-coverage:" : "exactattn-audit:").size();
        (min ? least : level) =
            std::pair(yaml_setting_value(rest.substr(key)), Location{file, line + 1, static_cast<int>(k) + 1, {}, {}});
    }
    if (level) take_setting(false, level->first, level->second, into);
    if (least) take_setting(true, least->first, least->second, into);
}

}  // namespace exactattn
