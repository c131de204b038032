// SPDX-License-Identifier: MIT
// The scenario loader and writer (scenario.hpp, docs/scenario.md): a minimal file, the
// defaults, errors placed at `file: /pointer` for mistakes that the bad-input corpus
// (tests/bad/cases.json) does not already cover, and write_scenario on a hand-written scenario
// compared with its text written out by hand.
#include "exactattn/scenario.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/support.hpp"

using namespace exactattn;

namespace {

Value A() { return Value::ln2(); }
Value q(long n, long d = 1) { return Value(mpq_class(n, d)); }

// Two tokens and the identity-weight relu encoder: x = [a, 0], y = [0, a/2]. The source s =
// [x, y, x] has states h_1 = [a, 0], h_2 = [a, 0] + [0, a/2] = [a, a/2], h_3 = [a, a/2] + [a, 0]
// = [2a, a/2] (all nonnegative, so relu changes nothing).
const std::string kBase = R"(
  "vocabulary": {"x": ["a", 0], "y": [0, "a/2"]},
  "encoder": {"recurrent": [[1, 0], [0, 1]], "input": [[1, 0], [0, 1]], "bias": [0, 0], "initial": [0, 0]},
  "sources": {"s": ["x", "y", "x"]},
  "queries": {"q": [1, 0]},
  "readouts": {"r": [1, 2]})";

// The base scenario plus `more` (top-level entries, comma-led), loaded as t.json.
Scenario with(const std::string& more) { return parse_scenario("{" + kBase + more + "}", "t.json"); }

}  // namespace

TEST(Scenario, EmptyObjectIsAValidScenario) {
    // Every section is optional; the score rule defaults to the chapter's dot product.
    const Scenario s = parse_scenario("{}", "empty.json");
    EXPECT_EQ(s.file, "empty.json");
    EXPECT_TRUE(s.title.empty());
    EXPECT_TRUE(s.sources.empty());
    EXPECT_FALSE(s.encoder.has_value());
    EXPECT_EQ(s.rule, ScoreRule::Dot);
    EXPECT_FALSE(s.crosscheck.tolerance_ulps.has_value());
    // Written back: only the score rule, which is always written.
    EXPECT_EQ(write_scenario(s), "{\n  \"score\": \"dot\"\n}\n");
}

TEST(Scenario, MinimalReadOverAGivenMemory) {
    const Scenario s = parse_scenario(R"({"sources": {"m": {"memory": [["a", 0], [0, "a/2"]]}},
                                          "queries": {"q": [1, 1]},
                                          "reads": {"r": {"source": "m", "query": "q"}}})",
                                      "min.json");
    ASSERT_EQ(s.sources.size(), 1U);
    EXPECT_EQ(s.sources[0].name, "m");
    EXPECT_FALSE(s.sources[0].tokens.has_value());
    EXPECT_EQ(s.sources[0].states.matrix(), (Matrix{{A(), q(0)}, {q(0), A() / Value(2)}}));
    EXPECT_EQ(s.sources[0].position_label(2), "2");  // no labels, no tokens: the number
    ASSERT_EQ(s.reads.size(), 1U);
    const ReadSpec& r = s.reads[0];
    EXPECT_EQ(r.name, "r");
    EXPECT_EQ(r.source, "m");
    EXPECT_EQ(r.query, (NamedVector{"q", {q(1), q(1)}}));
    EXPECT_FALSE(r.readout.has_value());
    EXPECT_TRUE(r.remove.empty());
    EXPECT_TRUE(r.zero.empty());
}

TEST(Scenario, TokensAreEncodedWhenTheFileLoads) {
    const Scenario s = with("");
    ASSERT_EQ(s.sources.size(), 1U);
    const Source& src = s.source("s");
    ASSERT_TRUE(src.tokens.has_value());
    EXPECT_EQ(*src.tokens, (std::vector<std::string>{"x", "y", "x"}));
    EXPECT_EQ(src.states.matrix(), (Matrix{{A(), q(0)}, {A(), A() / Value(2)}, {q(2) * A(), A() / Value(2)}}));
    EXPECT_EQ(src.position_label(2), "2: y");  // the token when there are no labels
    EXPECT_EQ(s.embedding("y"), (Vector{q(0), A() / Value(2)}));
}

