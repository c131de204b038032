// SPDX-License-Identifier: MIT
// Known answers for K_m = Q(2^(1/m)) (hand computed).
#include <gtest/gtest.h>

#include "exactattn/field.hpp"
#include "exactattn/limits.hpp"
#include "support/support.hpp"

using exactattn::ErrorKind;
using exactattn::FieldElem;

namespace {
FieldElem theta(int m) { return FieldElem::pow2(mpq_class(1, m)); }
}  // namespace

TEST(FieldElem, ZeroIsCanonical) {
    FieldElem z;
    EXPECT_TRUE(z.is_zero());
    EXPECT_EQ(z.root(), 1);
    EXPECT_TRUE(z.is_canonical());
    EXPECT_EQ(FieldElem(0), z);
}

TEST(FieldElem, RationalsReduce) {
    FieldElem x(mpq_class(6, 4));
    EXPECT_EQ(x.rational(), mpq_class(3, 2));
    EXPECT_TRUE(x.is_canonical());
}

TEST(FieldElem, Pow2SplitsIntegerAndRootPart) {
    // 2^(7/3) = 4 · 2^(1/3)
    FieldElem x = FieldElem::pow2(mpq_class(7, 3));
    EXPECT_EQ(x.root(), 3);
    EXPECT_EQ(x.coefficient(1), 4);
    EXPECT_EQ(x.coefficient(0), 0);
    // 2^(-1/2) = 2^(1/2) / 2
    FieldElem y = FieldElem::pow2(mpq_class(-1, 2));
    EXPECT_EQ(y.root(), 2);
    EXPECT_EQ(y.coefficient(1), mpq_class(1, 2));
    // 2^(2/4) is 2^(1/2): the smallest m
    EXPECT_EQ(FieldElem::pow2(mpq_class(2, 4)), theta(2));
    EXPECT_EQ(FieldElem::pow2(mpq_class(3)), FieldElem(8));
}

TEST(FieldElem, ThetaPowerMIsTwo) {
    for (int m = 1; m <= 12; ++m) EXPECT_EQ(theta(m).pow(m), FieldElem(2)) << m;
}

TEST(FieldElem, ShrinksToSmallestRoot) {
    // 2^(1/4)^2 = 2^(1/2), stored with m = 2
    FieldElem x = theta(4) * theta(4);
    EXPECT_EQ(x.root(), 2);
    EXPECT_EQ(x, theta(2));
    // 2^(1/2) · 2^(1/3) = 2^(5/6)
    EXPECT_EQ(theta(2) * theta(3), FieldElem::pow2(mpq_class(5, 6)));
    // (1 + √2) − √2 = 1 is rational
    EXPECT_TRUE(((FieldElem(1) + theta(2)) - theta(2)).is_rational());
}

TEST(FieldElem, InverseOfOnePlusRootTwo) {
    // 1/(1 + √2) = √2 − 1
    FieldElem x = FieldElem(1) + theta(2);
    EXPECT_EQ(x.inverse(), theta(2) - FieldElem(1));
    // 1/(2 + √2) = 1 − √2/2
    FieldElem y = FieldElem(2) + theta(2);
    EXPECT_EQ(y.inverse(), FieldElem(1) - theta(2) * FieldElem(mpq_class(1, 2)));
}

TEST(FieldElem, InverseOfCubicElement) {
    // (1 + ∛2)(1 − ∛2 + ∛4) = 1 + 2 = 3, so 1/(1 + ∛2) = (1 − ∛2 + ∛4)/3
    FieldElem t = theta(3);
    FieldElem x = FieldElem(1) + t;
    FieldElem expected = (FieldElem(1) - t + t * t) * FieldElem(mpq_class(1, 3));
    EXPECT_EQ(x.inverse(), expected);
}

TEST(FieldElem, DivisionByZeroIsDomainError) {
    EXPECT_ERROR(FieldElem(1) / FieldElem(), ErrorKind::Domain, "division by zero");
}

TEST(FieldElem, SignOfMixedElement) {
    EXPECT_EQ((theta(2) - FieldElem(1)).sign(), 1);                      // 0.414…
    EXPECT_EQ((FieldElem(mpq_class(141, 100)) - theta(2)).sign(), -1);   // 1.41 < √2
    EXPECT_EQ((FieldElem(mpq_class(1415, 1000)) - theta(2)).sign(), 1);  // 1.415 > √2
    // 2^(1/12)^12 − 2 = 0 structurally, and a very close one: 2^(1/12) vs 1.0594630943592953
    FieldElem close = theta(12) - FieldElem(mpq_class("10594630943592953/10000000000000000"));
    EXPECT_EQ(close.sign(), -1);  // 2^(1/12) = 1.05946309435929526456…
}

TEST(FieldElem, AsPowerOfTwo) {
    int s = 0;
    mpq_class r;
    ASSERT_TRUE(FieldElem::pow2(mpq_class(-7, 6)).as_signed_power_of_two(s, r));
    EXPECT_EQ(s, 1);
    EXPECT_EQ(r, mpq_class(-7, 6));
    EXPECT_FALSE((FieldElem(1) + theta(2)).as_signed_power_of_two(s, r));
    EXPECT_FALSE(FieldElem(3).as_signed_power_of_two(s, r));
}

TEST(FieldElem, RootOverLimitIsLimitError) {
    EXPECT_ERROR_HAS(FieldElem::pow2(mpq_class(1, 65)), ErrorKind::Limit, "limits: max_root");
    EXPECT_ERROR_HAS(FieldElem::pow2(mpq_class(mpz_class("1000000000000"))), ErrorKind::Limit, "limits: max_exponent");
}
