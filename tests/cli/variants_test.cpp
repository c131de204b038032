// SPDX-License-Identifier: MIT
// Exercise variants (issue 15, docs/variants.md): the generator as specified, variants that
// round-trip through the writer and verify, byte-identical reruns, constraints checked exactly.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cli/run_cli.hpp"
#include "app.hpp"
#include "exactattn/answer_key.hpp"
#include "exactattn/check.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/variants.hpp"
#include "exactattn/verify.hpp"
#include "support/check_support.hpp"
#include "support/support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace exactattn;

// SplitMix64 seeded with 0: the published reference outputs of the algorithm (the first is
// 0xE220A8397B1DCDAF), also computed by an independent Python implementation of the
// docs/variants.md spec with unbounded integers reduced mod 2^64.
TEST(SplitMix64, ReferenceOutputs) {
    SplitMix64 g(0);
    EXPECT_EQ(g.next(), 16294208416658607535ULL);
    EXPECT_EQ(g.next(), 7960286522194355700ULL);
    EXPECT_EQ(g.next(), 487617019471545679ULL);
}

// below(n): rejection keeps x < 2^64 − (2^64 mod n). For n = 2^63 + 1, 2^64 mod n = 2^63 − 1, so
// every x ≥ 2^63 + 1 is rejected; a power of two rejects nothing (x mod n is then the low bits).
TEST(SplitMix64, BoundedIntegers) {
    SplitMix64 a(7);
    SplitMix64 b(7);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(a.below(8), b.next() & 7U);
    SplitMix64 c(1);
    for (int i = 0; i < 100; ++i) EXPECT_LE(c.below((1ULL << 63) + 1), 1ULL << 63);
    SplitMix64 d(3);
    std::set<std::int64_t> seen;
    for (int i = 0; i < 200; ++i) {
        const auto x = d.between(-2, 2);
        EXPECT_GE(x, -2);
        EXPECT_LE(x, 2);
        seen.insert(x);
    }
    EXPECT_EQ(seen.size(), 5U);
    SplitMix64 e(9);
    EXPECT_EQ(e.below(1), 0U);
}

using exactattn::test::Result;
using exactattn::test::run;

std::map<std::string, std::string> files_in(const fs::path& dir) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) {
        std::ifstream in(e.path(), std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        out[e.path().filename().string()] = s.str();
    }
    return out;
}

