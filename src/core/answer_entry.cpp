// SPDX-License-Identifier: MIT
// exactattn: the certified rules that judge answers as written (tolerances, the judgement, the
// distance); the entries are read in answer_parse.cpp, their reals computed in real.cpp.
#include "exactattn/answer_entry.hpp"

#include <fmt/format.h>
#include <mpfr.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "core/interval.hpp"
#include "core/real_detail.hpp"
#include "core/text.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"

namespace exactattn {

namespace {

using detail::absolute;
using detail::certified_compare;
using detail::negated;

mpq_class pow10(int k) { return detail::pow10q(k); }

}  // namespace

Tolerance parse_tolerance(std::string_view spec, const Location& where) {
    const auto colon = spec.find(':');
    const std::string kind(spec.substr(0, colon));
    const std::string amount(colon == std::string_view::npos ? "" : spec.substr(colon + 1));
    auto bad = [&](const std::string& why) {
        return parse_error(where, fmt::format("{}; expected absolute:E, relative:E (E > 0, e.g. 0.001 or 1/100), "
                                              "decimal-places:N or significant-figures:N (N from 1 to 100)",
                                              why));
    };
    Tolerance t;
    if (kind == "decimal-places" || kind == "significant-figures") {
        t.kind = kind == "decimal-places" ? Tolerance::Kind::DecimalPlaces : Tolerance::Kind::SignificantFigures;
        if (amount.empty() || amount.size() > 3 || !std::all_of(amount.begin(), amount.end(), ::isdigit)) {
            throw bad(fmt::format("\"{}\" is not a count of digits", amount));
        }
        t.digits = std::stoi(amount);
        if (t.digits < 1 || t.digits > 100) throw bad(fmt::format("{} digits is out of range", t.digits));
        return t;
    }
    if (kind == "absolute" || kind == "relative") {
        t.kind = kind == "absolute" ? Tolerance::Kind::Absolute : Tolerance::Kind::Relative;
        Value v;
        try {
            v = parse_value(amount);
        } catch (const Error& e) {
            throw bad(fmt::format("\"{}\" is not a number ({})", amount, e.reason()));
        }
        if (!v.is_rational() || v.sign() <= 0) throw bad(fmt::format("\"{}\" is not a positive rational", amount));
        t.amount = v.rational();
        return t;
    }
    throw bad(fmt::format("unknown tolerance \"{}\"", kind));
}

std::string tolerance_text(const Tolerance& t) {
    switch (t.kind) {
        case Tolerance::Kind::AsWritten:
            return "the decimal places written";
        case Tolerance::Kind::Absolute:
            return fmt::format("absolute {}", t.amount.get_str());
        case Tolerance::Kind::Relative:
            return fmt::format("relative {}", t.amount.get_str());
        case Tolerance::Kind::DecimalPlaces:
            return fmt::format("{} decimal place{}", t.digits, t.digits == 1 ? "" : "s");
        case Tolerance::Kind::SignificantFigures:
            return fmt::format("{} significant figure{}", t.digits, t.digits == 1 ? "" : "s");
    }
    return "";
}

namespace {

// The rule "as written" in the learner's own terms: a decimal's places, and a percentage's places
// as it is written (41% is held to the whole percent, 25.99% to 2 decimal places of the
// percentage), not those of the decimal p/100 it is judged as (2 and 4).
std::string as_written_rule(const AnswerEntry& entry, int decimals) {
    if (entry.form != AnswerEntry::Form::Percent) {
        return fmt::format("a decimal to the {} decimal place{} written", decimals, decimals == 1 ? "" : "s");
    }
    const int places = decimals - 2;
    if (places <= 0) return "a percentage to the whole percent written";
    return fmt::format("a percentage to the {} decimal place{} written", places, places == 1 ? "" : "s");
}

}  // namespace

namespace {

// |s − t| ≤ bound, certified: every rule is inclusive at its boundary (docs/check.md, as Moodle's
// numerical question accepts |answer − correct| ≤ tolerance). A distance in the domain equal to
// the bound is decided exactly; nullopt when undecidable (see certified_compare).
std::optional<bool> within(const Real& s, const Real& t, const Real& bound) {
    const Real d = absolute(s + negated(t));
    const auto c = certified_compare(d, bound);
    if (!c) return std::nullopt;
    return *c <= 0;
}

// floor(log10 |t|) for t ≠ 0: guessed from the digits of an enclosure's midpoint, then moved
// one step at a time by certified comparisons with powers of ten (exact for values of the
// domain; enclosures for the others). nullopt when a comparison cannot be decided.
std::optional<int> decimal_exponent(const Real& t) {
    const Real at = absolute(t);
    const RationalInterval r = at.at(128);
    const mpq_class mid = (r.lo + r.hi) / 2;
    if (sgn(mid) == 0) return std::nullopt;
    auto k = static_cast<int>(detail::decimal_exponent_guess(mid));
    for (;;) {  // monotone: k only moves toward the exponent
        const auto lo = certified_compare(at, Real::of(Value(pow10(k))));
        const auto hi = certified_compare(at, Real::of(Value(pow10(k + 1))));
        if (!lo || !hi) return std::nullopt;
        if (*lo < 0)
            --k;
        else if (*hi >= 0)
            ++k;
        else
            return k;
    }
}

}  // namespace

EntryVerdict judge_entry(const AnswerEntry& entry, const Real& target, const Tolerance& tol) {
    EntryVerdict v;
    if (entry.form == AnswerEntry::Form::Token ||
        entry.form == AnswerEntry::Form::NoToken) {  // no value (check judges tokens apart)
        v.rule = "a token, not a value";
        return v;
    }
    const bool exact_form = entry.form == AnswerEntry::Form::Exact || entry.form == AnswerEntry::Form::Outside;
    auto decide = [&v](std::optional<bool> r) {
        v.decided = r.has_value();
        v.match = r.value_or(false);
    };
    if (exact_form) {
        v.rule = "exact value";
        if (entry.form == AnswerEntry::Form::Outside || !target.exact) v.rule = "exact value, by certified enclosures";
        const auto c = certified_compare(entry.value, target);
        v.decided = c.has_value();
        v.match = c == 0;
        return v;
    }
    switch (tol.kind) {
        case Tolerance::Kind::AsWritten:
        case Tolerance::Kind::DecimalPlaces: {
            const int n = tol.kind == Tolerance::Kind::AsWritten ? entry.decimals : tol.digits;
            v.rule = tol.kind == Tolerance::Kind::AsWritten
                         ? as_written_rule(entry, n)
                         : fmt::format("{} decimal place{} (written with {})", n, n == 1 ? "" : "s", entry.decimals);
            if (entry.decimals != n) {
                v.match = false;
                if (tol.kind == Tolerance::Kind::DecimalPlaces) {
                    v.form_mismatch = fmt::format("written with {} decimal place{} where {} {} asked", entry.decimals,
                                                  entry.decimals == 1 ? "" : "s", n, n == 1 ? "was" : "were");
                }
                return v;
            }
            decide(within(entry.value, target, Real::of(Value(mpq_class(pow10(-n) / 2)))));
            return v;
        }
        case Tolerance::Kind::SignificantFigures: {
            const int n = tol.digits;
            v.rule =
                fmt::format("{} significant figure{} (written with {})", n, n == 1 ? "" : "s",
                            entry.sig_min == entry.sig_max ? std::to_string(entry.sig_min)
                                                           : fmt::format("{} to {}", entry.sig_min, entry.sig_max));
            if (n < entry.sig_min || n > entry.sig_max) {
                v.match = false;
                const std::string figures = entry.sig_min == entry.sig_max
                                                ? std::to_string(entry.sig_min)
                                                : fmt::format("{} to {}", entry.sig_min, entry.sig_max);
                v.form_mismatch = fmt::format("written with {} significant figure{} where {} {} asked", figures,
                                              entry.sig_max == 1 ? "" : "s", n, n == 1 ? "was" : "were");
                return v;
            }
            const auto zero = certified_compare(target, Real::of(Value()));
            if (zero == 0) {
                const auto c = certified_compare(entry.value, target);
                decide(c ? std::optional<bool>(*c == 0) : std::nullopt);
                return v;
            }
            const auto k = decimal_exponent(target);
            if (!k) {
                v.decided = false;
                return v;
            }
            decide(within(entry.value, target, Real::of(Value(mpq_class(pow10(*k - n + 1) / 2)))));
            return v;
        }
        case Tolerance::Kind::Absolute:
            v.rule = fmt::format("absolute tolerance {}", tol.amount.get_str());
            decide(within(entry.value, target, Real::of(Value(tol.amount))));
            return v;
        case Tolerance::Kind::Relative:
            v.rule = fmt::format("relative tolerance {}", tol.amount.get_str());
            decide(within(entry.value, target, Real::of(Value(tol.amount)) * absolute(target)));
            return v;
    }
    return v;
}

Real distance(const AnswerEntry& entry, const Real& target) { return absolute(entry.value + negated(target)); }

std::string distance_text(const Real& d) {
    // In the domain: correctly rounded from the exact value. Outside it (an expression in e):
    // the midpoint of a 96-bit enclosure, itself an exact rational, correctly rounded once.
    if (d.exact && d.exact->is_zero()) return "0";
    // A whole distance (a count's: 1400 bytes) is printed whole, never in e-notation (#24).
    if (d.exact && d.exact->is_rational() && d.exact->rational().get_den() == 1) {
        return d.exact->rational().get_num().get_str();
    }
    const auto midpoint = [&] {
        const RationalInterval r = d.at(96);
        return Value(mpq_class((r.lo + r.hi) / 2));
    };
    const Value x = d.exact ? *d.exact : midpoint();
    // 1000 and more: to the unit (1234.5 → 1235), not 1.23e+03.
    if (compare(x.sign() < 0 ? -x : x, Value(1000)) >= 0) return to_fixed(x, 0);
    std::string s = to_significant(x, 3);
    // Never in e-notation (docs/check.md): a small distance, 9.32e-05, is written 0.0000932, the
    // same 3 significant figures as fixed places.
    const auto exp = s.find('e');
    if (exp != std::string::npos) s = to_fixed(x, 2 - std::stoi(s.substr(exp + 1)));
    // No trailing zeros, as feedback reads best (0.2, not 0.200).
    if (s.find('.') == std::string::npos) return s;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

AnswerEntry token_entry(std::string token) {
    AnswerEntry e;
    e.text = std::move(token);
    e.form = AnswerEntry::Form::Token;
    return e;
}

AnswerEntry no_token_entry() {
    AnswerEntry e;
    e.text = "null";
    e.form = AnswerEntry::Form::NoToken;
    return e;
}

}  // namespace exactattn
