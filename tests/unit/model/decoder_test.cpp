// SPDX-License-Identifier: MIT
// Decoder rollouts (docs/decoder.md): the chapter's Table 14.4 situation worked by hand
// (data/chapter14/decoder-rollout.json, derivation in its notes), the tie rule, cross-entropy
// rounding, and the double path's report of an exact tie it breaks.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "exactattn/crosscheck.hpp"
#include "exactattn/decoder.hpp"
#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/report.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {

Report chapter() { return run_scenario(load_scenario(test::source_path("data/chapter14/decoder-rollout.json"))); }

Value val(const char* s) { return parse_value(s); }

}  // namespace

TEST(Decoder, ChapterRegimesPartAtStepTwo) {
    const Report rep = chapter();
    const RolloutResult& r = rep.rollout("table-14.4");
    // By hand (the scenario's notes): step 1 ties a and the at 3a, the rule picks a; teacher
    // forcing then feeds the and gets red, generation feeds a and gets blue.
    ASSERT_TRUE(r.teacher_forcing);
    EXPECT_EQ(r.teacher_forcing->tokens(), (std::vector<std::string>{"a", "red", "key", "."}));
    EXPECT_EQ(r.generation.tokens(), (std::vector<std::string>{"a", "blue", "key", "."}));
    EXPECT_EQ(r.generation.stopped, "end token");
    EXPECT_EQ(r.divergence.prefix_step, std::optional<std::size_t>(1));
    EXPECT_EQ(r.divergence.choice_step, std::optional<std::size_t>(2));
    const DecoderStep& s1 = r.teacher_forcing->steps[0];
    EXPECT_TRUE(s1.tie());
    EXPECT_EQ(s1.argmax, (std::vector<std::size_t>{1, 2}));
    EXPECT_FALSE(s1.agrees());
    // The reference's probability 256/849 and −ln(849/256) = 1.1988817418… rounded.
    EXPECT_EQ(*s1.reference_probability, val("256/849"));
    EXPECT_FALSE(s1.cross_entropy.has_value());
    EXPECT_EQ(s1.cross_entropy_decimal, "1.198882");
    // Costs: four sequential decoder steps, each scoring three source positions.
    EXPECT_EQ(r.teacher_forcing->costs.sequential_decoder_steps, 4);
    EXPECT_EQ(r.teacher_forcing->costs.dot_products, 12);
}

// Property: teacher forcing with the generated sequence as its reference repeats generation's
// trace exactly, step by step.
TEST(Decoder, TeacherForcingOnTheGeneratedSequenceRepeatsGeneration) {
    const Report rep = chapter();
    const Scenario& s = rep.scenario;
    RolloutSpec spec = s.rollouts.front();
    spec.reference = rep.rollout("table-14.4").generation.tokens();
    const RolloutResult r = run_rollout(*s.decoder, spec, s.source(spec.source).states, s.decoder_initial(spec.source));
    ASSERT_EQ(r.teacher_forcing->steps.size(), r.generation.steps.size());
    for (std::size_t i = 0; i < r.generation.steps.size(); ++i) {
        const DecoderStep& f = r.teacher_forcing->steps[i];
        const DecoderStep& g = r.generation.steps[i];
        SCOPED_TRACE(i + 1);
        EXPECT_EQ(f.input, g.input);
        EXPECT_EQ(f.query, g.query);
        EXPECT_EQ(f.read.context, g.read.context);
        EXPECT_EQ(f.read.denominator, g.read.denominator);
        EXPECT_EQ(f.pre_activation, g.pre_activation);
        EXPECT_EQ(f.state, g.state);
        EXPECT_EQ(f.scores, g.scores);
        EXPECT_EQ(f.argmax, g.argmax);
        EXPECT_EQ(f.chosen_token, g.chosen_token);
        EXPECT_TRUE(f.agrees());
    }
    EXPECT_FALSE(r.divergence.prefix_step);
    EXPECT_FALSE(r.divergence.choice_step);
}

// Property: every step's attention weights and output distribution sum to exactly 1.
TEST(Decoder, EveryStepsWeightsSumToOne) {
    for (const char* file : {"data/chapter14/decoder-rollout.json", "data/examples/decoder-tie.json"}) {
        const Report rep = run_scenario(load_scenario(test::source_path(file)));
        for (const auto& r : rep.rollouts) {
            for (const RegimeTrace* reg : {r.teacher_forcing ? &*r.teacher_forcing : nullptr, &r.generation}) {
                if (reg == nullptr) continue;
                for (const auto& st : reg->steps) {
                    Value sum;
                    for (std::size_t j = 0; j < st.read.weights.size(); ++j) sum += *st.read.weights.at(j);
                    EXPECT_EQ(sum, Value(1)) << file << " step " << st.step;
                    if (!st.distribution) continue;
                    Value total;
                    for (std::size_t j = 0; j < st.distribution->weights.size(); ++j)
                        total += *st.distribution->weights.at(j);
                    EXPECT_EQ(total, Value(1)) << file << " step " << st.step;
                }
            }
        }
    }
}

