// SPDX-License-Identifier: MIT
// The class of #24 item 7: every known mistake applies wherever its read applies. Every row of
// an attention layer is a read (docs/attention.md), and so is a decoder step's read, so the
// Chapter 14 mistakes apply to them as to a scenario's read and an intervention row; the layer
// mistakes apply to the layers they describe. Each case below is a wrong answer worked by hand
// (the derivations are in the comments) that `check` must name with the mistake's id.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "exactattn/check.hpp"
#include "exactattn/scenario.hpp"
#include "support/check_support.hpp"
#include "support/support.hpp"

namespace exactattn {
namespace {

// The reads, worked by hand:
// - read r: memory [[a, 0], [0, a], [0, 0]] (Chapter 14's red source), query [1, 0]: scores
//   [a, 0, 0], exponentials [2, 1, 1], total 4, weights [1/2, 1/4, 1/4], context [a/2, a/4].
// - intervention i, row 1: r with position 2 removed: exponentials [2, —, 1], total 3, weights
//   [2/3, 0, 1/3], context [2a/3, 0] (Table 14.2).
// - layers over X = [[1, 0], [0, 1], [1, 1]] with W_Q = I, W_K = a·I, W_V = I, so the scores are
//   s_ij = a (x_i · x_j): row 1 [a, 0, a], row 2 [0, a, a], row 3 [a, a, 2a].
//   - pad (padding [2], W_O = [[0, 1], [1, 0]], residual): query 2 (index 1) keeps keys 1 and 3:
//     scores [0, —, a], exponentials [1, —, 2], total 3, weights [1/3, 0, 2/3]; its output
//     1/3 [1, 0] + 2/3 [1, 1] = [1, 2/3], times W_O = [2/3, 1], plus x_2 = [0, 1]: [2/3, 2].
//   - causal: query 1 sees key 1: [1, 0, 0]; query 2 keys 1, 2: [0, a] → [1/3, 2/3, 0];
//     query 3 all: [2, 2, 4]/8 = [1/4, 1/4, 1/2].
//   - scaled (W_Q = 2I, scale 1/2): the scores are (1/2)(2a)(x_i · x_j), the same as above;
//     query 1: [a, 0, a] → [2, 1, 2]/5 = [2/5, 1/5, 2/5].
const char* kScenario = R"({
  "sources": {"red": {"memory": [["a", 0], [0, "a"], [0, 0]]}},
  "reads": {"r": {"source": "red", "query": [1, 0]}},
  "interventions": {"i": {"kind": "remove-state", "source": "red", "query": [1, 0], "positions": [2]}},
  "sequences": {"x": {"rows": [[1, 0], [0, 1], [1, 1]]}},
  "matrices": {"I": [[1, 0], [0, 1]], "aI": [["a", 0], [0, "a"]], "2I": [[2, 0], [0, 2]]},
  "layers": {
    "pad": {"sequence": "x", "heads": [{"wq": "I", "wk": "aI", "wv": "I"}], "padding": [2],
            "wo": [[0, 1], [1, 0]], "residual": true},
    "causal": {"sequence": "x", "heads": [{"wq": "I", "wk": "aI", "wv": "I"}], "causal": true},
    "scaled": {"sequence": "x", "heads": [{"wq": "2I", "wk": "aI", "wv": "I"}], "scale": "1/2"}
  }
})";

// A read under score: scaled-dot, d = 4: memory [[2a, 0, 0, 0], [0, 2a, 0, 0], [0, 0, 0, 0]],
// query [1, 0, 0, 0]: q·h = [2a, 0, 0], divided by √4 = 2: [a, 0, 0], weights [1/2, 1/4, 1/4].
const char* kScaled = R"({
  "score": "scaled-dot",
  "sources": {"wide": {"memory": [["2a", 0, 0, 0], [0, "2a", 0, 0], [0, 0, 0, 0]]}},
  "reads": {"s": {"source": "wide", "query": [1, 0, 0, 0]}}
})";

const Report& scenario() {
    static const Report r = run_scenario(parse_scenario(kScenario, "mistakes.json"));
    return r;
}
const Report& scaled() {
    static const Report r = run_scenario(parse_scenario(kScaled, "scaled.json"));
    return r;
}
// data/examples/decoder-refused-tie.json (its notes): generation step 2 reads [[a, 0], [0, a]]
// with query [1, 0]: scores [a, 0], exponentials [2, 1], weights [2/3, 1/3], context
// [2a/3, a/3].
const Report& rollout() {
    static const Report r = run_scenario(load_scenario(test::source_path("data/examples/decoder-refused-tie.json")));
    return r;
}
const Report& chapter() {
    static const Report r = run_scenario(load_scenario("chapter14"));
    return r;
}

