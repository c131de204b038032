// SPDX-License-Identifier: MIT
// exactattn: answers as written (fractions, decimals, percentages, expressions in e) and the
// certified rules that judge them.
#include "exactattn/answer_entry.hpp"

#include <fmt/format.h>
#include <mpfr.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "core/interval.hpp"
#include "core/text.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"

namespace exactattn {

namespace {

constexpr std::int64_t kFirstBits = 64;
constexpr std::int64_t kDivisionBits = 4096;

mpq_class pow10(int k) { return detail::pow10q(k); }

bool overlap(const RationalInterval& x, const RationalInterval& y) { return x.lo <= y.hi && y.lo <= x.hi; }

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

// ---------------------------------------------------------------------------------------------
// Reals: exact values, or enclosures for the few numbers outside the domain a learner may write
// (e^k). Interval arithmetic on exact rationals: only e^q itself is rounded (outward, by MPFR).

RationalInterval Real::at(std::int64_t bits) const {
    if (enclose) return enclose(bits);
    const Enclosure e = detail::enclose(exact->terms(), bits);
    const mpz_class scale = mpz_class(1) << static_cast<mp_bitcnt_t>(e.prec);
    return {mpq_class(e.lo, scale), mpq_class(e.hi, scale)};
}

namespace {

// An operand of an enclosure built from others, held shared: a Real is then copied in O(1)
// (two pointers) instead of with its whole tree of operands, which made a sum of n enclosed
// terms, each partial sum copied into the next, cost O(n²) copies (check's e-instead-of-2 on a
// 150-key layer row).
std::shared_ptr<const Real> shared(const Real& x) { return std::make_shared<const Real>(x); }

template <class F>
Real combine(const Real& x, const Real& y, F f) {
    return Real{std::nullopt,
                [x = shared(x), y = shared(y), f](std::int64_t bits) { return f(x->at(bits), y->at(bits)); }};
}

}  // namespace

Real operator+(const Real& x, const Real& y) {
    if (x.exact && y.exact) return Real::of(*x.exact + *y.exact);
    return combine(x, y, [](const RationalInterval& a, const RationalInterval& b) {
        return RationalInterval{a.lo + b.lo, a.hi + b.hi};
    });
}

Real operator*(const Real& x, const Real& y) {
    if (x.exact && y.exact) return Real::of(*x.exact * *y.exact);
    return combine(x, y, [](const RationalInterval& a, const RationalInterval& b) {
        const mpq_class p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
        return RationalInterval{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
    });
}

Real operator/(const Real& x, const Real& y) {
    if (x.exact && y.exact) return Real::of(*x.exact / *y.exact);
    if (y.exact && y.exact->is_zero()) throw domain_error("division by zero");
    return Real{std::nullopt, [x = shared(x), y = shared(y)](std::int64_t bits) {
                    // A divisor's enclosure may hold 0 at low precision; refine until it does not.
                    // Capped as certified_compare is: an e-expression whose divisor agrees with 0
                    // to thousands of digits is refused, not refined for minutes.
                    for (std::int64_t b = bits; b <= std::max<std::int64_t>(bits, kDivisionBits); b *= 2) {
                        const RationalInterval d = y->at(b);
                        if (sgn(d.lo) > 0 || sgn(d.hi) < 0) {
                            const RationalInterval n = x->at(b);
                            const mpq_class q[4] = {n.lo / d.lo, n.lo / d.hi, n.hi / d.lo, n.hi / d.hi};
                            return RationalInterval{*std::min_element(q, q + 4), *std::max_element(q, q + 4)};
                        }
                    }
                    throw domain_error("division by a number that cannot be told from 0");
                }};
}

Real e_power(const mpq_class& q) {
    if (sgn(q) == 0) return Real::of(Value(1));
    // An enclosure of e^q is a pair of dyadic rationals with about |q|·log2(e) bits before the
    // point (after it, for q < 0), whatever the precision asked. Past max_bits it is refused
    // here, before MPFR computes it: e^(1000000000/3) once took 7 s to reach the same refusal
    // (limits: max_bits), and a class file of such answers minutes.
    const mpz_class whole = abs(q.get_num()) / q.get_den();
    const double bits = whole.get_d() * 1.4426950408889634;  // a size estimate, not a value
    if (bits > static_cast<double>(limits().max_bits)) {
        throw over_limit(Limit::max_bits,
                         fmt::format("e^({}) is about 2^{}{:.4g}: its enclosure would need about {:.4g} bits",
                                     q.get_str(), sgn(q) < 0 ? "-" : "", bits, bits));
    }
    return Real{std::nullopt, [q](std::int64_t bits) {
                    mpfr_t x;
                    mpfr_init2(x, static_cast<mpfr_prec_t>(bits + 16));
                    RationalInterval r;
                    mpq_t t;
                    mpq_init(t);
                    mpfr_set_q(x, q.get_mpq_t(), MPFR_RNDD);  // x ≤ q, so e^x ≤ e^q
                    mpfr_exp(x, x, MPFR_RNDD);
                    mpfr_get_q(t, x);
                    r.lo = mpq_class(t);
                    mpfr_set_q(x, q.get_mpq_t(), MPFR_RNDU);
                    mpfr_exp(x, x, MPFR_RNDU);
                    mpfr_get_q(t, x);
                    r.hi = mpq_class(t);
                    mpq_clear(t);
                    mpfr_clear(x);
                    return r;
                }};
}

namespace {

Real negated(const Real& x) { return Real::of(Value(-1)) * x; }

Real absolute(const Real& x) {
    if (x.exact) return Real::of(x.exact->sign() < 0 ? -*x.exact : *x.exact);
    return Real{std::nullopt, [x](std::int64_t bits) {
                    RationalInterval r = x.at(bits);
                    if (sgn(r.lo) >= 0) return r;
                    if (sgn(r.hi) <= 0) return RationalInterval{-r.hi, -r.lo};
                    return RationalInterval{mpq_class(0), std::max<mpq_class>(-r.lo, r.hi)};
                }};
}

// The sign of x − y, certified: exact arithmetic for two values of the domain, else enclosures
// refined until they separate. nullopt: not separated at 4096 bits (an expression in e equal to
// the other to over a thousand digits; no finer answer is worth its cost).
std::optional<int> certified_compare(const Real& x, const Real& y) {
    if (x.exact && y.exact) return compare(*x.exact, *y.exact);
    for (std::int64_t b = kFirstBits; b <= limits().max_precision; b *= 4) {
        const RationalInterval p = x.at(b);
        const RationalInterval q = y.at(b);
        if (p.hi < q.lo) return -1;
        if (p.lo > q.hi) return 1;
        if (p.lo == p.hi && q.lo == q.hi && p.lo == q.lo) return 0;
        if (b >= 4096 && overlap(p, q)) break;  // thousands of digits equal: no finer answer worth its cost
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Reading an entry.

// A decimal literal: [+-] digits [. digits] [(e|E) [+-] digits], with a point or an exponent.
struct DecimalLiteral {
    bool negative = false;
    std::string int_digits;
    std::string frac_digits;
    bool point = false;
    long exponent = 0;
    bool has_exponent = false;
};

std::optional<DecimalLiteral> decimal_literal(const std::string& s) {
    DecimalLiteral d;
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) d.negative = s[i++] == '-';
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) d.int_digits += s[i++];
    if (i < s.size() && s[i] == '.') {
        d.point = true;
        ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) d.frac_digits += s[i++];
    }
    if (d.int_digits.empty() && d.frac_digits.empty()) return std::nullopt;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t j = i + 1;
        bool neg = false;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) neg = s[j++] == '-';
        std::string digits;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) digits += s[j++];
        if (digits.empty() || digits.size() > 4 || j != s.size()) return std::nullopt;
        d.exponent = std::stol(digits) * (neg ? -1 : 1);
        d.has_exponent = true;
        i = j;
    }
    if (i != s.size() || (!d.point && !d.has_exponent)) return std::nullopt;
    if (d.int_digits.size() + d.frac_digits.size() > 10000) return std::nullopt;  // parse_value refuses it
    return d;
}