// Property: under an identity decoder whose state is the previous token's embedding (U = 0,
// C = 0, b = 0, E = I), teacher forcing reads with the supplied queries: q_1 = s_0 and
// q_t = s_{t-1} = E_y(y_{t-2}), so step t's read is attend() with the query supplied for it.
TEST(Decoder, IdentityDecoderReadsTheSuppliedQueries) {
    const Matrix memory = {{val("a"), val("0")}, {val("0"), val("a")}, {val("0"), val("0")}};
    const std::vector<Vector> queries = {{1, 0}, {0, 1}, {1, 1}, {0, 0}, {2, -1}};
    Decoder d;
    d.activation = Activation::Identity;
    d.recurrent = {{0, 0}, {0, 0}};
    d.input = {{1, 0}, {0, 1}};
    d.context = {{0, 0}, {0, 0}};
    d.bias = {0, 0};
    d.initial = queries[0];
    d.vocabulary = {{"<s>", queries[1]}, {"q3", queries[2]}, {"q4", queries[3]}, {"q5", queries[4]}};
    d.output = Matrix(4, Vector(4, Value(0)));
    d.start = "<s>";
    const std::vector<std::string> reference = {"q3", "q4", "q5", "<s>", "<s>"};
    const RegimeTrace t =
        roll_out(d, Memory(memory), *d.initial, Regime::TeacherForcing, queries.size(), reference, false);
    ASSERT_EQ(t.steps.size(), queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
        ReadRequest req;
        req.query = queries[i];
        const ReadTrace expected = attend(memory, req);
        EXPECT_EQ(t.steps[i].query, queries[i]);
        EXPECT_EQ(t.steps[i].read.context, expected.context);
        EXPECT_EQ(t.steps[i].read.denominator, expected.denominator);
        for (std::size_t j = 0; j < memory.size(); ++j)
            EXPECT_EQ(t.steps[i].read.weights.at(j), expected.weights.at(j));
    }
}

TEST(Decoder, RefusedTieStopsGenerationButNotTeacherForcing) {
    Scenario s = load_scenario(test::source_path("data/examples/decoder-tie.json"));
    s.decoder->ties = TieRule::Refuse;
    const Report rep = run_scenario(s);
    const RolloutResult& r = rep.rollout("tie");
    ASSERT_EQ(r.generation.steps.size(), 1U);
    EXPECT_EQ(r.generation.stopped, "tie refused");
    EXPECT_FALSE(r.generation.steps[0].chosen);
    EXPECT_EQ(r.generation.steps[0].argmax, (std::vector<std::size_t>{1, 2}));
    // Teacher forcing feeds the reference, so it goes on: step 2 chooses stop (by hand, notes).
    ASSERT_EQ(r.teacher_forcing->steps.size(), 2U);
    EXPECT_EQ(r.teacher_forcing->steps[1].chosen_token, "stop");
}

TEST(Decoder, RationalScoresRefuseTheDistributionWithTheReason) {
    const Report rep = run_scenario(load_scenario(test::source_path("data/examples/decoder-tie.json")));
    const DecoderStep& st = rep.rollout("tie").generation.steps[0];
    EXPECT_FALSE(st.distribution);
    EXPECT_NE(st.refusal.find("the score -3/10 has no exact exponential"), std::string::npos) << st.refusal;
    EXPECT_EQ(st.chosen_token, "blue");  // the argmax is still exact: blue and red tie at 3/10
}

TEST(Decoder, CrossEntropyIsExactForAPowerOfTwoAndRoundedOtherwise) {
    // ln 3 = 1.0986122886…, 2 ln 2 = 1.3862943611…, ln(849/256) = 1.1988817418…
    EXPECT_EQ(neg_log_decimal(val("1/3"), 6), "1.098612");
    EXPECT_EQ(neg_log_decimal(val("1/4"), 6), "1.386294");
    EXPECT_EQ(neg_log_decimal(val("256/849"), 6), "1.198882");
    EXPECT_EQ(neg_log_decimal(val("1"), 3), "0.000");
    EXPECT_ERROR_HAS(neg_log_decimal(val("a"), 6), ErrorKind::Domain, "positive p free of a");
}