struct Case {
    const char* id;
    const Report& (*report)();
    const char* target;
    const char* proposed;  // the mistake's answer, by hand
};

const std::string kRead = "/reads/r/weights";
const std::string kRow = "/interventions/i/rows/1/weights";
const std::string kLayerRow = "/layers/pad/heads/0/weights/1";
const std::string kStep = "/rollouts/refused/generation/steps/2/weights";

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        // Divide by the count of (unmasked) positions: exponentials / n.
        {"divide-by-count", scenario, kRead.c_str(), "[2/3, 1/3, 1/3]"},  // [2, 1, 1]/3 (Exercise 2)
        {"divide-by-count", scenario, kRow.c_str(), "[1, 0, 1/2]"},       // [2, —, 1]/2
        {"divide-by-count", scenario, kLayerRow.c_str(), "[1/2, 0, 1]"},  // [1, —, 2]/2
        {"divide-by-count", rollout, kStep.c_str(), "[1, 1/2]"},          // [2, 1]/2
        // A whole head's weights, row by row: pad's queries keep keys 1 and 3 with exponentials
        // [2, 2], [1, 2] and [2, 4] (scores a·x_i·x_j), each divided by 2.
        {"divide-by-count", scenario, "/layers/pad/heads/0/weights", "[[1, 0, 1], [1/2, 0, 1], [1, 0, 2]]"},
        // … and equal weights in every row.
        {"equal-weights", scenario, "/layers/pad/heads/0/weights", "[[1/2, 0, 1/2], [1/2, 0, 1/2], [1/2, 0, 1/2]]"},
        // Equal weights over the (unmasked) positions.
        {"equal-weights", scenario, kRead.c_str(), "[1/3, 1/3, 1/3]"},
        {"equal-weights", scenario, kRow.c_str(), "[1/2, 0, 1/2]"},
        {"equal-weights", scenario, kLayerRow.c_str(), "[1/2, 0, 1/2]"},
        {"equal-weights", rollout, kStep.c_str(), "[1/2, 1/2]"},
        // The exponentials as weights.
        {"unnormalized-exponentials", scenario, kRead.c_str(), "[2, 1, 1]"},
        {"unnormalized-exponentials", scenario, kRow.c_str(), "[2, 0, 1]"},
        {"unnormalized-exponentials", scenario, kLayerRow.c_str(), "[1, 0, 2]"},
        {"unnormalized-exponentials", rollout, kStep.c_str(), "[2, 1]"},
        // e^k for 2^k: a score k·a gives e^k.
        {"e-instead-of-2", scenario, kRead.c_str(), "[e/(e+2), 1/(e+2), 1/(e+2)]"},
        {"e-instead-of-2", scenario, kRow.c_str(), "[e/(e+1), 0, 1/(e+1)]"},
        {"e-instead-of-2", scenario, kLayerRow.c_str(), "[1/(1+e), 0, e/(1+e)]"},
        {"e-instead-of-2", rollout, kStep.c_str(), "[e/(e+1), 1/(e+1)]"},
        // The scores' multiples k normalised directly: k / Σk.
        {"forget-exp", scenario, kRead.c_str(), "[1, 0, 0]"},
        {"forget-exp", scenario, kRow.c_str(), "[1, 0, 0]"},
        {"forget-exp", scenario, kLayerRow.c_str(), "[0, 0, 1]"},
        {"forget-exp", rollout, kStep.c_str(), "[1, 0]"},
        // The factor a dropped from a context.
        {"drop-a", scenario, "/reads/r/context", "[1/2, 1/4]"},
        {"drop-a", scenario, "/interventions/i/rows/1/context", "[2/3, 0]"},
        {"drop-a", rollout, "/rollouts/refused/generation/steps/2/context", "[2/3, 1/3]"},
        // A removal (or a mask) applied after the softmax: the full read's weights, 0 where removed.
        // Row 1: the full read's [1/2, 1/4, 1/4]; the padded query 2: [1, 2, 2]/5 with key 2 at 0.
        {"forget-renormalize", scenario, kRow.c_str(), "[1/2, 0, 1/4]"},
        {"forget-renormalize", scenario, kLayerRow.c_str(), "[1/5, 0, 2/5]"},
        // Only the remaining positions' weights listed.
        {"remaining-weights", scenario, kRow.c_str(), "[2/3, 1/3]"},
        {"remaining-weights", scenario, kLayerRow.c_str(), "[1/3, 2/3]"},
        // The removed (masked) position's score set to 0, which keeps exponential 1: row 1
        // [2, 1, 1]/4; the padded query 2: [1, 1, 2]/4.
        {"zero-score-for-removal", scenario, kRow.c_str(), "[1/2, 1/4, 1/4]"},
        {"zero-score-for-removal", scenario, kLayerRow.c_str(), "[1/4, 1/4, 1/2]"},
        // Chapter 14, Exercise 3: deleting key on the frozen states gives [2a/3, 0] (§14.10).
        {"delete-without-reencoding", chapter, "/interventions/table-14.3/rows/2/context", "[2a/3, 0]"},
        // Example 14.1's weights [1/2, 1/4, 1/4] on the embeddings [a, 0], [−a, a], [0, −a]:
        // [a/2 − a/4, a/4 − a/4] = [a/4, 0].
        {"embeddings-instead-of-states", chapter, "/reads/example-14.1/context", "[a/4, 0]"},
        // The scale left out: the scaled-dot read's [2a, 0, 0] → [4, 1, 1]/6; the scaled layer's
        // query 1 [2a, 0, 2a] → [4, 1, 4]/9.
        {"forget-scale", scaled, "/reads/s/weights", "[2/3, 1/6, 1/6]"},
        {"forget-scale", scenario, "/layers/scaled/heads/0/weights/0", "[4/9, 1/9, 4/9]"},
        // Causal: query 2 without the mask [0, a, a] → [1, 2, 2]/5; query 1 also given key 2:
        // [a, 0] → [2/3, 1/3, 0]; query 2 without its own key: key 1 alone, [1, 0, 0].
        {"no-causal-mask", scenario, "/layers/causal/heads/0/weights/1", "[1/5, 2/5, 2/5]"},
        {"mask-off-by-one-late", scenario, "/layers/causal/heads/0/weights/0", "[2/3, 1/3, 0]"},
        {"mask-off-by-one-early", scenario, "/layers/causal/heads/0/weights/1", "[1, 0, 0]"},
        // Columns normalised: exponentials [[2, —, —], [1, 2, —], [2, 2, 4]], column sums 5, 4,
        // 4; row 2: [1/5, 2/4, 0].
        {"wrong-axis", scenario, "/layers/causal/heads/0/weights/1", "[1/5, 1/2, 0]"},
        // The padded key kept: query 2 over all keys, [1, 2, 2]/5.
        {"forget-padding-mask", scenario, kLayerRow.c_str(), "[1/5, 2/5, 2/5]"},
        // pad's output row 2 is [2/3, 2]: without + x_2 it is [2/3, 1]; without W_O it is the
        // head's [1, 2/3] + [0, 1] = [1, 5/3].
        {"forget-residual", scenario, "/layers/pad/output/1", "[2/3, 1]"},
        {"forget-wo", scenario, "/layers/pad/output/1", "[1, 5/3]"},
    };
    return all;
}

