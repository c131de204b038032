// SPDX-License-Identifier: MIT
// Randomized laws (fixed seeds) for FieldElem and Value, checked against independent oracles.
#include <gtest/gtest.h>

#include <boost/multiprecision/mpfr.hpp>

#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/value.hpp"
#include "support/support.hpp"

using namespace exactattn;
using exactattn::test::random_field_elem;
using exactattn::test::random_rational;
using exactattn::test::random_value;
using Big = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<700>>;

namespace {

int iterations(int base) { return base * exactattn::test::multiplier(); }

// Independent 200-digit evaluation with MPFR (through Boost.Multiprecision).
Big big_eval(const Value& v) {
    const Big ln2 = boost::multiprecision::log(Big(2));
    Big total = 0;
    Big apow = 1;
    for (const auto& f : v.terms()) {
        Big fk = 0;
        const auto& c = f.coefficients();
        for (std::size_t i = 0; i < c.size(); ++i) {
            Big coef = Big(c[i].get_num().get_str()) / Big(c[i].get_den().get_str());
            fk += coef * boost::multiprecision::pow(Big(2), Big(static_cast<long>(i)) / f.root());
        }
        total += fk * apow;
        apow *= ln2;
    }
    return total;
}

}  // namespace

TEST(FieldElemLaws, RingAxiomsAndCanonicalForm) {
    auto rng = exactattn::test::rng_for("FieldElemLaws.Ring");
    for (int it = 0; it < iterations(300); ++it) {
        const FieldElem x = random_field_elem(rng, 40, 12);
        const FieldElem y = random_field_elem(rng, 40, 12);
        const FieldElem z = random_field_elem(rng, 40, 12);
        SCOPED_TRACE(testing::Message() << "seed " << exactattn::test::seed() << " iteration " << it
                                        << ": x=" << to_ascii(Value(x)) << " y=" << to_ascii(Value(y))
                                        << " z=" << to_ascii(Value(z)));
        EXPECT_EQ(x + y, y + x);
        EXPECT_EQ((x + y) + z, x + (y + z));
        EXPECT_EQ(x * y, y * x);
        EXPECT_EQ((x * y) * z, x * (y * z));
        EXPECT_EQ(x * (y + z), x * y + x * z);
        EXPECT_EQ((x + y) - y, x);
        EXPECT_TRUE((x * y).is_canonical());
        EXPECT_TRUE((x - y).is_canonical());
        FieldElem alias = x;
        alias *= alias;  // aliasing
        EXPECT_EQ(alias, x * x);
        alias = x;
        const FieldElem& same = alias;  // aliasing again, through a reference
        alias -= same;
        EXPECT_TRUE(alias.is_zero());
    }
}

TEST(FieldElemLaws, InverseTimesXIsOne) {
    auto rng = exactattn::test::rng_for("FieldElemLaws.Inverse");
    for (int m = 1; m <= 12; ++m) {
        for (int it = 0; it < iterations(10); ++it) {
            std::vector<mpq_class> c(static_cast<std::size_t>(m));
            for (auto& x : c) x = random_rational(rng, 20);
            const FieldElem x = FieldElem::from_coefficients(m, c);
            if (x.is_zero()) continue;
            SCOPED_TRACE(to_ascii(Value(x)));
            EXPECT_EQ(x * x.inverse(), FieldElem(1));
            EXPECT_TRUE(x.inverse().is_canonical());
        }
    }
}

TEST(ValueLaws, RingAxioms) {
    auto rng = exactattn::test::rng_for("ValueLaws.Ring");
    for (int it = 0; it < iterations(200); ++it) {
        const Value x = random_value(rng, 24, 6, 2);
        const Value y = random_value(rng, 24, 6, 2);
        const Value z = random_value(rng, 24, 6, 2);
        SCOPED_TRACE(testing::Message() << "x=" << x << " y=" << y << " z=" << z);
        EXPECT_EQ(x + y, y + x);
        EXPECT_EQ((x * y) * z, x * (y * z));
        EXPECT_EQ(x * (y + z), x * y + x * z);
        EXPECT_EQ((x + y) - y, x);
        EXPECT_TRUE((x * y + z).is_canonical());
        if (!y.is_zero() && y.is_constant()) {
            EXPECT_EQ((x / y) * y, x);
        }
    }
}

TEST(ValueLaws, ExpIsAHomomorphism) {
    auto rng = exactattn::test::rng_for("ValueLaws.Exp");
    for (int it = 0; it < iterations(300); ++it) {
        // Exponents with denominators dividing 12, so that x + y stays within max_root.
        static const long dens[] = {1, 2, 3, 4, 6, 12};
        auto exponent = [&] {
            const long num = std::uniform_int_distribution<long>(-200, 200)(rng);
            return Value(mpq_class(num, dens[std::uniform_int_distribution<int>(0, 5)(rng)]));
        };
        const Value x = exponent() * Value::ln2();
        const Value y = exponent() * Value::ln2();
        SCOPED_TRACE(testing::Message() << "x=" << x << " y=" << y);
        EXPECT_EQ(exp(x + y), exp(x) * exp(y));
        EXPECT_EQ(exp(-x) * exp(x), Value(1));
    }
}

TEST(ValueLaws, PrintThenParseIsIdentity) {
    auto rng = exactattn::test::rng_for("ValueLaws.RoundTrip");
    for (int it = 0; it < iterations(300); ++it) {
        const Value x = random_value(rng, 30, 12, 3);
        SCOPED_TRACE(to_ascii(x));
        EXPECT_EQ(parse_value(to_ascii(x)), x);
        EXPECT_EQ(parse_value(to_unicode(x)), x) << to_unicode(x);
    }
}

TEST(ValueLaws, SignAgreesWithHighPrecision) {
    auto rng = exactattn::test::rng_for("ValueLaws.Sign");
    for (int it = 0; it < iterations(300); ++it) {
        Value x = random_value(rng, 30, 12, 3);
        // Make cancellation likely: subtract a close rational approximation.
        if (it % 2 == 0 && !x.is_zero()) x -= parse_value(to_fixed(x, 12 + it % 20));
        SCOPED_TRACE(to_ascii(x));
        const Big b = big_eval(x);
        const int expected = b > 0 ? 1 : (b < 0 ? -1 : 0);
        EXPECT_EQ(x.sign(), expected);
        EXPECT_EQ(to_double(x), static_cast<double>(b));
    }
}
