// SPDX-License-Identifier: MIT
// check on token answers (docs/check.md#token-answers): a rollout's chosen tokens, inputs, argmax
// and generated sequence, a source's tokens; exact comparison, findings and the token mistakes,
// each expected value from the hand derivation in data/chapter14/decoder-rollout.json's notes.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cli/run_cli.hpp"
#include "exactattn/check.hpp"
#include "exactattn/error.hpp"
#include "exactattn/scenario.hpp"
#include "support/check_support.hpp"
#include "support/support.hpp"

namespace exactattn {
namespace {

std::string rollout_text() {
    std::ifstream in(test::source_path("data/chapter14/decoder-rollout.json"), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The notes' derivation: step 1 (both regimes) ties a and the at 3a and the rule "first" takes a;
// step 2 teacher forcing (input the) chooses red, generation (input a) blue; steps 3 and 4 key
// and . in both. Teacher forcing: a red key .; generation: a blue key .; reference the red key .
const Report& rollout() {
    static const Report r = run_scenario(parse_scenario(rollout_text(), "decoder-rollout.json"));
    return r;
}

using test::check;

const std::string kGen = "/rollouts/table-14.4/generation";
const std::string kTf = "/rollouts/table-14.4/teacher-forcing";

TEST(CheckTokens, PointersThatNameTokens) {
    for (const char* p : {"/rollouts/r/reference", "/rollouts/r/reference/0", "/rollouts/r/generation/tokens",
                          "/rollouts/r/teacher-forcing/tokens/3", "/rollouts/r/generation/steps/2/chosen",
                          "/rollouts/r/generation/steps/2/input", "/rollouts/r/teacher-forcing/steps/1/reference",
                          "/rollouts/r/generation/steps/1/argmax", "/rollouts/r/generation/steps/1/argmax/1",
                          "/rollouts/r/divergence/generated_prefix", "/sources/red/tokens/2",
                          "/interventions/t/rows/1/deleted", "/interventions/t/rows/1/tokens"}) {
        EXPECT_TRUE(names_tokens(p)) << p;
    }
    for (const char* p : {"/rollouts/r/generation/steps/2/weights", "/rollouts/r/generation/steps/2/tie",
                          "/rollouts/r/generation/stopped", "/rollouts/r/divergence/prefix_step",
                          "/rollouts/r/generation/steps/2/chosen/0", "/reads/tokens/weights", "/sources/red/states",
                          "/rollouts/tokens/generation/steps/1/state", "~2"}) {
        EXPECT_FALSE(names_tokens(p)) << p;
    }
}

TEST(CheckTokens, RightTokensByHand) {
    Judgement j = check(rollout(), kGen + "/steps/2/chosen", "blue");
    EXPECT_TRUE(j.correct) << judgement_text(j);
    EXPECT_TRUE(j.tokens);
    EXPECT_EQ(j.rule, "exact token");
    EXPECT_EQ(j.feedback, "Right (exact token).");
    EXPECT_TRUE(check(rollout(), kTf + "/steps/2/chosen", "red").correct);
    EXPECT_TRUE(check(rollout(), kGen + "/tokens", "[a, blue, key, .]").correct);
    EXPECT_TRUE(check(rollout(), kTf + "/tokens", " [ a , red,key, . ] ").correct);
    EXPECT_TRUE(check(rollout(), kGen + "/tokens/1", "blue").correct);
    EXPECT_TRUE(check(rollout(), kGen + "/steps/2/input", "a").correct);   // its own step-1 choice
    EXPECT_TRUE(check(rollout(), kTf + "/steps/2/input", "the").correct);  // the reference y_1
    EXPECT_TRUE(check(rollout(), kGen + "/steps/0/chosen", "<s>").correct);
    EXPECT_TRUE(check(rollout(), "/rollouts/table-14.4/divergence/generated_prefix", "[a]").correct);
    EXPECT_TRUE(check(rollout(), "/sources/red/tokens", "[红色, 钥匙, 。]").correct);
    // A token written as a JSON string is the same token.
    EXPECT_TRUE(check(rollout(), kGen + "/steps/2/chosen", "\"blue\"").correct);
    // The argmax is a set: the two tied tokens in either order.
    j = check(rollout(), kTf + "/steps/1/argmax", "[the, a]");
    EXPECT_TRUE(j.correct) << judgement_text(j);
    EXPECT_EQ(j.rule, "exact tokens, in any order");
    EXPECT_FALSE(check(rollout(), kTf + "/steps/1/argmax", "[a, a]").correct);
}

// At step 1 a and the tie exactly; docs/decoder.md's rule "first" makes the choice a (first in
// the vocabulary's order), not "one of them", so the other tied token is wrong, and named.
TEST(CheckTokens, TokenMistakesByHand) {
    struct Case {
        std::string target;
        const char* proposed;
        const char* id;
    };
    const Case cases[] = {
        {kTf + "/steps/1/chosen", "the", "other-tied-token"},
        {kGen + "/steps/1/chosen", "the", "other-tied-token"},
        // Generation chooses blue at step 2; red is teacher forcing's choice there, and back.
        {kGen + "/steps/2/chosen", "red", "other-regime"},
        {kTf + "/steps/2/chosen", "blue", "other-regime"},
        // Generation's input at step 2 is its own a; the is teacher forcing's (the reference).
        {kGen + "/steps/2/input", "the", "other-regime"},
        {kGen + "/tokens", "[a, red, key, .]", "other-regime"},
        // The reference the red key . instead of generation's choices a blue key .
        {kGen + "/tokens", "[the, red, key, .]", "reference-token"},
    };
    for (const auto& c : cases) {
        const Judgement j = check(rollout(), c.target, c.proposed);
        EXPECT_FALSE(j.correct) << c.target;
        EXPECT_EQ(j.mistake_id, c.id) << c.target << " " << c.proposed << ": " << judgement_text(j);
        EXPECT_EQ(j.feedback, "Wrong: " + j.mistake + ".");
    }
    EXPECT_EQ(check(rollout(), kTf + "/steps/1/chosen", "the").mistake,
              "a and the tie exactly at step 1 (output score 3a each), and the tie rule \"first\" chooses the tied "
              "token first in the target vocabulary's order, a; teacher forcing goes on from a");
}

TEST(CheckTokens, FindingsForTokensThatNoMistakeGives) {
    // A number proposed for a token: read as the token "1/2", which the vocabulary lacks.
    Judgement j = check(rollout(), kGen + "/steps/2/chosen", "1/2");
    EXPECT_FALSE(j.correct);
    EXPECT_TRUE(j.mistake_id.empty());
    EXPECT_EQ(j.feedback,
              "Wrong: no known mistake reproduces it; 1/2 is not a token of the target vocabulary (<s>, "
              "a, the, red, blue, key, .).");
    // Case differs: compared exactly, and said so.
    j = check(rollout(), kGen + "/steps/2/chosen", "Blue");
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.findings.back(), "Blue differs from the answer only in letter case; tokens are compared exactly");
    // Shapes: one token for a list, a list for one token.
    j = check(rollout(), kTf + "/steps/1/argmax", "a");
    EXPECT_EQ(j.findings.front(), "one token proposed where the answer is a list of 2: write it as [t1, t2, …]");
    j = check(rollout(), kGen + "/steps/2/chosen", "[blue]");
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.findings.front(), "a list of 1 token proposed where the answer is one token");
    j = check(rollout(), kGen + "/tokens", "[a, blue, key]");
    EXPECT_EQ(j.findings.front(), "3 tokens proposed where the answer has 4");
    EXPECT_EQ(judgement_text(j), "t: wrong: " + kGen +
                                     "/tokens: proposed [a, blue, key], exact [a, blue, key, .]; "
                                     "rule: exact tokens; 3 tokens proposed where the answer has 4; no known mistake "
                                     "reproduces it.");
}

TEST(CheckTokens, TokenAndValueAnswersCrossed) {
    // A token for a quantity: refused as a number, saying the target holds values.
    LearnerAnswer la;
    la.target = kGen + "/steps/2/weights";
    EXPECT_ERROR(read_proposal("blue", la), ErrorKind::Parse,
                 "expression column 1: unknown name 'blue'; expected a, ln2, ln(...), log(...), exp(...) or "
                 "sqrt(...); " +
                     kGen + "/steps/2/weights holds values, not tokens");
    // A caller that builds a token entry for a quantity gets a verdict, not a crash.
    la.name = "x";
    la.entries = {AnswerEntry{"blue", AnswerEntry::Form::Token, {}}};
    la.proposed = {Value()};
    la.scalar = true;
    Judgement j = judge(rollout(), la);
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.feedback, "Wrong: " + kGen + "/steps/2/weights holds a value, not a token.");
    // A value (the Python binding's numbers) for a token: a verdict too.
    LearnerAnswer v;
    v.name = "y";
    v.target = kGen + "/steps/2/chosen";
    v.proposed = {Value(1)};
    v.scalar = true;
    j = judge(rollout(), v);
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.feedback, "Wrong: " + kGen + "/steps/2/chosen holds a token, not a number.");
}

