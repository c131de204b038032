// SPDX-License-Identifier: MIT
// Tables (table.hpp): aligned text with display widths, GitHub Markdown, RFC 4180 CSV, the
// LaTeX escaping of prose, and the LaTeX and HTML forms through the document renderers. Every
// expected text is written out by hand from the layout rules in the comments.
#include "exactattn/table.hpp"

#include "render/writer.hpp"

#include <gtest/gtest.h>

#include "support/support.hpp"

using namespace exactattn;

namespace {

// The first two rows of Table 14.1 (§14.2), cells already printed.
Table table_14_1() {
    return Table{
        "Table 14.1", {"Position", "State", "Weight"}, {{"1: color", "[a, 0]", "1/2"}, {"2: key", "[0, a]", "1/4"}}};
}

}  // namespace

TEST(Table, TextAlignsColumnsTwoSpacesApart) {
    // Column widths: max("Position" 8, "1: color" 8, "2: key" 6) = 8, max("State" 5, "[a, 0]" 6) =
    // 6, max("Weight" 6, "1/2" 3) = 6. Each cell but the last is padded to its width plus two
    // spaces; the rule is the width in dashes; trailing spaces are dropped.
    EXPECT_EQ(table_14_1().text(),
              "Table 14.1\n"
              "Position  State   Weight\n"
              "--------  ------  ------\n"
              "1: color  [a, 0]  1/2\n"
              "2: key    [0, a]  1/4\n");
}

TEST(Table, TextCountsWideCharactersAsTwoColumns) {
    // 红色 and 钥匙 are two columns a character, 。 (U+3002) too: "1: 红色" is 3 + 4 = 7 columns,
    // "3: 。" is 3 + 2 = 5; the first column is max(5 "Token", 7, 5) = 7 wide.
    const Table t{"", {"Token", "e"}, {{"1: 红色", "[a, 0]"}, {"3: 。", "[0, −a]"}}};
    EXPECT_EQ(t.text(),
              "Token    e\n"
              "-------  -------\n"
              "1: 红色  [a, 0]\n"
              "3: 。    [0, −a]\n");
    // A combining accent takes no column: "é" written e + U+0301 is one column wide.
    const Table c{"", {"x", "y"}, {{"e\u0301", "1"}}};
    EXPECT_EQ(c.text(), "x  y\n-  -\ne\u0301  1\n");
}

TEST(Table, TextPadsShortRowsAndDropsTrailingSpaces) {
    // A row with fewer cells than headers has empty cells; an empty last cell leaves no spaces.
    const Table t{"", {"n", "value", "note"}, {{"1", "a"}, {"22", "", ""}}};
    EXPECT_EQ(t.text(),
              "n   value  note\n"
              "--  -----  ----\n"
              "1   a\n"
              "22\n");
}

// Regression: a scenario's label with a line break ("line\nbreak") split its row of the text
// and Markdown tables of `run` in two, and a terminal escape reached the terminal as is.
TEST(Table, ControlCharactersInCellsAreShownNotObeyed) {
    // "line<U+000A>break" is 4 + 8 + 5 = 17 columns; "<U+001B>[1m" is 8 + 3 = 11.
    const Table t{"", {"label", "v"}, {{"line\nbreak", "1"}, {"\x1b[1m", "2"}}};
    EXPECT_EQ(t.text(),
              "label              v\n"
              "-----------------  -\n"
              "line<U+000A>break  1\n"
              "<U+001B>[1m        2\n");
    EXPECT_EQ(t.markdown(), "| label | v |\n| --- | --- |\n| line<U+000A>break | 1 |\n| <U+001B>[1m | 2 |\n");
    // A C1 control (U+0085, NEXT LINE) too; a tab in a header as well.
    const Table c{"", {"a\tb"}, {{"x\u0085y"}}};
    EXPECT_EQ(c.text(), "a<U+0009>b\n----------\nx<U+0085>y\n");  // 1 + 8 + 1 = 10 wide
    // CSV quotes a line break instead (RFC 4180), as before.
    EXPECT_EQ(t.csv(), "label,v\r\n\"line\nbreak\",1\r\n\x1b[1m,2\r\n");
}