// STACK's liberal count: leading zeros never count; trailing zeros of a number without a point
// may or may not (100 has 1 to 3 significant figures); a point makes every later digit count.
void significant_figures(const DecimalLiteral& d, int& lo, int& hi) {
    std::string digits = d.int_digits + d.frac_digits;
    const auto first = digits.find_first_not_of('0');
    if (first == std::string::npos) {  // 0, 0.00: one, or as many as written
        lo = 1;
        hi = std::max<int>(1, static_cast<int>(d.frac_digits.size()) + 1);
        return;
    }
    digits = digits.substr(first);
    hi = static_cast<int>(digits.size());
    lo = hi;
    if (!d.point) {
        const auto last = digits.find_last_not_of('0');
        lo = static_cast<int>(last + 1);
    }
}

AnswerEntry from_decimal(const std::string& text, const DecimalLiteral& d, bool percent) {
    AnswerEntry e;
    e.text = text;
    e.form = percent ? AnswerEntry::Form::Percent : AnswerEntry::Form::Decimal;
    const std::string digits = d.int_digits + d.frac_digits;
    const mpz_class mantissa(digits.empty() ? std::string("0") : digits, 10);
    const long places = static_cast<long>(d.frac_digits.size()) - d.exponent + (percent ? 2 : 0);
    mpq_class v = mpq_class(mantissa) * pow10(static_cast<int>(-places));
    v.canonicalize();
    if (d.negative) v = -v;
    e.value = Real::of(Value(v));
    e.decimals = static_cast<int>(std::max(0L, places));
    significant_figures(d, e.sig_min, e.sig_max);
    return e;
}

