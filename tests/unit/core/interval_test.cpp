// SPDX-License-Identifier: MIT
// Certified enclosures, signs and roundings (interval.hpp) on values whose truth is settled by
// hand: every containment is checked with the test's own integer arithmetic (squares, cubes,
// cross-multiplication), every near-zero sign by a Pell identity checked in the test, every
// rounding at a tie constructed from the binary layout of a double.
#include "core/interval.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "exactattn/field.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/value.hpp"
#include "support/support.hpp"

using namespace exactattn;
using detail::certified_decimal;
using detail::certified_double;
using detail::certified_sign;
using detail::enclose;

namespace {

using Coeffs = std::vector<FieldElem>;

FieldElem q(const mpz_class& n, const mpz_class& d = 1) { return FieldElem(mpq_class(n, d)); }
FieldElem fe(const mpq_class& x) { return FieldElem(x); }
FieldElem sqrt2() { return FieldElem::pow2(mpq_class(1, 2)); }
mpz_class two_to(unsigned long e) { return mpz_class(1) << e; }
mpq_class dyadic(long num, long e) {  // num · 2^e
    mpq_class r(num);
    if (e >= 0)
        r *= mpq_class(two_to(static_cast<unsigned long>(e)));
    else
        r /= mpq_class(two_to(static_cast<unsigned long>(-e)));
    return r;
}

// The solutions of p² − 2q² = ±1 (Pell): (1 + √2)^k = p + q√2, (p, q) → (p + 2q, p + q).
// p/q approaches √2 from alternate sides: above when p² − 2q² = 1 (even k), below when it is
// −1 (odd k), and |√2 − p/q| = 1 / (q²(√2 + p/q)) ≈ 1/(2.83 q²).
struct Pell {
    mpz_class p, q;
    int norm;  // p² − 2q²
};
Pell pell(int bits) {
    mpz_class p = 1, q = 1;  // k = 1
    while (mpz_sizeinbase(q.get_mpz_t(), 2) < static_cast<std::size_t>(bits)) {
        const mpz_class np = p + 2 * q;
        q = p + q;
        p = np;
    }
    const mpz_class n = p * p - 2 * q * q;
    return Pell{p, q, static_cast<int>(n.get_si())};
}

// √2 − p/q: negative when p/q is the convergent from above.
Coeffs sqrt2_minus(const mpz_class& p, const mpz_class& qq) { return {sqrt2() - q(p, qq)}; }

}  // namespace

TEST(Interval, SquareRootOfTwoIsEnclosed) {
    // lo/2^P ≤ √2 ≤ hi/2^P ⟺ lo² ≤ 2·4^P ≤ hi² (both bounds positive).
    for (std::int64_t prec : {64, 200, 1000}) {
        SCOPED_TRACE(prec);
        const Enclosure e = enclose({sqrt2()}, prec);
        ASSERT_EQ(e.prec, prec);
        const mpz_class scale = two_to(static_cast<unsigned long>(prec));
        EXPECT_LE(e.lo * e.lo, 2 * scale * scale);
        EXPECT_GE(e.hi * e.hi, 2 * scale * scale);
        EXPECT_LE(e.hi - e.lo, 2);  // a few units of 2^-P, not a loose bound
        // √2 = 1.41421356237…, so it lies in [1.41421356, 1.41421357].
        EXPECT_GE(e.lo * 100000000, 141421356 * scale);
        EXPECT_LE(e.hi * 100000000, 141421357 * scale);
        EXPECT_FALSE(e.contains_zero());
    }
}

TEST(Interval, OneThirdIsEnclosed) {
    // 1/3 has no finite binary expansion: 3·lo ≤ 2^P ≤ 3·hi with lo < hi.
    const Enclosure e = enclose({q(1, 3)}, 64);
    const mpz_class scale = two_to(64);
    EXPECT_LE(3 * e.lo, scale);
    EXPECT_GE(3 * e.hi, scale);
    EXPECT_LT(e.lo, e.hi);
    EXPECT_LE(e.hi - e.lo, 2);
    // A dyadic rational is enclosed exactly: 5/8 · 2^64 = 5·2^61.
    const Enclosure f = enclose({q(5, 8)}, 64);
    EXPECT_EQ(f.lo, 5 * two_to(61));
    EXPECT_EQ(f.hi, 5 * two_to(61));
}

