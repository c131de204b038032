// SPDX-License-Identifier: MIT
// manuscript fill and audit: placeholders replaced by the chapter's values in each format, and
// the unmarked numbers of the prose listed with what they equal. Expected values are the
// chapter's (Example 14.1: weights [1/2, 1/4, 1/4], context [a/2, a/4] ≈ [0.346574, 0.173287]).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "exactattn/error.hpp"
#include "exactattn/manuscript.hpp"
#include "support/support.hpp"

namespace exactattn {
namespace {

const ManuscriptOptions kChapter{"chapter14", {}};

std::string fill_md(const std::string& text) {
    return fill_manuscript_text(text, "t.md", ManuscriptFormat::Markdown, kChapter).text;
}

TEST(ManuscriptFill, MarkdownPlaceholdersBecomeValues) {
    EXPECT_EQ(fill_md("w {{/reads/example-14.1/weights}}.\n"), "w [1/2, 1/4, 1/4].\n");
    EXPECT_EQ(fill_md("{{/reads/example-14.1/context approx}}"), "[a/2, a/4] ≈ [0.346574, 0.173287]");
    EXPECT_EQ(fill_md("{{/reads/example-14.1/context/0 digits=4}}"), "0.3466");
    EXPECT_EQ(fill_md("{{/interventions/table-14.2/rows/2/readout math}}"), "$\\tfrac{2a}{3}$");
    EXPECT_EQ(fill_md("{{/costs/exercise-5/stored_bytes}} bytes"), "1600 bytes");
    // Text around and between placeholders is kept byte for byte (CRLF included).
    EXPECT_EQ(fill_md("a\r\n{{/reads/example-14.1/denominator}}\r\nb"), "a\r\n4\r\nb");
}

TEST(ManuscriptFill, TableByReference) {
    const std::string t = fill_md("{{table /interventions/table-14.2}}");
    // Table 14.2 of the chapter, row by row.
    EXPECT_NE(t.find("| None | [1/2, 1/4, 1/4] | [a/2, a/4] | a |"), std::string::npos) << t;
    EXPECT_NE(t.find("| 2 | [2/3, 0, 1/3] | [2a/3, 0] | 2a/3 |"), std::string::npos) << t;
    EXPECT_NE(t.find("| 3 | [2/3, 1/3, 0] | [2a/3, a/3] | 4a/3 |"), std::string::npos) << t;
    const std::string r = fill_md("{{table /reads/example-14.1}}");
    EXPECT_NE(r.find("| 1 | [a, 0] | a | 2 | 1/2 |"), std::string::npos) << r;
}

TEST(ManuscriptFill, LatexPlaceholdersBecomeMath) {
    const auto r = fill_manuscript_text(
        "$x$ \\exactvalue{/interventions/table-14.2/rows/3/readout} and "
        "\\exactvalue[digits=6]{/reads/example-14.1/context/1}.",
        "t.tex", ManuscriptFormat::Latex, kChapter);
    EXPECT_EQ(r.replaced, 2U);
    EXPECT_EQ(r.text, "$x$ \\ensuremath{\\tfrac{4a}{3}} and \\ensuremath{0.173287}.");
}

TEST(ManuscriptFill, PlaceholdersInTableCellsWithOtherTextAreFilled) {
    // Example 14.1's weights [1/2, 1/4, 1/4]: each placeholder filled where it stands in its cell,
    // the cell's other words and pipes kept.
    EXPECT_EQ(fill_md("| key | {{/reads/example-14.1/weights/1}} of the total |\n"
                      "| two | {{/reads/example-14.1/weights/0}} and {{/reads/example-14.1/weights/2 math}} |\n"),
              "| key | 1/4 of the total |\n"
              "| two | 1/2 and $\\tfrac{1}{4}$ |\n");
    const auto r = fill_manuscript_text(
        "key & \\exactvalue{/reads/example-14.1/weights/1} of the total \\\\\n"
        "two & \\exactvalue{/reads/example-14.1/weights/0} and \\exactvalue{/reads/example-14.1/weights/2} \\\\\n",
        "t.tex", ManuscriptFormat::Latex, kChapter);
    EXPECT_EQ(r.replaced, 3U);
    EXPECT_EQ(r.text,
              "key & \\ensuremath{\\tfrac{1}{4}} of the total \\\\\n"
              "two & \\ensuremath{\\tfrac{1}{2}} and \\ensuremath{\\tfrac{1}{4}} \\\\\n");
}

// A scenario whose tokens and labels hold markup for every target a filler writes (issue 32).
std::string markup_scenario() {
    const auto path = std::filesystem::temp_directory_path() / "exactattn-fill-markup.json";
    std::ofstream(path, std::ios::binary) << R"json({
  "title": "<script>alert(1)</script> $\\input{/etc/hostname}$",
  "vocabulary": {"<script>x": ["a", "0"], "\\input{/etc/hostname}": ["-a", "a"], "^^5cinput|*": ["0", "-a"]},
  "encoder": {"activation": "relu", "recurrent": [[1, 0], [0, 1]], "input": [[1, 0], [0, 1]], "bias": [0, 0], "initial": [0, 0]},
  "sources": {"s": {"tokens": ["<script>x", "\\input{/etc/hostname}", "^^5cinput|*"],
                    "labels": ["[l](http://x)", "\\write18{touch p}", "{{/title}}"]}},
  "queries": {"q": [1, 0]},
  "readouts": {"r": [1, 2]},
  "reads": {"r1": {"source": "s", "query": "q", "readout": "r"}}
})json";
    return path.string();
}

TEST(ManuscriptFill, FilledTextIsLiteralInEveryTarget) {
    const ManuscriptOptions o{markup_scenario(), {}};
    auto fill = [&o](const std::string& text, ManuscriptFormat f) {
        return fill_manuscript_text(text, f == ManuscriptFormat::Latex ? "t.tex" : "t.md", f, o).text;
    };
    const auto md = ManuscriptFormat::Markdown;
    const auto tex = ManuscriptFormat::Latex;
    // Markdown: every punctuation character escaped, so pandoc reads the characters written.
    EXPECT_EQ(fill("{{/title}}", md), "\\<script\\>alert\\(1\\)\\<\\/script\\> \\$\\\\input\\{\\/etc\\/hostname\\}\\$");
    EXPECT_EQ(fill("{{/sources/s/labels/0}} {{/sources/s/labels/2}}", md),
              "\\[l\\]\\(http\\:\\/\\/x\\) \\{\\{\\/title\\}\\}");
    EXPECT_EQ(fill("{{/sources/s/tokens/2}}", md), "\\^\\^5cinput\\|\\*");
    // TeX math (Markdown's math option, a LaTeX manuscript): LaTeX-escaped text in an \mbox.
    EXPECT_EQ(fill("{{/sources/s/tokens/1 math}}", md), "$\\mbox{\\textbackslash{}input\\{/etc/hostname\\}}$");
    EXPECT_EQ(fill("\\exactvalue{/sources/s/labels/1}", tex),
              "\\ensuremath{\\mbox{\\textbackslash{}write18\\{touch p\\}}}");
    EXPECT_EQ(fill("\\exactvalue[ascii]{/sources/s/tokens/2}", tex),
              "\\ensuremath{\\mbox{\\textasciicircum{}\\textasciicircum{}5cinput|*}}");
    EXPECT_EQ(fill("{{/sources/s/tokens}}", md),
              "[\\<script\\>x, \\\\input\\{\\/etc\\/hostname\\}, \\^\\^5cinput\\|\\*]");
    // Tokens of the chapter, UTF-8, are unchanged.
    EXPECT_EQ(fill_md("{{/sources/red/tokens}}"), "[红色, 钥匙, 。]");
}