TEST(Table, TextTableProducesEachRowOnce) {
    // text_table calls the row producer once a row and keeps its cells for the lines: a row's
    // values are computed, printed and charged once, not once for the widths and again.
    std::size_t calls = 0;
    const std::string out = text_table("Squares", {"k", "k^2"}, 3, [&](std::size_t j, std::vector<std::string>& cells) {
        ++calls;
        const std::size_t k = (j + 1) * 10;  // 10, 20, 30
        cells = {std::to_string(k), std::to_string(k * k)};
    });
    EXPECT_EQ(calls, 3U);
    EXPECT_EQ(out,
              "Squares\n"
              "k   k^2\n"
              "--  ---\n"
              "10  100\n"
              "20  400\n"
              "30  900\n");
}

TEST(Table, MarkdownEscapesPipes) {
    EXPECT_EQ(table_14_1().markdown(),
              "**Table 14.1**\n"
              "\n"
              "| Position | State | Weight |\n"
              "| --- | --- | --- |\n"
              "| 1: color | [a, 0] | 1/2 |\n"
              "| 2: key | [0, a] | 1/4 |\n");
    // A '|' inside a cell would split it: it is written "\|". No caption, no caption line.
    const Table t{"", {"x|y", "z"}, {{"|a|", "b"}}};
    EXPECT_EQ(t.markdown(), "| x\\|y | z |\n| --- | --- |\n| \\|a\\| | b |\n");
    std::string row;
    markdown_row(row, {"only"}, 3);  // padded to 3 columns
    EXPECT_EQ(row, "| only |  |  |\n");
}

TEST(Table, CsvQuotesLikeRfc4180) {
    // Lines end in CRLF; a cell with a comma, a quote or a line break is quoted, quotes doubled.
    // The caption is not part of CSV.
    EXPECT_EQ(table_14_1().csv(),
              "Position,State,Weight\r\n"
              "1: color,\"[a, 0]\",1/2\r\n"
              "2: key,\"[0, a]\",1/4\r\n");
    std::string out;
    csv_row(out, {"say \"hi\"", "two\nlines", "plain"}, 4);
    EXPECT_EQ(out, "\"say \"\"hi\"\"\",\"two\nlines\",plain,\r\n");
    EXPECT_EQ(table_14_1().render(Format::Csv), table_14_1().csv());
}

TEST(Table, LatexEscapeOfProse) {
    // The ten special characters of LaTeX text.
    EXPECT_EQ(latex_escape("50% of $x_1$ & {y} #2"), "50\\% of \\$x\\_1\\$ \\& \\{y\\} \\#2");
    EXPECT_EQ(latex_escape("~^\\"), "\\textasciitilde{}\\textasciicircum{}\\textbackslash{}");
    // Mathematical characters go to math mode, dashes to TeX ligatures, CJK stays as it is.
    EXPECT_EQ(latex_escape("a ≈ 0.69, 2×2, −1"),
              "a \\ensuremath{\\approx} 0.69, 2\\ensuremath{\\times}2, \\ensuremath{-}1");
    EXPECT_EQ(latex_escape("1–2 — 红色…"), "1--2 --- 红色\\ldots{}");
    // Greek letters are math symbols in TeX (Latin Modern's text font has none); capitals that
    // TeX draws as Latin letters are those letters.
    EXPECT_EQ(latex_escape("θ = 2^(1/4), σ(x), Ω, Α"),
              "\\ensuremath{\\theta} = 2\\textasciicircum{}(1/4), \\ensuremath{\\sigma}(x), "
              "\\ensuremath{\\Omega}, A");
}