TEST(Decoder, CrosscheckReportsTheTieTheDoublePathBreaks) {
    const Report rep = run_scenario(load_scenario(test::source_path("data/examples/decoder-tie.json")));
    const CrosscheckResult c = crosscheck(rep);
    EXPECT_TRUE(c.passed());
    ASSERT_EQ(c.splits.size(), 2U);
    // By hand: red is fl(0.1 + 0.2) = 0.30000000000000004, blue fl(0.3) = 0.29999999999999999.
    for (const auto& sp : c.splits) {
        EXPECT_EQ(sp.step, 1U);
        EXPECT_TRUE(sp.exact_tie());
        EXPECT_EQ(sp.exact_choice, "blue");
        EXPECT_EQ(sp.double_choice, "red");
        EXPECT_EQ(sp.double_margin, 0.30000000000000004 - 0.3);
    }
    EXPECT_EQ(c.splits[1].regime, "generation");
    EXPECT_EQ(c.splits[1].exact_tokens, (std::vector<std::string>{"blue", "stop"}));
    EXPECT_EQ(c.splits[1].double_tokens, (std::vector<std::string>{"red", "red"}));
    // The chapter's decoder has no near-tie that double arithmetic reverses.
    EXPECT_TRUE(crosscheck(chapter()).splits.empty());
}

TEST(Decoder, StepsOverTheLimitAreRefusedBeforeAnyWork) {
    const Report rep = chapter();
    const Scenario& s = rep.scenario;
    Limits l = limits();
    l.max_decoder_steps = 3;
    ScopedLimits scope(l);
    EXPECT_ERROR_HAS(
        roll_out(*s.decoder, s.source("red").states, s.decoder_initial("red"), Regime::Generation, 4, {}, false),
        ErrorKind::Limit, "4 decoder steps, over the limit of 3 (limits: max_decoder_steps)");
}

// data/examples/decoder-refused-tie.json, derived by hand in its notes: generation chooses
// maybe, then the rule refuses the tie {yes, no} at step 2; teacher forcing goes on. A refused
// step is null in the JSON, and the text says which tie was refused (#24).
namespace {

Report refused_tie() {
    return run_scenario(load_scenario(test::source_path("data/examples/decoder-refused-tie.json")));
}

}  // namespace

TEST(DecoderReport, RefusedTieIsNullInTokensAndPrefixes) {
    const Report rep = refused_tie();
    const RolloutResult& r = rep.rollout("refused");
    const auto j = nlohmann::json::parse(render_rollout(rep, r, Format::Json));
    EXPECT_EQ(j["generation"]["tokens"], nlohmann::json::parse(R"(["maybe", null])"));
    EXPECT_EQ(j["teacher-forcing"]["tokens"], nlohmann::json::parse(R"(["maybe", null, "maybe"])"));
    EXPECT_TRUE(j["generation"]["steps"][2]["chosen"].is_null());
    EXPECT_EQ(j["divergence"]["prefix_step"], 2);
    EXPECT_TRUE(j["divergence"]["choice_step"].is_null());
    EXPECT_EQ(j["divergence"]["reference_prefix"], nlohmann::json::parse(R"(["maybe", "yes"])"));
    EXPECT_EQ(j["divergence"]["generated_prefix"], nlohmann::json::parse(R"(["maybe", null])"));
}

TEST(DecoderReport, PrefixesAreNullNotOmittedWithoutDivergence) {
    // decoder-tie.json's generation follows its reference (its notes): no prefix step.
    const Report rep = run_scenario(load_scenario(test::source_path("data/examples/decoder-tie.json")));
    const auto j = nlohmann::json::parse(render_rollout(rep, rep.rollout("tie"), Format::Json));
    ASSERT_TRUE(j["divergence"].contains("reference_prefix"));
    ASSERT_TRUE(j["divergence"].contains("generated_prefix"));
    EXPECT_TRUE(j["divergence"]["reference_prefix"].is_null());
    EXPECT_TRUE(j["divergence"]["generated_prefix"].is_null());
}