TEST(ManuscriptFill, BadPlaceholdersArePlacedErrors) {
    EXPECT_THROW((void)fill_md("x\n{{/reads/example-14.1/wieghts}}"), Error);
    try {
        (void)fill_md("x\n  {{/reads/example-14.1/weights digits=x}}");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "t.md:2:3: digits=x: digits=N takes N from 0 to 100");
    }
    try {
        (void)fill_md("x {{/reads/example-14.1/weights\n");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "t.md:1:3: unclosed placeholder: {{/pointer}} ends with }}");
    }
}

TEST(ManuscriptAudit, MarkedChapterHasNoWrongNumberOutsideItsMarks) {
    const std::string path = test::source_path("data/chapter14/chapter14.md");
    const auto r = audit_manuscript_text(read_manuscript_file(path), path, ManuscriptFormat::Markdown);
    // Its unmarked numbers are now also the counts written in words ("twelve dot products"),
    // which the marks of chapter14.md do not cover: 148 of 170.
    EXPECT_GE(r.coverage(), 0.85);
    EXPECT_EQ(r.count(AuditVerdict::Wrong), 0U);
    // The numbers the chapter states that its scenario does not compute: [a, −a] before ReLU,
    // the 750 CNY policy and Table 12.1's sum −0.75 of another chapter.
    std::vector<std::string> unbound;
    for (const auto& f : r.unmarked) {
        if (f.verdict == AuditVerdict::Unbound && f.equals.empty()) unbound.push_back(f.text);
    }
    EXPECT_EQ(unbound, (std::vector<std::string>{"[a,-a]", "750", "−0.75"}));
}

TEST(ManuscriptAudit, LatexChapterSkipsThePreamble) {
    const std::string path = test::source_path("data/chapter14/chapter14.tex");
    const auto r = audit_manuscript_text(read_manuscript_file(path), path, ManuscriptFormat::Latex);
    // \setcounter{section}{1} and the 14. of \thesection stand in the preamble; [a, −a] before
    // the ReLU is unbound, and no number is wrong.
    EXPECT_EQ(r.count(AuditVerdict::Wrong), 0U);
    EXPECT_GE(r.coverage(), 0.95);
}

TEST(ManuscriptAudit, UnmarkedNumberIsBoundByItsContext) {
    const std::string text =
        "---\nexactattn-scenario: chapter14\n---\n"
        "In 2015 (Section 14.2, Table 14.1) the context of Example 14.1 is [a/2, a/4].\n"
        "1. A list item, equation (8), and `code 99`.\n"
        "In Example 14.1 the key state receives weight 1/3 and [1/2]{.exact ref=\"/reads/example-14.1/weights/0\"}.\n"
        "On the blue source, with the first query, all weights are 1/3.\n";
    const auto r = audit_manuscript_text(text, "t.md", ManuscriptFormat::Markdown, kChapter);
    EXPECT_EQ(r.marked, 1U);
    ASSERT_EQ(r.unmarked.size(), 3U);
    EXPECT_EQ(r.unmarked[0].verdict, AuditVerdict::Verified);
    EXPECT_EQ(r.unmarked[0].bound[0].pointer, "/reads/example-14.1/context");
    // By hand: the key's weight in Example 14.1 is 1/4 (Table 14.1); 1/3 is the blue source's.
    EXPECT_EQ(r.unmarked[1].verdict, AuditVerdict::Wrong);
    EXPECT_EQ(audit_line("t.md", r.unmarked[1]),
              "t.md:6:47: written 1/3; weight of position 2 (key) in read example-14.1 (source red, query q1) "
              "(/reads/example-14.1/weights/1) is 1/4 (1/3 ≠ 1/4)");
    EXPECT_EQ(r.unmarked[2].verdict, AuditVerdict::Verified);
    EXPECT_EQ(r.unmarked[2].bound[0].pointer.substr(0, 21), "/reads/blue-q1/weight");
    for (const auto& f : r.not_claims) EXPECT_NE(f.text, "1/3");
    EXPECT_DOUBLE_EQ(r.coverage(), 1.0 / 4.0);
}

// A year is four digits without a point: a four-character decimal (12.5, 1.25, 20.5) is audited,
// and 14.1 after "Example" is a reference, not a year. Before, every such decimal was "a year" and
// never judged. By hand: Example 14.1's denominator is 2 + 1 + 1 = 4, so 12.5 is wrong.
TEST(ManuscriptAudit, AFourCharacterDecimalIsNoYear) {
    const std::string text =
        "---\nexactattn-scenario: chapter14\n---\n"
        "In Example 14.1 the denominator is 12.5, as in 2024.\n";
    const auto r = audit_manuscript_text(text, "t.md", ManuscriptFormat::Markdown, kChapter);
    ASSERT_EQ(r.unmarked.size(), 1U);
    const std::string line = audit_line("t.md", r.unmarked.front());
    EXPECT_EQ(line.rfind("t.md:4:36: written 12.5; ", 0), 0U) << line;
    EXPECT_NE(line.find("(/reads/example-14.1/denominator) is 4"), std::string::npos) << line;
    for (const auto& f : r.not_claims) {
        if (f.text == "2024") {
            EXPECT_EQ(f.reason, "a year");
        }
        if (f.text == "14.1") {
            EXPECT_EQ(f.reason.rfind("a reference", 0), 0U) << f.reason;
        }
    }
}

// A scenario's own read names bind a number: r1, "the second read", r3 (the sky scenario of
// tests/manuscript/sky.json; values by hand in tests/manuscript/sky-derivation.md: r1's weights
// [1/5, 2/5, 2/5], r2's denominator 7, r3's 3). Before, "[1/4, 1/3, 1/2] of the read r1" was
// unbound, and r2's denominator was taken for the removal table's 8.
TEST(ManuscriptAudit, ReadsAreBoundByTheirOwnNames) {
    const ManuscriptOptions sky{test::source_path("tests/manuscript/sky.json"), {}};
    const std::string text =
        "Weights [1/4, 1/3, 1/2] of the read r1 with query [1,1].\n\n"
        "The second read has weights [1/7, 2/7, 4/7].\n\n"
        "For r3 the denominator is 4.\n\n"
        "In read r2 the denominator is 8.\n\n"
        "The denominator of r2 becomes seven.\n";
    const auto r = audit_manuscript_text(text, "t.md", ManuscriptFormat::Markdown, sky);
    ASSERT_EQ(r.unmarked.size(), 6U);
    auto is = [&](std::size_t i, AuditVerdict v, const std::string& pointer) {
        EXPECT_EQ(r.unmarked[i].verdict, v) << r.unmarked[i].text;
        ASSERT_FALSE(r.unmarked[i].bound.empty()) << r.unmarked[i].text;
        EXPECT_EQ(r.unmarked[i].bound[0].pointer, pointer) << r.unmarked[i].text;
    };
    is(0, AuditVerdict::Wrong, "/reads/r1/weights");
    is(1, AuditVerdict::Verified, "/reads/r1/query");
    is(2, AuditVerdict::Verified, "/reads/r2/weights");
    is(3, AuditVerdict::Wrong, "/reads/r3/denominator");
    is(4, AuditVerdict::Wrong, "/reads/r2/denominator");
    is(5, AuditVerdict::Verified, "/reads/r2/denominator");
}

