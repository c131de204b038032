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
#include "core/lex.hpp"
#include "core/utf8.hpp"
#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"

namespace exactattn {

namespace {

using detail::at;
using detail::show;
using detail::Tok;
using detail::Token;

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
    explicit Parser(std::string_view text) : toks_(detail::lex(text)) {}

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
