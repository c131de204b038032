// SPDX-License-Identifier: MIT
// check: answers as written (decimals, percentages, expressions in e) under declared tolerances,
// and each entry of the mistake registry recognised in a wrong answer worked out by hand.
#include "exactattn/check.hpp"

#include <gtest/gtest.h>

#include "exactattn/answer_entry.hpp"
#include "exactattn/error.hpp"
#include "exactattn/scenario.hpp"
#include "scenario/vocabulary.hpp"
#include "support/check_support.hpp"
#include "support/support.hpp"

namespace exactattn {
namespace {

// θ = 2^(1/3). Memory [[0], [a/3], [2a/3]] read with query [1]: scores [0, a/3, 2a/3],
// exponentials [1, θ, θ²], total 1 + θ + θ². Since θ³ = 2, (θ − 1)(θ² + θ + 1) = θ³ − 1 = 1,
// so the weights are [θ − 1, θ(θ − 1), θ²(θ − 1)] = [θ − 1, θ² − θ, 2 − θ²]
// = [0.2599210499, 0.3274800021, 0.4125989480] (θ = 1.2599210499, θ² = 1.5874010520).
// Memory [[0], [a], [2a], [a]]: exponentials [1, 2, 4, 2], total 9; removing position 4 leaves
// [1, 2, 4] over 7: weights [1/7, 2/7, 4/7, 0].
const char* kThirds = R"({
  "sources": {"thirds": {"memory": [["0"], ["a/3"], ["2a/3"]]},
              "four": {"memory": [["0"], ["a"], ["2a"], ["a"]]}},
  "queries": {"one": [1]}, "readouts": {"identity": [1]},
  "reads": {"thirds": {"source": "thirds", "query": "one", "readout": "identity"}},
  "interventions": {"drop-4": {"kind": "remove-state", "source": "four", "query": "one",
                               "readout": "identity", "positions": [4]}}})";

const Report& thirds() {
    static const Report r = run_scenario(parse_scenario(kThirds, "thirds.json"));
    return r;
}
const Report& chapter() {
    static const Report r = run_scenario(load_scenario("chapter14"));
    return r;
}

using test::check;

TEST(Check, DecimalForCubeRootUnderSixDecimalPlaces) {
    // 2^(1/3) − 1 = 0.259921049…: to 6 places 0.259921.
    Judgement j = check(thirds(), "/reads/thirds/weights/0", "0.259921", "decimal-places:6");
    EXPECT_TRUE(j.correct) << judgement_text(j);
    EXPECT_EQ(j.rule, "6 decimal places (written with 6)");
    EXPECT_EQ(proposed_text(j, Notation::Ascii), "0.259921");  // as written, not 259921/1000000
    // NumDecPlaces wants exactly n places written: 0.25992 has 5 (and is 1.05e-6 away).
    j = check(thirds(), "/reads/thirds/weights/0", "0.25992", "decimal-places:6");
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.rule, "6 decimal places (written with 5)");
    // 0.259922 is 9.5e-7 away, over half a unit in the 6th place (5e-7).
    EXPECT_FALSE(check(thirds(), "/reads/thirds/weights/0", "0.259922", "decimal-places:6").correct);
    // No tolerance declared: a decimal is held to the places it shows.
    j = check(thirds(), "/reads/thirds/weights/0", "0.26");
    EXPECT_TRUE(j.correct);
    EXPECT_EQ(j.rule, "a decimal to the 2 decimal places written");
    // The exact form is judged by exact value: 2^(1/3) − 1 is right, 0.259921 as a fraction is not.
    EXPECT_TRUE(check(thirds(), "/reads/thirds/weights/0", "2^(1/3) - 1").correct);
    EXPECT_FALSE(check(thirds(), "/reads/thirds/weights/0", "259921/1000000").correct);
}