// A chain whose own arithmetic is false is wrong even where no quantity of the scenario fits it
// (by hand: 1 + 2 + 1 = 4, 2/4 = 1/2, 3 × 4 = 12, 1/3 = 0.3333… rounds to 0.333); a chain that
// holds, a decimal rounded right after `=`, and a false chain in a hypothetical sentence (a learner's mistake) stay
// unbound; a chain a quantity refutes keeps that quantity's message.
TEST(ManuscriptAudit, AChainThatContradictsItselfIsWrongWhereNoQuantityDecides) {
    const std::string text =
        "Some arithmetic: $1 + 2 + 1 = 5$, and $2/4 = 1/3$.\n\n"
        "Then $3 \\times 4 = 13$ and $1/3 \\approx 0.334$.\n\n"
        "But $2 + 2 = 4$ and $1/3 = 0.333$.\n\n"
        "A learner might write $2 + 2 = 5$.\n\n"
        "In Example 14.1 the key state receives weight $2/4 = 1/3$.\n";
    const auto r = audit_manuscript_text(text, "t.md", ManuscriptFormat::Markdown, kChapter);
    ASSERT_EQ(r.unmarked.size(), 8U);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(r.unmarked[i].verdict, AuditVerdict::Wrong) << r.unmarked[i].text;
        EXPECT_TRUE(r.unmarked[i].bound.empty()) << r.unmarked[i].text;
    }
    EXPECT_EQ(audit_line("t.md", r.unmarked[0]),
              "t.md:1:18: written $1 + 2 + 1 = 5$; its own arithmetic is false (link 2 of the chain: 5 ≠ 4)");
    EXPECT_EQ(r.unmarked[1].detail, "link 2 of the chain: 1/3 ≠ 1/2");
    EXPECT_EQ(r.unmarked[2].detail, "link 2 of the chain: 13 ≠ 12");
    EXPECT_NE(r.unmarked[3].detail.find("1/3 rounds to 0.333"), std::string::npos) << r.unmarked[3].detail;
    for (std::size_t i = 4; i < 7; ++i) EXPECT_NE(r.unmarked[i].verdict, AuditVerdict::Wrong) << r.unmarked[i].text;
    // By hand: the key's weight in Example 14.1 is 1/4 (Table 14.1): refuted by that quantity.
    EXPECT_EQ(r.unmarked[7].verdict, AuditVerdict::Wrong);
    ASSERT_EQ(r.unmarked[7].bound.size(), 1U);
    EXPECT_EQ(r.unmarked[7].bound[0].pointer, "/reads/example-14.1/weights/1");
    // The proposed manuscript marks no chain that no quantity holds.
    const auto p = propose_marks_text(text, "t.md", ManuscriptFormat::Markdown, kChapter);
    EXPECT_NE(p.text.find("Some arithmetic: $1 + 2 + 1 = 5$, and $2/4 = 1/3$."), std::string::npos) << p.text;
    EXPECT_NE(p.text.find("{.exact ref=\"/reads/example-14.1/weights/1\"}"), std::string::npos) << p.text;
}

// A formula's name states what a number is: e^a = 2 is an exponential (e^{ln 2} = 2 by hand),
// not the constant a = ln 2 that the words "ln 2" beside it name; it was reported wrong as a ≠ 2.
TEST(ManuscriptAudit, AFormulasNameOutweighsTheFieldWordsAroundIt) {
    const auto r =
        audit_manuscript_text("Since $a = \\ln 2$, we have $e^a = 2$.\n", "t.md", ManuscriptFormat::Markdown, kChapter);
    ASSERT_EQ(r.unmarked.size(), 2U);
    EXPECT_EQ(r.unmarked[0].verdict, AuditVerdict::Verified);
    EXPECT_EQ(r.unmarked[0].bound[0].pointer, "/a/value");
    EXPECT_NE(r.unmarked[1].verdict, AuditVerdict::Wrong) << audit_line("t.md", r.unmarked[1]);
    for (const auto& q : r.unmarked[1].bound) EXPECT_NE(q.pointer, "/a/value");
}

// Head 2 of data/examples/self-attention.json's causal layer, by hand: cat's scores a/2 and a
// give exponentials √2 and 2 over 2 + √2, weights √2 − 1 and 2 − √2; sat's scores a/2, a/2, 0
// give √2, √2, 1 over 1 + 2√2, weights (4 − √2)/7 twice and (2√2 − 1)/7; cat's output
// (√2 − 1)[0,2] + (2 − √2)[1,2] = [2 − √2, 2]. Square roots and parenthesised fractions in
// prose were read from their first digit ("√2 − 1" as 2 − 1): 9 correct numbers reported wrong.
TEST(ManuscriptAudit, SquareRootsAndParenthesisedFractionsInProseAreReadWhole) {
    const ManuscriptOptions layer{test::source_path("data/examples/self-attention.json"), {}};
    const std::string right =
        "In the second head of the causal layer, the first token, the, only sees itself, with weight 1.\n"
        "The token cat attends to the and to itself. Its score against the is a/2 and against itself\n"
        "a, so cat gives weight √2 − 1 to the and 2 − √2 to itself.\n\n"
        "The token sat cannot look ahead, but it sees all three. Its scores are a/2, a/2 and 0; it gives\n"
        "weight (4 − √2)/7 to the and to cat, and (2√2 − 1)/7 to itself.\n\n"
        "The output of head 2 for cat is [2 − √2, 2].\n";
    const auto r = audit_manuscript_text(right, "t.md", ManuscriptFormat::Markdown, layer);
    std::vector<std::string> verified;
    for (const auto& f : r.unmarked) {
        EXPECT_EQ(f.verdict, AuditVerdict::Verified) << audit_line("t.md", f);
        if (f.verdict == AuditVerdict::Verified) verified.push_back(f.text);
    }
    for (const std::string w : {"√2 − 1", "2 − √2", "(4 − √2)/7", "(2√2 − 1)/7", "[2 − √2, 2]"})
        EXPECT_NE(std::find(verified.begin(), verified.end(), w), verified.end()) << w;
    // Each planted error reported wrong at its place, the bare a ending a list among them.
    std::string wrong = right;
    for (const auto& [from, to] :
         std::vector<std::pair<std::string, std::string>>{{"with weight 1.", "with weight 1/2."},
                                                          {"2 − √2 to itself", "2 + √2 to itself"},
                                                          {"weight (4 − √2)/7 to the", "weight (4 + √2)/7 to the"},
                                                          {"a/2, a/2 and 0", "a/2, a/2 and a"},
                                                          {"[2 − √2, 2]", "[2 − √2, 1]"}})
        wrong.replace(wrong.find(from), from.size(), to);
    const auto w = audit_manuscript_text(wrong, "t.md", ManuscriptFormat::Markdown, layer);
    std::vector<std::string> reported;
    for (const auto& f : w.unmarked) {
        if (f.verdict == AuditVerdict::Wrong) reported.push_back(f.text);
    }
    EXPECT_EQ(reported, (std::vector<std::string>{"1/2", "2 + √2", "a", "(4 + √2)/7", "[2 − √2, 1]"}));
}

