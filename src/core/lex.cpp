// SPDX-License-Identifier: MIT
// exactattn: the tokens of an expression (core/lex.hpp) — numbers, names, operators, roots and
// superscript powers, with look-alike characters named.
#include "core/lex.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>

#include "core/utf8.hpp"
#include "exactattn/error.hpp"

namespace exactattn::detail {

const char* describe(const Token& t) {
    switch (t.kind) {
        case Tok::End:
            return "end of input";
        default:
            return nullptr;
    }
}

std::string show(const Token& t) {
    if (const char* d = describe(t)) return d;
    return "'" + t.text + "'";
}

Location at(int column) {
    Location l;
    l.context = "expression";
    l.column = column;
    return l;
}

namespace {

struct LookAlike {
    const char* name;
    const char* meant;
};

// Characters that look like ASCII syntax but are not: named, with the character meant.
const std::map<char32_t, LookAlike>& look_alikes() {
    static const std::map<char32_t, LookAlike> table = {
        {0xFF08, {"FULLWIDTH LEFT PARENTHESIS", "("}},
        {0xFF09, {"FULLWIDTH RIGHT PARENTHESIS", ")"}},
        {0xFF0C, {"FULLWIDTH COMMA", ","}},
        {0x3001, {"IDEOGRAPHIC COMMA", ","}},
        {0x2013, {"EN DASH", "-"}},
        {0x2014, {"EM DASH", "-"}},
        {0x2010, {"HYPHEN", "-"}},
        {0x2011, {"NON-BREAKING HYPHEN", "-"}},
        {0x2012, {"FIGURE DASH", "-"}},
        {0xFE63, {"SMALL HYPHEN-MINUS", "-"}},
        {0xFF0D, {"FULLWIDTH HYPHEN-MINUS", "-"}},
        {0xFF0B, {"FULLWIDTH PLUS SIGN", "+"}},
        {0xFF0A, {"FULLWIDTH ASTERISK", "*"}},
        {0x2217, {"ASTERISK OPERATOR", "*"}},
        {0xFF0F, {"FULLWIDTH SOLIDUS", "/"}},
        {0x2215, {"DIVISION SLASH", "/"}},
        {0x2044, {"FRACTION SLASH", "/"}},
        {0xFF3E, {"FULLWIDTH CIRCUMFLEX ACCENT", "^"}},
        {0x02C6, {"MODIFIER LETTER CIRCUMFLEX ACCENT", "^"}},
        {0xFF0E, {"FULLWIDTH FULL STOP", "."}},
        {0x3002, {"IDEOGRAPHIC FULL STOP", "."}},
        {0xFF3B, {"FULLWIDTH LEFT SQUARE BRACKET", "["}},
        {0xFF3D, {"FULLWIDTH RIGHT SQUARE BRACKET", "]"}},
        {0x3010, {"LEFT BLACK LENTICULAR BRACKET", "["}},
        {0x3011, {"RIGHT BLACK LENTICULAR BRACKET", "]"}},
        {0xFF41, {"FULLWIDTH LATIN SMALL LETTER A", "a"}},
        {0x0430, {"CYRILLIC SMALL LETTER A", "a"}},
        {0x0251, {"LATIN SMALL LETTER ALPHA", "a"}},
        {0x00B8, {"CEDILLA", ","}},
        {0x201A, {"SINGLE LOW-9 QUOTATION MARK", ","}},
    };
    return table;
}

class Lexer {
  public:
    explicit Lexer(std::string_view s) : s_(s) {}

