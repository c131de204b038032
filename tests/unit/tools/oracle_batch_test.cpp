// SPDX-License-Identifier: MIT
// The oracle on tensors as models hold them (issue 35, item 4): which keys a query sees under
// causal masks aligned top-left and bottom-right and sliding windows, a bias added to the scores
// (−inf masking a key), a mask of 0 and 1 only, 4-D batches split per head with grouped-query
// heads, heads judged in parallel to the same judgement as one by one, and the worst entry of a
// batch named (b, h, i, j).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"

using namespace exactattn;
using namespace exactattn::oracle;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor matrix(std::int64_t r, std::int64_t c, std::vector<double> v, FloatFormat f = FloatFormat::Float32) {
    return Tensor{{r, c}, std::move(v), f};
}

// n_q × 1 zeros against n_k × 1 zeros: every visible key has the score 0.
Problem flat(std::int64_t nq, std::int64_t nk) {
    Problem p;
    p.q = matrix(nq, 1, std::vector<double>(static_cast<std::size_t>(nq), 0.0));
    p.k = matrix(nk, 1, std::vector<double>(static_cast<std::size_t>(nk), 0.0));
    std::vector<double> v;
    for (std::int64_t j = 0; j < nk; ++j) v.push_back(static_cast<double>(j));
    p.v = matrix(nk, 1, v);
    return p;
}

std::vector<int> seen(const Problem& p, std::int64_t i) {
    const auto k = visible_keys(p, i);
    return {k.begin(), k.end()};
}

// A deterministic float32-valued tensor (multiples of 1/8 in [−2, 2)).
Tensor filled(std::vector<std::int64_t> shape, int seed) {
    Tensor t;
    t.shape = shape;
    t.format = FloatFormat::Float32;
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    std::uint32_t x = static_cast<std::uint32_t>(seed) * 2654435761U + 1;
    for (std::int64_t a = 0; a < n; ++a) {
        x = x * 1103515245U + 12345U;
        t.data.push_back(static_cast<double>(static_cast<int>((x >> 16) % 32) - 16) / 8);
    }
    return t;
}

}  // namespace

TEST(OracleBatch, CausalTopLeftSeesKeysUpToTheQuery) {
    Problem p = flat(2, 4);
    p.causal = true;
    EXPECT_EQ(seen(p, 0), (std::vector<int>{1, 0, 0, 0}));
    EXPECT_EQ(seen(p, 1), (std::vector<int>{1, 1, 0, 0}));
}

TEST(OracleBatch, CausalBottomRightShiftsTheDiagonalByNkMinusNq) {
    Problem p = flat(2, 4);
    p.causal = true;
    p.align = Align::BottomRight;
    EXPECT_EQ(seen(p, 0), (std::vector<int>{1, 1, 1, 0}));
    EXPECT_EQ(seen(p, 1), (std::vector<int>{1, 1, 1, 1}));
    // The reference: query 0 sees v = 0, 1, 2 with equal weights: exactly 1.
    const Reference r = reference(p, FloatFormat::Float32, false);
    EXPECT_EQ(r.out[0], 1.0);
    EXPECT_EQ(r.out[1], 1.5);
    EXPECT_TRUE(r.out_exact[0]);
}

TEST(OracleBatch, ASlidingWindowKeepsLeftAndRightOfTheDiagonal) {
    Problem p = flat(4, 4);
    p.window_left = 1;
    p.window_right = 0;
    EXPECT_EQ(seen(p, 0), (std::vector<int>{1, 0, 0, 0}));
    EXPECT_EQ(seen(p, 2), (std::vector<int>{0, 1, 1, 0}));
    p.window_left = 0;
    p.window_right = 2;
    EXPECT_EQ(seen(p, 1), (std::vector<int>{0, 1, 1, 1}));
    p.causal = true;  // causal caps the right side at 0
    EXPECT_EQ(seen(p, 1), (std::vector<int>{0, 1, 0, 0}));
}

