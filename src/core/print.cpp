// SPDX-License-Identifier: MIT
// exactattn: ascii, unicode, LaTeX and MathML printers, canonical and display forms.
#include "exactattn/print.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <numeric>

#include "core/print_detail.hpp"
#include "core/print_tree.hpp"
#include "core/utf8.hpp"
#include "exactattn/limits.hpp"

namespace exactattn {

namespace {

using detail::print::common_denominator;
using detail::print::field_items_sorted;
using detail::print::Item;
using detail::print::Sum;
using detail::print::sum_of;
using detail::print::Term;
using detail::print::term_of;
using detail::print::value_items;

std::string superscript(long n) {
    static const char* digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    std::string s = std::to_string(n);
    std::string out;
    for (char c : s) out += c == '-' ? "⁻" : digits[c - '0'];
    return out;
}

// How a positive integer is written: decimal, 2^k, s·2^k, s·2^k ± t, or elided decimal.
enum class Shape { Decimal, Power, Product, Compound };

// Digits of the power-of-two form's parts: s and |t| have at most this many decimal digits.
constexpr int kPowerPartDigits = 4;
// Integers with more than this many decimal digits are candidates for the power form.
constexpr std::size_t kPowerMinDigits = 12;

// Integers of at least this many bits have their decimal digits remembered (decimal_string).
constexpr std::size_t kRememberedBits = 4096;
constexpr std::size_t kRemembered = 4;

// The decimal digits of n. The entries of a read's context share one denominator (C_i / N in
// lowest terms is over N itself whenever C_i is prime to N), and N's conversion at 170 000 bits
// costs milliseconds (W3: half of printing the context): the last few long integers converted
// on this thread are kept, and an equal one reuses their digits (a comparison of limbs).
std::string decimal_string(const mpz_class& n) {
    if (mpz_sizeinbase(n.get_mpz_t(), 2) < kRememberedBits) return n.get_str();
    struct Remembered {
        mpz_class n;
        std::string digits;
    };
    thread_local std::array<Remembered, kRemembered> kept;
    thread_local std::size_t next = 0;
    for (const auto& k : kept) {
        if (!k.digits.empty() && mpz_cmp(k.n.get_mpz_t(), n.get_mpz_t()) == 0) return k.digits;
    }
    std::string digits = n.get_str();
    kept[next] = Remembered{n, digits};
    next = (next + 1) % kRemembered;
    return digits;
}

std::size_t decimal_digits(const mpz_class& n) {
    // mpz_sizeinbase may be one too many; exact below 40 digits, where the power form competes.
    const std::size_t approx = mpz_sizeinbase(n.get_mpz_t(), 10);
    return approx <= 40 ? n.get_str().size() : approx;
}

// n = s·2^k + t with s odd, 1 ≤ s and |t| of at most kPowerPartDigits digits, k ≥ 1. The
// representation is unique for n > 10^12: |t| < 2^16 makes t the residue of n modulo 2^17
// taken in (−2^16, 2^16], and then s·2^k = n − t.
struct PowerForm {
    mpz_class s;
    mp_bitcnt_t k = 0;
    mpz_class t;
};

bool power_form(const mpz_class& n, PowerForm& out) {
    if (decimal_digits(n) <= kPowerMinDigits) return false;
    static const mpz_class limit = [] {
        mpz_class l;
        mpz_ui_pow_ui(l.get_mpz_t(), 10, kPowerPartDigits);
        return l;
    }();
    mpz_class r;
    mpz_fdiv_r_2exp(r.get_mpz_t(), n.get_mpz_t(), 17);
    if (r > 65536) r -= 131072;
    if (abs(r) >= limit) return false;
    mpz_class h = n - r;
    const mp_bitcnt_t k = mpz_scan1(h.get_mpz_t(), 0);
    mpz_class s;
    mpz_fdiv_q_2exp(s.get_mpz_t(), h.get_mpz_t(), k);
    if (s >= limit) return false;
    out.s = s;
    out.k = k;
    out.t = r;
    return true;
}

// Length of the power form in plain text ("3·2^1099 + 1"), to compare with the digits.
std::size_t plain_length(const PowerForm& p) {
    std::size_t len = 2 + std::to_string(p.k).size();
    if (p.s != 1) len += p.s.get_str().size() + 1;
    if (p.t != 0) len += 3 + mpz_class(abs(p.t)).get_str().size();
    return len;
}

// Where an integer stands in a term, for what its power form costs there beyond plain_length.
struct Position {
    bool product_parens = false;   // s·2^k is parenthesised (a denominator: 3/(5·2^1100))
    bool compound_parens = false;  // s·2^k ± t is parenthesised
    bool dot_after = false;        // a factor follows that the digits would be juxtaposed with