TEST(DecoderReport, TextSaysWhichTieWasRefused) {
    const Report rep = refused_tie();
    const std::string text = render_rollout(rep, rep.rollout("refused"), Format::Text);
    EXPECT_NE(text.find("Generation chooses: maybe — (stopped: tie refused); generation refused the tie {yes, no} "
                        "at step 2"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("Teacher forcing chooses: maybe — maybe; teacher forcing refused the tie {yes, no} at step 2"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("Generation leaves the reference at step 2: reference prefix maybe yes, generated prefix "
                        "maybe —"),
              std::string::npos)
        << text;
}

TEST(DecoderReport, NumberAndCaptionNameTheRolloutsTables) {
    const Report rep = refused_tie();
    const std::string md = render_rollout(rep, rep.rollout("refused"), Format::Markdown);
    // The file declares "number": "R.1" and a caption: the first table is Table R.1 with that
    // caption, the next Table R.1.2 with its own.
    EXPECT_NE(md.find("Table R.1 — A tie the rule refuses at step 2"), std::string::npos) << md;
    EXPECT_NE(md.find("Table R.1.2 — teacher-forcing: query, read, state and choice at each step"), std::string::npos)
        << md;
}

TEST(DecoderReport, DigitsRoundTheCrossEntropy) {
    // Step 1's distribution is [1/5, 2/5, 1/5, 1/5] (notes), so p(maybe) = 2/5 and
    // −ln(2/5) = ln 5 − ln 2 = 1.6094379124341… − 0.6931471805599… = 0.9162907318741…
    Scenario s = load_scenario(test::source_path("data/examples/decoder-refused-tie.json"));
    s.rollouts[0].cross_entropy = true;
    EXPECT_EQ(run_scenario(s).rollout("refused").generation.steps[0].cross_entropy_decimal, "0.916291");
    s.rollouts[0].digits = 10;
    EXPECT_EQ(run_scenario(s).rollout("refused").generation.steps[0].cross_entropy_decimal, "0.9162907319");
}

// max_report_cells holds a rollout to what the chosen output prints, counted once its steps are
// known (docs/limits.md): 40 source positions of width 1, a state of width 1 and 7 target tokens,
// so each step prints its query, context, pre-activation, state, 7 scores and 7 probabilities
// (18 values) and its read: as tables the read's table beside the 40 states (40·4 + 3) and the
// step row's 40 weights, 229 values with the labels; as data 40 scores, exponentials and
// weights, 150. Six steps are about 1400 values as tables (over a limit of 1000) and 900 as
// data (under it); a generation that ends at its first step is about 280 as tables.
namespace {

std::string rollout_over_forty(const char* end) {
    std::string memory;
    for (int j = 0; j < 40; ++j) memory += j ? ", [\"a\"]" : "[\"a\"]";
    return R"({"sources": {"m": {"memory": [)" + memory + R"(]}},
      "decoder": {"activation": "identity", "recurrent": [[0]], "input": [[1]], "context": [[0]], "bias": [0],
                  "initial": [1], "output_reads": "state",
                  "output": [["a/64", "2a/64", "3a/64", "4a/64", "5a/64", "6a/64", "0"]],
                  "output_bias": ["0", "0", "0", "0", "0", "0", "0"],
                  "vocabulary": {"t0": [1], "t1": [1], "t2": [1], "t3": [1], "t4": [1], "t5": [1], "<s>": [1]},
                  "start": "<s>", "end": ")" +
           std::string(end) + R"(", "ties": "first"},
      "rollouts": {"r": {"source": "m", "steps": 6}}})";
}

// The rows of a CSV rendering that start with `first` (CRLF records, no quoted commas here).
std::vector<std::string> csv_rows_starting(const std::string& csv, const std::string& first) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < csv.size()) {
        std::size_t end = csv.find("\r\n", at);
        if (end == std::string::npos) end = csv.size();
        const std::string line = csv.substr(at, end - at);
        if (line.rfind(first, 0) == 0) out.push_back(line);
        at = end + 2;
    }
    return out;
}

bool contains(const std::vector<std::string>& rows, const std::string& row) {
    return std::find(rows.begin(), rows.end(), row) != rows.end();
}

}  // namespace

TEST(DecoderReport, RolloutsAreHeldToTheReportCellsOfTheChosenOutput) {
    Limits l = limits();
    l.max_report_cells = 1000;
    const ScopedLimits scope(l);
    // The state stays 1 and t5 (score 6a/64) is chosen at every step: with end token t0 the
    // generation runs all six steps.
    const Scenario six = parse_scenario(rollout_over_forty("t0"), "six.json");
    EXPECT_ERROR_HAS(run_scenario(six, ReportUse::Tables), ErrorKind::Limit,
                     "six.json: /rollouts/r: the report's tables would hold about");
    EXPECT_ERROR_HAS(run_scenario(six, ReportUse::Tables), ErrorKind::Limit,
                     "over the limit of 1000 (limits: max_report_cells); rollout \"r\" ran 6 steps, each with a read "
                     "over 40 source positions; fewer \"steps\" print fewer");
    const Report data = run_scenario(six, ReportUse::Values);
    EXPECT_EQ(data.rollout("r").generation.steps.size(), 6U);
    // With end token t5 the generation stops after step 1: the same tables are within the limit.
    const Report one = run_scenario(parse_scenario(rollout_over_forty("t5"), "one.json"), ReportUse::Tables);
    EXPECT_EQ(one.rollout("r").generation.stopped, "end token");
    EXPECT_EQ(one.rollout("r").generation.steps.size(), 1U);
}