TEST(OracleBatch, MinusInfinityInTheBiasMasksTheKey) {
    Problem p = flat(1, 3);
    set_bias(p, matrix(1, 3, {0, -kInf, 0}, FloatFormat::Float64));
    EXPECT_EQ(seen(p, 0), (std::vector<int>{1, 0, 1}));
    const Reference r = reference(p, FloatFormat::Float32, false);
    EXPECT_EQ(r.out[0], 1.0);  // the mean of v = 0 and 2
}

TEST(OracleBatch, ABiasThatEqualisesTheScoresGivesTheExactMean) {
    // q·k = 2 and 0 (scale none), bias 0 and 2: both scores are 2, the output the mean of v.
    Problem p;
    p.q = matrix(1, 1, {1});
    p.k = matrix(2, 1, {2, 0});
    p.v = matrix(2, 1, {1, 0.25});
    p.scale = {ScaleKind::None, 1};
    set_bias(p, matrix(1, 2, {0, 2}, FloatFormat::Float64));
    const Reference r = reference(p, FloatFormat::Float32, true);
    EXPECT_EQ(r.out[0], 0.625);
    EXPECT_TRUE(r.out_exact[0]);
    EXPECT_EQ(r.w[0], 0.5);
}

TEST(OracleBatch, ABiasShiftsTheWeightsByItsExponential) {
    // Scores 0 and the bias (0, −1): w_0 = 1/(1 + e^−1) = e/(e + 1) = 0.73105857863000487925…
    // (by hand from e = 2.71828182845904523536); the enclosure holds it and is far narrower than a
    // float32 ULP.
    Problem p = flat(1, 2);
    set_bias(p, matrix(1, 2, {0, -1}, FloatFormat::Float64));
    p.v = matrix(2, 1, {1, 0});
    const Reference r = reference(p, FloatFormat::Float32, false);
    EXPECT_LE(r.out_lo[0], 0.73105857863000501);
    EXPECT_GE(r.out_hi[0], 0.73105857863000479);
    EXPECT_LT(r.out_hi[0] - r.out_lo[0], 1e-12);
}

TEST(OracleBatch, AMaskHoldsZerosAndOnesOnly) {
    Problem p = flat(1, 3);
    try {
        set_mask(p, matrix(1, 3, {0, -1, -2}, FloatFormat::Float64), Location{});
        ADD_FAILURE() << "a float mask of −1 was read as boolean";
    } catch (const Error& e) {
        EXPECT_NE(e.reason().find("mask[0, 1]: -1 is neither 0 (visible) nor 1 (masked)"), std::string::npos)
            << e.reason();
        EXPECT_NE(e.reason().find("bias"), std::string::npos);
    }
    set_mask(p, matrix(1, 3, {0, 1, 0}, FloatFormat::Float64), Location{});
    EXPECT_EQ(seen(p, 0), (std::vector<int>{1, 0, 1}));
}

TEST(OracleBatch, AFullyMaskedRowsLseFollowsTheDeclaredSign) {
    Problem p = flat(1, 2);
    p.mask = {1, 1};
    p.masked_rows = MaskedRows::Zeros;
    EXPECT_EQ(reference(p, FloatFormat::Float32, false).lse[0], -kInf);
    p.masked_lse = MaskedLse::PosInf;
    const Reference r = reference(p, FloatFormat::Float32, false);
    EXPECT_EQ(r.lse[0], kInf);
    EXPECT_EQ(r.out[0], 0.0);
}

TEST(OracleBatch, GroupedQueryHeadsReadKeyHeadHOverTheGroup) {
    Batch b;
    b.q = filled({1, 4, 3, 2}, 1);
    b.k = filled({1, 2, 5, 2}, 2);
    b.v = filled({1, 2, 5, 3}, 3);
    const BatchShape s = batch_shape(b);
    EXPECT_EQ(s.h_q, 4);
    EXPECT_EQ(s.h_kv, 2);
    for (std::int64_t h = 0; h < 4; ++h) {
        const Problem p = head_problem(b, s, 0, h);
        const auto kv = h / 2;
        EXPECT_EQ(p.k.data, std::vector<double>(b.k.data.begin() + kv * 10, b.k.data.begin() + (kv + 1) * 10));
        EXPECT_EQ(p.q.data, std::vector<double>(b.q.data.begin() + h * 6, b.q.data.begin() + (h + 1) * 6));
    }
    b.q = filled({1, 3, 3, 2}, 1);
    EXPECT_THROW((void)batch_shape(b), Error);  // 3 query heads over 2 key heads
}