    std::vector<Token> run() {
        std::vector<Token> out;
        while (true) {
            skip_space();
            Token t;
            t.column = col_;
            if (i_ >= s_.size()) {
                out.push_back(t);
                return out;
            }
            char32_t cp = 0;
            const std::size_t len = detail::decode_utf8(s_, i_, cp);
            if (len == 0) {
                throw parse_error(at(col_),
                                  fmt::format("invalid UTF-8 byte 0x{:02X}", static_cast<unsigned char>(s_[i_])));
            }
            if (cp < 0x80 && (std::isdigit(static_cast<int>(cp)) != 0 || cp == '.')) {
                t.kind = Tok::Number;
                t.text = number();
            } else if (cp < 0x80 && (std::isalpha(static_cast<int>(cp)) != 0 || cp == '_')) {
                t.kind = Tok::Name;
                std::size_t j = i_;
                while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) != 0 || s_[j] == '_')) {
                    ++j;
                }
                t.text = std::string(s_.substr(i_, j - i_));
                advance(j - i_, static_cast<int>(j - i_));
            } else if (is_super(cp)) {
                t.kind = Tok::Super;
                superscript(t);
            } else {
                symbol(cp, len, t);
            }
            out.push_back(t);
        }
    }

  private:
    void advance(std::size_t bytes, int cols) {
        i_ += bytes;
        col_ += cols;
    }

    void skip_space() {
        while (i_ < s_.size()) {
            char32_t cp = 0;
            const std::size_t len = detail::decode_utf8(s_, i_, cp);
            if (len == 0) return;
            if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == 0xA0 || cp == 0x3000 || cp == 0x202F ||
                cp == 0x2009) {
                advance(len, 1);
            } else {
                return;
            }
        }
    }

    static bool is_super(char32_t cp) {
        return cp == 0x2070 || cp == 0xB9 || cp == 0xB2 || cp == 0xB3 || (cp >= 0x2074 && cp <= 0x2079) || cp == 0x207B;
    }
    static int super_digit(char32_t cp) {
        if (cp == 0x2070) return 0;
        if (cp == 0xB9) return 1;
        if (cp == 0xB2) return 2;
        if (cp == 0xB3) return 3;
        if (cp >= 0x2074 && cp <= 0x2079) return static_cast<int>(cp - 0x2070);
        return -1;
    }

    void superscript(Token& t) {
        bool neg = false;
        long v = 0;
        int digits = 0;
        while (i_ < s_.size()) {
            char32_t cp = 0;
            const std::size_t len = detail::decode_utf8(s_, i_, cp);
            if (len == 0 || !is_super(cp)) break;
            if (cp == 0x207B) {
                if (neg || digits > 0) throw parse_error(at(col_), "misplaced superscript minus");
                neg = true;
            } else {
                if (digits >= 9) {
                    // Past nine digits the power is at least 10^9, past every exponent the limits
                    // admit; the parser reads no more of it.
                    throw over_limit(Limit::max_exponent, "a superscript power of 10 or more digits is at least 10^9",
                                     at(col_));
                }
                v = v * 10 + super_digit(cp);
                ++digits;
            }
            t.text += std::string(s_.substr(i_, len));
            advance(len, 1);
        }
        if (digits == 0) throw parse_error(at(t.column), "superscript minus without digits");
        t.super = neg ? -v : v;
    }

    std::string number() {
        const std::size_t start = i_;
        std::size_t j = i_;
        auto digits = [&] {
            const std::size_t k = j;
            while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j])) != 0) ++j;
            return j - k;
        };
        std::size_t n = digits();
        if (j < s_.size() && s_[j] == '.') {
            ++j;
            n += digits();
        }
        if (n == 0) throw parse_error(at(col_), "'.' without digits");
        // Scientific notation only when 'e' is followed by digits (so "2e" stays 2·e).
        if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
            std::size_t k = j + 1;
            if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
            if (k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k])) != 0) {
                j = k;
                digits();
            }
        }
        if (j < s_.size() && s_[j] == '.') {
            throw parse_error(at(col_ + static_cast<int>(j - start)), "a number has a second '.'");
        }
        std::string text(s_.substr(start, j - start));
        advance(j - start, static_cast<int>(j - start));
        return text;
    }

    void symbol(char32_t cp, std::size_t len, Token& t) {
        t.text = std::string(s_.substr(i_, len));
        switch (cp) {
            case '+':
                t.kind = Tok::Plus;
                break;
            case '-':
            case 0x2212:
                t.kind = Tok::Minus;
                break;
            case '*':
                if (i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
                    t.kind = Tok::Caret;
                    t.text = "**";
                    advance(2, 2);
                    return;
                }
                t.kind = Tok::Star;
                break;
            case 0xB7:
            case 0xD7:
            case 0x22C5:
                t.kind = Tok::Star;
                break;
            case '/':
            case 0xF7:
                t.kind = Tok::Slash;
                break;
            case '^':
                t.kind = Tok::Caret;
                break;
            case '(':
                t.kind = Tok::LParen;
                break;
            case ')':
                t.kind = Tok::RParen;
                break;
            case '[':
                t.kind = Tok::LBracket;
                break;
            case ']':
                t.kind = Tok::RBracket;
                break;
            case ',':
                t.kind = Tok::Comma;
                break;
            case 0x221A:
                t.kind = Tok::Root;
                t.root = 2;
                break;
            case 0x221B:
                t.kind = Tok::Root;
                t.root = 3;
                break;
            case 0x221C:
                t.kind = Tok::Root;
                t.root = 4;
                break;
            default: {
                const auto& la = look_alikes();
                const auto it = la.find(cp);
                if (it != la.end()) {
                    throw parse_error(
                        at(col_), fmt::format("look-alike character '{}' (U+{:04X} {}); did "
                                              "you mean '{}'?",
                                              t.text, static_cast<unsigned>(cp), it->second.name, it->second.meant));
                }
                if (cp >= 0xFF10 && cp <= 0xFF19) {
                    throw parse_error(
                        at(col_), fmt::format("look-alike character '{}' (U+{:04X} FULLWIDTH DIGIT {}); did you mean "
                                              "'{}'?",
                                              t.text, static_cast<unsigned>(cp), static_cast<unsigned>(cp - 0xFF10),
                                              static_cast<char>('0' + (cp - 0xFF10))));
                }
                if (cp < 0x20 || cp == 0x7F) {
                    throw parse_error(at(col_),
                                      fmt::format("unexpected control character U+{:04X}", static_cast<unsigned>(cp)));
                }
                throw parse_error(
                    at(col_), fmt::format("unexpected character '{}' (U+{:04X})", t.text, static_cast<unsigned>(cp)));
            }
        }
        advance(len, 1);
    }

    std::string_view s_;
    std::size_t i_ = 0;
    int col_ = 1;
};

}  // namespace

std::vector<Token> lex(std::string_view text) { return Lexer(text).run(); }

}  // namespace exactattn::detail