TEST(Interval, CubeRootOfTwoMinusOneIsEnclosed) {
    // x = 2^(1/3) − 1: (x + 1)³ = 2, so (lo + 2^P)³ ≤ 2·2^(3P) ≤ (hi + 2^P)³ (cubing is
    // increasing).
    const FieldElem x = FieldElem::pow2(mpq_class(1, 3)) - FieldElem(1);
    for (std::int64_t prec : {64, 300}) {
        SCOPED_TRACE(prec);
        const Enclosure e = enclose({x}, prec);
        const mpz_class s = two_to(static_cast<unsigned long>(prec));
        const mpz_class lo1 = e.lo + s;
        const mpz_class hi1 = e.hi + s;
        EXPECT_LE(lo1 * lo1 * lo1, 2 * s * s * s);
        EXPECT_GE(hi1 * hi1 * hi1, 2 * s * s * s);
        EXPECT_LE(e.hi - e.lo, 2);
        // 2^(1/3) = 1.25992104989…: x ∈ [0.2599210498, 0.2599210499].
        EXPECT_GE(e.lo * 10000000000, mpz_class(2599210498) * s);
        EXPECT_LE(e.hi * 10000000000, mpz_class(2599210499) * s);
    }
}

TEST(Interval, LnTwoIsEnclosed) {
    // a = ln 2 = 0.69314718055994530941723…, so a ∈ [0.6931471805599453094, 0.6931471805599453095].
    const Enclosure e = enclose(Value::ln2().terms(), 128);
    const mpz_class s = two_to(128);
    const mpz_class ten19("10000000000000000000");
    EXPECT_GE(e.lo * ten19, mpz_class("6931471805599453094") * s);
    EXPECT_LE(e.hi * ten19, mpz_class("6931471805599453095") * s);
    EXPECT_LE(e.hi - e.lo, 2);
}

TEST(Interval, HugeValueIsEnclosedToItsLastUnits) {
    // x = 3^100 + √2, 159 bits before the point: subtracting 3^100·2^P leaves an enclosure of
    // √2·2^P, checked by squares as above. Relative error is not enough here; the units are.
    mpz_class big;
    mpz_ui_pow_ui(big.get_mpz_t(), 3, 100);
    const Enclosure e = enclose({q(big) + sqrt2()}, 64);
    const mpz_class s = two_to(64);
    const mpz_class lo = e.lo - big * s;
    const mpz_class hi = e.hi - big * s;
    EXPECT_LE(lo * lo, 2 * s * s);
    EXPECT_GE(hi * hi, 2 * s * s);
    EXPECT_LE(hi - lo, 2);
}

TEST(Interval, NegativeAndMixedValuesAreEnclosed) {
    // 1 − √2 = −0.41421…: lo ≤ (1 − √2)·2^P ≤ hi ⟺ (2^P − hi)² ≤ 2·4^P ≤ (2^P − lo)².
    const Enclosure e = enclose({fe(1) - sqrt2()}, 64);
    const mpz_class s = two_to(64);
    EXPECT_LT(e.hi, 0);
    EXPECT_LE((s - e.hi) * (s - e.hi), 2 * s * s);
    EXPECT_GE((s - e.lo) * (s - e.lo), 2 * s * s);
    // √2·a = 1.4142135623730950 · 0.6931471805599453 = 0.98025814346854…, with a and √2 in
    // one value: √2·a − 49/50 = 2.58e-4 > 0 and 9803/10000 − √2·a = 4.19e-5 > 0.
    const Value v = Value(sqrt2()) * Value::ln2() - Value(mpq_class(49, 50));
    EXPECT_EQ(certified_sign(v.terms()), 1);
    EXPECT_EQ(certified_sign((Value(mpq_class(9803, 10000)) - Value(sqrt2()) * Value::ln2()).terms()), 1);
}