TEST(ManuscriptAudit, DecimalsEqualWhatRoundsToThem) {
    // a/2 = 0.346573…, a/4 = 0.173286…, 1/2 = 50%, 1/4 = 0.25 (Example 14.1); 0.3465 rounds
    // nothing of the chapter's.
    const auto r = audit_manuscript_text("0.3466, 0.17329, 50%, 0.250 and 0.3465.\n", "t.md",
                                         ManuscriptFormat::Markdown, kChapter);
    ASSERT_EQ(r.unmarked.size(), 5U);
    auto equals = [&r](std::size_t i, const std::string& pointer) {
        const auto& e = r.unmarked[i].equals;
        return std::find(e.begin(), e.end(), pointer) != e.end();
    };
    EXPECT_TRUE(equals(0, "/reads/example-14.1/context/0"));
    EXPECT_TRUE(equals(1, "/reads/example-14.1/context/1"));
    EXPECT_TRUE(equals(2, "/reads/example-14.1/weights/0"));
    EXPECT_TRUE(equals(3, "/reads/example-14.1/weights/1"));
    EXPECT_FALSE(equals(0, "/reads/example-14.1/context/1"));
    EXPECT_EQ(r.unmarked[4].equals.size(), 0U);
}

TEST(ManuscriptAudit, YearsCanBeCounted) {
    AuditOptions o;
    o.ignore_years = false;
    const auto r = audit_manuscript_text("In 2015 it was.\n", "t.md", ManuscriptFormat::Markdown, kChapter, o);
    ASSERT_EQ(r.unmarked.size(), 1U);
    EXPECT_EQ(r.unmarked[0].text, "2015");
}

// The audit of `body` under Chapter 14's front matter (three lines: the body starts at line 4).
AuditResult audit_chapter(const std::string& body) {
    return audit_manuscript_text("---\nexactattn-scenario: chapter14\n---\n" + body, "t.md", ManuscriptFormat::Markdown,
                                 kChapter);
}

// A four-digit count before its unit is no year: Exercise 5 stores 100 source states of width two at
// eight bytes a number, 100 × 2 × 8 = 1600 bytes (Chapter 14), so 1600 bytes is verified and 1700
// wrong; 1600 without a unit is still a year. Before, `1600 bytes` was "a year" and never judged.
TEST(ManuscriptAudit, AFourDigitCountBeforeItsUnitIsNoYear) {
    const auto r = audit_chapter(
        "Storing the states takes 1600 bytes in Exercise 5.\n\n"
        "In Exercise 5 the states take 1700 bytes.\n\n"
        "In 1600 the press was new.\n");
    ASSERT_EQ(r.unmarked.size(), 2U);
    EXPECT_EQ(r.unmarked[0].verdict, AuditVerdict::Verified);
    EXPECT_EQ(r.unmarked[0].bound[0].pointer, "/costs/exercise-5/stored_bytes");
    EXPECT_EQ(r.unmarked[1].verdict, AuditVerdict::Wrong);
    EXPECT_EQ(r.unmarked[1].text, "1700");
    const auto year =
        std::find_if(r.not_claims.begin(), r.not_claims.end(), [](const AuditFinding& f) { return f.text == "1600"; });
    ASSERT_NE(year, r.not_claims.end());
    EXPECT_EQ(year->reason, "a year");
}

// `a = ln 2 ≈ 0.693147` in prose is one chain naming the constant (ln 2 = 0.69314718…, 0.693147 to
// six places, 0.6931 to four), as `$a=\ln2\approx0.693147$` is in math. Before, the prose was read
// from its 2, as `2 ≈ 0.693147`, and called wrong by its own arithmetic.
TEST(ManuscriptAudit, LnTwoInProseIsTheConstantNotTheNumberTwo) {
    const auto r = audit_chapter(
        "With a = ln 2 ≈ 0.693147 the states follow.\n\n"
        "With a = ln 2 ≈ 0.6932 they do not.\n");
    ASSERT_EQ(r.unmarked.size(), 2U);
    EXPECT_EQ(r.unmarked[0].text, "a = ln 2 ≈ 0.693147");
    EXPECT_EQ(r.unmarked[0].verdict, AuditVerdict::Verified);
    EXPECT_EQ(r.unmarked[0].bound[0].pointer, "/a/value");
    EXPECT_EQ(r.unmarked[1].verdict, AuditVerdict::Wrong);
    EXPECT_NE(audit_line("t.md", r.unmarked[1]).find("a rounds to 0.6931"), std::string::npos);
}

// A table whose caption names its reads is read by its caption: the second query named in the
// paragraph before it does not make its first row the second read's. By hand (Chapter 14): Example
// 14.1's scores are [a,0,0] and weights [1/2, 1/4, 1/4]; Example 14.2's [0,a,0] and [1/4, 1/2, 1/4].
// Before, both rows were bound to Example 14.2 and the first called wrong.
TEST(ManuscriptAudit, ATableCaptionNamingItsReadsOutweighsAQueryNamedBeforeTheTable) {
    const auto r = audit_chapter(
        "[0,a,0]: the dot product of the second query with the states, in Example 14.2.\n\n"
        "| Step | Scores | Weights |\n| --- | --- | --- |\n"
        "| 1 | [a,0,0] | [1/2, 1/4, 1/4] |\n| 2 | [0,a,0] | [1/4, 1/2, 1/4] |\n\n"
        ": Table 14.1 — The reads of Example 14.1 and Example 14.2.\n");
    std::vector<std::string> bound;
    for (const auto& f : r.unmarked) {
        if (f.line < 8) continue;
        EXPECT_EQ(f.verdict, AuditVerdict::Verified) << audit_line("t.md", f);
        if (!f.bound.empty()) bound.push_back(f.bound[0].pointer);
    }
    EXPECT_EQ(bound, (std::vector<std::string>{"/reads/example-14.1/scores", "/reads/example-14.1/weights",
                                               "/reads/example-14.2/scores", "/reads/example-14.2/weights"}));
}

// A count's unit is the nearest after it: in Section 14.6 four output steps (reads) score three
// source positions (Chapter 14), so "four reads score three positions" is right twice; before, the
// unit list's first match, "score", made four a count of positions and called it wrong. And a count
// of the reads its sentence names is no cost case's steps: "Example 14.1 and Example 14.2 are two
// reads" was called wrong against the 4 target steps; nothing of the scenario counts reads, so it
// is unbound.
TEST(ManuscriptAudit, ACountsUnitIsTheNearestAndReadsNamedAreNotTargetSteps) {
    const auto r = audit_chapter(
        "In Section 14.6, four reads score three positions.\n\n"
        "Example 14.1 and Example 14.2 are two reads.\n");
    ASSERT_EQ(r.unmarked.size(), 3U);
    EXPECT_EQ(r.unmarked[0].verdict, AuditVerdict::Verified) << audit_line("t.md", r.unmarked[0]);
    EXPECT_EQ(r.unmarked[0].bound[0].pointer, "/costs/section-14.6/target_steps");
    EXPECT_EQ(r.unmarked[1].verdict, AuditVerdict::Verified) << audit_line("t.md", r.unmarked[1]);
    EXPECT_EQ(r.unmarked[1].bound[0].pointer, "/costs/section-14.6/positions");
    EXPECT_EQ(r.unmarked[2].text, "two");
    EXPECT_EQ(r.unmarked[2].verdict, AuditVerdict::Unbound) << audit_line("t.md", r.unmarked[2]);
}