fs::path fresh_dir(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("exactattn-variants-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    return d;
}

// The issue's done-when: 30 scenario files that all verify, their keys, a sheet and a Moodle
// XML file; a rerun gives the same bytes; another seed gives different variants.
TEST(Variants, Chapter14ThirtyVariants) {
    const fs::path a = fresh_dir("a");
    const fs::path b = fresh_dir("b");
    const fs::path c = fresh_dir("c");
    const std::vector<std::string> args = {"variants", "chapter14", "--exercise", "exercise-1",
                                           "--count",  "30",        "--seed",     "7"};
    auto with_dir = [](std::vector<std::string> v, const fs::path& d) {
        v.push_back("-o");
        v.push_back(d.string());
        return v;
    };
    const Result r = run(with_dir(args, a));
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_EQ(run(with_dir(args, b)).code, 0);
    const auto fa = files_in(a);
    EXPECT_EQ(fa, files_in(b));
    EXPECT_EQ(fa.size(), 30U * 2 + 7);
    for (const char* f :
         {"sheet.md", "sheet.tex", "sheet.html", "moodle.xml", "info.json", "question.html", "server.py"})
        EXPECT_EQ(fa.count(f), 1U) << f;
    std::size_t variants = 0;
    std::set<std::string> bodies;
    for (const auto& [name, text] : fa) {
        if (name.rfind("variant-", 0) != 0) continue;
        ++variants;
        const Scenario s = parse_scenario(text, "chapter14");
        const Report rep = run_scenario(s);
        const VerifyResult v = verify_report(rep);
        EXPECT_EQ(v.passed, 4U) << name;  // the four parts (the answer is the readout part)
        EXPECT_TRUE(v.failures.empty()) << name;
        EXPECT_EQ(write_scenario(s), text) << name;  // the writer round-trips every variant
        bodies.insert(s.exercises.front().prompt);
        const std::string key = fa.at("key-" + name.substr(8, 2) + ".md");
        // The key prints the seed of the variant that re-creates it alone.
        EXPECT_NE(key.find("--variant-seed"), std::string::npos);
    }
    EXPECT_EQ(variants, 30U);
    EXPECT_EQ(bodies.size(), 30U) << "thirty different variants";

    ASSERT_EQ(run({"variants", "chapter14", "--exercise", "1", "--count", "30", "--seed", "8", "-o", c.string()}).code,
              0);
    const auto fc = files_in(c);
    std::size_t same = 0;
    for (const auto& [name, text] : fc) same += name.rfind("variant-", 0) == 0 && fa.at(name) == text ? 1 : 0;
    EXPECT_LT(same, 30U);
    EXPECT_NE(fc.at("moodle.xml"), fa.at("moodle.xml"));
    for (const auto& d : {a, b, c}) fs::remove_all(d);
}

// Variant 1 of seed 7, derived by hand from the spec: its seed is SplitMix64(7)'s first output,
// 7191089600892374487 (Python, as above); from that seed the draws are q = [−2 + below(5),
// −2 + below(5)] = [−1, 2], r = [1 + below(3), 1 + below(3)] = [2, 2], the 红色 embedding
// (1 + below(2))·a = a. So the states stay [a, 0], [0, a], [0, 0]; the scores are [−a, 2a, 0],
// the exponentials [1/2, 4, 1] with total 11/2, the weights [1/11, 8/11, 2/11], the context
// [a/11, 8a/11] and the readout 2(a/11) + 2(8a/11) = 18a/11.
TEST(Variants, FirstVariantOfSeed7ByHand) {
    VariantRequest req;
    req.exercise = "1";
    req.count = 1;
    req.seed = 7;
    const VariantSet set = draw_variants(load_scenario("chapter14"), req);
    ASSERT_EQ(set.variants.size(), 1U);
    const Variant& v = set.variants.front();
    EXPECT_EQ(v.seed, 7191089600892374487ULL);
    const ReadTrace& t = v.report.read("exercise-1").trace;
    EXPECT_EQ(t.query, parse_vector("[-1, 2]"));
    EXPECT_EQ(t.weights.all()[0], parse_value("1/11"));
    EXPECT_EQ(t.weights.all()[1], parse_value("8/11"));
    EXPECT_EQ(t.weights.all()[2], parse_value("2/11"));
    EXPECT_EQ(*t.readout, parse_value("18a/11"));
    // Re-created alone from the seed its key prints: the same file.
    VariantRequest alone;
    alone.exercise = "exercise-1";
    alone.seed = v.seed;
    alone.variant_seed = true;
    EXPECT_EQ(draw_variants(load_scenario("chapter14"), alone).variants.front().file_text, v.file_text);
    // Moodle: the readout 18a/11 = 1.134240840916… (18·0.693147180559945/11) within 0.001.
    const std::string xml = moodle_xml(set);
    EXPECT_NE(xml.find("<text>1.13424084091627</text>"), std::string::npos) << xml;
    EXPECT_NE(xml.find("<tolerance>0.001</tolerance>"), std::string::npos);
    EXPECT_NE(xml.find("Exact value: 18a/11"), std::string::npos);
    // The values filled into the prompt keep their math, as MathJax's \(…\) around their LaTeX:
    // the drawn query [−1, 2] and readout [2, 2] above, the states [a, 0], [0, a], [0, 0].
    EXPECT_NE(xml.find("Use query \\([-1, 2]\\) with the source states \\(\\left([a, 0], [0, a], [0, 0]\\right)\\)"),
              std::string::npos)
        << xml;
    EXPECT_NE(xml.find("the readout coefficients \\([2, 2]\\)"), std::string::npos) << xml;
}

// The writer round-trips every generated variant: load(write(s)) == s, the scenario itself and
// not only its text.
TEST(Variants, EveryVariantRoundTrips) {
    VariantRequest req;
    req.exercise = "1";
    req.count = 30;
    req.seed = 7;
    for (const auto& v : draw_variants(load_scenario("chapter14"), req).variants) {
        EXPECT_TRUE(parse_scenario(v.file_text, "chapter14") == v.report.scenario) << v.number;
        EXPECT_EQ(v.file_text, write_scenario(v.report.scenario));
    }
}

// Variant 2 of seed 7: SplitMix64(7)'s second output 309689372594955804 (Python, as above)
// draws q = [−1, −2], r = [3, 1] and the 红色 embedding 2a. The encoder (relu, identity
// weights) gives h1 = [2a, 0], h2 = relu([2a − a, a]) = [a, a], h3 = relu([a, a − a]) = [a, 0];
// scores −2a, −a − 2a = −3a, −a; exponentials 1/4, 1/8, 1/2 with total 7/8; weights 2/7, 1/7,
// 4/7; context (2/7)[2a, 0] + (1/7)[a, a] + (4/7)[a, 0] = [9a/7, a/7]; readout 27a/7 + a/7 = 4a.
TEST(Variants, SecondVariantOfSeed7ByHand) {
    VariantRequest req;
    req.exercise = "1";
    req.seed = 309689372594955804ULL;
    req.variant_seed = true;
    const VariantSet set = draw_variants(load_scenario("chapter14"), req);
    const Report& rep = set.variants.front().report;
    EXPECT_EQ(rep.scenario.source("red").states.matrix(), parse_matrix("[[2a, 0], [a, a], [a, 0]]"));
    const ReadTrace& t = rep.read("exercise-1").trace;
    EXPECT_EQ(t.weights.all()[0], parse_value("2/7"));
    EXPECT_EQ(t.weights.all()[1], parse_value("1/7"));
    EXPECT_EQ(t.weights.all()[2], parse_value("4/7"));
    EXPECT_EQ(t.context, parse_vector("[9a/7, a/7]"));
    EXPECT_EQ(*t.readout, parse_value("4a"));
}

// A scenario whose only query is drawn from {[0, 0], [1, 1]} over states [a, 0], [0, a]: both
// give equal scores, so every draw ties and "unique_maximum" can never be met.
const char* kTies = R"({
  "sources": {"m": {"memory": [["a", "0"], ["0", "a"]]}},
  "queries": {"q": [0, 0]},
  "readouts": {"r": [1, 1]},
  "reads": {"x": {"source": "m", "query": "q", "readout": "r"}},
  "exercises": [{"id": "t", "prompt": "Read with {{/reads/x/query}}.", "reads": ["x"],
    "variation": {"vary": [{"at": "/queries/q", "choices": [[0, 0], [1, 1]]}],
                  "parts": [{"label": "the weights", "at": "/reads/x/weights"}],
                  "answer": "/reads/x/readout", "tolerance": 0.01,
                  "constraints": {"unique_maximum": true}}}]
})";

