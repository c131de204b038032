// SPDX-License-Identifier: MIT
// exactattn: recursive-descent parser that evaluates exactly as it goes.
#include "exactattn/parse.hpp"

#include <fmt/format.h>

#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include "core/field_detail.hpp"
#include "core/utf8.hpp"
#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"

namespace exactattn {

namespace {

// The lowest address this thread's stack may grow to, plus a reserve for what runs at the
// deepest level (GMP and MPFR take temporaries on the stack, an exception unwinds): nesting is
// refused before it gets there, whatever max_nesting allows, so that a limit raised past what
// the stack holds (a Python caller's limits(max_nesting=100000)) is a LimitError, not a
// segmentation fault. Found once per thread (pthread_getattr_np); 0 when unknown.
std::uintptr_t stack_floor() {
    thread_local const std::uintptr_t floor = [] {
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) != 0) return std::uintptr_t{0};
        void* low = nullptr;
        std::size_t size = 0;
        const bool ok = pthread_attr_getstack(&attr, &low, &size) == 0;
        pthread_attr_destroy(&attr);
        if (!ok || low == nullptr) return std::uintptr_t{0};
        const std::size_t reserve = std::min<std::size_t>(std::size_t{512} << 10, size / 4);
        return reinterpret_cast<std::uintptr_t>(low) + reserve;
    }();
    return floor;
}

bool stack_nearly_full() {
    // The frame address, not a local's: under AddressSanitizer locals may live on a fake stack.
    const auto at = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    const std::uintptr_t floor = stack_floor();
    return floor != 0 && at < floor;
}

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

enum class Tok {
    End,
    Number,
    Name,
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Root,
    Super
};

struct Token {
    Tok kind = Tok::End;
    std::string text;  // number literal, name, or the root/superscript payload
    int column = 0;    // 1-based code point
    int root = 0;      // 2, 3, 4 for √ ∛ ∜
    long super = 0;    // value of a superscript power
};

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

// Exact value of a decimal or scientific literal.
Value number_value(const Token& t) {
    const std::string& s = t.text;
    std::string digits;
    long long frac = 0;
    std::size_t i = 0;
    bool seen_point = false;
    for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
        if (s[i] == '.') {
            seen_point = true;
            continue;
        }
        digits += s[i];
        if (seen_point) ++frac;
    }
    long long exp10 = -frac;
    if (i < s.size()) {
        const std::string e = s.substr(i + 1);
        const std::size_t sign = !e.empty() && (e[0] == '-' || e[0] == '+') ? 1 : 0;
        const std::size_t lead = std::min(e.find_first_not_of('0', sign), e.size());
        if (e.size() - lead > 9) {
            // 10 or more significant digits: 10^(10^9) or its inverse, over 3.3·10^9 bits.
            throw over_limit(Limit::max_bits,
                             fmt::format("the literal {} has a decimal exponent of {} digits, so it needs more than "
                                         "3321928094 bits",
                                         s.size() > 40 ? s.substr(0, 40) + "…" : s, e.size() - lead),
                             at(t.column));
        }
        exp10 += std::stoll(e);
    }
    // The numerator or denominator has at most (digits + |exp10|)·log2(10) + 1 bits; refuse
    // before building 10^|exp10| when that is over max_bits (a literal exactly at the bound is
    // refused by check_bits below, with the same place).
    const double bound =
        static_cast<double>(static_cast<long long>(digits.size()) + std::llabs(exp10)) * 3.3219280948873623;
    if (bound > static_cast<double>(limits().max_bits) + 1) {
        throw over_limit(
            Limit::max_bits,
            fmt::format("the literal {} needs about {:.0f} bits", s.size() > 40 ? s.substr(0, 40) + "…" : s, bound),
            at(t.column));
    }
    mpz_class n(digits, 10);
    mpz_class p;
    mpz_ui_pow_ui(p.get_mpz_t(), 10, static_cast<unsigned long>(std::llabs(exp10)));
    mpq_class q = exp10 >= 0 ? mpq_class(n * p) : mpq_class(n, p);
    q.canonicalize();
    try {
        return Value(q);
    } catch (const Error& e) {
        if (e.where().empty()) throw Error(e.kind(), at(t.column), e.reason());
        throw;
    }
}

