// SPDX-License-Identifier: MIT
// exactattn: a learner's entry read as written (answer_entry.hpp, parse_answer_entry): fractions
// and expressions of the notation, decimals with their significant figures, percentages,
// expressions in e; and what a refused entry probably meant.
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

using detail::kFirstBits;
using detail::negated;

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
    mpq_class v = mpq_class(mantissa) * detail::pow10q(static_cast<int>(-places));
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

}  // namespace exactattn