TEST(Variants, UnmetConstraintIsNamed) {
    Limits l = limits();
    l.max_variant_draws = 20;
    ScopedLimits scope(l);
    VariantRequest req;
    req.exercise = "t";
    req.seed = 1;
    EXPECT_ERROR(draw_variants(parse_scenario(kTies, "ties.json"), req), ErrorKind::Limit,
                 "ties.json: /exercises/0/variation/constraints: variant 1 (seed 10451216379200822465): no draw "
                 "met the constraints in 20 draws, over the limit of 20 (limits: max_variant_draws); "
                 "unique_maximum failed most (20 of 20 draws; failures: unique_maximum 20)");
}

// [0, 0] and [2, 0] over states [a, 0], [0, a]: scores [0, 0] (a tie) or [2a, 0], weights
// [4/5, 1/5]: only the second meets unique_maximum, so every variant is that one, and a second
// variant cannot differ from the first.
TEST(Variants, RedrawnUntilMetAndDistinct) {
    std::string text = kTies;
    text.replace(text.find("[1, 1]]"), 7, "[2, 0]]");
    const Scenario s = parse_scenario(text, "ties.json");
    VariantRequest req;
    req.exercise = "t";
    const VariantSet set = draw_variants(s, req);
    EXPECT_EQ(set.variants.front().report.read("x").trace.weights.all()[0], parse_value("4/5"));
    EXPECT_EQ(parse_scenario(set.variants.front().file_text, "ties.json"), set.variants.front().report.scenario);
    req.count = 2;
    Limits l = limits();
    l.max_variant_draws = 20;
    ScopedLimits scope(l);
    // Two variants asked for, 20 extra seeds allowed: 22 seeds give the one variant only.
    EXPECT_ERROR_HAS(draw_variants(s, req), ErrorKind::Limit,
                     "2 different variants need more than 20 extra seeds (the ranges gave 1 different in 22 seeds), "
                     "over the limit of 20 (limits: max_variant_draws)");
}

// A range whose only value is the one the scenario has would make every variant the same.
TEST(Variants, ARangeOfOneValueIsRefused) {
    std::string text = kTies;
    text.replace(text.find("[1, 1]]"), 7, "[0, 0]]");
    VariantRequest req;
    req.exercise = "t";
    EXPECT_ERROR_HAS(draw_variants(parse_scenario(text, "m.json"), req), ErrorKind::Reference,
                     "/exercises/0/variation/vary/0: /queries/q: the range allows only the value the scenario has");
}

// divide-by-count: with q = [0, 0] every exponential is 1 and dividing by the count 2 gives the
// right weights [1/2, 1/2]: the wrong method would score, so the variant is refused. The variants
// vary the readout (which changes the readout, a computed quantity), never the weights.
TEST(Variants, IntendedMistakeMustDiffer) {
    std::string text = kTies;
    text.replace(text.find("\"unique_maximum\": true"), 22, "\"mistakes_differ\": [\"divide-by-count\"]");
    text.replace(text.find("/reads/x/readout\""), 17, "/reads/x/weights\"");
    const std::string vary = "\"/queries/q\", \"choices\": [[0, 0], [1, 1]]";
    text.replace(text.find(vary), vary.size(), "\"/readouts/r\", \"choices\": [[1, 1], [1, 2]]");
    Limits l = limits();
    l.max_variant_draws = 5;
    ScopedLimits scope(l);
    VariantRequest req;
    req.exercise = "t";
    EXPECT_ERROR_HAS(draw_variants(parse_scenario(text, "m.json"), req), ErrorKind::Limit,
                     "mistakes_differ (divide-by-count) failed most (5 of 5");
}