    [[nodiscard]] std::size_t cost(const PowerForm& p) const {
        std::size_t len = plain_length(p);
        if (p.t != 0) return len + (compound_parens ? 2 : 0);
        if (p.s != 1 && product_parens) len += 2;
        return len + (dot_after ? 1 : 0);
    }
};

class Render {
  public:
    // compact: long integers as powers of two; keep > 0: integers longer than keep digits are
    // elided to their first and last digits; breakable (LaTeX): DisplayOptions::breakable.
    Render(Notation n, bool compact, std::size_t keep, bool breakable = false)
        : n_(n), compact_(compact), keep_(keep), breakable_(breakable && n == Notation::Latex) {}

    // A whole value (MathML: one <math> element).
    [[nodiscard]] std::string value(const Sum& s) const {
        if (n_ != Notation::MathML) return sum(s);
        return math(sum(s));
    }
    // A row vector from its entries' sum() texts: [a/2, a/4].
    [[nodiscard]] static std::string row(Notation n, const std::vector<std::string>& entries) {
        const bool ml = n == Notation::MathML;
        std::string out = ml ? "<mo>[</mo>" : "[";
        for (std::size_t i = 0; i < entries.size(); ++i) {
            if (i > 0) out += ml ? "<mo>,</mo>" : ", ";
            out += entries[i];
        }
        out += ml ? "<mo>]</mo>" : "]";
        return ml ? math(out) : out;
    }

    [[nodiscard]] std::string sum(const Sum& s) const {
        if (s.terms.empty()) return mn("0");
        std::string out;
        for (std::size_t i = 0; i < s.terms.size(); ++i) {
            const Term& t = s.terms[i];
            bool bare_sum = false;
            std::string text = term(t, bare_sum, s.terms.size() == 1 && t.sign > 0);
            if (bare_sum && (s.terms.size() > 1 || t.sign < 0)) text = paren(text);
            if (i == 0) {
                if (t.sign < 0) out += mo(minus_sign());
            } else {
                out += t.sign < 0 ? spaced(minus_sign()) : spaced("+");
            }
            out += text;
        }
        return out;
    }

  private:
    [[nodiscard]] static std::string math(const std::string& body) {
        return "<math xmlns=\"http://www.w3.org/1998/Math/MathML\"><mrow>" + body + "</mrow></math>";
    }
    [[nodiscard]] std::string minus_sign() const {
        return n_ == Notation::Unicode || n_ == Notation::MathML ? "−" : "-";
    }
    [[nodiscard]] std::string mo(const std::string& op) const {
        return n_ == Notation::MathML ? "<mo>" + op + "</mo>" : op;
    }
    [[nodiscard]] std::string mn(const std::string& digits) const {
        return n_ == Notation::MathML ? "<mn>" + digits + "</mn>" : digits;
    }
    [[nodiscard]] std::string spaced(const std::string& op) const {
        return n_ == Notation::MathML ? mo(op) : " " + op + " ";
    }
    [[nodiscard]] static std::string mrow(const std::string& x) { return "<mrow>" + x + "</mrow>"; }
    [[nodiscard]] std::string paren(const std::string& x) const {
        switch (n_) {
            case Notation::Latex:
                return breakable_ ? "\\bigl(" + x + "\\bigr)" : "\\left(" + x + "\\right)";
            case Notation::MathML:
                return mrow("<mo>(</mo>" + x + "<mo>)</mo>");
            default:
                return "(" + x + ")";
        }
    }
    // 2^e for an integer exponent e (text, possibly "-1100").
    [[nodiscard]] std::string power_of_two(const std::string& e, bool negative) const {
        switch (n_) {
            case Notation::Ascii:
                return negative ? "2^(-" + e + ")" : "2^" + e;
            case Notation::Unicode:
                return negative ? "2^(−" + e + ")" : "2^" + e;
            case Notation::Latex:
                return "2^{" + std::string(negative ? "-" : "") + e + "}";
            case Notation::MathML:
                return "<msup><mn>2</mn>" + (negative ? mrow("<mo>−</mo><mn>" + e + "</mn>") : mn(e)) + "</msup>";
        }
        return "";
    }