// An expression in e: numbers, e, + − * /, parentheses, x^n (integer n) and e^(p/q).
class EParser {
  public:
    explicit EParser(const std::string& s) : s_(s) {}
    Real parse() {
        Real r = sum();
        skip();
        if (i_ != s_.size()) fail("unexpected character");
        return r;
    }

  private:
    [[noreturn]] void fail(const std::string& why) const {
        Location where;
        where.column = static_cast<int>(i_) + 1;
        throw parse_error(where, fmt::format("{} in an expression in e (numbers, e, + - * /, parentheses, "
                                             "integer powers and e^(p/q))",
                                             why));
    }
    void skip() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    bool eat(char c) {
        skip();
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    // Bounds on nesting and length, so that a hostile answer cannot exhaust the stack (each
    // operation is one closure evaluated recursively).
    static constexpr int kMaxDepth = 64;
    static constexpr int kMaxOperations = 256;
    void count() {
        if (++operations_ > kMaxOperations) fail(fmt::format("more than {} operations", kMaxOperations));
    }
    Real sum() {
        if (++depth_ > kMaxDepth) fail(fmt::format("nested more than {} deep", kMaxDepth));
        Real r = sum_terms();
        --depth_;
        return r;
    }
    Real sum_terms() {
        Real r = product();
        for (;;) {
            if (eat('+'))
                r = r + product();
            else if (eat('-'))
                r = r + negated(product());
            else
                return r;
            count();
        }
    }
    Real product() {
        Real r = unary();
        for (;;) {
            if (eat('*'))
                r = r * unary();
            else if (eat('/'))
                r = r / unary();
            else
                return r;
            count();
        }
    }
    Real unary() {
        if (eat('-')) {
            count();
            return negated(unary());
        }
        if (eat('+')) {
            count();
            return unary();
        }
        return power();
    }
    // An exponent: an integer, or (p/q) / (integer).
    mpq_class exponent() {
        skip();
        const bool paren = eat('(');
        skip();
        std::string t;
        if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) t += s_[i_++];
        while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || (paren && s_[i_] == '/'))) {
            t += s_[i_++];
        }
        if (paren && !eat(')')) fail("expected ')' after the exponent");
        if (t.empty() || t == "-" || t == "+" || t.size() > 12) fail("expected a small integer or (p/q) exponent");
        try {
            mpq_class q(t[0] == '+' ? t.substr(1) : t);
            if (q.get_den() == 0) fail("a zero denominator");
            q.canonicalize();
            return q;
        } catch (const std::invalid_argument&) {
            fail("expected a small integer or (p/q) exponent");
        }
    }
    Real power() {
        skip();
        const bool is_e = i_ < s_.size() && s_[i_] == 'e' &&
                          (i_ + 1 == s_.size() || !std::isalnum(static_cast<unsigned char>(s_[i_ + 1])));
        Real base = is_e ? (++i_, e_power(1)) : atom();
        if (!eat('^')) return base;
        const mpq_class k = exponent();
        if (is_e) return e_power(k);
        if (k.get_den() != 1 || abs(k) > 64) fail("only e may have a fractional power; integer powers up to 64");
        Real r = Real::of(Value(1));
        for (long n = 0; n < mpz_class(abs(k.get_num())).get_si(); ++n) {
            r = r * base;
            count();
        }
        return sgn(k) < 0 ? Real::of(Value(1)) / r : r;
    }
    Real atom() {
        skip();
        if (eat('(')) {
            Real r = sum();
            if (!eat(')')) fail("expected ')'");
            return r;
        }
        std::string t;
        while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) t += s_[i_++];
        if (t.empty() || t.size() > 1000) fail("expected a number, e or '('");
        return Real::of(parse_value(t));
    }

    const std::string& s_;
    std::size_t i_ = 0;
    int depth_ = 0;
    int operations_ = 0;
};

