// SPDX-License-Identifier: MIT
// One attention layer against values worked by hand (the example of
// data/examples/self-attention.json and docs/attention.md), masks, cross-attention, refusals.
#include <gtest/gtest.h>

#include "exactattn/attention.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {

// Three tokens, d_model = d_k = 4, two heads, causal, scale 1/√4 = 1/2 (docs/attention.md).
AttentionLayer hand_layer() {
    AttentionLayer l;
    l.rule = ScoreRule::ScaledDot;
    l.causal = true;
    AttentionHead h1;
    h1.wq = parse_matrix("[[2,0,0,0],[0,2,0,0],[0,0,2,0],[0,0,0,2]]");
    h1.wk = parse_matrix("[[a,0,0,0],[0,a,0,0],[0,0,a,0],[0,0,0,a]]");
    h1.wv = parse_matrix("[[1,0],[0,1],[1,1],[0,0]]");
    AttentionHead h2;
    h2.wq = parse_matrix("[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]");
    h2.wk = parse_matrix("[[0,a,0,0],[a,0,0,0],[0,0,0,a],[0,0,a,0]]");
    h2.wv = parse_matrix("[[0,2],[1,0],[0,1],[0,0]]");
    l.heads = {h1, h2};
    l.wo = parse_matrix("[[1,0,0,0],[0,1,0,0],[1,0,0,0],[0,1,0,0]]");
    l.residual = true;
    return l;
}

const Matrix kX = parse_matrix("[[1,0,0,0],[1,1,0,0],[0,1,1,0]]");

Matrix weights_of(const HeadTrace& h) {
    Matrix w;
    for (const auto& r : h.rows) {
        Vector row;
        for (const auto& v : r.weights.all()) row.push_back(*v);
        w.push_back(row);
    }
    return w;
}

}  // namespace

TEST(AttentionLayer, HandWorkedCausalTwoHeads) {
    const LayerTrace t = attend_layer(hand_layer(), kX);
    ASSERT_EQ(t.heads.size(), 2u);
    // Head 1: q_i = 2x_i, k_j = a·x_j, so q_i·k_j/2 = (x_i·x_j)·a; Gram x1·x2 = 1, x2·x2 = 2,
    // x1·x3 = 0, x2·x3 = 1, x3·x3 = 2. Row 2: exps 2, 4 (sum 6); row 3: 1, 2, 4 (sum 7).
    EXPECT_EQ(weights_of(t.heads[0]), parse_matrix("[[1,0,0],[1/3,2/3,0],[1/7,2/7,4/7]]"));
    EXPECT_EQ(t.heads[0].rows[2].scores.all(),
              (std::vector<std::optional<Value>>{Value(), Value::ln2(), parse_value("2a")}));
    EXPECT_FALSE(t.heads[0].rows[0].scores.at(1).has_value());  // masked: no score
    // v_1 = [1,0], v_2 = [1,1], v_3 = [1,2]: row 2 = [1, 2/3], row 3 = [1, (2 + 8)/7].
    EXPECT_EQ(t.heads[0].outputs(), parse_matrix("[[1,0],[1,2/3],[1,10/7]]"));
    // Head 2: k_j = a·x_j P (P swaps 1↔2, 3↔4): scores row 2 = [a/2, a], row 3 = [a/2, a/2, 0].
    // Row 2: √2/(2+√2) = √2 − 1, 2/(2+√2) = 2 − √2. Row 3: sum 1 + 2√2, √2/(1+2√2) = (4−√2)/7,
    // 1/(1+2√2) = (2√2−1)/7.
    EXPECT_EQ(weights_of(t.heads[1]), parse_matrix("[[1,0,0],[2^(1/2)-1, 2-2^(1/2), 0],"
                                                   "[(4-2^(1/2))/7, (4-2^(1/2))/7, (2*2^(1/2)-1)/7]]"));
    // v_1 = [0,2], v_2 = [1,2], v_3 = [1,1].
    EXPECT_EQ(t.heads[1].outputs(), parse_matrix("[[0,2],[2-2^(1/2),2],[(3+2^(1/2))/7,(15-2*2^(1/2))/7]]"));
    // W_O adds head 2 onto head 1; the residual adds X.
    EXPECT_EQ(t.output(), parse_matrix("[[2,2,0,0],[4-2^(1/2),11/3,0,0],"
                                       "[(10+2^(1/2))/7,(32-2*2^(1/2))/7,1,0]]"));
}