// The chapter's exponential of a score k·a is e^(k·a) = 2^k, since a = ln 2 (Table 14.1: "Because
// e^a = 2 and e^0 = 1"); the classic mistake reads the score k·a as the number k and takes e^k.
// States [a], [0] read with the query [k]: scores [k·a, 0], exponentials [2^k, 1], first weight
// 2^k/(2^k + 1); the mistake gives e^k/(e^k + 1) (e = 2.718281828, e² = 7.389056099):
//   k = 1:   right 2/3 = 0.666667,  mistaken e/(e + 1)     = 2.718282/3.718282 = 0.731059
//   k = 2:   right 4/5 = 0.8,       mistaken e²/(e² + 1)   = 7.389056/8.389056 = 0.880797
//   k = 1/8: right 2^(1/8)/(2^(1/8) + 1) = 1.090508/2.090508 = 0.521647, mistaken
//            e^(1/8)/(e^(1/8) + 1) = 1.133148/2.133148 = 0.531209: only 0.009562 apart, within the
//            tolerance 0.01, so the wrong method would score and mistakes_differ refuses the draw.
const char* kBaseE = R"({
  "sources": {"m": {"memory": [["a"], ["0"]]}},
  "queries": {"q": [1]},
  "readouts": {"r": [1]},
  "reads": {"x": {"source": "m", "query": "q", "readout": "r"}},
  "exercises": [{"id": "e", "prompt": "Read with {{/reads/x/query}}.", "reads": ["x"],
    "variation": {"vary": [{"at": "/queries/q", "choices": [["1/8"], [1], [2]]}],
                  "parts": [{"label": "the weights", "at": "/reads/x/weights"}],
                  "answer": "/reads/x/weights/0", "tolerance": 0.01,
                  "constraints": {"mistakes_differ": ["e-instead-of-2"]}}}]
})";

TEST(Variants, EInsteadOfTwoDiffersAndCheckNamesIt) {
    VariantRequest req;
    req.exercise = "e";
    req.count = 2;
    req.seed = 7;
    const VariantSet set = draw_variants(parse_scenario(kBaseE, "base-e.json"), req);
    ASSERT_EQ(set.variants.size(), 2U);
    std::set<std::string> right;
    for (const auto& v : set.variants) {
        const Report& rep = v.report;
        const Value w = *rep.read("x").trace.weights.all()[0];
        right.insert(to_ascii(w));
        // Only k = 1 and k = 2 meet mistakes_differ; each one's mistaken decimal is named.
        const bool one = w == parse_value("2/3");
        ASSERT_TRUE(one || w == parse_value("4/5")) << to_ascii(w);
        LearnerAnswer la;
        la.name = "v";
        la.target = "/reads/x/weights/0";
        read_proposal(one ? "0.731059" : "0.880797", la);
        la.tolerance = Tolerance{Tolerance::Kind::Absolute, mpq_class(1, 100), 0};
        const Judgement j = judge(rep, la);
        EXPECT_FALSE(j.correct) << judgement_text(j);
        EXPECT_EQ(j.mistake_id, "e-instead-of-2") << judgement_text(j);
        EXPECT_EQ(j.feedback, "Wrong: " + j.mistake + ".");
        // The whole row too: 1 − 0.731059 = 0.268941, 1 − 0.880797 = 0.119203.
        read_proposal(one ? "[0.731059, 0.268941]" : "[0.880797, 0.119203]", la);
        la.target = "/reads/x/weights";
        la.tolerance.reset();
        EXPECT_EQ(judge(rep, la).mistake_id, "e-instead-of-2");
        // And the right decimal is right: 0.666667, 0.8 within 0.01.
        read_proposal(one ? "0.67" : "0.80", la);
        la.target = "/reads/x/weights/0";
        EXPECT_TRUE(judge(rep, la).correct);
    }
    EXPECT_EQ(right, (std::set<std::string>{"2/3", "4/5"}));
    // k = 1/8 alone: the mistake stays within the tolerance on every draw.
    std::string text = kBaseE;
    const std::string three = R"([["1/8"], [1], [2]])";
    text.replace(text.find(three), three.size(), R"([["1/8"]])");
    Limits l = limits();
    l.max_variant_draws = 5;
    ScopedLimits scope(l);
    req.count = 1;
    EXPECT_ERROR_HAS(draw_variants(parse_scenario(text, "base-e.json"), req), ErrorKind::Limit,
                     "mistakes_differ (e-instead-of-2) failed most (5 of 5");
}