TEST(Check, SignificantFiguresAbsoluteRelativeAndPercent) {
    // 2 − θ² = 0.41259894…: 0.4126 to 4 significant figures (|0.4126 − 0.41259894| = 1.06e-6
    // ≤ 5e-5); 0.413 has 3 figures, not 4.
    EXPECT_TRUE(check(thirds(), "/reads/thirds/weights/2", "0.4126", "significant-figures:4").correct);
    Judgement j = check(thirds(), "/reads/thirds/weights/2", "0.413", "significant-figures:4");
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.rule, "4 significant figures (written with 3)");
    // Absolute 1/1000: |0.412 − 0.412599| = 5.99e-4 < 1e-3; |0.411 − …| = 1.599e-3 is not.
    EXPECT_TRUE(check(thirds(), "/reads/thirds/weights/2", "0.412", "absolute:1/1000").correct);
    EXPECT_FALSE(check(thirds(), "/reads/thirds/weights/2", "0.411", "absolute:1/1000").correct);
    // Relative 1/100: |0.41 − 0.412599| = 2.6e-3 ≤ 4.126e-3.
    EXPECT_TRUE(check(thirds(), "/reads/thirds/weights/2", "0.41", "relative:1/100").correct);
    // 41.26% is 0.4126, held to 4 decimal places of the value; the rule names the 2 places of the
    // percentage as written.
    j = check(thirds(), "/reads/thirds/weights/2", "41.26%");
    EXPECT_TRUE(j.correct);
    EXPECT_EQ(j.rule, "a percentage to the 2 decimal places written");
    // 41% is 0.41, |0.41 − 0.412599| = 2.6e-3 ≤ 5e-3: right, to the whole percent written (not
    // "2 decimal places", the places of 0.41); 41.3% is 0.413, |0.413 − 0.412599| = 4.0e-4 ≤ 5e-4.
    j = check(thirds(), "/reads/thirds/weights/2", "41%");
    EXPECT_TRUE(j.correct);
    EXPECT_EQ(j.rule, "a percentage to the whole percent written");
    j = check(thirds(), "/reads/thirds/weights/2", "41.3%");
    EXPECT_TRUE(j.correct);
    EXPECT_EQ(j.rule, "a percentage to the 1 decimal place written");
}

// The absolute rule is inclusive, as Moodle's numerical question is (docs/check.md): a memory
// [[-9/5]] read with query [0] has score 0, weight 1 and context −9/5. |−1.799 − (−1.8)| = 0.001
// exactly, at the boundary: right; |−1.7989 − (−1.8)| = 0.0011 > 0.001: wrong; −1.801 from
// the other side is 0.001 away again: right.
TEST(Check, AbsoluteToleranceIncludesItsBoundaryExactly) {
    static const Report nine_fifths = run_scenario(parse_scenario(
        R"({"sources": {"m": {"memory": [["-9/5"]]}}, "reads": {"r": {"source": "m", "query": [0]}}})", "nf.json"));
    Judgement j = check(nine_fifths, "/reads/r/context/0", "-1.799", "absolute:0.001");
    EXPECT_TRUE(j.correct) << judgement_text(j);
    EXPECT_EQ(j.rule, "absolute tolerance 1/1000");
    EXPECT_TRUE(check(nine_fifths, "/reads/r/context/0", "-1.801", "absolute:0.001").correct);
    EXPECT_FALSE(check(nine_fifths, "/reads/r/context/0", "-1.7989", "absolute:0.001").correct);
    // Relative 1/1800 of 9/5 is the same 0.001: inclusive as well.
    EXPECT_TRUE(check(nine_fifths, "/reads/r/context/0", "-1.799", "relative:1/1800").correct);
    EXPECT_FALSE(check(nine_fifths, "/reads/r/context/0", "-1.7989", "relative:1/1800").correct);
}

// A small distance is written as a decimal, never in e-notation (docs/check.md): 2^(1/3) − 1 =
// 0.2599210499…, and 0.25983 (5 places written, so held to ½·10^−5) is 0.0000910499… away:
// 0.0000910 to 3 significant figures, printed without the trailing zero.
TEST(Check, ASmallDistanceIsWrittenWithoutENotation) {
    const Judgement j = check(thirds(), "/reads/thirds/weights/0", "0.25983");
    EXPECT_FALSE(j.correct);
    const std::string text = judgement_text(j);
    EXPECT_NE(text.find("it is 0.000091 from the exact value"), std::string::npos) << text;
    EXPECT_EQ(text.find("e-0"), std::string::npos) << text;
}