TEST(AttentionLayer, FastRowsKeepOneFactor) {
    const LayerTrace t = attend_layer(hand_layer(), kX);
    for (const auto& h : t.heads) {
        for (const auto& r : h.rows) EXPECT_TRUE(r.fast_path);
    }
    EXPECT_TRUE(t.heads[0].keys.is_compact());
}

TEST(AttentionLayer, CrossAttentionIsTheChapterRead) {
    // Identity projections: one query row over the memory is Chapter 14's Example 14.1.
    AttentionLayer l;
    const Matrix id = parse_matrix("[[1,0],[0,1]]");
    l.heads = {AttentionHead{id, id, id}};
    const LayerTrace t = attend_layer(l, parse_matrix("[[1,0]]"), parse_matrix("[[a,0],[0,a],[0,0]]"));
    EXPECT_EQ(weights_of(t.heads[0]), parse_matrix("[[1/2,1/4,1/4]]"));  // exps 2, 1, 1
    EXPECT_EQ(t.output(), parse_matrix("[[a/2,a/4]]"));                  // by hand: [a,0]/2 + [0,a]/4 + [0,0]/4
}

TEST(AttentionLayer, MasksArePositionsRemoved) {
    AttentionLayer l;
    const Matrix id = parse_matrix("[[1,0],[0,1]]");
    l.heads = {AttentionHead{id, id, id}};
    l.padding = {3};
    l.mask = {{false, true, false}};
    const LayerTrace t = attend_layer(l, parse_matrix("[[1,0]]"), parse_matrix("[[a,0],[0,a],[0,0]]"));
    EXPECT_EQ(weights_of(t.heads[0]), parse_matrix("[[1,0,0]]"));
    l.mask = {{true, false, false}};
    l.padding = {2, 3};
    EXPECT_ERROR_HAS(attend_layer(l, parse_matrix("[[1,0]]"), parse_matrix("[[a,0],[0,a],[0,0]]")),
                     ErrorKind::Reference, "row 1 (query 1): every one of its 3 key positions is masked");
}

TEST(AttentionLayer, RefusalsSayWhy) {
    AttentionLayer l;
    l.rule = ScoreRule::ScaledDot;
    l.heads = {AttentionHead{parse_matrix("[[1,0],[0,1]]"), parse_matrix("[[a,0],[0,a]]"), parse_matrix("[[1],[1]]")}};
    // d_k = 2: q_1·k_1/√2 = a/√2, and 2^(1/√2) is transcendental.
    EXPECT_ERROR_HAS(attend_layer(l, parse_matrix("[[1,0],[0,1]]")), ErrorKind::Domain,
                     "head 1, query 1, key 1: the score 2^(1/2)a/2 has no exact exponential: "
                     "q_1·k_1/√2 = a/√2");
    EXPECT_ERROR_HAS(attend_layer(l, parse_matrix("[[1,0],[0,1]]")), ErrorKind::Domain, "Gelfond–Schneider");
    // The pair of the issue: rows 1 and 2 score 0 until q_2 = [0,1] meets k_3 = [0,3a]; 3/√2 is
    // irrational algebraic, so 2^(3/√2) is transcendental.
    {
        AttentionLayer p = l;
        p.heads = {AttentionHead{parse_matrix("[[0,0],[0,1],[0,0]]"), parse_matrix("[[0,0],[0,0],[0,3a]]"),
                                 parse_matrix("[[1],[1],[1]]")}};
        EXPECT_ERROR_HAS(attend_layer(p, parse_matrix("[[1,0,0],[0,1,0],[0,0,1]]")), ErrorKind::Domain,
                         "head 1, query 2, key 3: the score 3*2^(1/2)a/2 has no exact exponential: "
                         "q_2·k_3/√2 = 3a/√2; exp(3*2^(1/2)a/2) is refused: it is "
                         "2^(3*2^(1/2)/2), and 2 to an irrational algebraic power is transcendental "
                         "(Gelfond–Schneider)");
        EXPECT_ERROR_HAS(attend_layer(p, parse_matrix("[[1,0,0],[0,1,0],[0,0,1]]")), ErrorKind::Domain,
                         "a d_k that is a perfect square");
        // d_k = 3: 1/√3 is refused once for the head, not per row.
        p.heads = {AttentionHead{parse_matrix("[[1,0,0]]"), parse_matrix("[[a,0,0]]"), parse_matrix("[[1]]")}};
        EXPECT_ERROR_HAS(attend_layer(p, parse_matrix("[[1]]")), ErrorKind::Domain,
                         "head 1: the scale 1/√d_k = 1/√3 is outside the exact domain");
    }
    l.rule = ScoreRule::Scaled;
    l.scale = parse_value("a");
    EXPECT_ERROR_HAS(attend_layer(l, parse_matrix("[[1,0]]")), ErrorKind::Domain, "a rational declared scale");
    l.scale = parse_value("1/2");
    EXPECT_NO_THROW(attend_layer(l, parse_matrix("[[1,0],[0,1]]")));
    l.positional = Positional::Sinusoidal;
    EXPECT_ERROR_HAS(attend_layer(l, parse_matrix("[[1,0]]")), ErrorKind::Domain, "Lindemann");
    l.positional = Positional::Table;
    l.positions = parse_matrix("[[0,a]]");
    // x + p = [1, a]: q = [1, a], k = [a, a²]; score (a + a³)/2 has a term in a³: refused.
    EXPECT_ERROR_HAS(attend_layer(l, parse_matrix("[[1,0]]")), ErrorKind::Domain, "a^3");
    l.positional = Positional::None;
    l.layer_norm = true;
    EXPECT_ERROR_HAS(attend_layer(l, parse_matrix("[[1,0]]")), ErrorKind::Domain, "√(variance");
    l.layer_norm = false;
    l.heads[0].wk = parse_matrix("[[a],[a]]");
    EXPECT_ERROR_HAS(attend_layer(l, parse_matrix("[[1,0]]")), ErrorKind::Shape, "d_k = 2 but W_K gives 1");
    EXPECT_ERROR_HAS(attend_layer(l, parse_matrix("[[1,0,0]]")), ErrorKind::Shape, "X (1×3) · W_Q (2×2)");
}

