// SPDX-License-Identifier: MIT
// exactattn: ascii, unicode and LaTeX printers.
#include "exactattn/print.hpp"

#include <numeric>

namespace exactattn {

namespace {

// One printed summand: sign, a rational magnitude, a radical 2^(p/q) (q = 1: none), a power
// of a, or a parenthesised group (a coefficient with several terms) times a^k.
struct Item {
    int sign = 1;
    mpq_class mag;     // > 0, unused for a group
    long rad_p = 0;    // radical 2^(rad_p/rad_q), rad_q == 1 means none
    long rad_q = 1;
    int apow = 0;
    bool group = false;
    FieldElem group_value;  // positive-leading not required; printed inside parentheses
};

std::string superscript(long n) {
    static const char* digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    std::string s = std::to_string(n);
    std::string out;
    for (char c : s) out += c == '-' ? "⁻" : digits[c - '0'];
    return out;
}

// Items of a coefficient F (one per nonzero θ^i), each with a-power k, in printing order.
std::vector<Item> field_items(const FieldElem& f, int k) {
    std::vector<Item> items;
    const auto& c = f.coefficients();
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (sgn(c[i]) == 0) continue;
        Item it;
        it.sign = sgn(c[i]);
        it.mag = abs(c[i]);
        const long g = std::gcd(static_cast<long>(i), static_cast<long>(f.root()));
        it.rad_p = static_cast<long>(i) / (g == 0 ? 1 : g);
        it.rad_q = i == 0 ? 1 : f.root() / g;
        it.apow = k;
        items.push_back(it);
    }
    return items;
}

// Positive-first rule: when the first item is negative, bring the first positive one forward.
void positive_first(std::vector<Item>& items) {
    if (items.empty() || items.front().sign > 0) return;
    for (std::size_t i = 1; i < items.size(); ++i) {
        if (items[i].sign > 0) {
            Item p = items[i];
            items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
            items.insert(items.begin(), p);
            return;
        }
    }
}

// Leading sign of a group as printed (after the positive-first rule).
int group_sign(const FieldElem& f) {
    auto items = field_items(f, 0);
    positive_first(items);
    return items.front().sign;
}

std::vector<Item> value_items(const Value& v) {
    std::vector<Item> items;
    const auto& t = v.terms();
    for (std::size_t k = 0; k < t.size(); ++k) {
        const FieldElem& f = t[k];
        if (f.is_zero()) continue;
        if (k > 0 && f.term_count() > 1) {
            Item g;
            g.group = true;
            g.apow = static_cast<int>(k);
            g.sign = group_sign(f);
            g.group_value = g.sign > 0 ? f : -f;
            items.push_back(g);
        } else {
            for (auto& it : field_items(f, static_cast<int>(k))) items.push_back(it);
        }
    }
    positive_first(items);
    return items;
}

class Printer {
public:
    explicit Printer(Notation n) : n_(n) {}

    std::string value(const Value& v) const {
        if (v.is_zero()) return "0";
        return sum(value_items(v));
    }

private:
    std::string sum(const std::vector<Item>& items) const {
        std::string out;
        for (std::size_t i = 0; i < items.size(); ++i) {
            const Item& it = items[i];
            if (i == 0) {
                if (it.sign < 0) out += minus();
            } else {
                out += it.sign < 0 ? " " + minus() + " " : std::string(" + ");
            }
            out += magnitude(it);
        }
        return out;
    }

    std::string minus() const { return n_ == Notation::Unicode ? "−" : "-"; }

    std::string apower(int k) const {
        if (k == 0) return "";
        if (k == 1) return "a";
        switch (n_) {
            case Notation::Ascii: return "a^" + std::to_string(k);
            case Notation::Unicode: return "a" + superscript(k);
            case Notation::Latex: return "a^{" + std::to_string(k) + "}";
        }
        return "";
    }