// On a layer's row the positions a read removes are masked keys, and the mistakes say so
// (issue 37). Head 1 of data/examples/self-attention.json, row 2 (query cat): scores a, 2a and,
// for the masked key 3, x_2·x_3·a = a; exponentials 2, 4 (and 2 for key 3); weights [1/3, 2/3, 0].
//   the mask after the softmax: [2, 4]/(2 + 4 + 2) = [1/4, 1/2, 0];
//   masked key given score 0: exponentials 2, 4, 1 over 7: [2/7, 4/7, 1/7];
//   the unmasked keys only: [1/3, 2/3].
TEST(Check, LayerMistakesSayMaskedNotRemoved) {
    static const Report layer =
        run_scenario(load_scenario(std::string(EXACTATTN_SOURCE_DIR) + "/data/examples/self-attention.json"));
    const std::string target = "/layers/causal/heads/0/weights/1";
    Judgement j = check(layer, target, "[1/4, 1/2, 0]");
    EXPECT_EQ(j.mistake,
              "the mask was applied after the softmax: with key 3 masked, the weights still divide by the "
              "full sum 8 instead of 6");
    j = check(layer, target, "[2/7, 4/7, 1/7]");
    EXPECT_EQ(j.mistake,
              "the masked key's score was set to zero instead of masking the key; a zero score still "
              "contributes exponential 1");
    j = check(layer, target, "[1/3, 2/3]");
    EXPECT_EQ(j.mistake, "only the weights of the unmasked keys (1 and 2) were listed; masked key 3 has weight 0");
}

TEST(Check, EveryRegistryMistakeFromHandWorkedAnswers) {
    struct Case {
        const Report* rep;
        const char* target;
        const char* proposed;
        const char* id;
    };
    // Example 14.1: scores [a, 0, 0], exponentials [2, 1, 1], total 4, weights [1/2, 1/4, 1/4].
    const Case cases[] = {
        // divided by the count 3: [2/3, 1/3, 1/3].
        {&chapter(), "/reads/example-14.1/weights", "[2/3, 1/3, 1/3]", "divide-by-count"},
        // scores normalised without exp: [a, 0, 0]/a = [1, 0, 0].
        {&chapter(), "/reads/example-14.1/weights", "[1, 0, 0]", "forget-exp"},
        // e^1 for 2^1: exponentials [e, 1, 1] ...
        {&chapter(), "/reads/example-14.1/exponentials", "[e, 1, 1]", "e-instead-of-2"},
        // ... and weights e/(e + 2) = 0.576117, 1/(e + 2) = 0.211942 (e = 2.718281828).
        {&chapter(), "/reads/example-14.1/weights", "[0.576117, 0.211942, 0.211942]", "e-instead-of-2"},
        // thirds with e: [1, e^(1/3), e^(2/3)] / 4.343346 = [0.230237, 0.321322, 0.448441].
        {&thirds(), "/reads/thirds/weights", "[0.230237, 0.321322, 0.448441]", "e-instead-of-2"},
        // equal weights over the three positions.
        {&chapter(), "/reads/example-14.1/weights", "[1/3, 1/3, 1/3]", "equal-weights"},
        // exponentials as weights: [2, 1, 1].
        {&chapter(), "/reads/example-14.1/weights", "[2, 1, 1]", "unnormalized-exponentials"},
        // Removing position 4 of [1, 2, 4, 2] and keeping the total 9: [1/9, 2/9, 4/9, 0].
        {&thirds(), "/interventions/drop-4/rows/1/weights", "[1/9, 2/9, 4/9, 0]", "forget-renormalize"},
        // Table 14.2, key removed: the weights [2/3, 1/3] of positions 1 and 3 only.
        {&chapter(), "/interventions/table-14.2/rows/2/weights", "[2/3, 1/3]", "remaining-weights"},
        // Table 14.2, color zero-scored instead of removed: exponentials [1, 1, 1], weights 1/3 each.
        {&chapter(), "/interventions/table-14.2/rows/1/weights", "[1/3, 1/3, 1/3]", "zero-score-for-removal"},
        // Table 14.3, key deleted on the frozen memory: states [a, 0] and [0, 0] keep weights
        // [2/3, 1/3], context [2a/3, 0] (re-encoding makes the full stop [a, 0]).
        {&chapter(), "/interventions/table-14.3/rows/2/context", "[2a/3, 0]", "delete-without-reencoding"},
        // Right weights [1/2, 1/4, 1/4] on the embeddings [a, 0], [−a, a], [0, −a] instead of the
        // states: [a/2 − a/4, a/4 − a/4] = [a/4, 0].
        {&chapter(), "/reads/example-14.1/context", "[a/4, 0]", "embeddings-instead-of-states"},
        // Exercise 1: readout 6a/5 written without a.
        {&chapter(), "/reads/exercise-1/readout", "6/5", "drop-a"},
    };
    for (const auto& c : cases) {
        const Judgement j = check(*c.rep, c.target, c.proposed);
        EXPECT_FALSE(j.correct) << c.proposed;
        EXPECT_EQ(j.mistake_id, c.id) << c.target << " " << c.proposed << ": " << judgement_text(j);
        EXPECT_EQ(j.feedback, "Wrong: " + j.mistake + ".");
    }
}