// An exact rational scale keeps the scores on the fast path: 1/√4 = 1/2 for sqrt-dk, and a
// declared 1/2 or −1/3; each row equals the general path's read in every field.
TEST(AttentionLayer, RationalScalesStayOnTheFastPath) {
    AttentionLayer l = hand_layer();
    for (const char* scale : {"", "1/2", "-1/3"}) {
        if (*scale != '\0') {
            l.rule = ScoreRule::Scaled;
            l.scale = parse_value(scale);
        }
        const LayerTrace t = attend_layer(l, kX);
        for (const auto& h : t.heads) {
            for (std::size_t i = 0; i < h.rows.size(); ++i) {
                const ReadTrace& r = h.rows[i];
                EXPECT_TRUE(r.fast_path) << "scale " << scale << " row " << i + 1;
                ReadRequest req;
                req.query = h.queries.row(i);
                req.rule = l.rule;
                req.scale = l.scale;
                req.marks = r.marks;
                const ReadTrace g = attend_general(h.keys, h.values, req);
                EXPECT_FALSE(g.fast_path);
                EXPECT_EQ(r.scores.all(), g.scores.all());
                EXPECT_EQ(r.weights.all(), g.weights.all());
                EXPECT_EQ(r.denominator, g.denominator);
                EXPECT_EQ(r.context, g.context);
            }
        }
    }
}

// A layer takes a number and a caption like a read (#24): its first table (head 1's scores) is
// Table 15.1 with the declared caption, the next Table 15.1.2 with its own caption.
TEST(AttentionLayer, NumberAndCaptionNameTheLayersTables) {
    const char* json = R"({
      "sequences": {"x": {"rows": [[1, 0], [0, 1]], "tokens": ["p", "q"]}},
      "layers": {"l": {"sequence": "x", "heads": [{"wq": [[1, 0], [0, 1]], "wk": [["a", 0], [0, "a"]],
                                                    "wv": [[1, 0], [0, 1]]}],
                       "number": "15.1", "caption": "A two-token layer"}}
    })";
    const Scenario s = parse_scenario(json, "layer.json");
    EXPECT_EQ(s.layers[0].number, "15.1");
    const std::string md = render(report_document(run_scenario(s)), Format::Markdown);
    EXPECT_NE(md.find("Table 15.1 — A two-token layer"), std::string::npos) << md;
    EXPECT_NE(md.find("Table 15.1.2 — Attention weights (rows: queries, columns: keys)"), std::string::npos) << md;
    EXPECT_EQ(parse_scenario(write_scenario(s), s.file), s);
}