// The literal a run of numbers side by side would be if the spaces were digit-group
// separators (`1 000 000`), or empty when they are not digit groups.
std::string digit_groups(const std::vector<Token>& run) {
    std::string joined = run.front().text;
    for (const char c : joined) {
        if (std::isdigit(static_cast<unsigned char>(c)) == 0) return {};
    }
    for (std::size_t i = 1; i < run.size(); ++i) {
        const std::string& g = run[i].text;
        if (g.size() != 3) return {};
        for (const char c : g) {
            if (std::isdigit(static_cast<unsigned char>(c)) == 0) return {};
        }
        joined += g;
    }
    return joined;
}

class Parser {
  public:
    explicit Parser(std::string_view text) : toks_(Lexer(text).run()) {}

    Value whole() {
        if (peek().kind == Tok::End) throw parse_error(at(peek().column), "empty expression");
        Value v = expr();
        expect_end();
        return v;
    }

    std::vector<Value> vector_whole() {
        auto v = vector();
        expect_end();
        return v;
    }

    std::vector<std::vector<Value>> matrix_whole() {
        std::vector<std::vector<Value>> rows;
        const Token open = peek();
        expect(Tok::LBracket, "'[' to start a matrix");
        if (peek().kind != Tok::RBracket) {
            while (true) {
                const int col = peek().column;
                rows.push_back(vector());
                if (rows.size() > 1 && rows.back().size() != rows.front().size()) {
                    throw shape_error(fmt::format("row {} has {} entries, row 1 has {}", rows.size(),
                                                  rows.back().size(), rows.front().size()),
                                      at(col));
                }
                if (peek().kind == Tok::Comma) {
                    next();
                    continue;
                }
                break;
            }
        }
        expect(Tok::RBracket, fmt::format("',' or ']' to close the matrix opened at column {}", open.column));
        expect_end();
        return rows;
    }