TEST(Check, RemainingWeightsAcceptedWhenAllowed) {
    const Judgement j =
        check(chapter(), "/interventions/table-14.2/rows/2/weights", "[2/3, 1/3]", "", {"remaining-weights"});
    EXPECT_TRUE(j.correct) << judgement_text(j);
    EXPECT_EQ(j.mistake_id, "remaining-weights");
    ASSERT_EQ(j.findings.size(), 1U);
    EXPECT_EQ(j.findings[0],
              "accepted: only the weights of the remaining positions (1 and 3) were listed; position 2 "
              "has weight 0 (the exercise allows remaining-weights)");
}

TEST(Check, UnknownWrongAnswerSaysHowFar) {
    // [0.3, 0.3, 0.4] against [1/2, 1/4, 1/4]: differences 0.2, 0.05, 0.15; the largest 0.2.
    const Judgement j = check(chapter(), "/reads/example-14.1/weights", "[0.3, 0.3, 0.4]");
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.mistake_id, "");
    EXPECT_EQ(j.distance, "0.2");
    EXPECT_EQ(j.feedback, "Wrong: no known mistake reproduces it; it is up to 0.2 from the exact value (entry 1).");
}

TEST(Check, HowFarIsRoundedFromTheExactDistance) {
    // [0.3765, 0.25, 0.25] against [1/2, 1/4, 1/4]: the distances are 0.1235, 0 and 0, and
    // 0.1235 to 3 significant figures is a tie, rounded to even: 0.124. (Through a double,
    // 0.1235 is 0.12349999…, which printed 0.123.)
    const Judgement j = check(chapter(), "/reads/example-14.1/weights", "[0.3765, 0.25, 0.25]");
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.mistake_id, "");
    EXPECT_EQ(j.distance, "0.124");
}

// A count's distance is whole and never in e-notation (#24): Exercise 5's 1600 bytes (§14.10:
// 200 × 8) against a learner's 200 is 1400 away, not "1.4e+03".
TEST(Check, CountDistanceIsWhole) {
    const Judgement j = check(chapter(), "/costs/exercise-5/stored_bytes", "200");
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.distance, "1400");
    // 1234.5 to the unit: a tie, rounded to even, 1234; 1234.75 is 1235.
    EXPECT_EQ(distance_text(Real::of(Value(mpq_class(2469, 2)))), "1234");
    EXPECT_EQ(distance_text(Real::of(Value(mpq_class(4939, 4)))), "1235");
}