    // 2^(p/q), q > 1, p < q, gcd(p, q) = 1.
    std::string radical(long p, long q, bool& is_symbol) const {
        is_symbol = true;
        // Named roots only for q ≤ 4, where p < q keeps 2^p tiny.
        const auto base = [p] { return std::to_string(1L << p); };
        switch (n_) {
            case Notation::Ascii:
                is_symbol = false;
                return "2^(" + std::to_string(p) + "/" + std::to_string(q) + ")";
            case Notation::Unicode:
                if (q == 2) return "√2";
                if (q == 3) return "∛" + base();
                if (q == 4) return "∜" + base();
                is_symbol = false;
                return "2^(" + std::to_string(p) + "/" + std::to_string(q) + ")";
            case Notation::Latex:
                if (q == 2) return "\\sqrt{2}";
                if (q <= 4) return "\\sqrt[" + std::to_string(q) + "]{" + base() + "}";
                is_symbol = false;
                return "2^{" + std::to_string(p) + "/" + std::to_string(q) + "}";
        }
        return "";
    }

    // The unsigned printed form of one item.
    std::string magnitude(const Item& it) const {
        if (it.group) {
            const std::string inner = sum(field_items_sorted(it.group_value));
            if (n_ == Notation::Latex) return "\\left(" + inner + "\\right)" + apower(it.apow);
            return "(" + inner + ")" + apower(it.apow);
        }
        const mpz_class& num = it.mag.get_num();
        const mpz_class& den = it.mag.get_den();
        std::string top;
        bool symbol = true;
        const std::string rad = it.rad_q > 1 ? radical(it.rad_p, it.rad_q, symbol) : "";
        const std::string ap = apower(it.apow);
        const bool has_factor = !rad.empty() || !ap.empty();
        if (num != 1 || !has_factor) top = num.get_str();
        if (!rad.empty()) {
            if (!top.empty()) {
                // "3*2^(1/2)" (ascii must re-parse unambiguously), "3√2", "3 \cdot 2^{5/7}".
                if (n_ == Notation::Ascii) top += "*";
                else if (!symbol) top += n_ == Notation::Latex ? " \\cdot " : "·";
            }
            top += rad;
        }
        top += ap;
        if (den == 1) return top;
        if (n_ == Notation::Latex) return "\\tfrac{" + top + "}{" + den.get_str() + "}";
        return top + "/" + den.get_str();
    }

    static std::vector<Item> field_items_sorted(const FieldElem& f) {
        auto items = field_items(f, 0);
        positive_first(items);
        return items;
    }

    Notation n_;
};

}  // namespace

std::string to_ascii(const Value& v) { return Printer(Notation::Ascii).value(v); }
std::string to_unicode(const Value& v) { return Printer(Notation::Unicode).value(v); }
std::string to_latex(const Value& v) { return Printer(Notation::Latex).value(v); }

std::string to_string(const Value& v, Notation n) { return Printer(n).value(v); }

std::string to_string(const std::vector<Value>& row, Notation n) {
    std::string out = "[";
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (i > 0) out += ", ";
        out += to_string(row[i], n);
    }
    return out + "]";
}

std::size_t display_width(const std::string& s) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        char32_t cp = 0;
        std::size_t len = 1;
        if (c < 0x80) {
            cp = c;
        } else if ((c >> 5U) == 0x6 && i + 1 < s.size()) {
            cp = ((c & 0x1FU) << 6U) | (static_cast<unsigned char>(s[i + 1]) & 0x3FU);
            len = 2;
        } else if ((c >> 4U) == 0xE && i + 2 < s.size()) {
            cp = ((c & 0x0FU) << 12U) | ((static_cast<unsigned char>(s[i + 1]) & 0x3FU) << 6U) |
                 (static_cast<unsigned char>(s[i + 2]) & 0x3FU);
            len = 3;
        } else if ((c >> 3U) == 0x1E && i + 3 < s.size()) {
            cp = ((c & 0x07U) << 18U) | ((static_cast<unsigned char>(s[i + 1]) & 0x3FU) << 12U) |
                 ((static_cast<unsigned char>(s[i + 2]) & 0x3FU) << 6U) |
                 (static_cast<unsigned char>(s[i + 3]) & 0x3FU);
            len = 4;
        }
        i += len;
        // East Asian Wide and Fullwidth ranges (the ones that occur in text like this).
        const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
                          (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
                          (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
                          (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                          (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                          (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
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

fmt::format_context::iterator fmt::formatter<exactattn::Value>::format(
    const exactattn::Value& v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string>::format(exactattn::to_ascii(v), ctx);
}