TEST(Interval, SignOfAPellConvergentBesideRootTwo) {
    // 665857² = 443365544449 and 2·470832² = 2·221682772224 = 443365544448:
    // 665857² = 2·470832² + 1, so (665857/470832)² > 2 and 665857/470832 > √2, by
    // 1/(470832²·(√2 + 665857/470832)) ≈ 1.6e-12. The test checks the identity in integers.
    const mpz_class p = 665857;
    const mpz_class qq = 470832;
    ASSERT_EQ(mpz_class(p * p - 2 * qq * qq), 1);
    EXPECT_EQ(certified_sign(sqrt2_minus(p, qq)), -1);
    EXPECT_EQ(certified_sign({q(p, qq) - sqrt2()}), 1);
    // The next Pell pair, (p + 2q, p + q) = (1607521, 1136689), has 1607521² − 2·1136689² = −1:
    // it lies below √2.
    const mpz_class p2 = p + 2 * qq;
    const mpz_class q2 = p + qq;
    ASSERT_EQ(mpz_class(p2 * p2 - 2 * q2 * q2), -1);
    EXPECT_EQ(certified_sign(sqrt2_minus(p2, q2)), 1);
    // The value's own sign() agrees (the public path).
    EXPECT_EQ(Value(sqrt2() - q(p, qq)).sign(), -1);
    EXPECT_EQ(Value(sqrt2() - q(p2, q2)).sign(), 1);
}

TEST(Interval, SignNeedsPrecisionDoubling) {
    // A Pell pair with q of 101 bits: |√2 − p/q| ≈ 1/(2.83·2^202) < 2^-203, far below the first
    // working precision (64 bits plus the operands' size), so the sign is found by doubling.
    const Pell pp = pell(101);
    ASSERT_EQ(mpz_class(pp.p * pp.p - 2 * pp.q * pp.q), pp.norm);
    ASSERT_EQ(std::abs(pp.norm), 1);
    const int expected = pp.norm == 1 ? -1 : 1;  // p/q above √2 exactly when p² − 2q² = 1
    EXPECT_EQ(certified_sign(sqrt2_minus(pp.p, pp.q)), expected);
    EXPECT_EQ(certified_sign({q(pp.p, pp.q) - sqrt2()}), -expected);
    // The next pair lies on the other side.
    const Pell next{pp.p + 2 * pp.q, pp.p + pp.q, -pp.norm};
    ASSERT_EQ(mpz_class(next.p * next.p - 2 * next.q * next.q), next.norm);
    EXPECT_EQ(certified_sign(sqrt2_minus(next.p, next.q)), -expected);
}

TEST(Interval, SignOfLnTwoBesideItsConvergents) {
    // Two consecutive continued-fraction convergents of ln 2 = [0; 1, 2, 3, 1, 6, 3, 1, 1, 2, 1,
    // 1, 1, 1, 3, 10, 1, …]: 261740/377611 and 287209/414355 bracket it within 5e-12. Checked
    // against ln 2 ∈ [0.6931471805599453094, 0.6931471805599453095] with the test's rationals.
    const mpq_class above(261740, 377611);
    const mpq_class below(287209, 414355);
    ASSERT_GT(above, mpq_class("6931471805599453095/10000000000000000000"));
    ASSERT_LT(below, mpq_class("6931471805599453094/10000000000000000000"));
    EXPECT_EQ(certified_sign((Value::ln2() - Value(above)).terms()), -1);
    EXPECT_EQ(certified_sign((Value::ln2() - Value(below)).terms()), 1);
    // Zero is zero structurally, without any enclosure.
    EXPECT_EQ(certified_sign({}), 0);
    EXPECT_EQ(certified_sign({FieldElem(), FieldElem()}), 0);
}