// A part may name tokens: data/examples/decoder-tie.json's decoder (U = 0, C = 0, so s_1 =
// E_y(<s>) = [1/10, 1/5] whatever s_0 is) ties blue and red at 3/10 at step 1, and the rule
// first chooses blue. s_0 = [1, 0] or [2, 0] is the step-1 query over [a, 0], [0, a]: scores
// [a, 0] or [2a, 0], first weight 2/3 or 4/5 (the numerical answer).
TEST(Variants, TokenPartsInPromptSheetAndKey) {
    std::ifstream in(test::source_path("data/examples/decoder-tie.json"), std::ios::binary);
    std::ostringstream file;
    file << in.rdbuf();
    std::string text = file.str();
    const std::string exercises =
        R"("exercises": [{"id": "t", "prompt": "Step 1 chooses {{/rollouts/tie/generation/steps/1/chosen}}.",
      "rollouts": ["tie"],
      "variation": {"vary": [{"at": "/decoder/initial", "choices": [[1, 0], [2, 0]]}],
        "parts": [{"label": "the choice", "at": "/rollouts/tie/generation/steps/1/chosen"},
                  {"label": "the tied tokens", "at": "/rollouts/tie/generation/steps/1/argmax"},
                  {"label": "the first weight", "at": "/rollouts/tie/generation/steps/1/weights/0"}],
        "answer": "/rollouts/tie/generation/steps/1/weights/0", "tolerance": 0.01,
        "constraints": {"distinct_parts": true}}}],
  "expect")";
    text.replace(text.find("\"expect\""), 8, exercises);
    VariantRequest req;
    req.exercise = "t";
    req.count = 2;
    const VariantSet set = draw_variants(parse_scenario(text, "tie.json"), req);
    ASSERT_EQ(set.variants.size(), 2U);
    for (const auto& v : set.variants) {
        EXPECT_EQ(v.report.scenario.exercises.front().prompt, "Step 1 chooses `blue`.");
        const std::string key = render(variant_key_document(set, v), Format::Markdown);
        EXPECT_NE(key.find("the choice: blue"), std::string::npos) << key;
        EXPECT_NE(key.find("the tied tokens: [blue, red]"), std::string::npos) << key;
        EXPECT_TRUE(key.find("Numerical answer: $\\tfrac{2}{3}$") != std::string::npos ||
                    key.find("Numerical answer: $\\tfrac{4}{5}$") != std::string::npos)
            << key;
        EXPECT_TRUE(verify_report(run_scenario(parse_scenario(v.file_text, "tie.json"))).failures.empty());
    }
    EXPECT_NE(render(variant_sheet_document(set), Format::Latex).find("\\exactattnToken{blue}"), std::string::npos);
}

// distinct_answers: over states [a, 0], [0, a] a query [q1, q2] with q1, q2 drawn from {0, 1}
// scores [q1·a, q2·a], so the first weight is 2^q1/(2^q1 + 2^q2) (by hand): 1/2 for [0, 0] and
// [1, 1], 1/3 for [0, 1], 2/3 for [1, 0]. Four different draws, three different answers.
std::string two_bit_query(const std::string& tolerance, bool distinct_answers) {
    return R"({
  "sources": {"m": {"memory": [["a", "0"], ["0", "a"]]}},
  "queries": {"q": [0, 0]},
  "reads": {"x": {"source": "m", "query": "q"}},
  "exercises": [{"id": "t", "prompt": "Read with {{/reads/x/query}}.", "reads": ["x"],
    "variation": {"vary": [{"at": "/queries/q", "integers": [0, 1]}],
                  "parts": [{"label": "the first weight", "at": "/reads/x/weights/0"}],
                  "answer": "/reads/x/weights/0", "tolerance": )" +
           tolerance + R"(,
                  "constraints": {"distinct_answers": )" +
           (distinct_answers ? "true" : "false") + R"(}}}]
})";
}

TEST(Variants, DistinctAnswersGiveEveryVariantItsOwnAnswer) {
    VariantRequest req;
    req.exercise = "t";
    req.seed = 3;
    req.count = 4;
    // Without the constraint the four different draws make four variants, two answering 1/2.
    const VariantSet all = draw_variants(parse_scenario(two_bit_query("0.001", false), "q.json"), req);
    std::multiset<std::string> answers;
    for (const auto& v : all.variants) answers.insert(v.report.scenario.expect.back().second);
    EXPECT_EQ(answers, (std::multiset<std::string>{"\"1/2\"", "\"1/2\"", "\"1/3\"", "\"2/3\""}));
    // With it, three variants answer 1/3, 1/2 and 2/3 in some order; a fourth does not exist.
    req.count = 3;
    const VariantSet three = draw_variants(parse_scenario(two_bit_query("0.001", true), "q.json"), req);
    std::set<std::string> distinct;
    for (const auto& v : three.variants) distinct.insert(v.report.scenario.expect.back().second);
    EXPECT_EQ(distinct, (std::set<std::string>{"\"1/2\"", "\"1/3\"", "\"2/3\""}));
    req.count = 4;
    EXPECT_ERROR_HAS(draw_variants(parse_scenario(two_bit_query("0.001", true), "q.json"), req), ErrorKind::Limit,
                     "q.json: /exercises/0/variation/constraints/distinct_answers: only 3 variants with distinct "
                     "answers");
}

// Answers closer than the tolerance count as the same (a neighbour's copied answer would score):
// with tolerance 0.2, 1/2 is within 1/6 of both 1/3 and 2/3, and only 1/3 and 2/3 are farther
// apart (1/3), so no set of three exists, whatever the order of the draws.
TEST(Variants, DistinctAnswersAreFartherApartThanTheTolerance) {
    VariantRequest req;
    req.exercise = "t";
    req.seed = 3;
    req.count = 3;
    EXPECT_ERROR_HAS(draw_variants(parse_scenario(two_bit_query("0.2", true), "q.json"), req), ErrorKind::Limit,
                     "within the tolerance 0.2 of an earlier one");
}

