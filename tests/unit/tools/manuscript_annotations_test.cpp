// SPDX-License-Identifier: MIT
// Findings placed for CI (docs/cli.md, "Annotations for CI"): GitHub's workflow-command escaping,
// SARIF 2.1.0's URIs, regions and rules, an expect entry's line, and fill's list of placeholders.
// Every expected string is written out by hand from GitHub's and SARIF's rules.
#include "exactattn/annotations.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "exactattn/manuscript.hpp"

namespace exactattn {
namespace {

TEST(GithubAnnotation, EscapesPercentAndLineBreaksInTheMessageAndColonsAndCommasInProperties) {
    const Annotation a{"book/ch 2, part: b.md", 6, 24, "wrong-claim", "100% of w: a, b"};
    EXPECT_EQ(github_annotation(a),
              "::error file=book/ch 2%2C part%3A b.md,line=6,col=24,title=exactattn wrong-claim::100%25 of w: a, b");
}

TEST(GithubAnnotation, ShowsControlCharactersSoThatNoSecondCommandCanBeForged) {
    const Annotation a{"x.md", 1, 1, "wrong-claim", "w\n::error file=y::forged"};
    const std::string line = github_annotation(a);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_EQ(line, "::error file=x.md,line=1,col=1,title=exactattn wrong-claim::w<U+000A>::error file=y::forged");
}

TEST(GithubAnnotation, LeavesOutALineAndColumnItDoesNotHave) {
    EXPECT_EQ(github_annotation({"s.json", 0, 0, "expect-mismatch", "m"}),
              "::error file=s.json,title=exactattn expect-mismatch::m");
}

TEST(SarifLog, PlacesEachResultAtItsPercentEncodedRelativeUriLineAndCodePointColumn) {
    const auto log = nlohmann::json::parse(
        sarif_log({{"book/ch2, ü.md", 6, 24, "wrong-claim", "m"}, {"/abs/s.json", 3, 0, "expect-mismatch", "n"}},
                  {"book/ch2, ü.md", "/abs/s.json"}, "verify"));
    EXPECT_EQ(log["version"], "2.1.0");
    const auto& run = log["runs"][0];
    EXPECT_EQ(run["columnKind"], "unicodeCodePoints");
    EXPECT_EQ(run["tool"]["driver"]["rules"][0]["id"], "wrong-claim");
    EXPECT_EQ(run["tool"]["driver"]["rules"][1]["id"], "expect-mismatch");
    const auto& first = run["results"][0];
    EXPECT_EQ(first["ruleId"], "wrong-claim");
    EXPECT_EQ(first["ruleIndex"], 0);
    EXPECT_EQ(first["level"], "error");
    const auto& where = first["locations"][0]["physicalLocation"];
    EXPECT_EQ(where["artifactLocation"]["uri"], "book/ch2%2C%20%C3%BC.md");  // ü is C3 BC in UTF-8
    EXPECT_EQ(where["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    EXPECT_EQ(where["region"]["startLine"], 6);
    EXPECT_EQ(where["region"]["startColumn"], 24);
    const auto& second = run["results"][1];
    EXPECT_EQ(second["ruleIndex"], 1);
    const auto& abs = second["locations"][0]["physicalLocation"];
    EXPECT_EQ(abs["artifactLocation"]["uri"], "file:///abs/s.json");
    EXPECT_FALSE(abs["artifactLocation"].contains("uriBaseId"));
    EXPECT_EQ(abs["region"]["startLine"], 3);
    EXPECT_FALSE(abs["region"].contains("startColumn"));
    EXPECT_EQ(run["artifacts"].size(), 2U);
}

TEST(SarifLog, DeclaresTheAuditsWrongUnmarkedNumbersAsTheirOwnRule) {
    const auto log = nlohmann::json::parse(
        sarif_log({{"book/two.tex", 4, 38, "unmarked-wrong", "written 1/3"}}, {"book/two.tex"}, "manuscript check"));
    const auto& run = log["runs"][0];
    EXPECT_EQ(run["tool"]["driver"]["rules"][2]["id"], "unmarked-wrong");
    EXPECT_EQ(run["results"][0]["ruleId"], "unmarked-wrong");
    EXPECT_EQ(run["results"][0]["ruleIndex"], 2);
    EXPECT_EQ(run["results"][0]["level"], "error");
}

TEST(ExpectLine, IsTheLineOfThePointersKey) {
    const std::string text = "{\n  \"expect\": {\n    \"/reads/r/weights\": [\"1/2\"],\n    \"/reads/r\": 1\n  }\n}\n";
    EXPECT_EQ(expect_line(text, "/reads/r/weights"), 3);
    EXPECT_EQ(expect_line(text, "/reads/r"), 4);  // the quoted key, not the prefix of line 3
    EXPECT_EQ(expect_line(text, "/reads/none"), 0);
}

TEST(FillPlaceholders, ListsEachReplacementWithItsPlaceIncludingTheQuartoShortcode) {
    // By hand: Example 14.1's weights are [1/2, 1/4, 1/4] and its denominator 2 + 1 + 1 = 4.
    const std::string text =
        "---\nexactattn-scenario: chapter14\n---\n\nW {{/reads/example-14.1/weights}}\n"
        "D {{< exactattn /reads/example-14.1/denominator >}}, kept {{< include x.qmd >}} {{{< exactattn /x >}}}\n";
    const FillResult r = fill_manuscript_text(text, "t.qmd", ManuscriptFormat::Markdown);
    ASSERT_EQ(r.placeholders.size(), 2U);
    EXPECT_EQ(r.placeholders[0].line, 5);
    EXPECT_EQ(r.placeholders[0].column, 3);
    EXPECT_EQ(r.placeholders[0].source, "{{/reads/example-14.1/weights}}");
    EXPECT_EQ(r.placeholders[0].filled, "[1/2, 1/4, 1/4]");
    EXPECT_EQ(r.placeholders[1].line, 6);
    EXPECT_EQ(r.placeholders[1].source, "{{< exactattn /reads/example-14.1/denominator >}}");
    EXPECT_EQ(r.placeholders[1].filled, "4");
    EXPECT_EQ(r.text,
              "---\nexactattn-scenario: chapter14\n---\n\nW [1/2, 1/4, 1/4]\n"
              "D 4, kept {{< include x.qmd >}} {{{< exactattn /x >}}}\n");
}

}  // namespace
}  // namespace exactattn
