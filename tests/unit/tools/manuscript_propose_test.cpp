// SPDX-License-Identifier: MIT
// manuscript propose: the manuscript with a mark on every number audit bound, byte for byte
// elsewhere, the listing of each mark's reason and of the numbers left unmarked, the proposed
// file held by `manuscript check`, and raw markup never taken for a claim. Expected pointers
// and values are the chapter's (Example 14.1, Table 14.1: the key's weight 1/4 is the second
// of [1/2, 1/4, 1/4], the denominator 2 + 1 + 1 = 4).
#include <gtest/gtest.h>

#include <algorithm>

#include "exactattn/error.hpp"
#include "exactattn/manuscript.hpp"

namespace exactattn {
namespace {

const ManuscriptOptions kChapter{"chapter14", {}};
const std::string kHead = "---\nexactattn-scenario: chapter14\n---\n";

ProposeResult propose_md(const std::string& text) {
    return propose_marks_text(text, "t.md", ManuscriptFormat::Markdown, kChapter);
}

bool listed(const ProposeResult& r, const std::string& line_start) {
    return std::any_of(r.listing.begin(), r.listing.end(),
                       [&](const std::string& l) { return l.starts_with(line_start); });
}

TEST(ManuscriptPropose, MarksEachBoundNumberAndCheckHoldsTheMarks) {
    const auto r = propose_md(kHead + "In Example 14.1 the key state receives weight 1/4, and the denominator is 4.\n");
    EXPECT_EQ(r.marked, 2U);
    EXPECT_EQ(r.text, kHead +
                          "In Example 14.1 the key state receives weight [1/4]{.exact "
                          "ref=\"/reads/example-14.1/weights/1\"}, and the denominator is [4]{.exact "
                          "ref=\"/reads/example-14.1/denominator\"}.\n");
    EXPECT_TRUE(listed(r, "t.md:4:47: marked 1/4 as /reads/example-14.1/weights/1 ("));
    const auto c = check_manuscript_text(r.text, "t.md", ManuscriptFormat::Markdown, kChapter);
    EXPECT_EQ(c.claims.size(), 2U);
    EXPECT_EQ(c.wrong(), 0U);
}

TEST(ManuscriptPropose, LatexMarkWrapsTheWholeFormula) {
    const auto r = propose_marks_text("In Example 14.1 the key state receives weight $\\tfrac14$.\n", "t.tex",
                                      ManuscriptFormat::Latex, kChapter);
    EXPECT_EQ(r.marked, 1U);
    EXPECT_EQ(r.text,
              "In Example 14.1 the key state receives weight \\exact{/reads/example-14.1/weights/1}{$\\tfrac14$}.\n");
    EXPECT_EQ(check_manuscript_text(r.text, "t.tex", ManuscriptFormat::Latex, kChapter).wrong(), 0U);
}

TEST(ManuscriptPropose, WrongNumberIsMarkedAndListedAsWrong) {
    // The key's weight written 1/3 (it is 1/4): the mark names the key's weight, the listing
    // says so, and check then fails on that line.
    const auto r = propose_md(kHead + "In Example 14.1 the key state receives weight 1/3.\n");
    EXPECT_EQ(r.marked, 1U);
    EXPECT_TRUE(listed(r, "t.md:4:47: marked 1/3 as /reads/example-14.1/weights/1 (")) << r.listing[0];
    EXPECT_NE(r.listing[0].find("; WRONG: the quantity is 1/4"), std::string::npos) << r.listing[0];
    const auto c = check_manuscript_text(r.text, "t.md", ManuscriptFormat::Markdown, kChapter);
    ASSERT_EQ(c.wrong(), 1U);
    EXPECT_EQ(c.claims[0].line, 4);
}

TEST(ManuscriptPropose, UnboundNumbersStayUnmarkedAndAreListed) {
    const std::string text = kHead + "The policy of another chapter allows 750 CNY a day.\n";
    const auto r = propose_md(text);
    EXPECT_EQ(r.marked, 0U);
    EXPECT_EQ(r.text, text);
    EXPECT_TRUE(listed(r, "t.md:4:38: left unmarked: 750: unbound (")) << (r.listing.empty() ? "" : r.listing[0]);
}

TEST(ManuscriptPropose, TextAroundTheMarksIsKeptByteForByte) {
    // A byte-order mark, CRLF line ends, a number already marked (not marked again), and the
    // numbers that are no claims: a year, a section number, raw HTML, a TeX label.
    const std::string marked = "[1/2]{.exact ref=\"/reads/example-14.1/weights/0\"}";
    const std::string text =
        "\xEF\xBB\xBF---\r\nexactattn-scenario: chapter14\r\n---\r\n"
        "In 2015 (Section 14.2) <script>alert(1)</script> $x\\label{eq:14.1}$ the color weight is " +
        marked + ".\r\nIn Example 14.1 the key state receives weight 1/4.\r\n";
    const auto r = propose_md(text);
    EXPECT_EQ(r.marked, 1U);
    std::string want = text;
    want.replace(want.find("weight 1/4"), 10, "weight [1/4]{.exact ref=\"/reads/example-14.1/weights/1\"}");
    EXPECT_EQ(r.text, want);
}

TEST(ManuscriptPropose, UnreadableManuscriptIsOnePlacedError) {
    try {
        (void)propose_md(kHead + "weight \xFF 1/4\n");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.exit_code(), ExitCode::InvalidInput);
        EXPECT_TRUE(std::string(e.what()).starts_with("t.md:4:")) << e.what();
    }
}

TEST(ManuscriptAudit, RawHtmlAndTexArgumentsAreNoClaims) {
    // The 1 of <script>alert(1)</script>, an attribute's 50, an entity's 8212, \label's and
    // \tag's 14.1, a length's 2pt and a URL's 14 are not claims; the 1/4 beside them is judged.
    const std::string text = kHead +
                             "<div style=\"width: 50%\"><script>alert(1)</script>&#8212; see https://x.org/14/2 "
                             "$$c\\tag{14.1}\\label{eq:14.1}$$ <img width=\"50\"> In Example 14.1 the key state "
                             "receives weight 1/4.</div>\n";
    const auto r = audit_manuscript_text(text, "t.md", ManuscriptFormat::Markdown, kChapter);
    ASSERT_EQ(r.unmarked.size(), 1U);
    EXPECT_EQ(r.unmarked[0].text, "1/4");
    EXPECT_EQ(r.unmarked[0].verdict, AuditVerdict::Verified);
    for (const auto& f : r.not_claims) EXPECT_NE(f.verdict, AuditVerdict::Wrong);
    std::vector<std::string> seen;
    for (const auto& f : r.not_claims) seen.push_back(f.text);
    for (const char* n : {"50", "1", "8212", "14", "14.1"}) {
        EXPECT_NE(std::find(seen.begin(), seen.end(), n), seen.end()) << n;
    }
    const auto t = audit_manuscript_text(
        "\\documentclass[11pt]{book}\\usepackage[margin=2cm]{geometry}\n"
        "\\setlength{\\parskip}{6pt}\\vspace{3mm}\\\\[2pt] In Example 14.1 the key "
        "state receives weight $\\tfrac14$.\n",
        "t.tex", ManuscriptFormat::Latex, kChapter);
    ASSERT_EQ(t.unmarked.size(), 1U);
    EXPECT_EQ(t.unmarked[0].verdict, AuditVerdict::Verified);
}

}  // namespace
}  // namespace exactattn