TEST(CheckTokens, ReadingTokenProposals) {
    LearnerAnswer la;
    la.target = kGen + "/tokens";
    read_proposal(R"([a, ",", "x y", 红色])", la);
    ASSERT_EQ(la.entries.size(), 4U);
    EXPECT_EQ(la.entries[1].text, ",");
    EXPECT_EQ(la.entries[2].text, "x y");
    EXPECT_EQ(la.entries[3].text, "红色");
    EXPECT_EQ(la.proposed.size(), 4U);
    EXPECT_FALSE(la.scalar);
    EXPECT_ERROR(read_proposal("[a, blue", la), ErrorKind::Parse, "tokens column 9: the list is not closed by ]");
    EXPECT_ERROR(read_proposal("[]", la), ErrorKind::Parse, "tokens column 2: an empty list proposes nothing");
    EXPECT_ERROR(read_proposal("[a, , b]", la), ErrorKind::Parse,
                 "tokens column 5: an empty entry (an empty token is written \"\")");
    // Columns count code points: [ 红 色 , space [ puts the inner [ at column 6.
    EXPECT_ERROR(read_proposal("[红色, [x]]", la), ErrorKind::Parse,
                 "tokens column 6: a token with a bracket, quote or comma is written as a JSON string, e.g. \"[\"");
    EXPECT_ERROR(read_proposal("\"abc", la), ErrorKind::Parse, "tokens column 1: a quoted token is not closed by \"");
    EXPECT_ERROR(read_proposal("[a] b", la), ErrorKind::Parse, "tokens column 5: text after the list's closing ]");
    EXPECT_ERROR_HAS(read_proposal("a\xff", la), ErrorKind::Parse, "invalid UTF-8 byte 0xFF");
    EXPECT_ERROR(read_proposal("  ", la), ErrorKind::Parse, "tokens column 1: an empty answer proposes nothing");
    // Printed back the way an answer writes them.
    EXPECT_EQ(token_text("blue"), "blue");
    EXPECT_EQ(token_text(","), "\",\"");
    EXPECT_EQ(token_text(""), "\"\"");
    EXPECT_EQ(token_text(" x"), "\" x\"");
}