TEST(Scenario, ChapterSourcesHaveTheChaptersStates) {
    // §14.2: "h_1=[a,0], h_2=[0,a], h_3=[0,0]"; §14.4: "On the blue source, the states are
    // [0,0], [0,a], [0,0]". The labels are the chapter's position names (Table 14.1).
    const Scenario s = load_scenario("chapter14");
    const Source& red = s.source("red");
    EXPECT_EQ(red.states.matrix(), (Matrix{{A(), q(0)}, {q(0), A()}, {q(0), q(0)}}));
    EXPECT_EQ(red.position_label(1), "1: color");
    EXPECT_EQ(red.position_label(3), "3: full stop");
    EXPECT_EQ(s.source("blue").states.matrix(), (Matrix{{q(0), q(0)}, {q(0), A()}, {q(0), q(0)}}));
}

TEST(Scenario, Defaults) {
    const Scenario s = with(R"(,
      "reads": {"inline": {"source": "s", "query": [0, 1]}},
      "interventions": {"all": {"kind": "remove-state", "source": "s", "query": "q"}},
      "costs": {"c": {"source": "s"}})");
    // The encoder's activation defaults to relu (docs/model.md).
    ASSERT_TRUE(s.encoder.has_value());
    EXPECT_EQ(s.encoder->activation, Activation::Relu);
    EXPECT_EQ(s.rule, ScoreRule::Dot);
    // An inline query has no name; a read without a readout has none.
    EXPECT_EQ(s.reads[0].query, (NamedVector{"", {q(0), q(1)}}));
    EXPECT_FALSE(s.reads[0].readout.has_value());
    // An intervention lists every position by default.
    EXPECT_EQ(s.interventions[0].positions, (std::vector<std::size_t>{1, 2, 3}));
    EXPECT_EQ(s.interventions[0].kind, InterventionKind::RemoveState);
    // A cost case over a source: n = 3 and d = 2 from it, T = 1, 8 bytes per number.
    ASSERT_EQ(s.costs.size(), 1U);
    EXPECT_EQ(s.costs[0].source, "s");
    EXPECT_EQ(s.costs[0].input, (CostInput{3, 2, 1, 8}));
}

TEST(Scenario, FlatCostsAreOneCaseOverTheFirstSource) {
    // docs/scenario.md: a flat `costs` object is one case, "default", over the first source.
    const Scenario s = with(R"(, "costs": {"target_steps": 4, "bytes_per_number": 2})");
    ASSERT_EQ(s.costs.size(), 1U);
    EXPECT_EQ(s.costs[0].name, "default");
    EXPECT_EQ(s.costs[0].source, "s");
    EXPECT_EQ(s.costs[0].input, (CostInput{3, 2, 4, 2}));
}

// Regression: the flat form was recognised by its keys, so a case named "positions" (or
// "target_steps") was read as a flat case and refused, and {"source": "s"} alone as a case
// named "source". It is now recognised by its values, which are not objects.
TEST(Scenario, CostCaseNamesAreNotFlatKeys) {
    Scenario s = with(R"(, "costs": {"positions": {"source": "s", "target_steps": 2}})");
    ASSERT_EQ(s.costs.size(), 1U);
    EXPECT_EQ(s.costs[0].name, "positions");
    EXPECT_EQ(s.costs[0].input, (CostInput{3, 2, 2, 8}));  // n = 3 and d = 2 from s
    s = with(R"(, "costs": {"source": "s"})");
    ASSERT_EQ(s.costs.size(), 1U);
    EXPECT_EQ(s.costs[0].name, "default");
    EXPECT_EQ(s.costs[0].input, (CostInput{3, 2, 1, 8}));
    // A flat entry beside a named case is a key the flat case does not know.
    EXPECT_ERROR(with(R"(, "costs": {"target_steps": 2, "c": {"source": "s"}})"), ErrorKind::Reference,
                 "t.json: /costs/c: unknown key \"c\"; expected one of: source, positions, width, "
                 "target_steps, bytes_per_number, note");
}

// Each mistake below is placed at the JSON pointer of the entry at fault, with the reason.
TEST(Scenario, ReadErrorsArePlaced) {
    // A name with '/' is escaped as ~1 in the pointer (RFC 6901).
    EXPECT_ERROR(with(R"(, "reads": {"r/1": {"source": "s"}})"), ErrorKind::Shape,
                 "t.json: /reads/r~11: missing \"query\"");
    EXPECT_ERROR(with(R"(, "reads": {"r": {"query": "q"}})"), ErrorKind::Shape, "t.json: /reads/r: missing \"source\"");
    EXPECT_ERROR(with(R"(, "reads": {"r": {"source": "s", "query": "q", "weights": [1]}})"), ErrorKind::Reference,
                 "t.json: /reads/r/weights: unknown key \"weights\"; expected one of: source, "
                 "query, readout, "
                 "remove, zero, note, number, caption");
    EXPECT_ERROR(with(R"(, "reads": {"r": {"source": "s", "query": "q", "remove": 2}})"), ErrorKind::Shape,
                 "t.json: /reads/r/remove: expected an array, found a number");
    EXPECT_ERROR(with(R"(, "reads": [])"), ErrorKind::Shape, "t.json: /reads: expected an object, found an array");
}