TEST(Interval, PrecisionCapRaisesLimitError) {
    // The 101-bit Pell pair needs about 204 bits to separate from zero. Under a cap of 128 the
    // tries are 65, then 128 (the cap itself, reached from within 3/4 of it), then 256: refused
    // with the limit's name (docs/limits.md, max_precision).
    const Pell pp = pell(101);
    {
        Limits l;
        l.max_precision = 128;
        ScopedLimits scope(l);
        EXPECT_ERROR(certified_sign(sqrt2_minus(pp.p, pp.q)), ErrorKind::Limit,
                     "deciding this value needs more bits of working precision, over the limit of 128 bits "
                     "(limits: max_precision)");
        // 1 + 2^-53 ± 2^-203 rounds like its tie only once the 2^-203 is seen.
        const FieldElem tiny = pp.norm == 1 ? q(pp.p, pp.q) - sqrt2() : sqrt2() - q(pp.p, pp.q);
        EXPECT_ERROR(certified_double({fe(1 + dyadic(1, -53)) + tiny}), ErrorKind::Limit,
                     "deciding this value needs more bits of working precision, over the limit of 128 bits "
                     "(limits: max_precision)");
        // Asking enclose for more than the cap directly is refused the same way.
        EXPECT_ERROR(enclose({sqrt2()}, 129), ErrorKind::Limit,
                     "deciding this value needs more bits of working precision, over the limit of 128 bits "
                     "(limits: max_precision)");
        // A value decided within the cap is still decided under it.
        EXPECT_EQ(certified_sign({sqrt2() - q(141, 100)}), 1);
    }
    {
        // Under a cap of 256 the third try is the cap, 256 bits, which decides.
        Limits l;
        l.max_precision = 256;
        ScopedLimits scope(l);
        EXPECT_EQ(certified_sign(sqrt2_minus(pp.p, pp.q)), pp.norm == 1 ? -1 : 1);
    }
}

TEST(Interval, RoundsToNearestEvenAtExactTies) {
    // Doubles near 1 are spaced 2^-52: 1 + 2^-53 lies halfway between 1 (even last bit) and
    // 1 + 2^-52 (odd), so it rounds to 1; 1 + 3·2^-53 lies halfway between 1 + 2^-52 (odd) and
    // 1 + 2^-51 (even), so it rounds to 1 + 2^-51.
    EXPECT_EQ(certified_double({fe(1 + dyadic(1, -53))}), 1.0);
    EXPECT_EQ(certified_double({fe(1 + dyadic(3, -53))}), 0x1.0000000000002p0);
    EXPECT_EQ(certified_double({fe(-1 - dyadic(1, -53))}), -1.0);
    EXPECT_EQ(certified_double({fe(-1 - dyadic(3, -53))}), -0x1.0000000000002p0);
    // Near 2^200 the spacing is 2^148: 2^200 + 2^147 ties to 2^200, 2^200 + 3·2^147 to
    // 2^200 + 2^149, and 2^200 + 2^147 + 1 (just above the tie) rounds up to 2^200 + 2^148.
    const mpq_class t200(two_to(200));
    EXPECT_EQ(certified_double({fe(t200 + dyadic(1, 147))}), 0x1p200);
    EXPECT_EQ(certified_double({fe(t200 + dyadic(3, 147))}), 0x1.0000000000002p200);
    EXPECT_EQ(certified_double({fe(t200 + dyadic(1, 147) + 1)}), 0x1.0000000000001p200);
    EXPECT_EQ(certified_double({fe(t200 + dyadic(1, 147) - 1)}), 0x1p200);
}