// Tokens are compared as written, byte for byte: no Unicode normalisation. "café" declared with
// U+00E9 (NFC) is not "cafe" + U+0301 (NFD), though the two render alike — to the scenario's
// vocabulary they are different tokens, so they are to check as well.
TEST(CheckTokens, NoUnicodeNormalisation) {
    const Report rep = run_scenario(parse_scenario(R"({
      "vocabulary": {"caf\u00e9": ["a", "0"], ",": ["0", "a"]},
      "encoder": {"activation": "relu", "recurrent": [[1, 0], [0, 1]], "input": [[1, 0], [0, 1]],
                  "bias": [0, 0], "initial": [0, 0]},
      "sources": {"s": ["caf\u00e9", ","]}
    })",
                                                   "nfc.json"));
    EXPECT_TRUE(check(rep, "/sources/s/tokens", "[caf\u00e9, \",\"]").correct);
    const Judgement j = check(rep, "/sources/s/tokens/0", "cafe\xcc\x81");
    EXPECT_FALSE(j.correct);
    EXPECT_EQ(j.findings.front(), "cafe\xcc\x81 is not a token of the source vocabulary (caf\u00e9, \",\")");
}

// With ties "refuse", step 1's tie has no chosen token: there is nothing to answer.
TEST(CheckTokens, RefusedTieHasNoToken) {
    std::string text = rollout_text();
    text.replace(text.find("\"ties\": \"first\""), 15, "\"ties\": \"refuse\"");
    // Its learner answers, exercises and expect entries assume the rule first: left out.
    text.erase(text.find("\"learner_answers\""));
    text.erase(text.find_last_of(',')).append("}");
    const Report rep = run_scenario(parse_scenario(text, "refuse.json"));
    LearnerAnswer la;
    la.name = "x";
    la.target = kGen + "/steps/1/chosen";
    read_proposal("a", la);
    EXPECT_ERROR_HAS(judge(rep, la), ErrorKind::Reference,
                     kGen +
                         "/steps/1/chosen has no token to answer: the tie rule refused the tie at this step, so "
                         "no token was chosen");
}

// A tie the rule refuses is null where the report lists tokens, and check judges answers
// against that form (#24). data/examples/decoder-refused-tie.json, by hand in its notes:
// generation chooses maybe, then refuses the tie {yes, no} at step 2: [maybe, null]; teacher
// forcing goes on with the reference yes and chooses maybe: [maybe, null, maybe].
const Report& refused() {
    static const Report r = run_scenario(load_scenario(test::source_path("data/examples/decoder-refused-tie.json")));
    return r;
}