TEST(Scenario, InterventionErrorsArePlaced) {
    EXPECT_ERROR(with(R"(, "interventions": {"t": {"source": "s", "query": "q"}})"), ErrorKind::Shape,
                 "t.json: /interventions/t: missing \"kind\"");
    // s has three positions.
    EXPECT_ERROR(
        with(R"(, "interventions": {"t": {"kind": "zero-score", "source": "s", "query": "q", "positions": [2, 4]}})"),
        ErrorKind::Reference,
        "t.json: /interventions/t/positions/1: position 4 is out of range: the source has "
        "positions 1 to 3");
}

TEST(Scenario, VocabularyEncoderAndSourceErrorsArePlaced) {
    EXPECT_ERROR(parse_scenario(R"({"vocabulary": {"a b": [1]}})", "t.json"), ErrorKind::Shape,
                 "t.json: /vocabulary/a b: token \"a b\" contains a space; tokens are separated by spaces");
    EXPECT_ERROR(parse_scenario(R"({"vocabulary": {"": [1]}})", "t.json"), ErrorKind::Shape,
                 "t.json: /vocabulary/: a token must not be empty");
    // Embeddings of width 3 against a W_x with 2 rows.
    EXPECT_ERROR(parse_scenario(R"({"vocabulary": {"x": [1, 0, 0]},
                                    "encoder": {"recurrent": [[1, 0], [0, 1]], "input": [[1, 0], [0, 1]],
                                                "bias": [0, 0], "initial": [0, 0]}})",
                                "t.json"),
                 ErrorKind::Shape, "t.json: /encoder/input: embeddings have width 3; the input matrix W_x has 2 rows");
    EXPECT_ERROR(parse_scenario(R"({"score": "cosine"})", "t.json"), ErrorKind::Reference,
                 "t.json: /score: unknown score rule \"cosine\"; expected dot or scaled-dot");
    EXPECT_ERROR(parse_scenario(R"({"sources": {"s": 3}})", "t.json"), ErrorKind::Shape,
                 "t.json: /sources/s: expected a token list or an object with \"tokens\" or "
                 "\"memory\", found a number");
    // Labels name positions: three tokens need three labels.
    EXPECT_ERROR(parse_scenario("{" + std::string(R"("vocabulary": {"x": ["a", 0]},
                 "encoder": {"recurrent": [[1, 0], [0, 1]], "input": [[1, 0], [0, 1]], "bias": [0, 0], "initial": [0, 0]},
                 "sources": {"s": {"tokens": ["x", "x", "x"], "labels": ["one", "two"]}}})"),
                                "t.json"),
                 ErrorKind::Shape, "t.json: /sources/s/labels: 2 labels for 3 positions");
}

TEST(Scenario, CostErrorsArePlaced) {
    EXPECT_ERROR(with(R"(, "costs": {"c": {"target_steps": 2}})"), ErrorKind::Shape,
                 "t.json: /costs/c: a cost case needs \"source\", or \"positions\" and \"width\"");
    // T from 1 to 2^40 = 1099511627776 (docs/limits.md, "Other bounds").
    EXPECT_ERROR(with(R"(, "costs": {"c": {"source": "s", "target_steps": 0}})"), ErrorKind::Shape,
                 "t.json: /costs/c/target_steps: 0 is out of range: expected a whole number from 1 "
                 "to 1099511627776");
    EXPECT_ERROR(with(R"(, "costs": {"c": {"positions": 3, "width": "1/2"}})"), ErrorKind::Shape,
                 "t.json: /costs/c/width: expected a whole number from 1 to 1099511627776");
}