using test::check;

TEST(CheckMistakes, EachMistakeIsNamedWhereItsReadApplies) {
    for (const auto& c : cases()) {
        const Judgement j = check(c.report(), c.target, c.proposed);
        EXPECT_FALSE(j.correct) << c.id << " at " << c.target;
        EXPECT_EQ(j.mistake_id, c.id) << c.target << " proposed " << c.proposed << ": " << j.feedback;
    }
}

// The property itself: every mistake of the registry has a hand-worked case, and each Chapter
// 14 read mistake has one for every kind of read: a scenario's read, an intervention row, a
// layer's row and a decoder step's read (drop-a's layer row has no a in it: V = X).
TEST(CheckMistakes, EveryMistakeHasACaseForEveryReadItAppliesTo) {
    std::map<std::string, std::set<std::string>> kinds;
    for (const auto& c : cases())
        kinds[c.id].insert(std::string(c.target).substr(1, std::string(c.target).find('/', 1) - 1));
    for (const auto& id : mistake_ids()) EXPECT_TRUE(kinds.count(id)) << id << " has no hand-worked case";
    for (const char* id :
         {"divide-by-count", "equal-weights", "unnormalized-exponentials", "e-instead-of-2", "forget-exp"}) {
        EXPECT_EQ(kinds[id], (std::set<std::string>{"reads", "interventions", "layers", "rollouts"})) << id;
    }
    EXPECT_EQ(kinds["forget-scale"], (std::set<std::string>{"reads", "layers"}));
}