// Entries the notation refuses, with what the learner probably meant (#24).
TEST(Check, RefusedEntriesGetHints) {
    EXPECT_ERROR_HAS(parse_answer_entry("0,5858"), ErrorKind::Parse,
                     "a decimal is written with a point: 0.5858 (a comma separates the entries of a list)");
    EXPECT_ERROR_HAS(parse_answer_entry("2-sqrt2"), ErrorKind::Parse, "a square root takes parentheses: 2-sqrt(2)");
    // 2 − √2 = 0.5857864…: with the hint taken, the entry is exact.
    EXPECT_EQ(*parse_answer_entry("2-sqrt(2)").value.exact, Value(2) - Value::exp2(mpq_class(1, 2)));
}

// The feedback the learner reads says why a decimal fails a declared rule (#24 item 8). θ = ∛2:
// the weight (4 − 2θ + θ²)/5 = 0.613512… (docs/check.md, by hand); 0.614 has 3 places.
// Two-step mistakes on a layer head's whole weights, made row by row as a single mistake is (issue
// 37). Head 1 of data/examples/self-attention.json (causal, scale 1/√4): scaled scores [a];
// [a, 2a]; [0, a, 2a]. Without the scale they double, [2a]; [2a, 4a]; [0, 2a, 4a], exponentials
// [4]; [4, 16]; [1, 4, 16], and divided by the count of keys each query sees (1, 2, 3):
// [4, 0, 0]; [2, 8, 0]; [1/3, 4/3, 16/3].
TEST(Check, TwoStepMistakesOnAWholeLayerHead) {
    static const Report layer =
        run_scenario(load_scenario(std::string(EXACTATTN_SOURCE_DIR) + "/data/examples/self-attention.json"));
    const Judgement j = check(layer, "/layers/causal/heads/0/weights", "[[4, 0, 0], [2, 8, 0], [1/3, 4/3, 16/3]]");
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.mistake_id, "divide-by-count+forget-scale") << j.feedback;
    EXPECT_NE(j.mistake.find("row by row: the scores were not divided by √d_k = √4"), std::string::npos) << j.mistake;
}

TEST(Check, FeedbackSaysThePlacesAsked) {
    const Report rep = run_scenario(load_scenario(test::source_path("data/examples/fractional-scores.json")));
    const Judgement j = check(rep, "/reads/cbrt2/weights/0", "0.614", "decimal-places:4");
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.feedback,
              "Wrong: it is written with 3 decimal places where 4 were asked (it is 0.000488 from the "
              "exact value).");
    // 0.61 has 2 significant figures where 3 are asked.
    const Judgement f = check(rep, "/reads/cbrt2/weights/0", "0.61", "significant-figures:3");
    EXPECT_NE(
        std::find(f.findings.begin(), f.findings.end(), "it was written with 2 significant figures where 3 were asked"),
        f.findings.end());
    // The exact value in the display form, not term by term (4/5 − 2∛2/5 + ∛4/5).
    EXPECT_NE(judgement_text(j).find("exact (4 − 2∛2 + ∛4)/5;"), std::string::npos) << judgement_text(j);
}

// A list of decimals written with commas reads as twice the entries (#24 item 8): Example 14.1's
// weights [1/2, 1/4, 1/4] as [0,5, 0,25, 0,25] are six entries, and the finding says why.
TEST(Check, DecimalCommasInAListAreNamed) {
    const Judgement j = check(chapter(), "/reads/example-14.1/weights", "[0,5, 0,25, 0,25]");
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.findings.back(),
              "decimals written with a comma? 0,5 reads as two entries; a decimal is written with a point, 0.5");
    EXPECT_EQ(j.feedback, "Wrong: no known mistake reproduces it; " + j.findings.back() + ".");
}

TEST(Check, RegistryIds) {
    const auto ids = mistake_ids();
    for (const char* id : {"divide-by-count", "forget-exp", "e-instead-of-2", "forget-renormalize", "drop-a",
                           "remaining-weights", "zero-score-for-removal", "delete-without-reencoding", "forget-scale",
                           "mask-off-by-one-late", "mask-off-by-one-early", "wrong-axis"}) {
        EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
    }
}

// The loader checks `mistakes_differ` against its own list (it may not include the check tool),
// so that list must be exactly the registry's wrong methods, in the registry's order.
TEST(Check, LoaderKnowsExactlyTheRegistrysWrongMethods) {
    EXPECT_EQ(detail::variation_mistake_ids(), wrong_method_ids());
}

