// SPDX-License-Identifier: MIT
// The recurrent encoder h_t = φ(h_(t−1) W_h + x_t W_x + b) and the cost counts (model.hpp,
// docs/model.md) on small examples worked by hand, and the chapter's encoder states as
// Chapter 14 prints them.
#include "exactattn/encoder.hpp"

#include <gtest/gtest.h>

#include "support/support.hpp"

using namespace exactattn;

namespace {

Value A() { return Value::ln2(); }
Value q(long n, long d = 1) { return Value(mpq_class(n, d)); }

// W_h = [[1, 1], [0, 2]], W_x = [[3, −2]] (e = 1), b = [1/2, 0], h_0 = [0, 0]. As row vectors,
// [u, v] W_h = [u, u + 2v] and [x] W_x = [3x, −2x].
Encoder small(Activation act) {
    Encoder e;
    e.activation = act;
    e.recurrent = {{q(1), q(1)}, {q(0), q(2)}};
    e.input = {{q(3), q(-2)}};
    e.bias = {q(1, 2), q(0)};
    e.initial = {q(0), q(0)};
    return e;
}

// Chapter 14's encoder (docs/model.md, "The chapter's encoder"): W_h = W_x = I, b = 0,
// h_0 = [0, 0], relu; embeddings 红色 = [a, 0], 钥匙 = [−a, a] (printed in §14.2: "the key
// embedding was [-a,a]"), 。 = [0, −a] (§14.5: "At the full stop, adding [0,-a]"), and the
// blue token 蓝色 = [−a, 0] (not printed; the data file's assumption).
Encoder chapter() {
    Encoder e;
    e.recurrent = {{q(1), q(0)}, {q(0), q(1)}};
    e.input = e.recurrent;
    e.bias = {q(0), q(0)};
    e.initial = {q(0), q(0)};
    return e;
}
const Vector kRed{A(), q(0)};
const Vector kBlue{-A(), q(0)};
const Vector kKey{-A(), A()};
const Vector kStop{q(0), -A()};

}  // namespace

TEST(Model, IdentityEncoderWithBias) {
    // x = [−a], [2], [a]:
    // h_1 = [0, 0] + [−3a, 2a] + [1/2, 0] = [1/2 − 3a, 2a]
    // h_2 = [1/2 − 3a, (1/2 − 3a) + 4a] + [6, −4] + [1/2, 0] = [7 − 3a, a − 7/2]
    // h_2 W_h = [7 − 3a, (7 − 3a) + 2(a − 7/2)] = [7 − 3a, −a], so
    // h_3 = [7 − 3a, −a] + [3a, −2a] + [1/2, 0] = [15/2, −3a]
    Matrix pre;
    const Matrix h = encode(small(Activation::Identity), {{-A()}, {q(2)}, {A()}}, &pre);
    const Matrix expected{
        {q(1, 2) - q(3) * A(), q(2) * A()}, {q(7) - q(3) * A(), A() - q(7, 2)}, {q(15, 2), q(-3) * A()}};
    EXPECT_EQ(h, expected);
    EXPECT_EQ(pre, expected);  // identity: what φ saw is what it gave
}

TEST(Model, ReluEncoderClipsByExactSign) {
    // Same weights and inputs, relu:
    // pre_1 = [1/2 − 3a, 2a]; 3a ≈ 2.079 > 1/2, so h_1 = [0, 2a]
    // pre_2 = [0, 0 + 4a] + [6, −4] + [1/2, 0] = [13/2, 4a − 4]; 4a ≈ 2.773 < 4, so h_2 = [13/2, 0]
    // pre_3 = [13/2, 13/2] + [3a, −2a] + [1/2, 0] = [7 + 3a, 13/2 − 2a]; both positive, h_3 = pre_3
    Matrix pre;
    const Matrix h = encode(small(Activation::Relu), {{-A()}, {q(2)}, {A()}}, &pre);
    EXPECT_EQ(h, (Matrix{{q(0), q(2) * A()}, {q(13, 2), q(0)}, {q(7) + q(3) * A(), q(13, 2) - q(2) * A()}}));
    EXPECT_EQ(pre, (Matrix{{q(1, 2) - q(3) * A(), q(2) * A()},
                           {q(13, 2), q(4) * A() - q(4)},
                           {q(7) + q(3) * A(), q(13, 2) - q(2) * A()}}));
}

