// SPDX-License-Identifier: MIT
// Known answers for values in a = ln 2 (hand computed).
#include <gtest/gtest.h>

#include <cmath>

#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/value.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {
Value A() { return Value::ln2(); }
Value q(long n, long d = 1) { return Value(mpq_class(n, d)); }
}  // namespace

TEST(Value, ExpOfRationalMultiplesOfA) {
    EXPECT_EQ(exp(A()), Value(2));
    EXPECT_EQ(exp(Value()), Value(1));
    EXPECT_EQ(exp(q(-3) * A()), q(1, 8));
    EXPECT_EQ(exp(A() / Value(2)) * exp(A() / Value(2)), Value(2));
    EXPECT_EQ(to_ascii(exp(A() / Value(2))), "2^(1/2)");
}

TEST(Value, ExpOutsideTheDomain) {
    EXPECT_ERROR_HAS(exp(Value(1)), ErrorKind::Domain, "Lindemann");
    EXPECT_ERROR_HAS(exp(A() * A()), ErrorKind::Domain, "a^2");
    EXPECT_ERROR_HAS(exp(Value(FieldElem::pow2(mpq_class(1, 2))) * A()), ErrorKind::Domain, "Gelfond");
}

TEST(Value, DivisionByValueWithAIsRefused) {
    EXPECT_ERROR(Value(1) / A(), ErrorKind::Domain,
                 "division by a, which contains a = ln 2: it does not divide 1 as a polynomial in "
                 "a, so the quotient is not a polynomial in a (a is transcendental)");
    EXPECT_ERROR(A() / (A() - A()), ErrorKind::Domain, "division by zero");
}

TEST(Value, CheckedRationalIsTheFractionOrRefusesAValueWithA) {
    EXPECT_EQ(q(4, 6).checked_rational(), mpq_class(2, 3));
    EXPECT_EQ(exp(q(-3) * A()).checked_rational(), mpq_class(1, 8));  // 2^-3
    // a/3 has the transcendental a: no fraction; the message shows the value in ascending powers of a
    // (docs/notation.md).
    EXPECT_ERROR((A() / Value(3)).checked_rational(), ErrorKind::Domain, "a/3 is not rational");
    EXPECT_ERROR((A() + Value(1)).checked_rational(), ErrorKind::Domain, "1 + a is not rational");
}

TEST(Value, ArithmeticOfTheChapter) {
    // Table 14.2 readout: a/2 + 2(a/4) = a
    EXPECT_EQ(A() / Value(2) + Value(2) * (A() / Value(4)), A());
    // Exercise 1: 2a/5 + 2(2a/5) = 6a/5
    EXPECT_EQ(q(2, 5) * A() + Value(2) * (q(2, 5) * A()), q(6, 5) * A());
}

TEST(Value, SignOfPolynomialsInA) {
    EXPECT_EQ(A().sign(), 1);
    EXPECT_EQ((A() - q(7, 10)).sign(), -1);         // 0.6931… < 0.7
    EXPECT_EQ((A() - q(69, 100)).sign(), 1);        // > 0.69
    EXPECT_EQ((A() * A() - q(48, 100)).sign(), 1);  // a² = 0.48045…
    EXPECT_EQ((A() * A() - q(481, 1000)).sign(), -1);
    EXPECT_EQ(compare(A(), q(693147, 1000000)), 1);
    EXPECT_EQ(compare(A(), q(693148, 1000000)), -1);
    EXPECT_EQ(relu(-A()), Value());
    EXPECT_EQ(relu(A()), A());
    EXPECT_EQ(max(A(), q(7, 10)), q(7, 10));
}

TEST(Value, ToDoubleIsCorrectlyRounded) {
    EXPECT_EQ(to_double(A()), 0x1.62e42fefa39efp-1);  // ln 2 rounded to nearest (M_LN2)
    EXPECT_EQ(to_double(q(1, 3)), 1.0 / 3.0);
    EXPECT_EQ(to_double(q(1, 2)), 0.5);
    EXPECT_EQ(to_double(Value(FieldElem::pow2(mpq_class(1, 2)))), std::sqrt(2.0));
    EXPECT_EQ(to_double(Value()), 0.0);
}

TEST(Value, DecimalDigits) {
    // ln 2 = 0.69314718055994530941723212145817656807…
    EXPECT_EQ(to_fixed(A(), 6), "0.693147");
    EXPECT_EQ(to_fixed(A() / Value(2), 6), "0.346574");
    EXPECT_EQ(to_fixed(A() / Value(4), 6), "0.173287");
    EXPECT_EQ(to_significant(A(), 30), "0.693147180559945309417232121458");
}

TEST(Value, PowerRules) {
    EXPECT_EQ(pow(Value(4), q(1, 2)), Value(2));
    EXPECT_EQ(pow(Value(8), q(2, 3)), Value(4));
    EXPECT_EQ(pow(q(1, 4), q(1, 2)), q(1, 2));
    EXPECT_ERROR_HAS(pow(Value(3), q(1, 2)), ErrorKind::Domain,
                     "3 is not the square of a rational, so its square root is irrational");
    EXPECT_ERROR_HAS(pow(Value(-2), q(1, 2)), ErrorKind::Domain, "negative");
    EXPECT_ERROR_HAS(pow(Value(2), A()), ErrorKind::Domain, "no known form as a polynomial in a");
    EXPECT_EQ(A().pow(2), A() * A());
    EXPECT_ERROR_HAS(A().pow(-1), ErrorKind::Domain, "contains a");
}

TEST(Value, LnOfPowersOfTwo) {
    EXPECT_EQ(ln(Value(2)), A());
    EXPECT_EQ(ln(Value(1)), Value());
    EXPECT_EQ(ln(q(1, 8)), q(-3) * A());
    EXPECT_ERROR_HAS(ln(Value(3)), ErrorKind::Domain, "ln(3)");
    EXPECT_ERROR_HAS(ln(Value()), ErrorKind::Domain, "ln(0)");
}