  private:
    const Token& peek() const { return toks_[pos_]; }
    Token next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }

    void expect(Tok kind, const std::string& what) {
        if (peek().kind != kind) {
            throw parse_error(at(peek().column), fmt::format("expected {}, found {}", what, show(peek())));
        }
        next();
    }

    void expect_end() {
        if (peek().kind != Tok::End) {
            throw parse_error(at(peek().column),
                              fmt::format("unexpected {} after a complete expression", show(peek())));
        }
    }

    std::vector<Value> vector() {
        std::vector<Value> out;
        const Token open = peek();
        expect(Tok::LBracket, "'[' to start a vector");
        ++vectors_;
        if (peek().kind != Tok::RBracket) {
            while (true) {
                out.push_back(expr());
                if (peek().kind == Tok::Comma) {
                    next();
                    continue;
                }
                break;
            }
        }
        --vectors_;
        expect(Tok::RBracket, fmt::format("',' or ']' to close the vector opened at column {}", open.column));
        return out;
    }

    struct Depth {
        explicit Depth(int& d, int column) : d_(d) {
            if (++d_ > limits().max_nesting) {
                throw over_limit(Limit::max_nesting, fmt::format("expression nests at least {} levels deep", d_),
                                 at(column));
            }
            if (stack_nearly_full()) {
                throw limit_error(fmt::format("expression nests {} levels deep, more than this thread's stack holds "
                                              "(limits: max_nesting is {}, but nesting past the stack is refused "
                                              "whatever the limit)",
                                              d_, limits().max_nesting),
                                  at(column));
            }
        }
        ~Depth() { --d_; }
        Depth(const Depth&) = delete;
        Depth& operator=(const Depth&) = delete;
        int& d_;
    };

    // Evaluates f, attaching the operator's column to any error without a place.
    template <class F>
    static Value located(int column, F&& f) {
        return placed([column] { return at(column); }, std::forward<F>(f), KeepPlace::Any);
    }

    Value expr() {
        Value v = term();
        while (peek().kind == Tok::Plus || peek().kind == Tok::Minus) {
            const Token op = next();
            Value rhs = term();
            v = located(op.column, [&] { return op.kind == Tok::Plus ? v + rhs : v - rhs; });
        }
        return v;
    }

    static bool starts_primary(Tok k) {
        return k == Tok::Number || k == Tok::Name || k == Tok::LParen || k == Tok::Root;
    }

    Value term() {
        Value v = unary();
        while (true) {
            const Tok k = peek().kind;
            if (k == Tok::Star || k == Tok::Slash) {
                const Token op = next();
                Value rhs = unary();
                v = located(op.column, [&] { return op.kind == Tok::Star ? v * rhs : v / rhs; });
            } else if (starts_primary(k)) {
                const int col = peek().column;
                if (k == Tok::Number && pos_ > 0 && toks_[pos_ - 1].kind == Tok::Number) {
                    adjacent_numbers();
                }
                Value rhs = power();  // implicit multiplication: 2a, 3ln2, (1+a)(1-a)
                v = located(col, [&] { return v * rhs; });
            } else {
                return v;
            }
        }
    }

    // Two numeric literals side by side (`1 000 000`, `[1 0]`) are refused rather than read as a
    // product: juxtaposition is for `2a`, `3(…)` and `2sqrt(2)`. The message says what was
    // probably meant.
    [[noreturn]] void adjacent_numbers() const {
        std::vector<Token> run{toks_[pos_ - 1]};
        for (std::size_t i = pos_; i < toks_.size() && toks_[i].kind == Tok::Number; ++i) {
            run.push_back(toks_[i]);
        }
        const Token& first = run[0];
        const Token& second = run[1];
        std::string meant;
        const std::string joined = digit_groups(run);
        if (vectors_ > 0) {
            meant = fmt::format("a missing ',' between two entries ('{}, {}')", first.text, second.text);
            if (!joined.empty()) meant += fmt::format(", or the one number {} (digit groups take no spaces)", joined);
        } else if (!joined.empty()) {
            meant = fmt::format("the one number {} (digit groups take no spaces)", joined);
        } else {
            meant = fmt::format("a product ('{} * {}')", first.text, second.text);
        }
        throw parse_error(at(second.column), fmt::format("two numbers side by side ('{}' at column {} and '{}'); did "
                                                         "you mean {}?",
                                                         first.text, first.column, second.text, meant));
    }

    Value unary() {
        const Tok k = peek().kind;
        if (k == Tok::Plus || k == Tok::Minus) {
            const Token op = next();
            Depth d(depth_, op.column);
            Value v = unary();
            return op.kind == Tok::Minus ? -v : v;
        }
        return power();
    }

    Value power() {
        const int col = peek().column;
        Value base = postfix();
        if (peek().kind == Tok::Caret) {
            const Token op = next();
            Depth d(depth_, op.column);
            if (peek().kind == Tok::End) {
                throw parse_error(at(peek().column),
                                  fmt::format("expected an exponent after {}, found end of input", show(op)));
            }
            Value e = unary();  // right associative; 2^-1 allowed
            return located(op.column, [&] { return pow(base, e); });
        }
        (void)col;
        return base;
    }

    Value postfix() {
        Value v = primary();
        while (peek().kind == Tok::Super) {
            const Token s = next();
            v = located(s.column, [&] { return pow(v, Value(s.super)); });
        }
        return v;
    }

    Value call(const Token& name, const std::string& fn) {
        if (peek().kind != Tok::LParen) {
            throw parse_error(at(peek().column), fmt::format("expected '(' after {}, found {}", fn, show(peek())));
        }
        const Token open = next();
        Depth d(depth_, open.column);
        if (peek().kind == Tok::RParen) {
            throw parse_error(at(peek().column), fmt::format("{}() needs an argument", fn));
        }
        Value arg = expr();
        expect(Tok::RParen, fmt::format("')' to close '(' at column {}", open.column));
        return located(name.column, [&]() -> Value {
            if (fn == "exp") return exp(arg);
            if (fn == "sqrt") return pow(arg, Value(mpq_class(1, 2)));
            if (fn == "cbrt") return pow(arg, Value(mpq_class(1, 3)));
            return ln(arg);  // ln and log
        });
    }

    Value primary() {
        const Token t = peek();
        switch (t.kind) {
            case Tok::Number:
                next();
                return number_value(t);
            case Tok::Name: {
                next();
                const std::string& n = t.text;
                if (n == "a") return Value::ln2();
                if (n == "ln2") return Value::ln2();
                if (n == "ln" || n == "log" || n == "exp" || n == "sqrt" || n == "cbrt") {
                    return call(t, n);
                }
                if (n == "e") {
                    throw domain_error(
                        "e (Euler's number) is transcendental, so in no "
                        "Q(2^(1/m)), with no known form as a polynomial in a; "
                        "write exp(r*a) = 2^r for exact exponentials",
                        at(t.column));
                }
                if (n == "pi") {
                    throw domain_error(
                        "pi is transcendental, so in no Q(2^(1/m)), with no known "
                        "form as a polynomial in a",
                        at(t.column));
                }
                throw parse_error(at(t.column), fmt::format("unknown name '{}'; expected a, ln2, ln(...), "
                                                            "log(...), exp(...) or sqrt(...)",
                                                            n));
            }
            case Tok::LParen: {
                next();
                Depth d(depth_, t.column);
                if (peek().kind == Tok::RParen) {
                    throw parse_error(at(peek().column), "empty parentheses");
                }
                Value v = expr();
                expect(Tok::RParen, fmt::format("')' to close '(' at column {}", t.column));
                return v;
            }
            case Tok::Root: {
                next();
                Depth d(depth_, t.column);
                const int col = peek().column;
                if (!starts_primary(peek().kind)) {
                    throw parse_error(at(col),
                                      fmt::format("expected a value after '{}', found {}", t.text, show(peek())));
                }
                Value v = postfix();
                return located(t.column, [&] { return pow(v, Value(mpq_class(1, t.root))); });
            }
            case Tok::End:
                throw parse_error(at(t.column), pos_ == 0 ? std::string("empty expression")
                                                          : fmt::format("expected a value after {}, found end "
                                                                        "of input",
                                                                        show(toks_[pos_ - 1])));
            default:
                throw parse_error(at(t.column), pos_ == 0
                                                    ? fmt::format("expected a value, found {}", show(t))
                                                    : fmt::format("expected a number, a, a function or '(' after {}, "
                                                                  "found {}",
                                                                  show(toks_[pos_ - 1]), show(t)));
        }
    }

    std::vector<Token> toks_;
    std::size_t pos_ = 0;
    int depth_ = 0;
    int vectors_ = 0;  // vectors open around the current entry (for messages)
};

}  // namespace