// A value opening its line as a label is what the words after its colon say: Example 14.2's scores
// are [0,a,0] (Chapter 14: q_2 = [0,1] against [a,0], [0,a], [0,0]), so [a,0,0] there is wrong.
// Before, both were unbound: only the words before a number named its field.
TEST(ManuscriptAudit, AValueOpeningItsLineAsALabelIsWhatItsColonIntroduces) {
    const auto r = audit_chapter(
        "[0,a,0]: the dot product of the second query with the states, in Example 14.2.\n\n"
        "[a,0,0]: the dot product of the second query with the states, in Example 14.2.\n");
    ASSERT_EQ(r.unmarked.size(), 2U);
    EXPECT_EQ(r.unmarked[0].verdict, AuditVerdict::Verified) << audit_line("t.md", r.unmarked[0]);
    EXPECT_EQ(r.unmarked[0].bound[0].pointer, "/reads/example-14.2/scores");
    EXPECT_EQ(r.unmarked[1].verdict, AuditVerdict::Wrong) << audit_line("t.md", r.unmarked[1]);
}

// A list of numbers runs through a field's positions in order; a position's label elsewhere in its
// sentence pins none of them. Example 14.1's weights are [1/2, 1/4, 1/4] (color, key, full stop;
// Chapter 14). Before, "the color state" pinned every listed weight to position 1, and both 1/4
// were called wrong against the color's 1/2 (a user trial, issue #34).
TEST(ManuscriptAudit, AListOfWeightsTakesSuccessivePositionsWhateverLabelItsSentenceNames) {
    const std::string lead = "In Example 14.1 the first query scores the color state at a and the others at 0, so ";
    const auto r = audit_chapter(lead + "the weights are 1/2, 1/4 and 1/4.\n");
    std::vector<std::string> weights;
    for (const auto& f : r.unmarked) {
        EXPECT_NE(f.verdict, AuditVerdict::Wrong) << audit_line("t.md", f);
        if (f.text.starts_with("1/")) {
            EXPECT_EQ(f.verdict, AuditVerdict::Verified) << audit_line("t.md", f);
            if (!f.bound.empty()) weights.push_back(f.bound[0].pointer);
        }
    }
    EXPECT_EQ(weights, (std::vector<std::string>{"/reads/example-14.1/weights/0", "/reads/example-14.1/weights/1",
                                                 "/reads/example-14.1/weights/2"}));
    // A planted 1/3 is still wrong, against the key's 1/4 it stands for.
    const auto w = audit_chapter(lead + "the weights are 1/2, 1/3 and 1/4.\n");
    std::vector<std::string> wrong;
    for (const auto& f : w.unmarked) {
        if (f.verdict == AuditVerdict::Wrong) wrong.push_back(f.text + " " + f.bound[0].pointer);
    }
    EXPECT_EQ(wrong, (std::vector<std::string>{"1/3 /reads/example-14.1/weights/1"}));
}

// A label pins the number it stands beside: alone ("the color weight is 1/4" is wrong against the
// color's 1/2), or as many labels as the list has numbers, in order ("the color and key weights are
// 1/2 and 1/4"); one label before a list names its first number, the rest the positions after it.
TEST(ManuscriptAudit, ALabelBesideANumberOrAListPinsItsPositions) {
    const auto r = audit_chapter(
        "In Example 14.1 the color weight is 1/2.\n\n"
        "In Example 14.1 the color weight is 1/4.\n\n"
        "In Example 14.1 the color and key weights are 1/2 and 1/4.\n\n"
        "In Example 14.1 the key and full stop weights are 1/4 and 1/4.\n\n"
        "In Example 14.1 the key weight is 1/4, 1/4.\n");
    std::vector<std::string> got;
    for (const auto& f : r.unmarked) {
        if (f.bound.empty()) continue;
        got.push_back(f.text + (f.verdict == AuditVerdict::Wrong ? " wrong " : " ") + f.bound[0].pointer);
    }
    EXPECT_EQ(got,
              (std::vector<std::string>{"1/2 /reads/example-14.1/weights/0", "1/4 wrong /reads/example-14.1/weights/0",
                                        "1/2 /reads/example-14.1/weights/0", "1/4 /reads/example-14.1/weights/1",
                                        "1/4 /reads/example-14.1/weights/1", "1/4 /reads/example-14.1/weights/2",
                                        "1/4 /reads/example-14.1/weights/1", "1/4 /reads/example-14.1/weights/2"}));
}

// A state is a vector: a single number after "states" is a weight or a score said of them, a
// state's coordinate only when its sentence says "coordinate". Chapter 14: Example 14.2's weights
// are [1/4, 1/2, 1/4]; h_3 = [0, 0].
TEST(ManuscriptAudit, ASingleNumberIsAStatesCoordinateOnlyWhenItsSentenceSaysSo) {
    const auto r = audit_chapter(
        "In Example 14.2 the key state gets weight 1/2, and the color and full stop states 1/4 each.\n\n"
        "In Example 14.1 the second coordinate of the full stop state is 0.\n\n"
        "In Example 14.1 the second coordinate of the full stop state is 1.\n");
    std::vector<std::string> got;
    for (const auto& f : r.unmarked) {
        if (f.bound.empty()) continue;
        got.push_back(f.text + (f.verdict == AuditVerdict::Wrong ? " wrong " : " ") + f.bound[0].pointer);
    }
    ASSERT_EQ(got.size(), 4U);
    EXPECT_EQ(got[0], "1/2 /reads/example-14.2/weights/1");
    EXPECT_TRUE(got[1].starts_with("1/4 /reads/example-14.2/weights/")) << got[1];
    EXPECT_EQ(got[2], "0 /reads/example-14.1/memory/2/1");
    EXPECT_EQ(got[3], "1 wrong /reads/example-14.1/memory/2/1");
}

// Free prose as authors write it. Chapter 14: Example 14.1 scores [a, 0, 0] and weighs
// [1/2, 1/4, 1/4]; Example 14.2 weighs [1/4, 1/2, 1/4]. Ordinals joined before one noun open
// the list at the first of them; a British spelling names the same position; "the other two"
// counts a part, never the positions; a bare a before a conjunction is a value; an entity its
// own sentence names outranks one named earlier in the paragraph.
std::vector<std::string> audit_verdicts(const std::string& body) {
    std::vector<std::string> got;
    for (const auto& f : audit_chapter(body).unmarked) {
        if (f.verdict == AuditVerdict::NotAClaim) continue;
        const char* v = f.verdict == AuditVerdict::Wrong       ? " wrong"
                        : f.verdict == AuditVerdict::Verified  ? " verified"
                        : f.verdict == AuditVerdict::Ambiguous ? " ambiguous"
                                                               : " unbound";
        got.push_back(f.text + v +
                      (f.verdict == AuditVerdict::Unbound || f.bound.empty() ? "" : " " + f.bound[0].pointer));
    }
    return got;
}

TEST(ManuscriptAudit, JoinedOrdinalsOpenTheirListAtTheFirst) {
    EXPECT_EQ(audit_verdicts("In Example 14.1 the second and third weights are 1/4 and 1/3.\n\n"
                             "In Example 14.1 the first, second and third weights are 1/2, 1/4 and 1/4.\n"),
              (std::vector<std::string>{
                  "1/4 verified /reads/example-14.1/weights/1", "1/3 wrong /reads/example-14.1/weights/2",
                  "1/2 verified /reads/example-14.1/weights/0", "1/4 verified /reads/example-14.1/weights/1",
                  "1/4 verified /reads/example-14.1/weights/2"}));
}