TEST(DecoderReport, DistributionRowsNameTheirStepAndTokenWithARoundedDecimal) {
    // Issue 37: one row per step and target token, the token in its own cell (not a header the
    // list form set at the end of the previous value's line), and beside each probability its
    // decimal, correctly rounded to the rollout's 6 places. By hand (the scenario's notes): step
    // 1's distribution is [16, 256, 256, 128, 128, 64, 1]/849, so p(the) = 256/849 = 0.3015312…,
    // p(.) = 1/849 = 0.0011778…; teacher forcing's step 2 gives p(red) = 32/93 = 0.3440860…
    const Report rep = chapter();
    const std::string csv = render_rollout(rep, rep.rollout("table-14.4"), Format::Csv);
    const auto rows = csv_rows_starting(csv, "1,");
    EXPECT_TRUE(contains(rows, "1,<s>,−a,16/849,≈ 0.018846")) << csv;
    EXPECT_TRUE(contains(rows, "1,the,3a,256/849,≈ 0.301531")) << csv;
    EXPECT_TRUE(contains(rows, "1,red,2a,128/849,≈ 0.150766")) << csv;
    EXPECT_TRUE(contains(rows, "1,. (end),−5a,1/849,≈ 0.001178")) << csv;
    EXPECT_TRUE(contains(csv_rows_starting(csv, "2,red,"), "2,red,a,32/93,≈ 0.344086")) << csv;
    EXPECT_NE(csv.find("Step,Token,Score,Probability,Decimal\r\n"), std::string::npos) << csv;
    // In the other formats the decimal says it is rounded, and the caption to how many places.
    const std::string text = render_rollout(rep, rep.rollout("table-14.4"), Format::Text);
    EXPECT_NE(text.find("\n1     the      3a      256/849"), std::string::npos) << text;
    EXPECT_NE(text.find("≈ 0.301531\n"), std::string::npos) << text;
    EXPECT_NE(text.find("teacher-forcing: output scores and distribution (decimals correctly rounded to 6 places)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(". (end)"), std::string::npos) << text;
}

TEST(DecoderReport, AnExactDecimalIsWrittenWithEquals) {
    // decoder-refused-tie.json's step 1: [1/5, 2/5, 1/5, 1/5] (its notes): 2/5 is 0.400000 exactly.
    const Report rep = refused_tie();
    const std::string md = render_rollout(rep, rep.rollout("refused"), Format::Markdown);
    EXPECT_NE(md.find("= 0.400000"), std::string::npos) << md;
    EXPECT_EQ(md.find("\\approx 0.400000"), std::string::npos) << md;
}

TEST(DecoderReport, DecimalsOfIrrationalProbabilitiesAreCorrectlyRounded) {
    // The rollout of tests/render/fixtures/print-ready.json divides every output score of the
    // chapter's decoder by 5: step 1's scores are [−1, 3, 3, 2, 2, 1, −5]·a/5, so p_j =
    // 2^(o_j/5)/Σ_k 2^(o_k/5), in Q(2^(1/5)). mpmath at 40 digits: p(<s>) = 0.106298251…,
    // p(the) = 0.185076005…, p(red) = 0.161118020…, p(key) = 0.140261383…, p(.) = 0.061052313….
    const Report rep = run_scenario(load_scenario(test::source_path("tests/render/fixtures/print-ready.json")));
    const std::string csv = render_rollout(rep, rep.rollout("fifths"), Format::Csv);
    std::vector<std::string> decimals;
    for (const auto& row : csv_rows_starting(csv, "1,")) {
        // The distribution table's rows: five unquoted cells (the step table's vectors are quoted).
        if (row.find('"') == std::string::npos && std::count(row.begin(), row.end(), ',') == 4)
            decimals.push_back(row.substr(row.rfind(',') + 1));
    }
    const std::vector<std::string> expected{"≈ 0.106298", "≈ 0.185076", "≈ 0.185076", "≈ 0.161118",
                                            "≈ 0.161118", "≈ 0.140261", "≈ 0.061052"};
    // Both regimes' step 1 (teacher forcing first, then generation).
    ASSERT_EQ(decimals.size(), 2 * expected.size()) << csv;
    for (std::size_t k = 0; k < decimals.size(); ++k) EXPECT_EQ(decimals[k], expected[k % expected.size()]) << k;
}