bool mentions_e(const std::string& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const bool before = i > 0 && (std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_');
        const bool after = i + 1 < s.size() && (std::isalpha(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '_');
        if (s[i] == 'e' && !before && !after) return true;
    }
    return false;
}

}  // namespace

namespace {

// What a learner probably meant by an entry the notation refuses (#24): a decimal comma
// (0,5858 → 0.5858), a square root without its parentheses (2-sqrt2 → 2 - sqrt(2)).
std::string entry_hint(const std::string& text) {
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    const auto comma = text.find(',');
    if (comma != std::string::npos && text.find(',', comma + 1) == std::string::npos && comma > 0 &&
        comma + 1 < text.size() && digit(text[comma - 1]) && digit(text[comma + 1])) {
        std::string pointed = text;
        pointed[comma] = '.';
        if (decimal_literal(pointed)) {
            return fmt::format("a decimal is written with a point: {} (a comma separates the entries of a list)",
                               pointed);
        }
    }
    std::string fixed;
    bool changed = false;
    for (std::size_t i = 0; i < text.size();) {
        if (text.compare(i, 4, "sqrt") == 0 && i + 4 < text.size() && digit(text[i + 4])) {
            std::size_t end = i + 4;
            while (end < text.size() && digit(text[end])) ++end;
            fixed += "sqrt(" + text.substr(i + 4, end - i - 4) + ")";
            changed = true;
            i = end;
            continue;
        }
        fixed += text[i++];
    }
    if (changed) return fmt::format("a square root takes parentheses: {}", fixed);
    return {};
}

}  // namespace

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

AnswerEntry parse_answer_entry(std::string_view raw) {
    const std::string text = detail::trim(raw);
    if (!text.empty() && text.back() == '%') {
        const auto d = decimal_literal(detail::trim(std::string_view(text).substr(0, text.size() - 1)) + ".");
        const auto plain = decimal_literal(detail::trim(std::string_view(text).substr(0, text.size() - 1)));
        if (plain) return from_decimal(text, *plain, true);
        if (d && d->frac_digits.empty()) {  // 25% (an integer percentage): no places after the point
            DecimalLiteral n = *d;
            n.point = false;
            return from_decimal(text, n, true);
        }
        Location where;
        throw parse_error(where, fmt::format("\"{}\": a percentage is a decimal number followed by %", text));
    }
    if (const auto d = decimal_literal(text)) return from_decimal(text, *d, false);
    AnswerEntry e;
    e.text = text;
    if (mentions_e(text)) {
        e.form = AnswerEntry::Form::Outside;
        e.value = EParser(text).parse();
        try {
            (void)e.value.at(kFirstBits);  // a divisor that is 0 (1/(e − e)) is refused here, not when judged
        } catch (const Error& err) {
            throw parse_error(Location{}, fmt::format("\"{}\": {}", text, err.reason()));
        }
        return e;
    }
    e.form = AnswerEntry::Form::Exact;
    try {
        e.value = Real::of(parse_value(text));
    } catch (const Error& err) {
        const std::string hint = entry_hint(text);
        if (hint.empty() || err.kind() != ErrorKind::Parse) throw;
        throw Error(err.kind(), err.where(), err.reason() + "; " + hint);
    }
    return e;
}

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