// Two registry mistakes made one after the other, each worked by hand:
// - the scaled read s: forgetting the scale gives scores [2a, 0, 0] and exponentials [4, 1, 1];
//   dividing those by the count 3 gives [4/3, 1/3, 1/3] (neither step alone does: the count
//   alone [2/3, 1/3, 1/3], the scale alone [4/6, 1/6, 1/6]).
// - the scaled layer's query 1 (declared scale 1/2): unscaled scores [2a, 0, 2a], exponentials
//   [4, 1, 4], divided by 3: [4/3, 1/3, 4/3].
// - read r's context divided by the count, [2/3, 1/3, 1/3]·states = [2a/3, a/3], with the factor
//   a dropped: [2/3, 1/3].
TEST(CheckMistakes, TwoStepMistakesAreNamedByBothSteps) {
    const Judgement read = check(scaled(), "/reads/s/weights", "[4/3, 1/3, 1/3]");
    EXPECT_EQ(read.mistake_id, "divide-by-count+forget-scale") << read.feedback;
    EXPECT_EQ(read.feedback,
              "Wrong: two mistakes: the scores were not divided by √d = √4 (the scale 1/√d was left out), then "
              "divided by the number of positions (3) instead of the sum of the exponentials (6).");
    const Judgement row = check(scenario(), "/layers/scaled/heads/0/weights/0", "[4/3, 1/3, 4/3]");
    EXPECT_EQ(row.mistake_id, "divide-by-count+forget-scale") << row.feedback;
    EXPECT_NE(row.feedback.find("the declared scale 1/2 was not applied"), std::string::npos) << row.feedback;
    const Judgement dropped = check(scenario(), "/reads/r/context", "[2/3, 1/3]");
    EXPECT_EQ(dropped.mistake_id, "divide-by-count+drop-a") << dropped.feedback;
    // One step alone is still named as the one mistake it is.
    EXPECT_EQ(check(scaled(), "/reads/s/weights", "[2/3, 1/3, 1/3]").mistake_id, "divide-by-count");
    // An answer no pair reproduces is still unexplained.
    EXPECT_EQ(check(scaled(), "/reads/s/weights", "[5/7, 1/7, 1/7]").mistake_id, "");
}

// Wrong axis on a layer whose keys tie while their values differ: X = [[1, 0], [1, 1], [0, 1]],
// W_Q = [[1], [0]], W_K = [[a], [0]], W_V = I: queries [1, 1, 0], keys [a, a, 0], scores
// s_ij = a·x_i1·x_j1, exponentials rows [2, 2, 1], [2, 2, 1], [1, 1, 1]; column sums 5, 5, 3.
// Columns normalised: row 1 [2/5, 2/5, 1/3], row 3 [1/5, 1/5, 1/3]; row 1's output
// 2/5 [1, 0] + 2/5 [1, 1] + 1/3 [0, 1] = [4/5, 11/15], row 3's [2/5, 8/15] (the right row 1 is
// [2/5, 2/5, 1/5], output [4/5, 3/5]).
TEST(CheckMistakes, WrongAxisWithTiedKeysAndDifferentValues) {
    static const Report tied = run_scenario(parse_scenario(R"({
      "sequences": {"x": {"rows": [[1, 0], [1, 1], [0, 1]]}},
      "matrices": {"Q": [[1], [0]], "K": [["a"], [0]], "I": [[1, 0], [0, 1]]},
      "layers": {"tied": {"sequence": "x", "scale": "none", "heads": [{"wq": "Q", "wk": "K", "wv": "I"}]}}
    })",
                                                           "tied.json"));
    for (const auto& [target, proposed] :
         std::vector<std::pair<const char*, const char*>>{{"/layers/tied/heads/0/weights/0", "[2/5, 2/5, 1/3]"},
                                                          {"/layers/tied/heads/0/weights/2", "[1/5, 1/5, 1/3]"},
                                                          {"/layers/tied/heads/0/outputs/0", "[4/5, 11/15]"},
                                                          {"/layers/tied/heads/0/outputs/2", "[2/5, 8/15]"}}) {
        const Judgement j = check(tied, target, proposed);
        EXPECT_FALSE(j.correct) << target;
        EXPECT_EQ(j.mistake_id, "wrong-axis") << target << ": " << j.feedback;
    }
    EXPECT_TRUE(check(tied, "/layers/tied/heads/0/outputs/0", "[4/5, 3/5]").correct);
}

}  // namespace
}  // namespace exactattn