TEST(Scenario, ExerciseLearnerAndCrosscheckErrorsArePlaced) {
    EXPECT_ERROR(with(R"(, "exercises": [{"id": "1", "prompt": "p", "explanation": "e"}, {"id": "1", "prompt": "q"}])"),
                 ErrorKind::Shape, "t.json: /exercises/1/id: exercise id \"1\" is used twice");
    EXPECT_ERROR(with(R"(, "exercises": [{"id": "1"}])"), ErrorKind::Shape,
                 "t.json: /exercises/0: an exercise needs \"id\" and \"prompt\"");
    EXPECT_ERROR(with(R"(, "learner_answers": {"la": {"target": "/sources/s/states"}})"), ErrorKind::Shape,
                 "t.json: /learner_answers/la: a learner answer needs \"target\" and \"proposed\"");
    EXPECT_ERROR(with(R"(, "figures": {"f": {"kind": "pie"}})"), ErrorKind::Reference,
                 "t.json: /figures/f/kind: unknown figure kind \"pie\"; expected read-comparison, "
                 "dependency, "
                 "heatmap, intervention or crosscheck");
    EXPECT_ERROR(with(R"(, "crosscheck": {"tolerance_ulps": -1})"), ErrorKind::Shape,
                 "t.json: /crosscheck/tolerance_ulps: tolerance_ulps must be a nonnegative rational number");
    EXPECT_ERROR(with(R"(, "crosscheck": {"tolerance_ulps": "a"})"), ErrorKind::Shape,
                 "t.json: /crosscheck/tolerance_ulps: tolerance_ulps must be a nonnegative rational number");
}

TEST(Scenario, WriteScenarioByHand) {
    // docs/scenario.md, "Written scenarios": two-space indented JSON (one array entry a line),
    // keys in the order of the keys table, integers as numbers and other values as canonical
    // ascii strings, named vectors by name and inline ones as vectors, the score rule always,
    // an intervention's positions always (here the default, every position), a flat `costs` as
    // its one case "default" with n and d written out (n = 2 tokens, d = 2).
    const Scenario s = parse_scenario(R"({
      "title": "Round trip",
      "vocabulary": {"x": ["a", 0], "y": [0, "a/2"]},
      "encoder": {"activation": "identity", "recurrent": [[1, 0], [0, 1]], "input": [[1, 0], [0, 1]],
                  "bias": [0, 0], "initial": [0, 0], "note": "not kept"},
      "sources": {"s": {"tokens": ["x", "y"], "labels": ["first", "second"]}},
      "queries": {"q": [1, 1]},
      "readouts": {"r": [1, 2]},
      "reads": {"plain": {"source": "s", "query": "q", "readout": "r", "number": "1.1"},
                "inline": {"source": "s", "query": [0, 0.5], "remove": [1]}},
      "interventions": {"drop": {"kind": "remove-state", "source": "s", "query": "q"}},
      "costs": {"bytes_per_number": 4, "target_steps": 2}
    })",
                                      "rt.json");
    const std::string expected = R"({
  "title": "Round trip",
  "vocabulary": {
    "x": [
      "a",
      0
    ],
    "y": [
      0,
      "a/2"
    ]
  },
  "encoder": {
    "activation": "identity",
    "recurrent": [
      [
        1,
        0
      ],
      [
        0,
        1
      ]
    ],
    "input": [
      [
        1,
        0
      ],
      [
        0,
        1
      ]
    ],
    "bias": [
      0,
      0
    ],
    "initial": [
      0,
      0
    ]
  },
  "score": "dot",
  "sources": {
    "s": {
      "tokens": [
        "x",
        "y"
      ],
      "labels": [
        "first",
        "second"
      ]
    }
  },
  "queries": {
    "q": [
      1,
      1
    ]
  },
  "readouts": {
    "r": [
      1,
      2
    ]
  },
  "reads": {
    "plain": {
      "source": "s",
      "query": "q",
      "readout": "r",
      "number": "1.1"
    },
    "inline": {
      "source": "s",
      "query": [
        0,
        "1/2"
      ],
      "remove": [
        1
      ]
    }
  },
  "interventions": {
    "drop": {
      "kind": "remove-state",
      "source": "s",
      "query": "q",
      "positions": [
        1,
        2
      ]
    }
  },
  "costs": {
    "default": {
      "source": "s",
      "positions": 2,
      "width": 2,
      "target_steps": 2,
      "bytes_per_number": 4
    }
  }
}
)";
    EXPECT_EQ(write_scenario(s), expected);
    // Loading the written text gives the same scenario; writing it again, the same text.
    const Scenario back = parse_scenario(expected, "rt.json");
    EXPECT_EQ(back, s);
    EXPECT_EQ(write_scenario(back), expected);
    // The identity encoder's states: h_1 = [a, 0], h_2 = [a, 0] + [0, a/2] = [a, a/2].
    EXPECT_EQ(back.source("s").states.matrix(), (Matrix{{A(), q(0)}, {A(), A() / Value(2)}}));
}