    // A positive integer in the notation, with its shape. The power form is taken only where
    // it is shorter, in columns of the unicode form, than the digits in the same position: the
    // position may parenthesise a product (a denominator) or a sum (a factor, a denominator, a
    // negated or non-leading summand), and a power needs a visible dot before a factor that the
    // digits would simply be followed by (2^40·a against 1099511627776a).
    [[nodiscard]] std::string integer(const mpz_class& n, Shape& shape, const Position& at) const {
        shape = Shape::Decimal;
        PowerForm p;
        if (compact_ && power_form(n, p) && at.cost(p) < decimal_digits(n)) {
            std::string text = power_of_two(std::to_string(p.k), false);
            if (p.s != 1) {
                text = mn(p.s.get_str()) + times() + text;
                shape = Shape::Product;
            } else {
                shape = Shape::Power;
            }
            if (p.t != 0) {
                text += spaced(sgn(p.t) < 0 ? minus_sign() : "+") + mn(mpz_class(abs(p.t)).get_str());
                shape = Shape::Compound;
            }
            return text;
        }
        {
            // Base conversion divides by powers of ten, subquadratic with a log factor (work
            // units, docs/limits.md).
            const auto bits = static_cast<double>(mpz_sizeinbase(n.get_mpz_t(), 2));
            const double units = 2 * multiplication_work(bits) * std::log2(bits / 64 + 2);
            if (!charge_work(units)) throw over_work(units, fmt::format("writing a {}-bit number in decimal", bits));
        }
        const std::string digits = decimal_string(n);
        if (keep_ == 0 || digits.size() <= keep_ || digits.size() < keep_ + 16) return mn(digits);
        const std::string head = digits.substr(0, (keep_ + 1) / 2);
        const std::string tail = digits.substr(digits.size() - keep_ / 2);
        const std::string count = std::to_string(digits.size()) + " digits";
        switch (n_) {
            case Notation::Ascii:
                return head + "..." + tail + " (" + count + ")";
            case Notation::Unicode:
                return head + "…" + tail + " (" + count + ")";
            case Notation::Latex:
                return head + "\\ldots " + tail + "\\ (\\text{" + count + "})";
            case Notation::MathML:
                return "<mn>" + head + "…" + tail + "</mn><mtext>&#xA0;(" + count + ")</mtext>";
        }
        return digits;
    }

    [[nodiscard]] std::string times() const {
        switch (n_) {
            case Notation::Ascii:
                return "*";
            case Notation::Unicode:
                return "·";
            case Notation::Latex:
                return " \\cdot ";
            case Notation::MathML:
                return "<mo>·</mo>";
        }
        return "";
    }
    [[nodiscard]] std::string invisible_times() const { return n_ == Notation::MathML ? "<mo>&#x2062;</mo>" : ""; }

    [[nodiscard]] std::string apower(int k) const {
        if (k == 0) return "";
        switch (n_) {
            case Notation::Ascii:
                return k == 1 ? "a" : "a^" + std::to_string(k);
            case Notation::Unicode:
                return k == 1 ? "a" : "a" + superscript(k);
            case Notation::Latex:
                return k == 1 ? "a" : "a^{" + std::to_string(k) + "}";
            case Notation::MathML:
                return k == 1 ? "<mi>a</mi>" : "<msup><mi>a</mi><mn>" + std::to_string(k) + "</mn></msup>";
        }
        return "";
    }