TEST(CheckTokens, RefusedTieIsNullInATokenList) {
    const std::string gen = "/rollouts/refused/generation/tokens";
    EXPECT_TRUE(check(refused(), gen, "[maybe, null]").correct);
    EXPECT_TRUE(check(refused(), "/rollouts/refused/teacher-forcing/tokens", "[maybe, null, maybe]").correct);
    EXPECT_TRUE(check(refused(), "/rollouts/refused/divergence/generated_prefix", "[maybe, null]").correct);
    // The token spelled null is a JSON string, and not the refused step's place.
    EXPECT_FALSE(check(refused(), gen, "[maybe, \"null\"]").correct);
    // An empty token is not the documented form: wrong, and "" is no token of the vocabulary.
    const Judgement empty = check(refused(), gen, "[maybe, \"\"]");
    EXPECT_FALSE(empty.correct);
    EXPECT_EQ(empty.findings.back(), "\"\" is not a token of the target vocabulary (<s>, maybe, yes, no)");
    // The refused step left out: wrong, with the finding that says where the null goes.
    const Judgement omitted = check(refused(), gen, "[maybe]");
    EXPECT_FALSE(omitted.correct);
    ASSERT_FALSE(omitted.findings.empty());
    EXPECT_NE(std::find(omitted.findings.begin(), omitted.findings.end(),
                        "the answer has no token where the tie rule refused a tie: its place is written null, "
                        "[maybe, null]"),
              omitted.findings.end())
        << omitted.feedback;
    // JSON verdicts write the refused place as null on both sides.
    const std::string json = check_json({check(refused(), gen, "[maybe, null]")});
    EXPECT_NE(json.find("\"exact\": [\n        \"maybe\",\n        null\n      ]"), std::string::npos) << json;
    EXPECT_NE(json.find("\"proposed\": [\n        \"maybe\",\n        null\n      ]"), std::string::npos) << json;
}

TEST(CheckTokens, LearnerAnswerInAFileWritesTheRefusedStepAsNull) {
    std::ifstream in(test::source_path("data/examples/decoder-refused-tie.json"), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    std::string text = s.str();
    text.insert(text.find("\"expect\""),
                R"("learner_answers": {"right": {"target": "/rollouts/refused/generation/tokens",
                                                  "proposed": ["maybe", null]},
                                        "empty": {"target": "/rollouts/refused/generation/tokens",
                                                  "proposed": ["maybe", ""]}},
  )");
    const Scenario sc = parse_scenario(text, "refused-answers.json");
    const Report rep = run_scenario(sc);
    EXPECT_TRUE(judge(rep, sc.learner_answers[0]).correct);
    EXPECT_FALSE(judge(rep, sc.learner_answers[1]).correct);
    // Written back, the null stays null (load(write(s)) == s).
    EXPECT_EQ(parse_scenario(write_scenario(sc), sc.file).learner_answers, sc.learner_answers);
}

TEST(CheckTokens, JsonAndClassCsv) {
    const std::string json = check_json({check(rollout(), kGen + "/steps/2/chosen", "red")});
    EXPECT_NE(json.find("\"proposed\": [\n        \"red\"\n      ]"), std::string::npos) << json;
    EXPECT_NE(json.find("\"exact\": [\n        \"blue\"\n      ]"), std::string::npos) << json;
    EXPECT_NE(json.find("\"mistake_id\": \"other-regime\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"tokens\": true"), std::string::npos) << json;
    // A class's CSV: a token answer per row, read for its own target.
    const std::string csv = testing::TempDir() + "tokens-class.csv";
    std::ofstream(csv) << "student,target,answer\n"
                       << "ann," << kGen << "/steps/2/chosen,blue\n"
                       << "bob," << kGen << "/steps/2/chosen,red\n"
                       << "cy," << kGen << "/tokens,\"[a, blue, key, .]\"\n"
                       << "di," << kGen << "/steps/2/weights,blue\n";
    const auto r = test::run({"check", test::source_path("data/chapter14/decoder-rollout.json"), "--answers", csv});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.out.find("ann," + kGen + "/steps/2/chosen,blue,right,exact token,,Right (exact token).\r\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("bob," + kGen + "/steps/2/chosen,red,wrong,exact token,other-regime,"), std::string::npos);
    EXPECT_NE(r.out.find("cy," + kGen + "/tokens,\"[a, blue, key, .]\",right,exact tokens,"), std::string::npos);
    EXPECT_NE(r.out.find("di," + kGen + "/steps/2/weights,blue,invalid,,,\"the answer does not parse:"),
              std::string::npos)
        << r.out;
}

TEST(CheckTokens, ScenarioLearnerAnswersTakeStrings) {
    std::string text = rollout_text();
    text.replace(text.find("\"proposed\": \"red\""), 17, "\"proposed\": 1");
    EXPECT_ERROR(parse_scenario(text, "n.json"), ErrorKind::Shape,
                 "n.json: /learner_answers/generation-step-2-red/proposed: " + kGen +
                     "/steps/2/chosen holds tokens: expected a token (a string), found a number");
}

}  // namespace
}  // namespace exactattn
