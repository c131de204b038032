// SPDX-License-Identifier: MIT
// The one UTF-8 decoder (core/utf8.hpp) and the readers built on it agree on what is UTF-8.
// Expected code points are the RFC 3629 encodings worked by hand (issue #23: the library had
// four decoders, and the error messages' one took F5..FF as lead bytes).
#include <gtest/gtest.h>

#include <string>

#include "core/utf8.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "render/text.hpp"

using namespace exactattn;

namespace {

// (length, code point) of the sequence at the start of `bytes`; length 0: not UTF-8.
std::pair<std::size_t, char32_t> decoded(const std::string& bytes) {
    char32_t cp = 0;
    const std::size_t n = detail::decode_utf8(bytes, 0, cp);
    return {n, n == 0 ? 0 : cp};
}

}  // namespace

TEST(Utf8, DecodesEachLengthToItsCodePoint) {
    // a = 0x61; √ = U+221A = 1110 0010 | 10 001000 | 10 011010; 红 = U+7EA2; U+1F600 in 4 bytes.
    EXPECT_EQ(decoded("a"), std::make_pair(std::size_t{1}, char32_t{0x61}));
    EXPECT_EQ(decoded("\xC3\xA9"), std::make_pair(std::size_t{2}, char32_t{0xE9}));
    EXPECT_EQ(decoded("\xE2\x88\x9A"), std::make_pair(std::size_t{3}, char32_t{0x221A}));
    EXPECT_EQ(decoded("\xE7\xBA\xA2"), std::make_pair(std::size_t{3}, char32_t{0x7EA2}));
    EXPECT_EQ(decoded("\xF0\x9F\x98\x80"), std::make_pair(std::size_t{4}, char32_t{0x1F600}));
}

TEST(Utf8, RefusesWhatRfc3629Excludes) {
    for (const char* bad : {"\x80",              // a continuation byte alone
                            "\xC0\x80",          // overlong NUL
                            "\xC1\xBF",          // overlong
                            "\xE0\x80\x80",      // overlong in three bytes
                            "\xED\xA0\x80",      // U+D800, a surrogate
                            "\xF4\x90\x80\x80",  // U+110000, past the last code point
                            "\xF8\x80\x80",      // F8 leads nothing
                            "\xFF",              // nor FF
                            "\xE2\x88"}) {       // cut short
        EXPECT_EQ(decoded(bad).first, 0U) << testing::PrintToString(std::string(bad));
    }
}

TEST(Utf8, ErrorMessagesShowEveryByteTheDecoderRefuses) {
    // The message escaper used to read F8 80 80 as one character and pass it through.
    EXPECT_EQ(escape_controls("x\xF8\x80\x80y"), "x<0xF8><0x80><0x80>y");
    EXPECT_EQ(escape_controls("\xE2\x88\x9A"
                              "2"),
              "\xE2\x88\x9A"
              "2");
    EXPECT_EQ(escape_controls("\xC2\x85"), "<U+0085>");  // a C1 control, shown
}

TEST(Utf8, TheParserTheXmlEscaperAndTheWidthAgree) {
    EXPECT_THROW(check_utf8("ok \xF8\x80\x80", "text"), Error);
    EXPECT_NO_THROW(check_utf8("\xE7\xBA\xA2\xE8\x89\xB2 \xE2\x88\x9A", "text"));
    EXPECT_EQ(detail::xml_escape("\xF8\x80\x80"), "&lt;0xF8&gt;&lt;0x80&gt;&lt;0x80&gt;");
    EXPECT_EQ(detail::xml_escape("\xE7\xBA\xA2"), "\xE7\xBA\xA2");
    EXPECT_EQ(display_width("\xE7\xBA\xA2\xE8\x89\xB2"), 4U);  // 红色: two wide characters
    EXPECT_EQ(display_width("\xE2\x88\x9A"
                            "2"),
              2U);  // √2
    EXPECT_EQ(display_width("a\xFF"
                            "b"),
              3U);  // a byte that is not UTF-8: one column
}

// The fault is where a reader says it is: the second line's third code point (é is one), its
// byte 0xFF; the one message, check_utf8's, adds that place and nothing else (cmd_encode and a
// class CSV place the fault themselves, without cutting check_utf8's message apart).
TEST(Utf8, TheFirstInvalidByteIsFoundAtItsLineAndColumn) {
    EXPECT_FALSE(find_invalid_utf8("ab\nc\xC3\xA9").has_value());
    const auto fault = find_invalid_utf8(
        "ab\n\xC3\xA9"
        "c\xFF\xFE");
    ASSERT_TRUE(fault.has_value());
    EXPECT_EQ(fault->byte, 0xFF);
    EXPECT_EQ(fault->line, 2);
    EXPECT_EQ(fault->column, 3);
    EXPECT_EQ(fault->reason(), "invalid UTF-8 byte 0xFF");
    try {
        check_utf8(
            "ab\n\xC3\xA9"
            "c\xFF",
            "--tokens");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.reason(), "invalid UTF-8 byte 0xFF at line 2, column 3");
        EXPECT_EQ(e.where().context, "--tokens");
    }
}