std::string Utf8Fault::reason() const { return fmt::format("invalid UTF-8 byte 0x{:02X}", byte); }

std::optional<Utf8Fault> find_invalid_utf8(std::string_view text) {
    Utf8Fault at;
    for (std::size_t i = 0; i < text.size();) {
        char32_t cp = 0;
        const std::size_t len = detail::decode_utf8(text, i, cp);
        if (len == 0) {
            at.byte = static_cast<unsigned char>(text[i]);
            return at;
        }
        if (cp == '\n') {
            ++at.line;
            at.column = 1;
        } else {
            ++at.column;
        }
        i += len;
    }
    return std::nullopt;
}

void check_utf8(std::string_view text, std::string_view what) {
    if (const auto fault = find_invalid_utf8(text)) {
        Location l;
        l.context = std::string(what);
        l.line = fault->line;
        l.column = fault->column;
        throw parse_error(l, fmt::format("{} at line {}, column {}", fault->reason(), fault->line, fault->column));
    }
}

Value parse_value(std::string_view text) { return Parser(text).whole(); }

std::vector<Value> parse_vector(std::string_view text) { return Parser(text).vector_whole(); }

std::vector<std::vector<Value>> parse_matrix(std::string_view text) { return Parser(text).matrix_whole(); }

}  // namespace exactattn
