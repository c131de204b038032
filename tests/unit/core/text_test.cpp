// SPDX-License-Identifier: MIT
// The one home of two text rules (core/text.hpp, issue #33): what a control character is, and
// what trimming removes. Expected lengths and code points are the C0, DEL and C1 ranges of
// Unicode and their UTF-8 encodings worked by hand (C1 U+0080..U+009F is C2 80..C2 9F).
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "core/text.hpp"
#include "exactattn/error.hpp"
#include "render/text.hpp"

using namespace exactattn;

namespace {

std::string shown(std::string_view s) {
    std::string out;
    const std::size_t n = detail::append_shown_control(out, s, 0);
    return std::to_string(n) + ":" + out;
}

}  // namespace

TEST(ControlCharacters, CZeroAndDeleteAreOneByteCOneIsTwo) {
    EXPECT_EQ(detail::control_length("\x1B[31m", 0), 1U);  // ESC
    EXPECT_EQ(detail::control_length(std::string_view("\0", 1), 0), 1U);
    EXPECT_EQ(detail::control_length("\n", 0), 1U);
    EXPECT_EQ(detail::control_length("\x7F", 0), 1U);
    EXPECT_EQ(detail::control_length("\xC2\x80", 0), 2U);  // U+0080
    EXPECT_EQ(detail::control_length("\xC2\x85", 0), 2U);  // U+0085, next line
    EXPECT_EQ(detail::control_length("\xC2\x9F", 0), 2U);  // U+009F
}

TEST(ControlCharacters, PrintableTextIsNotControl) {
    EXPECT_EQ(detail::control_length(" ", 0), 0U);
    EXPECT_EQ(detail::control_length("~", 0), 0U);
    EXPECT_EQ(detail::control_length("\xC2\xA0", 0), 0U);  // U+00A0, no-break space
    EXPECT_EQ(detail::control_length("\xC3\xA9", 0), 0U);  // é
    EXPECT_EQ(detail::control_length("\xC2", 0), 0U);      // a lead byte cut short
    EXPECT_EQ(detail::control_length("ab", 2), 0U);        // past the end
    EXPECT_FALSE(detail::has_control("Weight α, row 3 · é"));
    EXPECT_TRUE(detail::has_control("line\nbreak"));
    EXPECT_TRUE(detail::has_control("x\xC2\x9B"));  // CSI, the C1 terminal escape
}

TEST(ControlCharacters, ShownAsCodePoints) {
    EXPECT_EQ(shown("\x1B"), "1:<U+001B>");
    EXPECT_EQ(shown("\x7F"), "1:<U+007F>");
    EXPECT_EQ(shown("\xC2\x85"), "2:<U+0085>");
    EXPECT_EQ(shown("a"), "0:");
}

TEST(ControlCharacters, ErrorsAndDocumentsShowThemAlikeButDocumentsKeepLineBreaksAndTabs) {
    const std::string s = "a\tb\nc\x1B\xC2\x85";
    EXPECT_EQ(escape_controls(s), "a<U+0009>b<U+000A>c<U+001B><U+0085>");
    EXPECT_EQ(detail::printable(s), "a\tb\nc<U+001B><U+0085>");
}

TEST(Trim, DropsTheWhiteSpaceOfIsspace) {
    EXPECT_EQ(detail::trim(" \t\n\v\f\rx  y\r\n"), "x  y");
    EXPECT_EQ(detail::trim(" \t "), "");
    EXPECT_EQ(detail::trim("\xC2\xA0x"), "\xC2\xA0x");  // U+00A0 is not ASCII white space
}

TEST(Trim, JsonSpaceKeepsVerticalTabAndFormFeed) {
    const std::string_view s = " \t\n\r[1, 2]\r\n ";
    const std::string_view t = detail::trim_json_space(s);
    EXPECT_EQ(t, "[1, 2]");
    EXPECT_EQ(t.data(), s.data() + 4);  // a view into the text: offsets stay placeable
    EXPECT_EQ(detail::trim_json_space("\v[1]\f"), "\v[1]\f");
    EXPECT_EQ(detail::trim("\v[1]\f"), "[1]");
}
