// SPDX-License-Identifier: MIT
// The numbers a manuscript writes as vulgar fractions and as words: one table each
// (tools/manuscript/claims.hpp), which the claim reader and the binder's number finder share.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "exactattn/parse.hpp"
#include "exactattn/value.hpp"
#include "tools/manuscript/claims.hpp"

namespace exactattn::manuscript {
namespace {

// By hand, from the characters' Unicode names (VULGAR FRACTION ONE HALF, … ONE SIXTH).
TEST(ManuscriptNumbers, EveryVulgarFractionReadsAsTheFractionItsGlyphNames) {
    const std::vector<std::tuple<std::string, long, long>> named{{"½", 1, 2}, {"⅓", 1, 3}, {"⅔", 2, 3}, {"¼", 1, 4},
                                                                 {"¾", 3, 4}, {"⅕", 1, 5}, {"⅖", 2, 5}, {"⅙", 1, 6}};
    ASSERT_EQ(kVulgarFractions.size(), named.size());
    for (const auto& [glyph, num, den] : named) {
        EXPECT_EQ(parse_value(plain_notation(glyph)), Value(mpq_class(num, den))) << glyph;
    }
}

// A glyph right after digits ends a mixed number: 3½ = 3 + 1/2 = 7/2 (not the product 3/2),
// 12¾ = 51/4, −2¼ = −9/4, 1¼+½ = 7/4; after an operator the glyph keeps its value.
TEST(ManuscriptNumbers, AGlyphAfterDigitsIsAMixedNumber) {
    EXPECT_EQ(parse_value(plain_notation("3½")), Value(mpq_class(7, 2)));
    EXPECT_EQ(parse_value(plain_notation("12¾")), Value(mpq_class(51, 4)));
    EXPECT_EQ(parse_value(plain_notation("-2¼")), Value(mpq_class(-9, 4)));
    EXPECT_EQ(parse_value(plain_notation("2*½")), Value(mpq_class(1)));
    EXPECT_EQ(parse_value(plain_notation("1¼+½")), Value(mpq_class(7, 4)));
}

TEST(ManuscriptNumbers, NumberWordsStandAtTheirValue) {
    ASSERT_EQ(kNumberWords.size(), 21U);
    EXPECT_EQ(kNumberWords[0], "zero");
    EXPECT_EQ(kNumberWords[7], "seven");
    EXPECT_EQ(kNumberWords[12], "twelve");
    EXPECT_EQ(kNumberWords[20], "twenty");
}

}  // namespace
}  // namespace exactattn::manuscript
