// SPDX-License-Identifier: MIT
// The input grammar of docs/notation.md and the examples of issue 2.
#include <gtest/gtest.h>

#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {
std::string ev(const std::string& s) { return to_ascii(parse_value(s)); }
}  // namespace

TEST(Parse, IssueExamples) {
    EXPECT_EQ(ev("exp(a)"), "2");
    EXPECT_EQ(ev("exp(a/2)"), "2^(1/2)");
    EXPECT_EQ(ev("2^(1/2)/(2+2^(1/2))"), "2^(1/2) - 1");
    EXPECT_EQ(ev("1/(2+2^(1/2))"), "1 - 2^(1/2)/2");
    EXPECT_EQ(ev("ln2/2 + ln(2)/4"), "3a/4");
    EXPECT_EQ(ev("0.25a"), "a/4");
    EXPECT_EQ(ev("exp(a)^3/(exp(a)+2)"), "2");
}

TEST(Parse, Spellings) {
    EXPECT_EQ(ev("log(2)"), "a");
    EXPECT_EQ(ev("ln(4)"), "2a");
    EXPECT_EQ(ev("2a/3"), "2a/3");
    EXPECT_EQ(ev("−a/4"), "-a/4");
    EXPECT_EQ(ev("√2 − 1"), "2^(1/2) - 1");
    EXPECT_EQ(ev("2·a"), "2a");
    EXPECT_EQ(ev("a²"), "a^2");
    EXPECT_EQ(ev("a**2"), "a^2");
    EXPECT_EQ(ev("sqrt(8)"), "2*2^(1/2)");
    EXPECT_EQ(ev("∛4"), "2^(2/3)");
    EXPECT_EQ(ev("(1+a)(1-a)"), "1 - a^2");
    EXPECT_EQ(ev("3ln2"), "3a");
    EXPECT_EQ(ev("2^-1"), "1/2");
    EXPECT_EQ(ev("1e-3"), "1/1000");
    EXPECT_EQ(ev("1.5E2"), "150");
    EXPECT_EQ(ev("-2^2"), "-4");
    EXPECT_EQ(ev("2^3^2"), "512");
    EXPECT_EQ(ev("(2^(1/2) - 1)a"), "(2^(1/2) - 1)a");
    EXPECT_EQ(ev("0.1"), "1/10");
}

TEST(Parse, ErrorsNameTheColumn) {
    EXPECT_ERROR(parse_value("2a//3"), ErrorKind::Parse,
                 "expression column 4: expected a number, a, a function or '(' after '/', found '/'");
    EXPECT_ERROR(parse_value("exp(1)"), ErrorKind::Domain,
                 "expression column 1: exp(1) is refused: the exponent has the nonzero constant "
                 "term 1, and e^c is transcendental for algebraic c ≠ 0 (Lindemann–Weierstrass), "
                 "so in no Q(2^(1/m)), with no known form as a polynomial in a; only rational "
                 "multiples of a = ln 2 exponentiate exactly");
    EXPECT_ERROR(parse_value("1/(a-a)"), ErrorKind::Domain, "expression column 2: division by zero");
    EXPECT_ERROR(parse_value(""), ErrorKind::Parse, "expression column 1: empty expression");
    EXPECT_ERROR(parse_value("(1+2"), ErrorKind::Parse,
                 "expression column 5: expected ')' to close '(' at column 1, found end of input");
    EXPECT_ERROR(parse_value("x+1"), ErrorKind::Parse,
                 "expression column 1: unknown name 'x'; expected a, ln2, ln(...), log(...), "
                 "exp(...) or sqrt(...)");
    EXPECT_ERROR(parse_value("2 a)"), ErrorKind::Parse,
                 "expression column 4: unexpected ')' after a complete expression");
}

TEST(Parse, OutsideTheDomain) {
    EXPECT_ERROR_HAS(parse_value("exp(a^2)"), ErrorKind::Domain, "a^2");
    EXPECT_ERROR_HAS(parse_value("2^(2^(1/2))"), ErrorKind::Domain, "Gelfond");
    EXPECT_ERROR_HAS(parse_value("exp(2^(1/2) a)"), ErrorKind::Domain, "Gelfond");
    EXPECT_ERROR_HAS(parse_value("sqrt(3)"), ErrorKind::Domain, "lies in no Q(2^(1/m))");
    EXPECT_ERROR_HAS(parse_value("e"), ErrorKind::Domain, "transcendental");
    EXPECT_ERROR_HAS(parse_value("1/a"), ErrorKind::Domain, "contains a = ln 2");
}

TEST(Parse, LookAlikeCharactersAreNamed) {
    EXPECT_ERROR(parse_value("exp（a)"), ErrorKind::Parse,
                 "expression column 4: look-alike character '（' (U+FF08 FULLWIDTH LEFT "
                 "PARENTHESIS); did you mean '('?");
    EXPECT_ERROR(parse_value("1 – a"), ErrorKind::Parse,
                 "expression column 3: look-alike character '–' (U+2013 EN DASH); did you mean "
                 "'-'?");
    EXPECT_ERROR_HAS(parse_vector("[a，0]"), ErrorKind::Parse, "U+FF0C FULLWIDTH COMMA");
}

TEST(Parse, InvalidUtf8) {
    EXPECT_ERROR(parse_value("a\xff"), ErrorKind::Parse, "expression column 2: invalid UTF-8 byte 0xFF");
}

TEST(Parse, LimitsHold) {
    EXPECT_ERROR_HAS(parse_value("exp(10^12 a)"), ErrorKind::Limit, "limits: max_exponent");
    EXPECT_ERROR_HAS(parse_value("2^(10^12)"), ErrorKind::Limit, "limits: max_exponent");
    EXPECT_ERROR_HAS(parse_value("(3^1000)^100000"), ErrorKind::Limit, "limits: max_bits");
    EXPECT_ERROR_HAS(parse_value(std::string(1000, '(') + "1" + std::string(1000, ')')), ErrorKind::Limit,
                     "limits: max_nesting");
    EXPECT_ERROR_HAS(parse_value("a^100"), ErrorKind::Limit, "limits: max_degree");
}

TEST(Parse, VectorsAndMatrices) {
    auto m = parse_matrix("[[a,0],[0,a],[0,0]]");
    ASSERT_EQ(m.size(), 3U);
    EXPECT_EQ(m[1][1], Value::ln2());
    EXPECT_EQ(to_string(parse_vector("[a/2, a/4]")), "[a/2, a/4]");
    EXPECT_ERROR_HAS(parse_matrix("[[a,0],[0]]"), ErrorKind::Shape, "row 2 has 1 entries, row 1 has 2");
    EXPECT_TRUE(parse_vector("[]").empty());
}