TEST(ManuscriptAudit, ABritishSpellingNamesThePositionsLabel) {
    EXPECT_EQ(audit_verdicts("In Example 14.2 the key state takes weight 1/2, and the colour state 1/4.\n\n"
                             "In Example 14.2 the colour state takes weight 1/2.\n"),
              (std::vector<std::string>{"1/2 verified /reads/example-14.2/weights/1",
                                        "1/4 verified /reads/example-14.2/weights/0",
                                        "1/2 wrong /reads/example-14.2/weights/0"}));
}

TEST(ManuscriptAudit, TheEntityItsSentenceNamesOutranksOneNamedEarlierInItsParagraph) {
    EXPECT_EQ(audit_verdicts("In Example 14.1 the color state takes weight 1/2. "
                             "In Example 14.2 the color state takes weight 1/2.\n"),
              (std::vector<std::string>{"1/2 verified /reads/example-14.1/weights/0",
                                        "1/2 wrong /reads/example-14.2/weights/0"}));
}

TEST(ManuscriptAudit, ACountOfAPartIsNeverWrongAgainstTheWhole) {
    const auto got = audit_verdicts(
        "In Example 14.1 the query [1,0] scores the color state at a and the other two "
        "states at 0.\n");
    ASSERT_EQ(got.size(), 4U);
    EXPECT_EQ(got[0], "[1,0] verified /reads/example-14.1/query");
    EXPECT_EQ(got[1], "a verified /reads/example-14.1/scores/0");
    EXPECT_TRUE(got[2].starts_with("two ambiguous") || got[2] == "two unbound") << got[2];
    EXPECT_EQ(got[3], "0 verified /reads/example-14.1/scores/1");
}

// A number after "sum to" is the sum of what its sentence lists, never wrong against the field
// it names (a sum of the exponentials is verified against their denominator); a wrapped line
// does not split a unit; "bytes a number" is the bytes per number.
// Chapter 14: the weights sum to 1, the exponentials of Example 14.1 to 4; Exercise 5 stores
// 200 numbers, 1600 bytes at 8 bytes per number, and takes 400 dot products.
TEST(ManuscriptAudit, SumsWrappedUnitsAndRatesAreReadAsWritten) {
    const auto r = audit_chapter(
        "In Example 14.1 the weights sum to 1 and the exponentials add up to 4.\n\n"
        "**Exercise 2.** Dividing by the number of positions gives [2/3, 1/3, 1/3], which sums to 4/3.\n\n"
        "**Exercise 5.** The states take 1600 bytes at eight bytes a\nnumber, and four target steps need 400 dot\n"
        "products.\n\n"
        "**Exercise 5.** At nine bytes a number, 200 numbers take 1600 bytes.\n");
    std::vector<std::string> got;
    for (const auto& f : r.unmarked) {
        if (f.verdict == AuditVerdict::NotAClaim) continue;
        const char* v = f.verdict == AuditVerdict::Wrong      ? " wrong"
                        : f.verdict == AuditVerdict::Verified ? " verified"
                                                              : " unbound";
        got.push_back(f.text + v +
                      (f.verdict == AuditVerdict::Unbound || f.bound.empty() ? "" : " " + f.bound[0].pointer));
    }
    EXPECT_EQ(got,
              (std::vector<std::string>{
                  "1 unbound", "4 verified /reads/example-14.1/denominator", "[2/3, 1/3, 1/3] unbound", "4/3 unbound",
                  "1600 verified /costs/exercise-5/stored_bytes", "eight verified /costs/exercise-5/bytes_per_number",
                  "four verified /costs/exercise-5/target_steps", "400 verified /costs/exercise-5/dot_products",
                  "nine wrong /costs/exercise-5/bytes_per_number", "200 verified /costs/exercise-5/stored_numbers",
                  "1600 verified /costs/exercise-5/stored_bytes"}));
}

// data/examples/fractional-scores.json, by hand: read sqrt2 scores a/2 and 0, exponentials √2 and
// 1 over 1 + √2, weights 2 − √2 and √2 − 1, context [(2 − √2)a/2]; read cbrt2 scores a/3 and −a/3,
// exponentials ∛2 and ∛4/2. A cube root was read from its digit ("∛2" as 2), a one-entry vector
// and a parenthesised sum times a/2 as two numbers, and "the second" after "the first weight"
// took the first's position: four correct numbers were called wrong.
TEST(ManuscriptAudit, CubeRootsOneEntryVectorsAndEllipticOrdinalsAreReadAsWritten) {
    const ManuscriptOptions frac{test::source_path("data/examples/fractional-scores.json"), {}};
    const std::string right =
        "In read sqrt2 the first weight is 2 − √2, and the second √2 − 1. The context is [(2 − √2)a/2].\n\n"
        "In read cbrt2 the scores are a/3 and −a/3; the first exponential is ∛2 and the second ∛4/2.\n";
    const auto r = audit_manuscript_text(right, "t.md", ManuscriptFormat::Markdown, frac);
    std::vector<std::string> got;
    for (const auto& f : r.unmarked) {
        if (f.verdict == AuditVerdict::NotAClaim) continue;
        EXPECT_EQ(f.verdict, AuditVerdict::Verified) << audit_line("t.md", f);
        if (!f.bound.empty()) got.push_back(f.text + " " + f.bound[0].pointer);
    }
    EXPECT_EQ(got, (std::vector<std::string>{"2 − √2 /reads/sqrt2/weights/0", "√2 − 1 /reads/sqrt2/weights/1",
                                             "[(2 − √2)a/2] /reads/sqrt2/context", "a/3 /reads/cbrt2/scores/0",
                                             "−a/3 /reads/cbrt2/scores/1", "∛2 /reads/cbrt2/exponentials/0",
                                             "∛4/2 /reads/cbrt2/exponentials/1"}));
    std::string wrong = right;
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"second √2 − 1", "second √2 + 1"}, {"[(2 − √2)a/2]", "[(2 + √2)a/2]"}, {"is ∛2", "is ∛4"}})
        wrong.replace(wrong.find(from), from.size(), to);
    std::vector<std::string> reported;
    for (const auto& f : audit_manuscript_text(wrong, "t.md", ManuscriptFormat::Markdown, frac).unmarked)
        if (f.verdict == AuditVerdict::Wrong) reported.push_back(f.text);
    EXPECT_EQ(reported, (std::vector<std::string>{"√2 + 1", "[(2 + √2)a/2]", "∛4"}));
}

// Bad input: one clear placed error or a correct result, never a crash.
std::string error_of(const std::string& text, ManuscriptFormat f = ManuscriptFormat::Markdown,
                     const ManuscriptOptions& o = kChapter) {
    try {
        (void)check_manuscript_text(text, f == ManuscriptFormat::Markdown ? "t.md" : "t.tex", f, o);
    } catch (const Error& e) {
        EXPECT_EQ(e.exit_code(), ExitCode::InvalidInput);
        return e.what();
    }
    return "no error";
}

TEST(ManuscriptBadInput, UnknownPointerNamesTheNearest) {
    EXPECT_EQ(error_of("\nx [1/2]{.exact ref=\"/reads/example-14.1/wieghts/0\"}"),
              "t.md:2:3: /reads/example-14.1/wieghts/0: no such quantity in chapter14; nearest: "
              "/reads/example-14.1/weights, /reads/example-14.1/query, /reads/example-14.1/memory");
}

