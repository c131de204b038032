// SPDX-License-Identifier: MIT
// exactattn: a learner's answer as written — a fraction, a decimal, a percentage or an
// expression — and the rule that judges it against an exact value (docs/check.md).
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "exactattn/error.hpp"
#include "exactattn/value.hpp"

namespace exactattn {

/// A declared tolerance for decimals and percentages (STACK's numerical answer tests):
/// absolute |s − t| < ε (NumAbsolute), relative |s − t| ≤ ε·|t| (NumRelative), n decimal places
/// (NumDecPlaces) or n significant figures (NumSigFigs); the exact rules are in docs/check.md.
struct Tolerance {
    enum class Kind { AsWritten, Absolute, Relative, DecimalPlaces, SignificantFigures };
    Kind kind = Kind::AsWritten;  ///< AsWritten: a decimal is held to the places it shows
    mpq_class amount;             ///< Absolute, Relative: ε (exact, > 0)
    int digits = 0;               ///< DecimalPlaces, SignificantFigures: n (1-100)
    bool operator==(const Tolerance&) const = default;
};

/// Parses `absolute:0.001`, `relative:1/100`, `decimal-places:6`, `significant-figures:4`
/// (the scenario's {"decimal_places": 6} objects are read into the same struct). ParseError at
/// `where` naming the accepted forms.
Tolerance parse_tolerance(std::string_view spec, const Location& where);
/// `6 decimal places`, `4 significant figures`, `absolute 1/1000`, `relative 1/100`.
std::string tolerance_text(const Tolerance& t);

/// A real number known by certified rational enclosures: enclose(bits) returns [lo, hi] with
/// hi − lo ≤ 2^(−bits)·max(1, |x|) roughly; every call's interval contains the number.
struct RationalInterval {
    mpq_class lo;
    mpq_class hi;
};
using Enclose = std::function<RationalInterval(std::int64_t bits)>;

/// A quantity's entry: an exact value of the domain, or a real outside it (e^k) known only by
/// enclosures.
struct Real {
    std::optional<Value> exact;
    Enclose enclose;  ///< set when `exact` is not
    static Real of(Value v) { return Real{std::move(v), {}}; }
    [[nodiscard]] RationalInterval at(std::int64_t bits) const;
};
Real operator+(const Real& x, const Real& y);
Real operator*(const Real& x, const Real& y);
Real operator/(const Real& x, const Real& y);
/// e^q for rational q: outside the exact domain (e = exp(1), not 2^(1/m) or a = ln 2),
/// enclosed by MPFR's correctly rounded exponential rounded down and up.
Real e_power(const mpq_class& q);

/// One entry of a learner's answer as written.
struct AnswerEntry {
    /// Token: a token of a rollout or a source (`blue`), the answer to a pointer that holds tokens
    /// (names_tokens() in scenario.hpp); it has no value and is compared exactly (docs/check.md).
    /// NoToken: `null` in a token list, the place of a step whose tie the rule refused.
    enum class Form { Exact, Decimal, Percent, Outside, Token, NoToken };
    std::string text;  ///< as written (Token: the token itself, unquoted)
    Form form = Form::Exact;
    Real value;        ///< Exact/Decimal/Percent: exact (a percentage divided by 100)
    int decimals = 0;  ///< Decimal/Percent: places after the point (of the value: a percentage's + 2)
    int sig_min = 0;   ///< Decimal/Percent: significant figures written, STACK's liberal
    int sig_max = 0;   ///< range (100 has 1 to 3, 0.0010 exactly 2)
    /// The text decides everything else (parse_answer_entry of it): load(write(s)) == s.
    bool operator==(const AnswerEntry& o) const { return text == o.text && form == o.form; }
};
/// Reads one entry: `0.259921`, `-1.5e-3`, `25.99%`, `e`, `e^2/(e^2 + 2)` (an expression in e:
/// numbers, e, + − * /, parentheses, integer powers and e^(p/q)), or any exact expression
/// (`2^(1/3) - 1`, `6a/5`). ParseError (with its column) otherwise.
AnswerEntry parse_answer_entry(std::string_view text);

/// One entry of a token answer: the token itself (Form::Token), not parsed.
AnswerEntry token_entry(std::string token);
/// The entry `null` of a token list: no token (a tie the rule refused), Form::NoToken.
AnswerEntry no_token_entry();

/// The verdict on one entry against one exact (or enclosed) value.
struct EntryVerdict {
    bool match = false;
    bool decided = true;  ///< false: the enclosures could not separate them (an e-expression equal to
                          ///< thousands of digits): judged not matching, and said so
    std::string rule;     ///< e.g. "exact value", "6 decimal places (written 6)"
    /// Why the form alone fails the rule, for the learner: "written with 3 decimal places where
    /// 4 were asked" (a declared decimal-places or significant-figures rule); empty otherwise.
    std::string form_mismatch;
};
/// Judges `entry` against `target` under `tol`: an exact form by exact value (an expression in
/// e is never equal to a value of the domain unless the enclosures cannot tell), a decimal or
/// percentage by the declared tolerance or, with none, to the places it is written with. Every
/// comparison is certified: exact arithmetic for values of the domain, enclosures refined until
/// they decide (up to limits().max_precision bits) for values outside it.
EntryVerdict judge_entry(const AnswerEntry& entry, const Real& target, const Tolerance& tol);

/// |entry − target|, exact when both are in the domain.
Real distance(const AnswerEntry& entry, const Real& target);
/// A distance for feedback, to 3 significant figures (e.g. "0.0123"; "0" only when it is 0):
/// correctly rounded from the exact value, or, outside the domain (an expression in e), from
/// the midpoint of a 96-bit enclosure.
std::string distance_text(const Real& d);

}  // namespace exactattn
