// SPDX-License-Identifier: MIT
// manuscript check: claims written in prose (the tool's, Unicode and LaTeX notations, chains,
// decimals, percentages, counts, tokens) judged against the chapter's exact report, and
// numbers planted wrong in the chapter's own Markdown caught at their line. Expected values
// come from the chapter's text (a = ln 2, so a/2 = 0.34657359…) or are worked by hand.
#include "exactattn/manuscript.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "exactattn/error.hpp"
#include "support/support.hpp"

namespace exactattn {
namespace {

std::string chapter_path() { return test::source_path("data/chapter14/chapter14.md"); }

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A Markdown manuscript over the built-in chapter scenario.
ManuscriptResult check_md(const std::string& text, const std::string& scenario = "chapter14") {
    return check_manuscript_text(text, "t.md", ManuscriptFormat::Markdown, ManuscriptOptions{scenario, {}});
}

// Whether one marked claim holds.
bool holds(const std::string& written, const std::string& pointer, const std::string& scenario = "chapter14") {
    const auto r = check_md("[" + written + "]{.exact ref=\"" + pointer + "\"}\n", scenario);
    EXPECT_EQ(r.claims.size(), 1U);
    return r.claims.size() == 1 && r.claims[0].passed;
}

// The 1-based line on which `needle` stands in `text`.
int line_of(const std::string& text, const std::string& needle) {
    const std::size_t at = text.find(needle);
    EXPECT_NE(at, std::string::npos) << needle;
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

TEST(ManuscriptCheck, ChapterMarkdownPasses) {
    const auto r = check_manuscript(chapter_path());
    EXPECT_GE(r.claims.size(), 140U);
    EXPECT_EQ(r.wrong(), 0U);
    for (const auto& c : r.claims) EXPECT_TRUE(c.passed) << mismatch_line(r.file, c);
}

TEST(ManuscriptCheck, ExactFormsInEveryNotation) {
    EXPECT_TRUE(holds("2a/3", "/interventions/table-14.2/rows/2/readout"));
    EXPECT_TRUE(holds("$\\tfrac{2a}{3}$", "/interventions/table-14.2/rows/2/readout"));
    EXPECT_TRUE(holds("$\\frac{2}{3}a$", "/interventions/table-14.2/rows/2/readout"));
    EXPECT_TRUE(holds("⅔·a", "/interventions/table-14.2/rows/2/readout"));
    EXPECT_FALSE(holds("$\\tfrac{a}{3}$", "/interventions/table-14.2/rows/2/readout"));
    EXPECT_TRUE(holds("[a/2, a/4]", "/reads/example-14.1/context"));
    EXPECT_TRUE(holds("$\\left[\\tfrac{a}{2}, \\tfrac{a}{4}\\right]$", "/reads/example-14.1/context"));
    EXPECT_FALSE(holds("[a/4, a/2]", "/reads/example-14.1/context"));
    // fractional-scores.json: the weight 1/(1 + √2) = √2 − 1 (worked in its assumptions).
    const std::string fractional = test::source_path("data/examples/fractional-scores.json");
    EXPECT_TRUE(holds("√2 − 1", "/reads/sqrt2/weights/1", fractional));
    EXPECT_TRUE(holds("$\\sqrt{2} - 1$", "/reads/sqrt2/weights/1", fractional));
    EXPECT_TRUE(holds("2^(1/2) - 1", "/reads/sqrt2/weights/1", fractional));
    EXPECT_FALSE(holds("√2 + 1", "/reads/sqrt2/weights/1", fractional));
}

TEST(ManuscriptCheck, ShortFormWithoutTheClassIsAMark) {
    const auto r =
        check_md("[1/2]{ref=/reads/example-14.1/weights/0} and [1/3]{ref=\"/reads/example-14.1/weights/1\"}\n");
    ASSERT_EQ(r.claims.size(), 2U);
    EXPECT_TRUE(r.claims[0].passed);
    EXPECT_FALSE(r.claims[1].passed);  // the key's weight is 1/4
}

TEST(ManuscriptCheck, DecimalRoundedToWrittenPlacesIsRight) {
    // a/2 = 0.34657359…: correctly rounded to 6, 4 and 2 places.
    EXPECT_TRUE(holds("0.346574", "/reads/example-14.1/context/0"));
    EXPECT_TRUE(holds("0.3466", "/reads/example-14.1/context/0"));
    EXPECT_TRUE(holds("0.35", "/reads/example-14.1/context/0"));
    EXPECT_FALSE(holds("0.3465", "/reads/example-14.1/context/0"));
    EXPECT_FALSE(holds("0.346575", "/reads/example-14.1/context/0"));
    // √2 − 1 = 0.41421356…
    const std::string fractional = test::source_path("data/examples/fractional-scores.json");
    EXPECT_TRUE(holds("0.4142", "/reads/sqrt2/weights/1", fractional));
    EXPECT_FALSE(holds("0.4143", "/reads/sqrt2/weights/1", fractional));
}

TEST(ManuscriptCheck, WrongDecimalNamesTheRoundingRule) {
    const auto r = check_md("x [0.3465]{.exact ref=/reads/example-14.1/context/0}\n");
    ASSERT_EQ(r.claims.size(), 1U);
    EXPECT_FALSE(r.claims[0].passed);
    EXPECT_EQ(mismatch_line(r.file, r.claims[0]),
              "t.md:1:3: /reads/example-14.1/context/0: written 0.3465, exact a/2 "
              "(a decimal to the 4 decimal places written: a/2 rounds to 0.3466)");
}

TEST(ManuscriptCheck, ApproximateVectorsAndChains) {
    EXPECT_TRUE(holds("$[a/2,a/4]\\approx[0.346574,0.173287]$", "/reads/example-14.1/context"));
    EXPECT_FALSE(holds("$[a/2,a/4]\\approx[0.346574,0.173288]$", "/reads/example-14.1/context"));
    EXPECT_TRUE(holds("$c_1=\\tfrac12[a,0]+\\tfrac14[0,a]+\\tfrac14[0,0]=[a/2,a/4]$", "/reads/example-14.1/context"));
    EXPECT_FALSE(holds("$c_1=\\tfrac14[a,0]+\\tfrac14[0,a]+\\tfrac14[0,0]=[a/2,a/4]$", "/reads/example-14.1/context"));
    EXPECT_TRUE(holds("2 + 1 + 1 = 4", "/reads/example-14.1/denominator"));
    EXPECT_TRUE(holds("1 × a + 0 × 0 = a", "/reads/example-14.1/scores/0"));
    EXPECT_TRUE(holds("$2/4 = 1/2$", "/reads/example-14.1/weights/0"));
    // Every link must hold: 2/4 = 1/2 is right, but 1/2 = 0.5 = 1/3 is not.
    EXPECT_FALSE(holds("2/4 = 1/3", "/reads/example-14.1/weights/0"));
    EXPECT_FALSE(holds("2 + 1 + 2 = 4", "/reads/example-14.1/denominator"));
    // A decimal after `=` must be exact: 1/2 = 0.5 holds, a/2 = 0.35 does not (≈ would).
    EXPECT_TRUE(holds("1/2 = 0.5", "/reads/example-14.1/weights/0"));
    EXPECT_FALSE(holds("a/2 = 0.35", "/reads/example-14.1/context/0"));
    EXPECT_TRUE(holds("a/2 ≈ 0.35", "/reads/example-14.1/context/0"));
}

TEST(ManuscriptCheck, BrokenLinkIsNamed) {
    const auto r = check_md("[$2+1+2=4$]{.exact ref=/reads/example-14.1/denominator}\n");
    ASSERT_EQ(r.claims.size(), 1U);
    EXPECT_FALSE(r.claims[0].passed);
    EXPECT_EQ(r.claims[0].detail, "link 1 of the chain: 5 ≠ 4");  // 2 + 1 + 2 = 5
}

TEST(ManuscriptCheck, PercentagesCountsTokens) {
    EXPECT_TRUE(holds("50%", "/reads/example-14.1/weights/0"));
    EXPECT_TRUE(holds("25%", "/reads/example-14.1/weights/1"));
    EXPECT_FALSE(holds("33%", "/reads/example-14.1/weights/1"));
    EXPECT_TRUE(holds("33.3%", "/reads/blue-q1/weights/0"));
    EXPECT_FALSE(holds("33.4%", "/reads/blue-q1/weights/0"));
    EXPECT_TRUE(holds("1600 bytes", "/costs/exercise-5/stored_bytes"));
    EXPECT_FALSE(holds("1601 bytes", "/costs/exercise-5/stored_bytes"));
    EXPECT_TRUE(holds("twelve", "/costs/section-14.6/dot_products"));
    EXPECT_FALSE(holds("eleven", "/costs/section-14.6/dot_products"));
    // A count is exact.
    EXPECT_FALSE(holds("401", "/costs/exercise-5/dot_products"));
    EXPECT_TRUE(holds("$100\\times4=400$ dot products", "/costs/exercise-5/dot_products"));
    EXPECT_TRUE(holds("[红色, 。]", "/interventions/table-14.3/rows/2/tokens"));
    EXPECT_FALSE(holds("[红色, 钥匙]", "/interventions/table-14.3/rows/2/tokens"));
    const std::string rollout = test::source_path("data/chapter14/decoder-rollout.json");
    EXPECT_TRUE(holds("red", "/rollouts/table-14.4/teacher-forcing/steps/2/chosen", rollout));
    EXPECT_FALSE(holds("blue", "/rollouts/table-14.4/teacher-forcing/steps/2/chosen", rollout));
}

TEST(ManuscriptCheck, TokensAreComparedAsWritten) {
    // decoder-rollout.json: the reference is [the, red, key, .] and generation stops at the end
    // token; fractional-scores.json's reads use the query named "one".
    const std::string rollout = test::source_path("data/chapter14/decoder-rollout.json");
    EXPECT_TRUE(holds("[the, red, key, .]", "/rollouts/table-14.4/reference", rollout));
    EXPECT_TRUE(holds(".", "/rollouts/table-14.4/reference/3", rollout));
    EXPECT_TRUE(holds("end token", "/rollouts/table-14.4/generation/stopped", rollout));
    EXPECT_FALSE(holds("end", "/rollouts/table-14.4/generation/stopped", rollout));
    const std::string fractional = test::source_path("data/examples/fractional-scores.json");
    EXPECT_TRUE(holds("one", "/reads/sqrt2/query_name", fractional));
    EXPECT_TRUE(holds("[color, key, full stop]", "/sources/red/labels"));
}

TEST(ManuscriptCheck, LayerWeightsMasksAndRemovedEntries) {
    // self-attention.json's assumptions work these by hand: head 1, causal, row 3 has weights
    // 1/7, 2/7, 4/7; head 2's row 2 weights √2 − 1 and 2 − √2, row 3 (4 − √2)/7 twice; row 1
    // sees only itself, so key 2 is masked and its score is null.
    const std::string sa = test::source_path("data/examples/self-attention.json");
    EXPECT_TRUE(holds("[1/7, 2/7, 4/7]", "/layers/causal/heads/0/weights/2", sa));
    EXPECT_FALSE(holds("[1/7, 4/7, 2/7]", "/layers/causal/heads/0/weights/2", sa));
    EXPECT_TRUE(holds("$\\sqrt{2}-1$", "/layers/causal/heads/1/weights/1/0", sa));
    EXPECT_TRUE(holds("2 − √2", "/layers/causal/heads/1/weights/1/1", sa));
    EXPECT_TRUE(holds("$\\tfrac{4-\\sqrt{2}}{7}$", "/layers/causal/heads/1/weights/2/0", sa));
    EXPECT_TRUE(holds("[a, —, —]", "/layers/causal/heads/0/scores/0", sa));
    EXPECT_FALSE(holds("[a, 0, —]", "/layers/causal/heads/0/scores/0", sa));
    EXPECT_TRUE(holds("true", "/layers/causal/masked/0/1", sa));
    EXPECT_FALSE(holds("false", "/layers/causal/masked/0/1", sa));
}

TEST(ManuscriptCheck, MatricesAsRowsOrNamedStates) {
    EXPECT_TRUE(holds("[0,a]; [0,0]", "/interventions/table-14.3/rows/1/states"));
    EXPECT_TRUE(holds("$$h_1=[a,0],\\qquad h_2=[0,a],\\qquad h_3=[0,0].$$", "/sources/red/states"));
    EXPECT_FALSE(holds("$$h_1=[a,0],\\qquad h_2=[a,0],\\qquad h_3=[0,0].$$", "/sources/red/states"));
    EXPECT_TRUE(holds("[[0,0], [0,a], [0,0]]", "/sources/blue/states"));
}

// Plants one wrong number in the chapter and returns the wrong claims found.
std::vector<ClaimVerdict> planted(const std::string& from, const std::string& to, int& line) {
    std::string text = read(chapter_path());
    line = line_of(text, from);
    text.replace(text.find(from), from.size(), to);
    const auto r = check_manuscript_text(text, chapter_path(), ManuscriptFormat::Markdown);
    std::vector<ClaimVerdict> wrong;
    for (const auto& c : r.claims) {
        if (!c.passed) wrong.push_back(c);
    }
    return wrong;
}

TEST(ManuscriptCheck, PlantedWrongNumbersAreCaughtAtTheirLine) {
    const std::vector<std::pair<std::string, std::string>> plants = {
        // a weight in Table 14.1
        {"[1/4]{.exact ref=\"/reads/example-14.1/weights/1\"}", "[1/3]{.exact ref=\"/reads/example-14.1/weights/1\"}"},
        // a decimal's last digit
        {"\\approx[0.346574,0.173287]", "\\approx[0.346574,0.173288]"},
        // one link of a chain
        {"$2+1+1=4$", "$2+1+2=4$"},
        // a cell of Table 14.2
        {"[[2a/3, a/3]]{.exact ref=\"/interventions/table-14.2/rows/3/context\"}",
         "[[2a/3, a/4]]{.exact ref=\"/interventions/table-14.2/rows/3/context\"}"},
        // an answer of 14.10
        {"[$100\\times4=400$ dot products]", "[$100\\times4=300$ dot products]"},
    };
    for (const auto& [from, to] : plants) {
        int line = 0;
        const auto wrong = planted(from, to, line);
        ASSERT_EQ(wrong.size(), 1U) << to;
        EXPECT_EQ(wrong[0].line, line) << to;
    }
}

TEST(ManuscriptCheck, LatexMarksAreRead) {
    const std::string tex =
        "% exactattn-scenario: chapter14\n"
        "The readout falls to $\\exact{/interventions/table-14.2/rows/2/readout}{\\tfrac{2a}{3}}$ and\n"
        "the weights are \\exact{/reads/example-14.1/weights}{$[\\tfrac12, \\tfrac14, \\tfrac14]$}.\n"
        "% \\exact{/reads/example-14.1/weights}{[1, 2, 3]} is a comment\n"
        "Wrong: \\exact{/reads/example-14.1/denominator}{$2+1+1=5$}.\n";
    const auto r = check_manuscript_text(tex, "t.tex", ManuscriptFormat::Latex);
    ASSERT_EQ(r.claims.size(), 3U);
    EXPECT_TRUE(r.claims[0].passed);
    EXPECT_TRUE(r.claims[1].passed);
    EXPECT_FALSE(r.claims[2].passed);
    EXPECT_EQ(r.claims[2].line, 5);
    EXPECT_EQ(r.claims[2].column, 8);
}

// A pipe table whose value cells hold a mark among other words, and a cell with two marks.
// Example 14.1's weights are [1/2, 1/4, 1/4] (Table 14.1: 2/4, 1/4, 1/4).
std::string weight_table(const std::string& key_weight, const std::string& stop_weight) {
    return "| quantity | value |\n"
           "| --- | --- |\n"
           "| key | [" +
           key_weight +
           "]{.exact ref=\"/reads/example-14.1/weights/1\"} of the total |\n"
           "| two | [1/2]{.exact ref=\"/reads/example-14.1/weights/0\"} and [" +
           stop_weight + "]{.exact ref=\"/reads/example-14.1/weights/2\"} |\n";
}

TEST(ManuscriptCheck, RightMarkInTableCellWithOtherTextPasses) {
    const auto r = check_md(weight_table("1/4", "1/4"));
    ASSERT_EQ(r.claims.size(), 3U);
    EXPECT_EQ(r.wrong(), 0U);
    EXPECT_EQ(r.claims[0].pointer, "/reads/example-14.1/weights/1");
    EXPECT_EQ(r.claims[0].written, "1/4");
}

TEST(ManuscriptCheck, WrongMarkInTableCellWithOtherTextFailsAtItsPlace) {
    const auto r = check_md(weight_table("1/3", "1/4"));
    ASSERT_EQ(r.claims.size(), 3U);
    ASSERT_EQ(r.wrong(), 1U);
    EXPECT_FALSE(r.claims[0].passed);
    EXPECT_EQ(r.claims[0].line, 3);
    EXPECT_EQ(r.claims[0].column, 9);  // the `[` after "| key | "
    EXPECT_EQ(mismatch_line("t.md", r.claims[0]),
              "t.md:3:9: /reads/example-14.1/weights/1: written 1/3, exact 1/4 (1/3 ≠ 1/4)");
    // A vector written where the single weight stands fails too (`[[1/3]]` shows `[1/3]`).
    const auto v = check_md("| w | [[1/3]]{.exact ref=\"/reads/example-14.1/weights/1\"} of the total |\n");
    ASSERT_EQ(v.claims.size(), 1U);
    EXPECT_FALSE(v.claims[0].passed);
}

TEST(ManuscriptCheck, TwoMarksInOneTableCellAreBothChecked) {
    const auto r = check_md(weight_table("1/4", "1/3"));
    ASSERT_EQ(r.claims.size(), 3U);
    EXPECT_TRUE(r.claims[1].passed);   // the colour's weight 1/2, first in the cell
    EXPECT_FALSE(r.claims[2].passed);  // the full stop's 1/4, written 1/3, second in the cell
    EXPECT_EQ(r.claims[2].line, 4);
    EXPECT_EQ(r.claims[2].column, 63);  // after "| two | " (8), the first mark (49) and " and " (5)
}

TEST(ManuscriptCheck, MarkWrappedInAGridTableCellIsReadWithoutTheBorders) {
    // A pandoc grid table whose cell wraps the mark over three lines: pandoc reads the cell as
    // `[1/2, 1/4, 1/4] of the total` (pandoc -t plain), and so is the written value read, the
    // `|` of the column edges left out. Example 14.1's weights are [1/2, 1/4, 1/4].
    auto grid = [](const std::string& last) {
        return "+-----+------------------------------------------+\n"
               "| all | [[1/2, 1/4,                              |\n"
               "|     | " +
               last +
               "]]{.exact                             |\n"
               "|     | ref=\"/reads/example-14.1/weights\"} of    |\n"
               "|     | the total                                |\n"
               "+-----+------------------------------------------+\n";
    };
    const auto right = check_md(grid("1/4"));
    ASSERT_EQ(right.claims.size(), 1U);
    EXPECT_TRUE(right.claims[0].passed) << right.claims[0].detail;
    EXPECT_EQ(right.claims[0].written, "[1/2, 1/4, 1/4]");
    const auto wrong = check_md(grid("1/3"));
    ASSERT_EQ(wrong.claims.size(), 1U);
    EXPECT_FALSE(wrong.claims[0].passed);
    EXPECT_EQ(wrong.claims[0].written, "[1/2, 1/4, 1/3]");
    EXPECT_EQ(wrong.claims[0].line, 2);
    EXPECT_EQ(wrong.claims[0].column, 9);
}

TEST(ManuscriptCheck, LatexMarkInTabularCellWithOtherTextIsChecked) {
    auto tabular = [](const std::string& key_weight) {
        return "% exactattn-scenario: chapter14\n"
               "\\begin{tabular}{ll}\n"
               "key & \\exact{/reads/example-14.1/weights/1}{$" +
               key_weight +
               "$} of the total \\\\\n"
               "two & \\exact{/reads/example-14.1/weights/0}{$\\tfrac12$} and "
               "\\exact{/reads/example-14.1/weights/2}{$\\tfrac{1}{4}$} \\\\\n"
               "\\end{tabular}\n";
    };
    const auto right = check_manuscript_text(tabular("\\tfrac{1}{4}"), "t.tex", ManuscriptFormat::Latex);
    ASSERT_EQ(right.claims.size(), 3U);
    EXPECT_EQ(right.wrong(), 0U);
    const auto wrong = check_manuscript_text(tabular("\\tfrac{1}{3}"), "t.tex", ManuscriptFormat::Latex);
    ASSERT_EQ(wrong.claims.size(), 3U);
    ASSERT_EQ(wrong.wrong(), 1U);
    EXPECT_FALSE(wrong.claims[0].passed);
    EXPECT_EQ(wrong.claims[0].line, 3);
    EXPECT_EQ(wrong.claims[0].column, 7);  // the `\exact` after "key & "
}

TEST(ManuscriptCheck, LatexChapterPasses) {
    const auto r = check_manuscript(test::source_path("data/chapter14/chapter14.tex"));
    EXPECT_GE(r.claims.size(), 60U);
    for (const auto& c : r.claims) EXPECT_TRUE(c.passed) << mismatch_line(r.file, c);
}

TEST(ManuscriptCheck, PlantedWrongNumbersInLatexAreCaughtAtTheirLine) {
    const std::string path = test::source_path("data/chapter14/chapter14.tex");
    const std::vector<std::pair<std::string, std::string>> plants = {
        // Table 14.1's exponential e^a = 2, and Table 14.3's full-stop readout 4a/3
        {"\\exact{/reads/example-14.1/exponentials/0}{2}", "\\exact{/reads/example-14.1/exponentials/0}{3}"},
        {"\\exact{/interventions/table-14.3/rows/3/readout}{$\\tfrac{4a}{3}$}",
         "\\exact{/interventions/table-14.3/rows/3/readout}{$\\tfrac{4a}{5}$}"},
        // c_2's decimal, last digit
        {"[0.173287,0.346574].}", "[0.173287,0.346575].}"},
    };
    for (const auto& [from, to] : plants) {
        std::string text = read(path);
        const int line = line_of(text, from);
        text.replace(text.find(from), from.size(), to);
        const auto r = check_manuscript_text(text, path, ManuscriptFormat::Latex);
        ASSERT_EQ(r.wrong(), 1U) << to;
        for (const auto& c : r.claims) {
            if (!c.passed) {
                EXPECT_EQ(c.line, line) << to;
            }
        }
    }
}

}  // namespace
}  // namespace exactattn