TEST(Model, InitialStateAndEmptyInput) {
    // h_0 = [1, −1], identity: h_1 = [1, 1 − 2] + [3, −2] + [1/2, 0] = [9/2, −3] for x = [1].
    Encoder e = small(Activation::Identity);
    e.initial = {q(1), q(-1)};
    EXPECT_EQ(encode(e, {{q(1)}}), (Matrix{{q(9, 2), q(-3)}}));
    // No inputs: no states, and the pre-activations are cleared, not left from a previous call.
    Matrix pre{{q(5)}};
    EXPECT_TRUE(encode(e, {}, &pre).empty());
    EXPECT_TRUE(pre.empty());
    // relu(2^(1/2) − 665857/470832) = 0: √2 < 665857/470832 since 665857² = 2·470832² + 1.
    Encoder r = chapter();
    const Value close = Value(FieldElem::pow2(mpq_class(1, 2))) - q(665857, 470832);
    EXPECT_EQ(encode(r, {{close, -close}}), (Matrix{{q(0), -close}}));
}

TEST(Model, ChapterEncoderStatesOfTheRedSource) {
    // §14.2, Example 14.1: "h_1=[a,0], h_2=[0,a], h_3=[0,0]". By hand: relu([a, 0]) = [a, 0];
    // relu([a, 0] + [−a, a]) = [0, a]; relu([0, a] + [0, −a]) = [0, 0].
    EXPECT_EQ(encode(chapter(), {kRed, kKey, kStop}), (Matrix{{A(), q(0)}, {q(0), A()}, {q(0), q(0)}}));
}

TEST(Model, EncodingGoesOnFromAGivenState) {
    // Table 14.3 again, continued rather than recomputed: deleting the key keeps h_1 = [a, 0]
    // (it does not depend on the key) and goes on from it over the full stop: [a, 0] + [0, −a]
    // = [a, −a], ReLU [a, 0], as §14.5 says; deleting the full stop keeps h_1, h_2 and encodes
    // nothing after it. `from` stands for h_0 and leaves `initial` alone.
    const Vector h1{A(), q(0)};
    Matrix pre;
    EXPECT_EQ(encode(chapter(), {kStop}, &pre, &h1), (Matrix{{A(), q(0)}}));
    EXPECT_EQ(pre, (Matrix{{A(), -A()}}));
    EXPECT_TRUE(encode(chapter(), {}, nullptr, &h1).empty());
    // From the blue source's h_2 = [0, a] over the full stop: [0, a] + [0, −a] = [0, 0].
    const Vector blue_h2{q(0), A()};
    EXPECT_EQ(encode(chapter(), {kStop}, nullptr, &blue_h2), (Matrix{{q(0), q(0)}}));
    const Vector wrong{A()};
    EXPECT_ERROR(encode(chapter(), {kStop}, nullptr, &wrong), ErrorKind::Shape,
                 "the state to go on from has width 1; the encoder's is 2");
}

TEST(Model, ChapterEncoderStatesOfTheBlueSource) {
    // §14.4: "On the blue source, the states are [0,0], [0,a], [0,0]".
    EXPECT_EQ(encode(chapter(), {kBlue, kKey, kStop}), (Matrix{{q(0), q(0)}, {q(0), A()}, {q(0), q(0)}}));
}

TEST(Model, ChapterEncoderAfterDeletingEachToken) {
    // §14.5, Table 14.3 ("Recomputed states"): color deleted [0,a]; [0,0]; key deleted
    // [a,0]; [a,0]; full stop deleted [a,0]; [0,a].
    EXPECT_EQ(encode(chapter(), {kKey, kStop}), (Matrix{{q(0), A()}, {q(0), q(0)}}));
    EXPECT_EQ(encode(chapter(), {kRed, kStop}), (Matrix{{A(), q(0)}, {A(), q(0)}}));
    EXPECT_EQ(encode(chapter(), {kRed, kKey}), (Matrix{{A(), q(0)}, {q(0), A()}}));
    // §14.5: "At the full stop, adding [0,-a] gives [a,-a]; ReLU produces [a,0]."
    Matrix pre;
    encode(chapter(), {kRed, kStop}, &pre);
    ASSERT_EQ(pre.size(), 2U);
    EXPECT_EQ(pre[1], (Vector{A(), -A()}));
}