TEST(Interval, RoundsIrrationalValuesBesideATie) {
    // 2^53 + 1 is halfway between the doubles 2^53 and 2^53 + 2 (spacing 2 above 2^53).
    // δ = 665857/470832 − √2 ≈ 1.6e-12 > 0 (the Pell identity above): 2^53 + 1 + δ rounds up
    // to 2^53 + 2 and 2^53 + 1 − δ down to 2^53, although both are within 2e-12 of the tie.
    const FieldElem delta = q(665857, 470832) - sqrt2();
    const FieldElem tie = q(two_to(53) + 1);
    EXPECT_EQ(certified_double({tie + delta}), 0x1.0000000000001p53);
    EXPECT_EQ(certified_double({tie - delta}), 0x1p53);
    // With the 101-bit Pell pair δ is below 2^-203: the first precision cannot tell, doubling can.
    const Pell pp = pell(101);
    const FieldElem tiny = pp.norm == 1 ? q(pp.p, pp.q) - sqrt2() : sqrt2() - q(pp.p, pp.q);
    EXPECT_EQ(certified_double({tie + tiny}), 0x1.0000000000001p53);
    EXPECT_EQ(certified_double({tie - tiny}), 0x1p53);
    // The same tie with a in it: 2^53 + 1 + (a − 261740/377611), where a − 261740/377611 ≈
    // −4.2e-12, rounds down to 2^53; with 287209/414355 (a − it ≈ +2.2e-12) up to 2^53 + 2.
    const Value above = Value(q(two_to(53) + 1)) + Value::ln2() - Value(mpq_class(261740, 377611));
    const Value below = Value(q(two_to(53) + 1)) + Value::ln2() - Value(mpq_class(287209, 414355));
    EXPECT_EQ(certified_double(above.terms()), 0x1p53);
    EXPECT_EQ(certified_double(below.terms()), 0x1.0000000000001p53);
}

TEST(Interval, RoundsSubnormalsAndOverflowLikeIEEE) {
    // The smallest subnormal is 2^-1074. 2^-1075 is halfway between 0 (even) and 2^-1074 (odd):
    // it rounds to +0. 3·2^-1075 is halfway between 2^-1074 (odd) and 2^-1073 (even).
    EXPECT_EQ(certified_double({fe(dyadic(1, -1074))}), std::numeric_limits<double>::denorm_min());
    const double zero = certified_double({fe(dyadic(1, -1075))});
    EXPECT_EQ(zero, 0.0);
    EXPECT_FALSE(std::signbit(zero));
    EXPECT_TRUE(std::signbit(certified_double({fe(dyadic(-1, -1075))})));
    EXPECT_EQ(certified_double({fe(dyadic(3, -1075))}), 0x1p-1073);
    // Just above and below the 2^-1075 tie, by the factor (1 ± δ) with δ ≈ 1.6e-12.
    const FieldElem delta = q(665857, 470832) - sqrt2();
    const FieldElem half = fe(dyadic(1, -1075));
    EXPECT_EQ(certified_double({half * (FieldElem(1) + delta)}), std::numeric_limits<double>::denorm_min());
    EXPECT_EQ(certified_double({half * (FieldElem(1) - delta)}), 0.0);
    // The largest double is 2^1024 − 2^971; halfway to 2^1024 is 2^1024 − 2^970, where IEEE 754
    // rounds to nearest-even, i.e. to 2^1024: infinity. One less stays finite.
    const mpq_class t1024(two_to(1024));
    EXPECT_EQ(certified_double({fe(t1024 - dyadic(1, 970))}), std::numeric_limits<double>::infinity());
    EXPECT_EQ(certified_double({fe(t1024 - dyadic(1, 970) - 1)}), std::numeric_limits<double>::max());
    EXPECT_EQ(certified_double({fe(dyadic(1, 970) - t1024)}), -std::numeric_limits<double>::infinity());
}

