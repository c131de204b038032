// SPDX-License-Identifier: MIT
// Issue 5 regression: the sign and decimals of values with megabit coefficients computed
// ln 2 by an O(n²) series at megabit precision (and even for values free of a): both inputs
// below ran for minutes. ln 2 now comes from MPFR's correctly rounded constant and is skipped
// for degree 0. Expected digits from an independent 60-digit MPFR evaluation.
#include <gtest/gtest.h>

#include <boost/multiprecision/mpfr.hpp>

#include "exactattn/parse.hpp"
#include "exactattn/value.hpp"
#include "support/support.hpp"

using F = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<60>>;

namespace {
// The first `digits` significant digits and the decimal exponent, "d.ddd…e+N".
std::string leading(const F& x, int digits) { return x.str(digits - 1, std::ios_base::scientific); }
}  // namespace

TEST(Decimals, OfMegabitValuesFinish) {
    // (1 + √2)^1000000: no a at all.
    const exactattn::Value x = exactattn::parse_value("(1+2^(1/2))^1000000");
    const F xf = pow(1 + sqrt(F(2)), 1000000);
    EXPECT_EQ(exactattn::to_significant(x, 16), leading(xf, 16));
    // 2^1048576 · (a − 0.693): ln 2 needed to a megabit.
    const exactattn::Value y = exactattn::parse_value("2^1048576*a - 2^1048576*0.693");
    const F yf = pow(F(2), 1048576) * (log(F(2)) - F("0.693"));
    EXPECT_EQ(exactattn::to_significant(y, 16), leading(yf, 16));
    EXPECT_EQ(y.sign(), 1);
}