    // 2^(p/q), q > 1, p < q, gcd(p, q) = 1; symbol: a root sign (juxtaposed after a number).
    [[nodiscard]] std::string radical(long p, long q, bool& symbol) const {
        symbol = true;
        // Named roots only for q ≤ 4, where p < q keeps 2^p tiny.
        const std::string base = std::to_string(1L << std::min(p, 3L));
        const std::string ps = std::to_string(p);
        const std::string qs = std::to_string(q);
        switch (n_) {
            case Notation::Ascii:
                symbol = false;
                return "2^(" + ps + "/" + qs + ")";
            case Notation::Unicode:
                if (q == 2) return "√2";
                if (q == 3) return "∛" + base;
                if (q == 4) return "∜" + base;
                symbol = false;
                return "2^(" + ps + "/" + qs + ")";
            case Notation::Latex:
                if (q == 2) return "\\sqrt{2}";
                if (q <= 4) return "\\sqrt[" + qs + "]{" + base + "}";
                symbol = false;
                return "2^{" + ps + "/" + qs + "}";
            case Notation::MathML:
                if (q == 2) return "<msqrt><mn>2</mn></msqrt>";
                if (q <= 4) return "<mroot><mn>" + base + "</mn><mn>" + qs + "</mn></mroot>";
                symbol = false;
                return "<msup><mn>2</mn>" + mrow(mn(ps) + "<mo>/</mo>" + mn(qs)) + "</msup>";
        }
        return "";
    }

    // The unsigned form of one term; bare_sum: it is an integer written as a sum (3·2^k + 1).
    // alone: the only term of its sum, positive (an integer written as a sum needs no parentheses).
    std::string term(const Term& t, bool& bare_sum, bool alone) const {
        bare_sum = false;
        Shape den_shape = Shape::Decimal;
        std::string den = t.den == 1 ? "" : integer(t.den, den_shape, Position{true, true, false});
        // Factors of the numerator, joined by the separator their neighbours need.
        std::string top;
        enum class Prev { None, Plain, Power, Paren, Other } prev = Prev::None;
        const auto put = [&](const std::string& text, bool visible_before) {
            if (prev == Prev::Power || (prev != Prev::None && visible_before))
                top += times();
            else if (prev != Prev::None)
                top += invisible_times();
            top += text;
        };
        const bool has_factor = t.rad_q > 1 || t.group || t.apow != 0;
        if (t.coef == 1 && den_shape == Shape::Power) {
            // 1/2^k is written 2^(−k).
            PowerForm p;
            power_form(t.den, p);
            top = power_of_two(std::to_string(p.k), true);
            prev = Prev::Power;
            den.clear();
        } else if (t.coef != 1 || !has_factor) {
            Shape shape = Shape::Decimal;
            // The digits are juxtaposed with a root sign, a parenthesis or a; a power takes a dot.
            const bool juxtaposed = t.rad_q > 1 ? t.rad_q <= 4 : has_factor;
            std::string c = integer(t.coef, shape, Position{false, has_factor || !den.empty() || !alone, juxtaposed});
            if (shape == Shape::Compound && (has_factor || (!den.empty() && !fraction_bar()))) c = paren(c);
            top = c;
            prev = shape == Shape::Power || shape == Shape::Product ? Prev::Power
                   : shape == Shape::Compound                       ? Prev::Paren
                                                                    : Prev::Plain;
            bare_sum = shape == Shape::Compound && !has_factor && den.empty();
        }
        if (t.rad_q > 1) {
            bool symbol = true;
            const std::string r = radical(t.rad_p, t.rad_q, symbol);
            put(r, !symbol);
            prev = Prev::Other;
        }
        // Breakable LaTeX: a sum over a denominator, or long digits, written with a slash.
        const bool slash = breakable_ && !den.empty() && (t.group || top.size() + den.size() > kLongFraction);
        bool group_only = false;
        if (t.group) {
            group_only = prev == Prev::None && t.apow == 0;
            const std::string inner = sum(*t.group);
            put(group_only && !den.empty() && fraction_bar() && !slash ? inner : paren(inner), false);
            prev = Prev::Paren;
        }
        if (t.apow != 0) {
            put(apower(t.apow), false);
            prev = Prev::Other;
        }
        if (den.empty()) return top;
        switch (n_) {
            case Notation::Latex:
                if (!slash) return "\\tfrac{" + top + "}{" + den + "}";
                if (den_shape == Shape::Product || den_shape == Shape::Compound) den = paren(den);
                return top + "/" + den;
            case Notation::MathML:
                return "<mfrac>" + mrow(top) + mrow(den) + "</mfrac>";
            default:
                if (den_shape == Shape::Product || den_shape == Shape::Compound) den = paren(den);
                return top + "/" + den;
        }
    }
    [[nodiscard]] bool fraction_bar() const { return n_ == Notation::Latex || n_ == Notation::MathML; }