TEST(Interval, DecimalRoundingBesideABoundary) {
    // 1/8 = 0.125 is halfway between 0.12 and 0.13 to two places; 1/8 ± δ (δ ≈ 1.6e-12) is not.
    const FieldElem delta = q(665857, 470832) - sqrt2();
    EXPECT_EQ(certified_decimal({q(1, 8) + delta}, 2, true), "0.13");
    EXPECT_EQ(certified_decimal({q(1, 8) - delta}, 2, true), "0.12");
    // √2 = 1.41421356237309504880…: ten significant digits 1.414213562,
    // twenty 1.4142135623730950488.
    EXPECT_EQ(certified_decimal({sqrt2()}, 10, false), "1.414213562");
    EXPECT_EQ(certified_decimal({sqrt2()}, 20, false), "1.4142135623730950488");
    // 2/3 to 5 places: 0.66667 (the digit after the fifth 6 is 6 ≥ 5).
    EXPECT_EQ(certified_decimal({q(2, 3)}, 5, true), "0.66667");
    EXPECT_ERROR(certified_decimal({sqrt2()}, -1, true), ErrorKind::Usage, "-1 digits requested; give 0 to 100000");
}

// Regression: significant digits came out of C's "%#g" with a bare point ("10.", "1.e+02",
// "5."); the '#' is there for the trailing zeros that show the significance ("0.50").
TEST(Interval, SignificantDigitsHaveNoBarePoint) {
    EXPECT_EQ(certified_decimal({q(10)}, 2, false), "10");      // two digits: 1, 0
    EXPECT_EQ(certified_decimal({q(100)}, 1, false), "1e+02");  // one digit: 1·10²
    EXPECT_EQ(certified_decimal({q(5)}, 1, false), "5");
    EXPECT_EQ(certified_decimal({q(96, 10)}, 1, false), "1e+01");  // 9.6 rounds up to 10
    EXPECT_EQ(certified_decimal({q(1, 2)}, 2, false), "0.50");     // the zero shows the 2nd digit
    EXPECT_EQ(certified_decimal({q(100)}, 4, false), "100.0");
    EXPECT_EQ(certified_decimal({}, 1, false), "0");
    EXPECT_EQ(certified_decimal({}, 3, false), "0.00");
    // 1000·√2 = 1414.2135…: four digits 1414, five 1414.2.
    EXPECT_EQ(certified_decimal({q(1000) * sqrt2()}, 4, false), "1414");
    EXPECT_EQ(certified_decimal({q(1000) * sqrt2()}, 5, false), "1414.2");
}

TEST(Interval, ApproximationHasTheBitsAskedFor) {
    // m = approximate(√2, 100) has |m − √2| ≤ 2^-100·√2, so |m² − 2| = |m − √2|·(m + √2)
    // ≤ 2^-100·√2·(2√2 + 2^-99) < 2^-97 (4 + ε < 8).
    const mpq_class m = detail::approximate({sqrt2()}, 100);
    const mpq_class err = abs(mpq_class(m * m - 2));
    EXPECT_LT(err, mpq_class(1, two_to(97)));
    EXPECT_GT(err, 0);  // √2 is irrational: no rational is exact
    // A rational is returned to its bits too: 1/3 within 2^-80 relative error.
    const mpq_class third = detail::approximate({q(1, 3)}, 80);
    EXPECT_LE(abs(mpq_class(third - mpq_class(1, 3))), mpq_class(1, 3) / mpq_class(two_to(80)));
    EXPECT_EQ(detail::approximate({}, 80), 0);
}

