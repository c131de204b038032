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

TEST(ManuscriptNumbers, NumberWordsStandAtTheirValue) {
    ASSERT_EQ(kNumberWords.size(), 21U);
    EXPECT_EQ(kNumberWords[0], "zero");
    EXPECT_EQ(kNumberWords[7], "seven");
    EXPECT_EQ(kNumberWords[12], "twelve");
    EXPECT_EQ(kNumberWords[20], "twenty");
}

}  // namespace
}  // namespace exactattn::manuscript