    // Digits of a numerator and denominator (before any t.group) from which a breakable
    // fraction is written with a slash: 24, about half a 12 cm line in \tfrac's script size.
    static constexpr std::size_t kLongFraction = 24;

    Notation n_;
    bool compact_;
    std::size_t keep_;
    bool breakable_;
};

// The unicode display text of a sum, which the choices below compare by width. A choice keeps the
// text of what it chose (`unicode`), so that printing the value in unicode (a text report) does not
// render it once more (issue 32: each value of a text table was rendered three times).
std::string unicode_text(const Sum& s) { return Render(Notation::Unicode, true, 0).sum(s); }

// The terms of v in the canonical order; with display, a coefficient with several terms is
// written over its common denominator where that is no longer ((√2 − 1)a/3, not (√2/3 − 1/3)a).
// `unicode`, when the sum is that one term, receives its unicode text (else it is left empty).
Sum term_sum(const Value& v, bool display, std::string* unicode = nullptr) {
    Sum s;
    const std::vector<Item> items = value_items(v);
    for (const Item& it : items) {
        if (!it.group) {
            s.terms.push_back(term_of(it));
            continue;
        }
        Term g;
        g.sign = it.sign;
        g.apow = it.apow;
        g.group = std::make_shared<Sum>(sum_of(field_items_sorted(it.group_value)));
        if (display) {
            const mpz_class d = common_denominator(Value(it.group_value));
            if (d != 1) {
                Term f = g;
                f.group = std::make_shared<Sum>(sum_of(field_items_sorted(it.group_value * FieldElem(mpq_class(d)))));
                f.den = d;
                std::string ft = unicode_text(Sum{{f}});
                std::string gt = unicode_text(Sum{{g}});
                const bool over = display_width(ft) <= display_width(gt);
                if (over) g = f;
                if (unicode != nullptr && items.size() == 1) *unicode = std::move(over ? ft : gt);
            }
        }
        s.terms.push_back(g);
    }
    return s;
}

// The display tree: the whole value over its common denominator when that is no longer than
// the term-by-term form ((3√2 − 2)/7, not 3√2/7 − 2/7; but 1 − √2/2 stays).
// `unicode` receives the unicode display text of the sum returned when it was rendered to choose it
// (else it is left empty).
Sum display_sum(const Value& v, bool display, std::string& unicode) {
    // A value of more than 2^16 bits (some 20 000 digits) is no author's figure: it is printed
    // term by term, without trying the other forms (each try renders it in full).
    constexpr std::size_t kDisplayBits = std::size_t{1} << 16;
    if (display && v.bit_size() > kDisplayBits) display = false;
    Sum per_term = term_sum(v, display, &unicode);
    if (!display || per_term.terms.size() < 2) return per_term;
    const mpz_class d = common_denominator(v);
    if (d == 1) return per_term;
    Value n = v * Value(mpq_class(d));
    const int sign = value_items(n).front().sign;
    if (sign < 0) n = -n;
    Term whole;
    whole.sign = sign;
    whole.group = std::make_shared<Sum>(term_sum(n, true));
    whole.den = d;
    Sum over{{whole}};
    std::string over_text = unicode_text(over);
    std::string per_term_text = unicode_text(per_term);
    if (display_width(over_text) <= display_width(per_term_text)) {
        unicode = std::move(over_text);
        return over;
    }
    unicode = std::move(per_term_text);
    return per_term;
}

}  // namespace

std::string to_ascii(const Value& v) { return to_string(v, Notation::Ascii); }
std::string to_unicode(const Value& v) { return to_string(v, Notation::Unicode); }
std::string to_latex(const Value& v) { return to_string(v, Notation::Latex); }
std::string to_mathml(const Value& v) { return to_display(v, Notation::MathML); }

std::string to_string(const Value& v, Notation n) { return to_display(v, n, DisplayOptions{false, 0}); }

std::string to_string(const std::vector<Value>& row, Notation n) {
    return to_display(row, n, DisplayOptions{false, 0});
}

namespace {

// The largest number of digits kept per integer for which the value fits max_width columns
// (measured in the unicode form, whatever the notation); at least 9 (12345…6789).
std::size_t digits_kept(const Sum& s, const DisplayOptions& o) {
    if (o.max_width == 0) return 0;
    const auto width = [&](std::size_t keep) {
        return display_width(Render(Notation::Unicode, o.display, keep).sum(s));
    };
    if (width(0) <= o.max_width) return 0;
    std::size_t lo = 9;
    std::size_t hi = Render(Notation::Unicode, o.display, 0).sum(s).size();
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo + 1) / 2;
        if (width(mid) <= o.max_width)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

// A printed value is charged kWorkPerPrintedCharacter a character (limits.hpp): a rollout of
// 1024 steps over a 60-token vocabulary once printed 220 MB. The writer that prints the value
// names where it was going (WorkRefusal::at).
std::string charged(std::string text) {
    const double units = kWorkPerPrintedCharacter * static_cast<double>(text.size());
    if (!charge_work(units)) {
        throw over_work(units, fmt::format("printing a value of {} characters", text.size()));
    }
    return text;
}

}  // namespace

namespace {

// The text of one value: the unicode text display_sum rendered to choose its form when that is
// the text asked for (unicode, display form, every digit), else rendered.
std::string sum_text(const Value& v, Notation n, const DisplayOptions& o) {
    std::string unicode;
    const Sum s = display_sum(v, o.display, unicode);
    if (n == Notation::Unicode && o.display && o.max_width == 0 && !unicode.empty()) return unicode;
    return Render(n, o.display, digits_kept(s, o), o.breakable).sum(s);
}

}  // namespace

std::string to_display(const Value& v, Notation n, const DisplayOptions& o) {
    if (n != Notation::MathML) return charged(sum_text(v, n, o));
    std::string unused;
    const Sum s = display_sum(v, o.display, unused);
    return charged(Render(n, o.display, digits_kept(s, o), o.breakable).value(s));
}

std::string to_display(const std::vector<Value>& row, Notation n, const DisplayOptions& o) {
    std::vector<std::string> entries;
    entries.reserve(row.size());
    for (const Value& v : row) entries.push_back(sum_text(v, n, o));
    return charged(Render::row(n, entries));
}

std::size_t display_width(const std::string& s) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp = 0;
        const std::size_t len = detail::decode_utf8(s, i, cp);
        if (len == 0) cp = 0;  // a byte that is not UTF-8 takes one column
        i += len == 0 ? 1 : len;
        // East Asian Wide and Fullwidth ranges (the ones that occur in text like this).
        const bool wide =
            (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) || (cp >= 0x3041 && cp <= 0x33FF) ||
            (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
            (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
            (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
        const bool zero = (cp >= 0x0300 && cp <= 0x036F) || cp == 0x200B;
        width += zero ? 0 : (wide ? 2 : 1);
    }
    return width;
}

namespace detail {

std::string brief(const std::string& text) {
    if (text.size() <= 80) return text;
    // Cut at code point boundaries (the text may hold √ or −).
    auto boundary = [&](std::size_t i) {
        while (i > 0 && i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0U) == 0x80U) --i;
        return i;
    };
    const std::size_t head = boundary(48);
    const std::size_t tail = boundary(text.size() - 16);
    return fmt::format("{}…{} ({} characters)", text.substr(0, head), text.substr(tail), text.size());
}

std::string brief_ascii(const Value& v) { return brief(to_ascii(v)); }

}  // namespace detail

}  // namespace exactattn

fmt::format_context::iterator fmt::formatter<exactattn::Value>::format(const exactattn::Value& v,
                                                                       fmt::format_context& ctx) const {
    return fmt::formatter<std::string>::format(exactattn::to_ascii(v), ctx);
}
