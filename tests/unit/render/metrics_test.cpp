// SPDX-License-Identifier: MIT
// The figures' text extents (render/metrics.hpp; issue 24): advance widths of the fonts the
// figures declare. Expected values are the fonts' own hmtx entries (DejaVu Sans 2.37, 2048 units
// an em: each digit 1303 regular and 1425 bold, space 651 regular and 713 bold, × 1716; WenQuanYi
// Micro Hei: a CJK ideograph 1 em), added by hand.
#include <gtest/gtest.h>

#include "render/metrics.hpp"

using exactattn::detail::text_prefix;
using exactattn::detail::text_width;

TEST(Metrics, DigitsAreOfOneWidthInDejaVuSans) {
    // Ten digits at 10 points: 10 · 1303/2048 · 10 = 63.62… points; bold 10 · 1425/2048 · 10.
    EXPECT_DOUBLE_EQ(text_width("0123456789", 10), 10 * 1303.0 / 2048 * 10);
    EXPECT_DOUBLE_EQ(text_width("0123456789", 10, true), 10 * 1425.0 / 2048 * 10);
}

TEST(Metrics, BoldSpacesAreWider) {
    EXPECT_DOUBLE_EQ(text_width(" ", 2048), 651);
    EXPECT_DOUBLE_EQ(text_width(" ", 2048, true), 713);
}

TEST(Metrics, MathSignsAndCjkTokensHaveTheirFontsWidths) {
    // "× 1/2" (×, space, 1, /, 2): 1716 + 651 + 1303 + 690 + 1303 = 5663 units.
    EXPECT_DOUBLE_EQ(text_width("× 1/2", 2048), 5663);
    // 红色 from WenQuanYi Micro Hei: two ideographs of 1 em.
    EXPECT_DOUBLE_EQ(text_width("红色", 9), 18);
}

TEST(Metrics, ACodePointInNeitherFontCountsOneEm) {
    EXPECT_DOUBLE_EQ(text_width("\U0001F600", 8), 8);  // an emoji: in neither font
}

TEST(Metrics, APrefixKeepsWholeCodePoints) {
    // At 2048 points a digit is 1303 wide and "…" 2048: "12…" (4654) fits 5000, "123…" (5957)
    // does not.
    EXPECT_EQ(text_prefix("12345", "…", 5000, 2048), "12");
    // Ideographs are never cut in the middle of their bytes: 1 em each, room for two and "…".
    EXPECT_EQ(text_prefix("注意力机制", "…", 3 * 2048 + 1, 2048), "注意");
    EXPECT_EQ(text_prefix("abc", "…", 10, 2048), "");
}