TEST(OracleBatch, BnhdReadsTheHeadsOfEachPosition) {
    Batch b;
    b.layout = Layout::BNHD;
    b.q = filled({1, 3, 2, 2}, 1);  // (B, N, H, D)
    b.k = filled({1, 4, 2, 2}, 2);
    b.v = filled({1, 4, 2, 1}, 3);
    const BatchShape s = batch_shape(b);
    EXPECT_EQ(s.n_q, 3);
    EXPECT_EQ(s.h_q, 2);
    const Problem p = head_problem(b, s, 0, 1);
    // head 1's row n is q[0, n, 1, :] = data[(n·2 + 1)·2 ...]
    for (std::int64_t n = 0; n < 3; ++n) {
        EXPECT_EQ(p.q.data[n * 2], b.q.data[(n * 2 + 1) * 2]);
        EXPECT_EQ(p.q.data[n * 2 + 1], b.q.data[(n * 2 + 1) * 2 + 1]);
    }
}

TEST(OracleBatch, HeadsInParallelJudgeAsOneByOneAndNameTheWorstEntry) {
    Batch b;
    b.q = filled({2, 2, 3, 4}, 1);
    b.k = filled({2, 1, 5, 4}, 2);
    b.v = filled({2, 1, 5, 2}, 3);
    b.options.causal = true;
    const BatchShape s = batch_shape(b);
    const auto refs = reference_batch(b, FloatFormat::Float32, false, 2);
    Tensor out = batch_output(refs, s, b.layout, FloatFormat::Float32);
    // (b=1, h=0, i=2, j=1) moved by 1000 ULPs-ish: over, and the worst.
    const std::size_t at = ((1 * 2 + 0) * 3 + 2) * 2 + 1;
    out.data[at] = round_to(out.data[at] * 1.0001 + 1e-3, FloatFormat::Float32);
    AlgorithmSpec spec;
    const JudgeReport one = judge_batch(b, FloatFormat::Float32, out, nullptr, spec, std::nullopt, 1);
    const JudgeReport two = judge_batch(b, FloatFormat::Float32, out, nullptr, spec, std::nullopt, 2);
    EXPECT_EQ(judge_json(one), judge_json(two));
    EXPECT_EQ(judge_text(one), judge_text(two));
    const Judgement& j = one.tensors[0];
    EXPECT_EQ(j.count, 2 * 2 * 3 * 2);
    EXPECT_EQ(j.over, 1);
    const Judged& w = j.entries[static_cast<std::size_t>(j.worst)];
    EXPECT_EQ((std::vector<std::int64_t>{w.batch, w.head, w.row, w.col}), (std::vector<std::int64_t>{1, 0, 2, 1}));
    EXPECT_NE(judge_text(one).find("first over: out[b=1, h=0, i=2, j=1]"), std::string::npos) << judge_text(one);
    EXPECT_NE(judge_json(one).find("\"first_over\":[1,0,2,1]"), std::string::npos) << judge_json(one);
}

TEST(OracleBatch, AnErrorInOneHeadNamesTheHead) {
    Batch b;
    b.q = filled({1, 2, 2, 2}, 1);
    b.k = filled({1, 2, 3, 2}, 2);
    b.v = filled({1, 2, 3, 1}, 3);
    b.q.data[7] = std::numeric_limits<double>::quiet_NaN();  // head 1, row 1, column 1
    try {
        (void)reference_batch(b, FloatFormat::Float32, false, 2);
        ADD_FAILURE() << "a NaN was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.reason().rfind("head (b=0, h=1): q[1, 1]: nan", 0), 0U) << e.reason();
    }
}