// Constraints reach the reads an exercise's parts point into, a layer's rows included. Layer
// "l" over tokens u = [1], v = [0] with W_Q = [1], W_K = [k·a], W_V = [1] and no scale: row 1's
// scores are [k·a, 0], its weights [2^k, 1]/(2^k + 1) (by hand): [2/3, 1/3] for k = 1 and
// [1/2, 1/2] for k = 0, so max_denominator 2 admits k = 0 only.
std::string one_layer_exercise(const std::string& part, const std::string& constraints) {
    return R"({
  "vocabulary": {"u": [1], "v": [0]},
  "sequences": {"s": {"tokens": ["u", "v"]}},
  "matrices": {"WQ": [[1]], "WK": [["a"]], "WV": [[1]]},
  "layers": {"l": {"sequence": "s", "heads": [{"wq": "WQ", "wk": "WK", "wv": "WV"}], "scale": "none"}},
  "exercises": [{"id": "t", "prompt": "The layer.",
    "variation": {"vary": [{"at": "/layers/l/heads/0/wk/0/0", "choices": ["a", "0"]}],
                  "parts": [{"label": "the part", "at": ")" +
           part + R"("}],
                  "answer": "/layers/l/heads/0/weights/0/0", "tolerance": 0.001,
                  "constraints": )" +
           constraints + R"(}}]
})";
}

TEST(Variants, ConstraintsApplyToTheLayerRowsAnExercisePointsInto) {
    const Scenario base =
        parse_scenario(one_layer_exercise("/layers/l/heads/0/weights/0", R"({"max_denominator": 2})"), "layer.json");
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        VariantRequest req;
        req.exercise = "t";
        req.seed = seed;
        req.count = 1;
        const VariantSet set = draw_variants(base, req);
        ASSERT_EQ(set.variants.size(), 1U);
        EXPECT_EQ(set.variants[0].report.scenario.expect.back().second, "\"1/2\"") << "seed " << seed;
    }
}

// An exercise that names only its variation's parts has a key all the same (issue 37): the
// parts' layer row derived. By hand (one_layer_exercise): q_1 = x_1 W_Q = [1], k_1 = [w], k_2 = [0]
// for the drawn W_K = [w]; w = a: scores a, 0, exponentials 2, 1, total 3, weights [2/3, 1/3],
// output (2/3)[1] + (1/3)[0] = [2/3]; w = 0: scores 0, 0, weights [1/2, 1/2], output [1/2].
TEST(Variants, AKeyFromThePartsOfAnExerciseThatNamesNothingElse) {
    const Scenario base = parse_scenario(one_layer_exercise("/layers/l/heads/0/weights/0", "{}"), "layer.json");
    RenderOptions unicode;
    unicode.markdown_math = false;
    const std::string key = render_answers(run_scenario(base), Format::Markdown, unicode);
    EXPECT_NE(key.find("Query 1 (u): q_1 = [1]"), std::string::npos) << key;
    EXPECT_NE(key.find("s_11 = a, s_12 = 0"), std::string::npos) << key;
    EXPECT_NE(key.find("α_1 = [2/3, 1/3] and the output is o_1 = (2/3)[1] + (1/3)[0] = [2/3]."), std::string::npos)
        << key;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        VariantRequest req;
        req.exercise = "t";
        req.seed = seed;
        req.count = 1;
        const VariantSet set = draw_variants(base, req);
        const Variant& v = set.variants.at(0);
        const bool w_is_a = v.report.layers.at(0).spec.layer.heads.at(0).wk.at(0).at(0) == parse_value("a");
        const std::string vk = render(variant_key_document(set, v), Format::Markdown, unicode);
        EXPECT_NE(vk.find(w_is_a ? "α_1 = [2/3, 1/3]" : "α_1 = [1/2, 1/2]"), std::string::npos) << vk;
        EXPECT_EQ(vk.find("**Answer.**\n"), std::string::npos) << vk;
    }
}

// A constraint on weights that no part, answer or listed read reaches would hold for every
// variant: refused at the constraint. The answer here is a projection (V), not a read.
TEST(Variants, AConstraintOnReadsOfAnExerciseThatReadsNoneIsRefused) {
    std::string text = one_layer_exercise("/layers/l/heads/0/values", R"({"unique_maximum": true})");
    text.replace(text.find("/layers/l/heads/0/weights/0/0"), 29, "/layers/l/heads/0/values/0/0");
    VariantRequest req;
    req.exercise = "t";
    EXPECT_ERROR_HAS(draw_variants(parse_scenario(text, "layer.json"), req), ErrorKind::Reference,
                     "layer.json: /exercises/0/variation/constraints/unique_maximum: unique_maximum constrains "
                     "the weights or scores of the exercise's reads, and the exercise reads none");
}