TEST(Check, AnswerEntryForms) {
    AnswerEntry e = parse_answer_entry("0.0010");
    EXPECT_EQ(e.form, AnswerEntry::Form::Decimal);
    EXPECT_EQ(e.decimals, 4);
    EXPECT_EQ(e.sig_min, 2);  // STACK: 0.0010 has exactly 2 significant figures
    EXPECT_EQ(e.sig_max, 2);
    e = parse_answer_entry("100.");
    EXPECT_EQ(e.sig_min, 3);
    e = parse_answer_entry("1.5e-3");
    EXPECT_EQ(e.decimals, 4);
    EXPECT_EQ(*e.value.exact, Value(mpq_class(3, 2000)));
    e = parse_answer_entry("12.5%");
    EXPECT_EQ(e.form, AnswerEntry::Form::Percent);
    EXPECT_EQ(*e.value.exact, Value(mpq_class(1, 8)));
    EXPECT_EQ(e.decimals, 3);
    e = parse_answer_entry("e^2/(e^2 + 2)");
    EXPECT_EQ(e.form, AnswerEntry::Form::Outside);
    // e²/(e² + 2) = 7.3890561/9.3890561 = 0.786986 (e² = 7.3890560989).
    const RationalInterval r = e.value.at(64);
    EXPECT_GT(r.lo, mpq_class(786985, 1000000));
    EXPECT_LT(r.hi, mpq_class(786987, 1000000));
    EXPECT_EQ(parse_answer_entry("6a/5").form, AnswerEntry::Form::Exact);
    EXPECT_THROW(parse_answer_entry("e^x"), Error);
    EXPECT_THROW(parse_answer_entry("1/(e - e)"), Error);
}

TEST(Check, ClassAnswersCsv) {
    // RFC 4180: a quoted field holds commas, a doubled quote and a line break; CRLF ends records.
    const auto rows = read_class_answers(
        "target,student,answer\r\n"
        "/reads/example-14.1/weights,\"Lee, Ann\",\"[2/3,1/3,1/3]\"\r\n"
        "/reads/exercise-1/readout,\"B \"\"Bo\"\"\",\"6a/5\"\n",
        "class.csv");
    ASSERT_EQ(rows.size(), 2U);
    EXPECT_EQ(rows[0].student, "Lee, Ann");
    EXPECT_EQ(rows[0].answer, "[2/3,1/3,1/3]");
    EXPECT_EQ(rows[1].student, "B \"Bo\"");
    EXPECT_EQ(rows[1].line, 3);
    try {
        read_class_answers("student,target,answer\nx,\"/a,1\n", "class.csv");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "class.csv:2: a quoted field is not closed");
    }
    try {
        read_class_answers("student,answer\n", "class.csv");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "class.csv:1: the header has no column \"target\" (it needs student, target and answer)");
    }
}

// A spreadsheet's UTF-8 byte order mark before the header is not part of the first column's
// name; text that is not UTF-8 (a name saved as Latin-1, é as byte 0xE9) is refused at its
// line and column (by hand: "Jos" fills columns 1 to 3 of line 2).
TEST(Check, ClassAnswersCsvTakesAByteOrderMarkAndRefusesOtherEncodings) {
    const auto rows =
        read_class_answers("\xEF\xBB\xBFstudent,target,answer\r\nann,/reads/exercise-1/readout,6a/5\r\n", "class.csv");
    ASSERT_EQ(rows.size(), 1U);
    EXPECT_EQ(rows[0].student, "ann");
    EXPECT_EQ(rows[0].target, "/reads/exercise-1/readout");
    try {
        read_class_answers("student,target,answer\nJos\xE9,/reads/exercise-1/readout,6a/5\n", "class.csv");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Parse);
        EXPECT_STREQ(e.what(), "class.csv:2:4: invalid UTF-8: invalid UTF-8 byte 0xE9 at line 2, column 4");
    }
}

}  // namespace
}  // namespace exactattn