TEST(Table, LatexAndHtmlThroughTheDocumentRenderers) {
    // booktabs: one 'l' per column, \toprule, the header, \midrule, rows ending in \\, \bottomrule.
    const std::string tex = table_14_1().render(Format::Latex);
    EXPECT_NE(tex.find("\\begin{tabular}{lll}\n"
                       "\\toprule\n"
                       "Position & State & Weight \\\\\n"
                       "\\midrule\n"
                       "1: color & [a, 0] & 1/2 \\\\\n"
                       "2: key & [0, a] & 1/4 \\\\\n"
                       "\\bottomrule\n"
                       "\\end{tabular}}{\\exactattnTabular}{%\n"),
              std::string::npos)
        << tex;
    // HTML: the caption, column headers, and each row's first cell as its row header.
    const std::string html = table_14_1().render(Format::Html);
    EXPECT_NE(html.find("<caption>Table 14.1</caption>\n"
                        "<thead><tr><th scope=\"col\">Position</th><th scope=\"col\">State</th>"
                        "<th scope=\"col\">Weight</th></tr></thead>\n"
                        "<tbody>\n"
                        "<tr><th scope=\"row\">1: color</th><td>[a, 0]</td><td>1/2</td></tr>\n"
                        "<tr><th scope=\"row\">2: key</th><td>[0, a]</td><td>1/4</td></tr>\n"
                        "</tbody>\n"
                        "</table>\n"),
              std::string::npos)
        << html;
    // Cells are escaped for each format: & in LaTeX and in HTML.
    const Table amp{"", {"x"}, {{"R&D"}}};
    EXPECT_NE(amp.render(Format::Latex).find("R\\&D \\\\\n"), std::string::npos);
    EXPECT_NE(amp.render(Format::Html).find("<th scope=\"row\">R&amp;D</th>"), std::string::npos);
    EXPECT_EQ(table_14_1().render(Format::Text), table_14_1().text());
    EXPECT_EQ(table_14_1().render(Format::Markdown), table_14_1().markdown());
}

TEST(Table, FormatsByName) {
    EXPECT_EQ(parse_format("text"), Format::Text);
    EXPECT_EQ(parse_format("markdown"), Format::Markdown);
    EXPECT_EQ(parse_format("latex"), Format::Latex);
    EXPECT_EQ(parse_format("csv"), Format::Csv);
    EXPECT_EQ(parse_format("json"), Format::Json);
    EXPECT_EQ(parse_format("html"), Format::Html);
    EXPECT_ERROR(parse_format("pdf"), ErrorKind::Usage,
                 "unknown format \"pdf\"; expected text, markdown, latex, html, rst, csv or json");
    EXPECT_ERROR(table_14_1().render(Format::Json), ErrorKind::Usage,
                 "a table has no JSON form; use the report's JSON");
}

// The table of formats is whole: every row's name parses back to it, it has a title for messages,
// markup costs for the prediction and a writer; the CLI's lists are its names.
TEST(FormatTable, EveryRowIsWhole) {
    std::size_t prose = 0;
    for (const FormatInfo& f : formats()) {
        SCOPED_TRACE(std::string(f.name));
        EXPECT_EQ(parse_format(f.name), f.format);
        EXPECT_EQ(&format_info(f.format), &f);
        EXPECT_FALSE(f.title.empty());
        EXPECT_GE(f.markup_per_char, 1);
        EXPECT_GT(f.markup_per_value, 0);
        EXPECT_NE(detail::make_writer(f.format, RenderOptions{}), nullptr);
        prose += f.prose ? 1 : 0;
    }
    EXPECT_EQ(formats().size(), 7u);
    EXPECT_EQ(format_choices(), "text|markdown|latex|html|rst|csv|json");
    EXPECT_EQ(format_choices(/*prose_only=*/true), "text|markdown|latex|html|rst|json");
    EXPECT_EQ(format_names(true).size(), prose);
    EXPECT_EQ(format_words(), "text, markdown, latex, html, rst, csv or json");
    EXPECT_EQ(format_words(FormatKind::Prose), "text, markdown, latex, html, rst or json");
    EXPECT_EQ(format_words(FormatKind::Document), "text, markdown, latex, html, rst or csv");
}