TEST(Model, EncoderShapeErrors) {
    Encoder e = small(Activation::Relu);
    e.initial.clear();
    EXPECT_ERROR(e.check(), ErrorKind::Shape, "the encoder's initial state h_0 is empty");

    e = small(Activation::Relu);
    e.recurrent.pop_back();
    EXPECT_ERROR(e.check(), ErrorKind::Shape, "the recurrent matrix W_h has 1 rows; the state width is 2");

    e = small(Activation::Relu);
    e.recurrent[1] = {q(1)};
    EXPECT_ERROR(e.check(), ErrorKind::Shape, "row 2 of W_h has 1 entries; the state width is 2");

    e = small(Activation::Relu);
    e.input.clear();
    EXPECT_ERROR(e.check(), ErrorKind::Shape, "the input matrix W_x has no rows");

    e = small(Activation::Relu);
    e.input.push_back({q(1), q(2), q(3)});
    EXPECT_ERROR(e.check(), ErrorKind::Shape, "row 2 of W_x has 3 entries; the state width is 2");

    e = small(Activation::Relu);
    e.bias = {q(1)};
    EXPECT_ERROR(e.check(), ErrorKind::Shape, "the bias has 1 entries; the state width is 2");

    // encode checks the encoder first, then every input against W_x's rows (e = 1).
    EXPECT_ERROR(encode(e, {{q(1)}}), ErrorKind::Shape, "the bias has 1 entries; the state width is 2");
    EXPECT_ERROR(encode(small(Activation::Relu), {{q(1)}, {q(1), q(2)}}), ErrorKind::Shape,
                 "input 2 has width 2; W_x expects 1");
    EXPECT_ERROR(encode(small(Activation::Relu), {{}}), ErrorKind::Shape, "input 1 has width 0; W_x expects 1");
}

TEST(Model, CostCountsOfSection14Point6) {
    // §14.6: three source states of width two, four output steps, eight bytes per number.
    // "The fixed context stores two numbers. Three source states store six. … 16 versus 48
    // bytes"; "twelve dot products; each two-coordinate dot product contains two scalar
    // multiplications and an addition"; "three successive state updates here, and the decoder
    // still needs four".
    const Costs c = count_costs(CostInput{3, 2, 4, 8});
    EXPECT_EQ(c.fixed_context_numbers, 2);
    EXPECT_EQ(c.stored_numbers, 6);
    EXPECT_EQ(c.fixed_context_bytes, 16);
    EXPECT_EQ(c.stored_bytes, 48);
    EXPECT_EQ(c.dot_products, 12);
    EXPECT_EQ(c.multiplications_per_dot_product, 2);
    EXPECT_EQ(c.additions_per_dot_product, 1);
    EXPECT_EQ(c.sequential_encoder_steps, 3);
    EXPECT_EQ(c.sequential_decoder_steps, 4);
    // docs/model.md's table, by hand: multiplications 2ndT = 2·3·2·4 = 48; additions
    // (n(d − 1) + (n − 1) + (n − 1)d)·T = (3 + 2 + 4)·4 = 36; n·T = 12 exponentials and divisions.
    EXPECT_EQ(c.multiplications, 48);
    EXPECT_EQ(c.additions, 36);
    EXPECT_EQ(c.exponentials, 12);
    EXPECT_EQ(c.divisions, 12);
    EXPECT_EQ(c.input, (CostInput{3, 2, 4, 8}));
}

TEST(Model, CostCountsOfExercise5) {
    // §14.10, answer 5: "100×2=200 numbers, occupying 200×8=1600 bytes … 100×4=400 dot products".
    const Costs c = count_costs(CostInput{100, 2, 4, 8});
    EXPECT_EQ(c.stored_numbers, 200);
    EXPECT_EQ(c.stored_bytes, 1600);
    EXPECT_EQ(c.dot_products, 400);
    // One position, width one, one step: one multiplication for the score and one for the
    // weighted row, no additions (d − 1 = 0, n − 1 = 0).
    const Costs one = count_costs(CostInput{1, 1, 1, 1});
    EXPECT_EQ(one.multiplications, 2);
    EXPECT_EQ(one.additions, 0);
}

TEST(Model, CostCountErrors) {
    EXPECT_ERROR(count_costs(CostInput{0, 2, 4, 8}), ErrorKind::Shape,
                 "cost counts need positive n, d, T and bytes per number (got n=0, d=2, T=4, bytes=8)");
    EXPECT_ERROR(count_costs(CostInput{3, 2, 4, -1}), ErrorKind::Shape,
                 "cost counts need positive n, d, T and bytes per number (got n=3, d=2, T=4, bytes=-1)");
    // n·d = 2^32 · 2^32 = 2^64 does not fit in a signed 64-bit integer.
    const std::int64_t big = std::int64_t{1} << 32;
    EXPECT_ERROR(count_costs(CostInput{big, big, 1, 1}), ErrorKind::Limit, "cost count overflows a 64-bit integer");
    // n·d = 2^31 · 2^31 = 2^62 fits, but 2^62 · 8 bytes = 2^65 does not.
    const std::int64_t half = std::int64_t{1} << 31;
    EXPECT_ERROR(count_costs(CostInput{half, half, 1, 8}), ErrorKind::Limit, "cost count overflows a 64-bit integer");
}
