// SPDX-License-Identifier: MIT
// Feedback in one voice (docs/check.md, docs/variants.md): each class of wording a learner or a
// teacher reads, held at its source — counts in the number they ask for, Moodle feedback that
// names a only when the value has one and writes one minus sign, a layer's declared caption that
// keeps the table saying what it shows, the padding forgotten named on a padded layer, the
// decimal-comma hint when a 0 sits among the decimals.
#include <gtest/gtest.h>

#include "exactattn/check.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/variants.hpp"
#include "exactattn/wording.hpp"
#include "support/check_support.hpp"

namespace exactattn {
namespace {

TEST(FeedbackWording, CountsTakeTheNumberTheyAskFor) {
    EXPECT_EQ(counted(0, "file"), "0 files");
    EXPECT_EQ(counted(1, "file"), "1 file");
    EXPECT_EQ(counted(2, "claim"), "2 claims");
    EXPECT_EQ(counted(1, "answer does not parse", "answers do not parse"), "1 answer does not parse");
    EXPECT_EQ(counted(3, "answer does not parse", "answers do not parse"), "3 answers do not parse");
}

// 18a/11 = 18 · 0.693147180559945309… / 11 = 1.13424084091627414…; −9/5 = −1.8 exactly.
TEST(FeedbackWording, MoodleFeedbackNamesAOnlyWhereTheValueHasOneWithOneMinusSign) {
    EXPECT_EQ(moodle_exact_feedback(parse_value("18a/11")), "Exact value: 18a/11 with a = ln 2 (≈ 1.13424084091627).");
    EXPECT_EQ(moodle_exact_feedback(parse_value("-9/5")), "Exact value: −9/5 (≈ −1.80000000000000).");
    EXPECT_EQ(moodle_exact_feedback(parse_value("-a")), "Exact value: −a with a = ln 2 (≈ −0.693147180559945).");
    EXPECT_EQ(moodle_exact_feedback(parse_value("2^(1/2) - 1")), "Exact value: √2 − 1 (≈ 0.414213562373095).");
}

// A layer's declared caption leads its first table's caption; the table still says it shows
// scores. One head, so the table is "Scores (masked: —)".
TEST(FeedbackWording, DeclaredLayerCaptionKeepsSayingTheTableShowsScores) {
    const char* kLayer = R"({
  "sequences": {"x": {"rows": [[1, 0], [0, 1]]}},
  "matrices": {"I": [[1, 0], [0, 1]], "aI": [["a", 0], [0, "a"]]},
  "layers": {"l": {"sequence": "x", "heads": [{"wq": "I", "wk": "aI", "wv": "I"}], "causal": true,
                   "number": "15.1", "caption": "A causal layer over two tokens"}}
})";
    const std::string text = render(report_document(run_scenario(parse_scenario(kLayer, "l.json"))), Format::Text);
    EXPECT_NE(text.find("Table 15.1 — A causal layer over two tokens: Scores (masked: —)"), std::string::npos) << text;
    const std::string ended = R"({
  "sequences": {"x": {"rows": [[1, 0], [0, 1]]}},
  "matrices": {"I": [[1, 0], [0, 1]], "aI": [["a", 0], [0, "a"]]},
  "layers": {"l": {"sequence": "x", "heads": [{"wq": "I", "wk": "aI", "wv": "I"}], "caption": "Two tokens."}}
})";
    const std::string t2 = render(report_document(run_scenario(parse_scenario(ended, "l.json"))), Format::Text);
    EXPECT_NE(t2.find("Two tokens. Scores (masked: —)"), std::string::npos) << t2;
}

// Rows x = [1, 0], [0, 1], [0, 0] (the pad token, position 3, padded), W_Q = I, W_K = a·I: the pad
// key is k_3 = 0, so every query scores it 0. Query 3 (the pad token's own row) scores [0, 0, —]:
// weights [1/2, 1/2, 0]; with the padding forgotten, [0, 0, 0] gives [1/3, 1/3, 1/3], which a zero
// score for the masked key gives too: the padding forgotten is named. Query 1 scores [a, 0, —]:
// [2/3, 1/3, 0]; forgotten, [2, 1, 1]/4 = [1/2, 1/4, 1/4].
TEST(FeedbackWording, PaddedKeyForgottenIsNamedThePaddingMask) {
    const char* kPad = R"({
  "sequences": {"x": {"rows": [[1, 0], [0, 1], [0, 0]], "tokens": ["red", "key", "<pad>"]}},
  "matrices": {"I": [[1, 0], [0, 1]], "aI": [["a", 0], [0, "a"]]},
  "layers": {"pad": {"sequence": "x", "heads": [{"wq": "I", "wk": "aI", "wv": "I"}], "padding": [3]}}
})";
    const Report rep = run_scenario(parse_scenario(kPad, "pad.json"));
    const Judgement own = test::check(rep, "/layers/pad/heads/0/weights/2", "[1/3, 1/3, 1/3]");
    EXPECT_EQ(own.mistake_id, "forget-padding-mask") << own.feedback;
    EXPECT_EQ(own.feedback, "Wrong: the padding mask was forgotten: the padded key position 3 kept its weight.");
    EXPECT_EQ(test::check(rep, "/layers/pad/heads/0/weights/0", "[1/2, 1/4, 1/4]").mistake_id, "forget-padding-mask");
}

// Table 14.2's row 2 is [2/3, 0, 1/3]; written with decimal commas, [0,6667, 0, 0,3333] reads as
// five entries, the 0 between the two decimals among them.
TEST(FeedbackWording, DecimalCommaHintWithAZeroAmongTheDecimals) {
    const Report rep = run_scenario(load_scenario("chapter14"));
    const Judgement j = test::check(rep, "/interventions/table-14.2/rows/2/weights", "[0,6667, 0, 0,3333]");
    EXPECT_FALSE(j.correct);
    ASSERT_EQ(j.findings.size(), 2U) << j.feedback;
    EXPECT_EQ(j.findings[0], "5 values proposed where the answer has 3");
    EXPECT_EQ(j.findings[1],
              "decimals written with a comma? 0,6667 reads as two entries; a decimal is written with a point, 0.6667");
    // [12, -3, -4, -5, 6]: a decimal's digits carry no sign, so the only pair is -5,6, which leaves
    // four entries, not three: no reading fits, no hint.
    const Judgement none = test::check(rep, "/interventions/table-14.2/rows/2/weights", "[12, -3, -4, -5, 6]");
    EXPECT_EQ(none.findings.size(), 1U) << none.findings.back();
}

}  // namespace
}  // namespace exactattn