TEST(ManuscriptBadInput, UnknownFirstSegmentNamesTheReportsKeys) {
    EXPECT_EQ(error_of("[1]{.exact ref=/raeds/example-14.1/weights}").substr(0, 87),
              "t.md:1:1: /raeds/example-14.1/weights: no such quantity in chapter14; nearest: /reads, ");
}

TEST(ManuscriptBadInput, MalformedMarksArePlaced) {
    EXPECT_EQ(error_of("x [1/2]{.exact ref=/reads/example-14.1/weights/0\n"),
              "t.md:1:3: unclosed attribute block: a mark is [written]{.exact ref=\"/pointer\"}");
    EXPECT_EQ(error_of("x [1/2{.exact ref=/reads/example-14.1/weights/0}\n"),
              "t.md:1:7: an attribute block {.exact …} that follows no [written] span (an unclosed [ or a missing ])");
    EXPECT_EQ(error_of("x [1/2]{.exact}\n"), "t.md:1:3: a .exact span needs ref=\"/pointer\"");
    EXPECT_EQ(error_of("\\exact{/reads/example-14.1/weights/0}{1/2", ManuscriptFormat::Latex),
              "t.tex:1:1: \\exact: unclosed brace in the written value");
    EXPECT_EQ(error_of("\\exact{/reads/example-14.1/weights/0} 1/2", ManuscriptFormat::Latex),
              "t.tex:1:1: \\exact needs {pointer}{written}: the written value is missing");
    EXPECT_EQ(error_of("ok [1/2]{.exact ref=/reads/example-14.1/weights/0}\n", ManuscriptFormat::Markdown,
                       ManuscriptOptions{}),
              "t.md: names no scenario: add `exactattn-scenario: FILE` to the front matter (Markdown) or a "
              "comment `% exactattn-scenario: FILE` (LaTeX), or give --scenario");
    EXPECT_EQ(error_of("---\nexactattn-scenario: nowhere.json\n---\n", ManuscriptFormat::Markdown, ManuscriptOptions{})
                  .substr(0, 41),
              "t.md:2:1: exactattn-scenario nowhere.json");
}

// One written value that is no value is reported at its place and hides nothing: it fails as a
// wrong claim does, with the reason it cannot be read, and the marks after it are checked (Example
// 14.1's key weight is 1/4, so 1/3 is wrong). Before, it was bad input (exit 2), the only line.
TEST(ManuscriptBadInput, AnUnreadableWrittenValueIsReportedAtItsPlaceAndHidesNothing) {
    const auto r = check_manuscript_text(
        "x [1//2]{.exact ref=/reads/example-14.1/weights/0} and [1/3]{.exact ref=/reads/example-14.1/weights/1}\n",
        "t.md", ManuscriptFormat::Markdown, kChapter);
    ASSERT_EQ(r.claims.size(), 2U);
    EXPECT_FALSE(r.claims[0].passed);
    const std::string line = mismatch_line("t.md", r.claims[0]);
    EXPECT_EQ(
        line.rfind("t.md:1:3: /reads/example-14.1/weights/0: written 1//2, exact 1/2 (\"1//2\" is not a value", 0), 0U)
        << line;
    EXPECT_FALSE(r.claims[1].passed);
    EXPECT_EQ(r.claims[1].detail, "1/3 ≠ 1/4");
    // a claim nested past any need is still refused as input, placed at its mark
    EXPECT_EQ(error_of("x [" + std::string(70, '(') + "1" + std::string(70, ')') +
                       "]{.exact ref=/reads/example-14.1/weights/0}\n"),
              "t.md:1:3: /reads/example-14.1/weights/0: the claim nests brackets more than 64 deep");
}

TEST(ManuscriptBadInput, MarksInCodeAreIgnored) {
    const auto r = check_manuscript_text(
        "```\n[1]{.exact ref=\"/nowhere\"}\n```\n`[2]{.exact ref=/no}` ~~~\n<!-- [3]{.exact ref=/no} -->\n"
        "[1/2]{.exact ref=/reads/example-14.1/weights/0}\n",
        "t.md", ManuscriptFormat::Markdown, kChapter);
    ASSERT_EQ(r.claims.size(), 1U);
    EXPECT_EQ(r.claims[0].line, 6);
    EXPECT_TRUE(r.claims[0].passed);
}

TEST(ManuscriptBadInput, BomCrlfAndAMegabyteOfProse) {
    const auto r = check_manuscript_text("\xEF\xBB\xBFx\r\n  [1/3]{.exact ref=/reads/example-14.1/weights/1}\r\n",
                                         "t.md", ManuscriptFormat::Markdown, kChapter);
    ASSERT_EQ(r.claims.size(), 1U);
    EXPECT_FALSE(r.claims[0].passed);
    EXPECT_EQ(r.claims[0].line, 2);
    EXPECT_EQ(r.claims[0].column, 3);
    std::string big;
    while (big.size() < (1U << 20)) big += "Prose, prose and [1/4]{.exact ref=\"/reads/example-14.1/weights/1\"}.\n";
    const auto b = check_manuscript_text(big, "big.md", ManuscriptFormat::Markdown, kChapter);
    EXPECT_GT(b.claims.size(), 10000U);
    EXPECT_EQ(b.wrong(), 0U);
    EXPECT_THROW((void)check_manuscript_text("bad \xFF byte", "t.md", ManuscriptFormat::Markdown, kChapter), Error);
}

TEST(ManuscriptBadInput, PathologicalMegabytesAreReadInOnePass) {
    // Unclosed brackets and braces, and nesting deeper than any claim: a result or one placed
    // error, never a quadratic scan or a stack overflow (each of these took minutes or
    // crashed before the one-pass bracket matcher and the nesting bound). A quarter megabyte
    // under the sanitizers (77 s for the megabyte there).
    constexpr std::size_t mb = test::kUnderSanitizer ? 1U << 18 : 1U << 20;
    for (const std::string& text : {std::string(mb, '['), std::string(mb, '{'), std::string(mb / 2, '[') + "x", [&] {
                                        std::string t;
                                        while (t.size() < mb) t += "_{";
                                        return t;
                                    }()}) {
        EXPECT_EQ(check_manuscript_text(text, "t.md", ManuscriptFormat::Markdown, kChapter).claims.size(), 0U);
        EXPECT_EQ(audit_manuscript_text(text, "t.md", ManuscriptFormat::Markdown, kChapter).unmarked.size(), 0U);
    }
    // One line of a megabyte: each scan reads it once (a column, an attribute block, a run of
    // backticks, the word before a number are found without reading the line again).
    auto line_of = [](const std::string& piece) {
        std::string t;
        while (t.size() < mb) t += piece;
        return t;
    };
    for (const std::string& piece :
         {std::string("[1/4]{.exact ref=\"/reads/example-14.1/weights/1\"} "), std::string("[x]{.y "),
          std::string("{.a "), std::string("`` a ``` b "), std::string("红色红色红色 12 "), std::string("x 12 ")}) {
        const std::string text = line_of(piece);
        const auto c = check_manuscript_text(text, "t.md", ManuscriptFormat::Markdown, kChapter);
        EXPECT_EQ(c.wrong(), 0U);
        if (!c.claims.empty()) {
            EXPECT_EQ(c.claims.back().column, static_cast<int>((text.size() / piece.size() - 1) * piece.size() + 1));
        }
        (void)audit_manuscript_text(text, "t.md", ManuscriptFormat::Markdown, kChapter);
    }
    const std::string deep =
        "[" + std::string(100000, '[') + std::string(100000, ']') + "]{.exact ref=/reads/example-14.1/weights}";
    EXPECT_EQ(error_of(deep), "t.md:1:1: /reads/example-14.1/weights: the claim nests brackets more than 64 deep");
    std::string frac = "\\exact{/reads/example-14.1/weights/0}{";
    for (int i = 0; i < 50000; ++i) frac += "\\frac{";
    EXPECT_EQ(error_of(frac + "1" + std::string(50000, '}') + "}", ManuscriptFormat::Latex),
              "t.tex:1:1: /reads/example-14.1/weights/0: the claim nests brackets more than 64 deep");
}