// Regression: a value far below 2^-max_precision was refused although its answer is plain.
// The working precision counts bits past the point, so 2^-5000000 (a 5-Mbit denominator, within
// max_bits) was not told apart from 0 before the 4-Mbit max_precision: to_double raised the
// LimitError instead of giving +0, the sign of 2^-5000000·(√2 − 1) likewise instead of +1.
TEST(Interval, TinyValuesNeedNoPrecisionForTheirSize) {
    const mpq_class tiny(mpz_class(1), two_to(5000000));
    const FieldElem t = fe(tiny);
    // |2^-5000000| < 2^-1075 (half the smallest subnormal): a zero of the value's sign.
    const double pos = certified_double({t});
    EXPECT_EQ(pos, 0.0);
    EXPECT_FALSE(std::signbit(pos));
    EXPECT_TRUE(std::signbit(certified_double({-t})));
    // √2 − 1 > 0 (1 < √2) and 1 − √2 < 0: the signs of 2^-5000000 times them.
    const FieldElem up = t * (sqrt2() - FieldElem(1));
    EXPECT_EQ(certified_sign({up}), 1);
    EXPECT_EQ(certified_sign({-up}), -1);
    EXPECT_EQ(Value(up).sign(), 1);
    EXPECT_TRUE(std::signbit(certified_double({-up})));
    // With cancellation as well: 2^-5000000·(√2 − p/q) for the 101-bit Pell pair is decided at
    // a precision relative to the value's size (about 204 bits), as without the factor.
    const Pell pp = pell(101);
    EXPECT_EQ(certified_sign({t * (sqrt2() - q(pp.p, pp.q))}), pp.norm == 1 ? -1 : 1);
    // Fixed-point decimals: 0.00 of the value's sign, as −1/1000 gives "-0.00".
    EXPECT_EQ(certified_decimal({t}, 2, true), "0.00");
    EXPECT_EQ(certified_decimal({-t}, 2, true), "-0.00");
    EXPECT_EQ(certified_decimal({-up}, 3, true), "-0.000");
    EXPECT_EQ(certified_decimal({q(-1, 1000)}, 2, true), "-0.00");
    // A relative approximation of 2^-5000000·√2: m·2^5000000 approximates √2 to 100 bits, so
    // |(m·2^5000000)² − 2| < 2^-97 as in ApproximationHasTheBitsAskedFor.
    mpq_class m = detail::approximate({t * sqrt2()}, 100);
    mpq_mul_2exp(m.get_mpq_t(), m.get_mpq_t(), 5000000);
    EXPECT_LT(abs(mpq_class(m * m - 2)), mpq_class(1, two_to(97)));
}

// Regression: a rational exactly halfway between two decimals of the requested form has
// enclosures on both sides of the tie at every precision, so it was refused with a
// max_precision error whose reason was false. It is rounded exactly, to nearest, ties to even.
TEST(Interval, DecimalTiesOfRationalsRoundToEven) {
    // 247/2000 = 0.1235: to 3 significant digits 123.5 → 124 (even).
    EXPECT_EQ(certified_decimal({q(247, 2000)}, 3, false), "0.124");
    EXPECT_EQ(certified_decimal({q(-247, 2000)}, 3, false), "-0.124");
    // 2469/20000 = 0.12345 is no tie at 3 digits: 0.123.
    EXPECT_EQ(certified_decimal({q(2469, 20000)}, 3, false), "0.123");
    // 9995/10000 = 0.9995: 999.5 → 1000, which carries into the next decade: 1.00.
    EXPECT_EQ(certified_decimal({q(9995, 10000)}, 3, false), "1.00");
    // 5/2 to one digit: 2 (even); 95/2 = 47.5 to two: 48 (even); 1/8 = 0.125 to two: 0.12.
    EXPECT_EQ(certified_decimal({q(5, 2)}, 1, false), "2");
    EXPECT_EQ(certified_decimal({q(95, 2)}, 2, false), "48");
    EXPECT_EQ(certified_decimal({q(1, 8)}, 2, false), "0.12");
    // Fixed places: 3/200 = 0.015 → 0.02 (1.5 → 2); 1/200 = 0.005 → 0.00 (0.5 → 0), with the
    // value's sign on the zero; 7/40 = 0.175 → 0.18 (17.5 → 18).
    EXPECT_EQ(certified_decimal({q(3, 200)}, 2, true), "0.02");
    EXPECT_EQ(certified_decimal({q(1, 200)}, 2, true), "0.00");
    EXPECT_EQ(certified_decimal({q(-1, 200)}, 2, true), "-0.00");
    EXPECT_EQ(certified_decimal({q(7, 40)}, 2, true), "0.18");
}