TEST(Variants, CommandLineErrors) {
    Result r = run({"variants", "chapter14", "--exercise", "1"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("exactattn: --output: variants writes many files"), std::string::npos) << r.err;
    r = run({"variants", "chapter14", "--exercise", "9", "-o", "/tmp/x"});
    EXPECT_EQ(r.err, "exactattn: --exercise: unknown exercise \"9\" (exercises of chapter14: 1, 2, 3, 4, 5)\n");
    r = run({"variants", "chapter14", "--exercise", "1", "--count", "0", "-o", "/tmp/x"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--count: 0 variants asked for; give a count of at least 1"), std::string::npos) << r.err;
}

}  // namespace

namespace {

// The Moodle export of exercise 1 of the chapter (seed 7) with its prompt's opening
// "Use query {{" replaced by `opening` (a JSON string's text, escapes allowed).
std::string moodle_with_prompt(const std::string& opening, std::size_t count) {
    std::string text(builtin_chapter14());
    const std::string from = "\"prompt\": \"Use query {{";
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos);
    if (at == std::string::npos) return {};
    text.replace(at, from.size(), "\"prompt\": \"" + opening + "{{");
    VariantRequest req;
    req.exercise = "exercise-1";
    req.count = count;
    req.seed = 7;
    return moodle_xml(draw_variants(parse_scenario(text, "chapter14.json"), req));
}

// An author's prompt may hold any character a JSON string can (here U+0001 and U+FFFE, which
// XML 1.0 cannot carry at all): the Moodle export must stay well-formed XML, showing them as
// <U+XXXX>. Checked by the structure of the bytes and by xmllint, a real XML parser.
TEST(Variants, MoodleXmlStaysWellFormedWithControlCharactersInThePrompt) {
    const std::string xml = moodle_with_prompt("Use\\u0001 query \\uFFFE ", 2);
    for (unsigned char c : xml) EXPECT_TRUE(c >= 0x20 || c == '\n') << static_cast<int>(c);
    EXPECT_EQ(xml.find("\xEF\xBF\xBE"), std::string::npos);
    EXPECT_NE(xml.find("Use&amp;lt;U+0001&amp;gt; query &amp;lt;U+FFFE&amp;gt;"), std::string::npos) << xml;
    if (std::system("command -v xmllint >/dev/null 2>&1") != 0) GTEST_SKIP() << "xmllint not installed";
    const std::string path = testing::TempDir() + "moodle-control.xml";
    std::ofstream(path) << xml;
    EXPECT_EQ(std::system(("xmllint --noout " + path).c_str()), 0);
}

// An author's Markdown in a prompt reaches Moodle as HTML: `$…$` as MathJax's \(…\) holding the
// author's TeX as written, emphasis as <em>, code as <code>, and markup characters escaped (once
// for HTML, once more for the XML text that carries it).
TEST(Variants, MoodlePromptKeepsAuthorMathAndMarkup) {
    const std::string xml = moodle_with_prompt("For $c_1 + 2c_2 < 1$, *use* `<q>` and query ", 1);
    EXPECT_NE(
        xml.find(
            "For \\(c_1 + 2c_2 &amp;lt; 1\\), &lt;em&gt;use&lt;/em&gt; &lt;code&gt;&amp;lt;q&amp;gt;&lt;/code&gt; and "
            "query \\([-1, 2]\\)"),
        std::string::npos)
        << xml;
    EXPECT_EQ(xml.find("$c_1"), std::string::npos);
}

}  // namespace

namespace {

// The self-attention example with an exercise whose variation varies `at`: the layer "full"
// reads head 1's W_K as its own copy of the named matrix WK1 (scale 1/2; docs/attention.md).
Scenario self_attention_varying(const std::string& at) {
    std::ifstream in(test::source_path("data/examples/self-attention.json"), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    nlohmann::json doc = nlohmann::json::parse(text.str());
    doc["exercises"] = nlohmann::json::array({nlohmann::json::parse(R"({"id": "v", "prompt": "Weights.",
        "variation": {"vary": [{"at": ")" + at + R"(", "integers": [1, 2], "multiple_of_a": true}],
                      "parts": [{"label": "the weights", "at": "/layers/full/heads/0/weights/1"}],
                      "answer": "/layers/full/heads/0/weights/1/1", "tolerance": "0.001"}})")});
    doc.erase("learner_answers");
    return parse_scenario(doc.dump(), "self-attention.json");
}

// A `vary` entry that changes no computed quantity would make every variant the same: the
// named matrix WK1 is not what the layer reads (it holds its own copy), so varying it changes
// nothing and is refused at the entry; varying the layer's copy draws different variants.
TEST(Variants, AnEntryThatChangesNoComputedQuantityIsRefused) {
    VariantRequest req;
    req.exercise = "v";
    req.count = 2;
    req.seed = 7;
    try {
        (void)draw_variants(self_attention_varying("/matrices/WK1/1/1"), req);
        FAIL() << "varying a matrix the layer does not read was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Reference);
        EXPECT_NE(std::string(e.what()).find("/exercises/0/variation/vary/0/at: /matrices/WK1/1/1 changes no "
                                             "computed quantity"),
                  std::string::npos)
            << e.what();
    }
    const VariantSet set = draw_variants(self_attention_varying("/layers/full/heads/0/wk/1/1"), req);
    ASSERT_EQ(set.variants.size(), 2U);
    EXPECT_NE(set.variants[0].file_text, set.variants[1].file_text);
}

}  // namespace

namespace {

// One variant is "1 variant", in the command's summary and in the sheet's title.
// check and the Moodle export share one boundary rule (docs/check.md#tolerance-rules): Moodle
// accepts a response r when answer − tolerance ≤ r ≤ answer + tolerance. A memory [[m]] read with
// query [0] has context m (score 0, weight 1); m is drawn from −9/5 and −2. The variant answering
// −9/5 exports <text>-1.80000000000000</text> (15 significant digits) and <tolerance>0.001</tolerance>, so Moodle's
// rule applied to those numbers scores −1.799 (exactly 0.001 away) and not −1.7989; `check` with absolute:0.001 judges
// both alike.
std::string nine_fifths(const std::string& choices, bool distinct_answers) {
    return R"({
  "sources": {"m": {"memory": [["-9/5"]]}},
  "reads": {"x": {"source": "m", "query": [0]}},
  "exercises": [{"id": "t", "prompt": "Read it.", "reads": ["x"],
    "variation": {"vary": [{"at": "/sources/m/memory/0/0", "choices": )" +
           choices + R"(}],
                  "parts": [{"label": "the context", "at": "/reads/x/context/0"}],
                  "answer": "/reads/x/context/0", "tolerance": "0.001",
                  "constraints": {"distinct_answers": )" +
           (distinct_answers ? "true" : "false") + R"(}}}]
})";
}

TEST(Variants, MoodleAndCheckAcceptTheToleranceBoundaryAlike) {
    VariantRequest req;
    req.exercise = "t";
    req.seed = 1;
    req.count = 2;
    const VariantSet set = draw_variants(parse_scenario(nine_fifths(R"(["-9/5", "-2"])", false), "nf.json"), req);
    ASSERT_EQ(set.variants.size(), 2U);
    const std::string xml = moodle_xml(set);
    const auto between = [&xml](const std::string& open, const std::string& close, std::size_t from) {
        const auto a = xml.find(open, from);
        EXPECT_NE(a, std::string::npos) << open << "\n" << xml;
        return a == std::string::npos ? std::string()
                                      : xml.substr(a + open.size(), xml.find(close, a) - a - open.size());
    };
    const auto at = xml.find("<text>-1.80000000000000</text>");
    ASSERT_NE(at, std::string::npos) << xml;
    const Value answer = parse_value(between("<text>", "</text>", at));
    const Value tolerance = parse_value(between("<tolerance>", "</tolerance>", at));
    EXPECT_EQ(answer, parse_value("-9/5"));
    EXPECT_EQ(tolerance, parse_value("1/1000"));
    const Variant& v = set.variants[set.variants[0].report.read("x").trace.context.at(0) == answer ? 0 : 1];
    for (const char* r : {"-1.799", "-1.801", "-1.7989"}) {
        const Value response = parse_value(r);
        const bool moodle = compare(answer - tolerance, response) <= 0 && compare(response, answer + tolerance) <= 0;
        EXPECT_EQ(moodle, std::string(r) != "-1.7989") << r;
        EXPECT_EQ(test::check(v.report, "/reads/x/context/0", r, "absolute:0.001").correct, moodle) << r;
    }
}

// distinct_answers models the Moodle export's rule too: answers exactly the tolerance apart
// (−9/5 and −1.799) are too close, since each scores against the other's key.
TEST(Variants, AnswersExactlyTheToleranceApartAreNotDistinct) {
    VariantRequest req;
    req.exercise = "t";
    req.seed = 1;
    req.count = 2;
    EXPECT_ERROR_HAS(draw_variants(parse_scenario(nine_fifths(R"(["-9/5", "-1.799"])", true), "nf.json"), req),
                     ErrorKind::Limit, "within the tolerance 0.001 of an earlier one");
    // 0.0011 apart, they are distinct.
    EXPECT_EQ(
        draw_variants(parse_scenario(nine_fifths(R"(["-9/5", "-1.7989"])", true), "nf.json"), req).variants.size(), 2U);
}

TEST(Variants, OneVariantIsSingular) {
    const fs::path d = fresh_dir("one");
    const Result r = run({"variants", "chapter14", "--exercise", "1", "--count", "1", "--seed", "7", "-o", d.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("variants: 1 variant of exercise 1 written to "), std::string::npos) << r.out;
    EXPECT_NE(files_in(d).at("sheet.md").find("# Exercise 1 — Read a new query: 1 variant\n"), std::string::npos);
}

}  // namespace
