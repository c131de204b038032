// SPDX-License-Identifier: MIT
// The three printed forms of docs/notation.md, in the chapter's own notation.
#include <gtest/gtest.h>

#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"

using namespace exactattn;

namespace {
Value v(const std::string& s) { return parse_value(s); }
}  // namespace

TEST(Print, ChapterForms) {
    for (const char* s : {"a/2", "2a/3", "-a", "4a/3", "6a/5", "1/4", "0", "a", "2", "-a/4", "2a/5", "a/3"}) {
        EXPECT_EQ(to_ascii(v(s)), s);
    }
}

TEST(Print, Unicode) {
    EXPECT_EQ(to_unicode(v("2^(1/2) - 1")), "√2 − 1");
    EXPECT_EQ(to_unicode(v("2a/3")), "2a/3");
    EXPECT_EQ(to_unicode(v("a^2")), "a²");
    EXPECT_EQ(to_unicode(v("-a/4")), "−a/4");
    EXPECT_EQ(to_unicode(v("2^(2/3)")), "∛4");
    EXPECT_EQ(to_unicode(v("3*2^(1/2)/2")), "3√2/2");
    EXPECT_EQ(to_unicode(v("2^(5/7)")), "2^(5/7)");
}

TEST(Print, Latex) {
    EXPECT_EQ(to_latex(v("2a/3")), "\\tfrac{2a}{3}");
    EXPECT_EQ(to_latex(v("-a/4")), "-\\tfrac{a}{4}");
    EXPECT_EQ(to_latex(v("2^(1/2) - 1")), "\\sqrt{2} - 1");
    EXPECT_EQ(to_latex(v("(2^(1/2) - 1)a")), "\\left(\\sqrt{2} - 1\\right)a");
    EXPECT_EQ(to_latex(v("a^2")), "a^{2}");
    EXPECT_EQ(to_latex(v("2^(1/3)")), "\\sqrt[3]{2}");
}

TEST(Print, TermOrder) {
    EXPECT_EQ(to_ascii(v("1 - 2^(1/2)/2")), "1 - 2^(1/2)/2");
    EXPECT_EQ(to_ascii(v("-1 + 2^(1/2)")), "2^(1/2) - 1");
    EXPECT_EQ(to_ascii(v("a - 1")), "a - 1");
    EXPECT_EQ(to_ascii(v("1 + a + a^2")), "1 + a + a^2");
    EXPECT_EQ(to_ascii(v("-1 - a")), "-1 - a");
    EXPECT_EQ(to_ascii(v("2^(1/2) a")), "2^(1/2)a");
    EXPECT_EQ(to_ascii(v("3*2^(1/2)a/2")), "3*2^(1/2)a/2");
}

TEST(Print, DisplayWidth) {
    EXPECT_EQ(display_width("红色"), 4U);
    EXPECT_EQ(display_width("。"), 2U);
    EXPECT_EQ(display_width("a/2"), 3U);
    EXPECT_EQ(display_width("√2 − 1"), 6U);
}