// A LaTeX book asks for the audit in comment lines; the strictest level and the highest minimum
// of all its files are taken, so one chapter's `false` turns off nothing another asked for.
TEST(ManuscriptAuditSetting, TheStrictestCommentOfEveryFileIsTaken) {
    AuditSetting a;
    read_audit_setting("\\documentclass{book}\n% exactattn-audit: true\n", "main.tex", a);
    EXPECT_EQ(a.level, AuditLevel::Wrong);
    read_audit_setting("  %  exactattn-audit: FALSE\n% exactattn-audit-min-coverage: 57.5\n", "ch1.tex", a);
    EXPECT_EQ(a.level, AuditLevel::Wrong);
    EXPECT_EQ(a.min_coverage, "57.5");
    read_audit_setting("% exactattn-audit: 'strict'\r\n% exactattn-audit-min-coverage: 9.75\n", "ch2.tex", a);
    EXPECT_EQ(a.level, AuditLevel::Strict);
    EXPECT_EQ(a.min_coverage, "57.5");  // 9.75 < 57.5: the higher minimum stays
    read_audit_setting("% exactattn-audit-min-coverage: 100\nText with exactattn-audit: maybe, no comment.\n",
                       "ch3.tex", a);
    EXPECT_EQ(a.min_coverage, "100");
}

// A Markdown file asks in its YAML metadata, as pandoc reads it: top-level keys of any metadata
// block, a later one replacing an earlier one within the file; across files the strictest is taken.
TEST(ManuscriptAuditSetting, AMarkdownFileAsksInItsMetadataAsPandocReadsIt) {
    const auto md = ManuscriptFormat::Markdown;
    const auto level_of = [&](const std::string& text) {
        AuditSetting a;
        read_audit_setting(text, "ch.md", md, a);
        return a.level;
    };
    EXPECT_EQ(level_of("---\ntitle: A\nexactattn-audit: true # asked\n---\n\nText.\n"), AuditLevel::Wrong);
    EXPECT_EQ(level_of("---\nexactattn-audit: 'Strict'\n---\n"), AuditLevel::Strict);
    EXPECT_EQ(level_of("Text.\n\n---\nexactattn-audit: yes\n...\n\nMore.\n"), AuditLevel::Wrong);  // a later block
    EXPECT_EQ(level_of("---\nexactattn-audit: true\n---\n\n---\nexactattn-audit: false\n---\n"), AuditLevel::Off);
    EXPECT_EQ(level_of("---\nbook:\n  exactattn-audit: true\n---\n"), AuditLevel::Off);      // not the document's
    EXPECT_EQ(level_of("```\n---\nexactattn-audit: true\n---\n```\n"), AuditLevel::Off);     // in a fence
    EXPECT_EQ(level_of("<!--\n\n---\nexactattn-audit: true\n---\n-->\n"), AuditLevel::Off);  // in a comment
    EXPECT_EQ(level_of("The prose says exactattn-audit: true.\n"), AuditLevel::Off);
    AuditSetting a;
    read_audit_setting("---\nexactattn-audit: true\nexactattn-audit-min-coverage: \"57.5\"\n---\n", "ch1.md", md, a);
    read_audit_setting("---\nexactattn-audit: false\nexactattn-audit-min-coverage: 9\n---\n", "ch2.md", md, a);
    EXPECT_EQ(a.level, AuditLevel::Wrong);  // ch2's false turns off nothing ch1 asked for
    EXPECT_EQ(a.min_coverage, "57.5");
    read_audit_setting("% exactattn-audit: strict\n", "main.tex", ManuscriptFormat::Latex, a);
    EXPECT_EQ(a.level, AuditLevel::Strict);
    try {
        AuditSetting b;
        read_audit_setting("---\ntitle: A\nexactattn-audit: maybe\n---\n", "ch.md", md, b);
        ADD_FAILURE() << "maybe was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("ch.md:3:1"), std::string::npos) << e.what();
    }
}

// A book's project file asks as Quarto (top-level keys of _quarto.yml, _metadata.yml) and MyST
// (the keys of myst.yml's `project:` map) read it.
TEST(ManuscriptAuditSetting, ABooksProjectFileAsksAsItsToolchainReadsIt) {
    const auto level_of = [](const std::string& yaml, bool myst) {
        AuditSetting a;
        read_project_audit_setting(yaml, myst ? "myst.yml" : "_quarto.yml", myst, a);
        return a.level;
    };
    EXPECT_EQ(level_of("project:\n  type: book\nexactattn-audit: true\n", false), AuditLevel::Wrong);
    EXPECT_EQ(level_of("project:\n  type: book\n  exactattn-audit: true\n", false), AuditLevel::Off);  // not top level
    EXPECT_EQ(level_of("# exactattn-audit: true\n", false), AuditLevel::Off);
    EXPECT_EQ(level_of("exactattn-audit: true\nexactattn-audit: false\n", false), AuditLevel::Off);  // the last
    EXPECT_EQ(level_of("version: 1\nproject:\n  title: A\n  exactattn-audit: strict\n", true), AuditLevel::Strict);
    EXPECT_EQ(level_of("version: 1\nexactattn-audit: true\nproject:\n  title: A\n", true), AuditLevel::Off);
    EXPECT_EQ(level_of("project:\n  title: A\nsite:\n  exactattn-audit: true\n", true), AuditLevel::Off);
    AuditSetting a;
    read_project_audit_setting("exactattn-audit: true\nexactattn-audit-min-coverage: 80\n", "_quarto.yml", false, a);
    EXPECT_EQ(a.min_coverage, "80");
    try {
        AuditSetting b;
        read_project_audit_setting("project:\n  title: A\n  exactattn-audit: maybe\n", "myst.yml", true, b);
        ADD_FAILURE() << "maybe was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("myst.yml:3:3"), std::string::npos) << e.what();
    }
}

// A value that is no setting is refused at its key, before anything is checked.
TEST(ManuscriptAuditSetting, AValueThatIsNoSettingIsRefusedAtItsKey) {
    const auto refused = [](const std::string& text) {
        AuditSetting a;
        try {
            read_audit_setting(text, "main.tex", a);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(refused("x\n  % exactattn-audit: maybe\n").find("main.tex:2:5"), std::string::npos);
    EXPECT_NE(refused("% exactattn-audit: maybe\n").find("maybe is none of true, false and strict"), std::string::npos);
    for (const char* bad : {"101", "1/2", "a", "50%", ".5", "5.", "-1", "1e2", ""}) {
        const std::string m = refused(std::string("% exactattn-audit-min-coverage: ") + bad + "\n");
        EXPECT_NE(m.find("is not a percentage from 0 to 100"), std::string::npos) << bad << ": " << m;
    }
}

}  // namespace
}  // namespace exactattn
