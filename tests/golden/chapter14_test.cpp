// SPDX-License-Identifier: MIT
// Every number Chapter 14 prints, typed from the chapter's text.
#include <gtest/gtest.h>

#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/report.hpp"

using namespace exactattn;

namespace {

const Report& chapter() {
    static const Report r = run_scenario(load_scenario("chapter14"));
    return r;
}

std::vector<std::string> strings(const Column& c) {
    std::vector<std::string> out;
    for (std::size_t j = 0; j < c.size(); ++j) {
        const auto v = c.at(j);
        out.push_back(v ? to_ascii(*v) : "none");
    }
    return out;
}

std::vector<std::string> strings(const Vector& v) {
    std::vector<std::string> out;
    for (const auto& x : v) out.push_back(to_ascii(x));
    return out;
}

using S = std::vector<std::string>;

}  // namespace

TEST(Chapter14, StoredStates) {
    // §14.2: h_1 = [a,0], h_2 = [0,a], h_3 = [0,0]; §14.4: blue states [0,0], [0,a], [0,0].
    const auto& red = chapter().scenario.source("red").states;
    EXPECT_EQ(strings(red.row(0)), (S{"a", "0"}));
    EXPECT_EQ(strings(red.row(1)), (S{"0", "a"}));
    EXPECT_EQ(strings(red.row(2)), (S{"0", "0"}));
    const auto& blue = chapter().scenario.source("blue").states;
    EXPECT_EQ(strings(blue.row(0)), (S{"0", "0"}));
    EXPECT_EQ(strings(blue.row(1)), (S{"0", "a"}));
    EXPECT_EQ(strings(blue.row(2)), (S{"0", "0"}));
}

TEST(Chapter14, Table141AndExample141) {
    const auto& t = chapter().read("example-14.1").trace;
    EXPECT_EQ(strings(t.scores), (S{"a", "0", "0"}));
    EXPECT_EQ(strings(t.exponentials), (S{"2", "1", "1"}));
    EXPECT_EQ(to_ascii(t.denominator), "4");
    EXPECT_EQ(strings(t.weights), (S{"1/2", "1/4", "1/4"}));
    EXPECT_EQ(strings(t.context), (S{"a/2", "a/4"}));
    EXPECT_EQ(to_fixed(t.context[0], 6), "0.346574");
    EXPECT_EQ(to_fixed(t.context[1], 6), "0.173287");
    EXPECT_EQ(to_ascii(*t.readout), "a");  // a/2 + 2(a/4) = a
}

TEST(Chapter14, Example142) {
    const auto& t = chapter().read("example-14.2").trace;
    EXPECT_EQ(strings(t.scores), (S{"0", "a", "0"}));
    EXPECT_EQ(strings(t.exponentials), (S{"1", "2", "1"}));
    EXPECT_EQ(to_ascii(t.denominator), "4");
    EXPECT_EQ(strings(t.weights), (S{"1/4", "1/2", "1/4"}));
    EXPECT_EQ(strings(t.context), (S{"a/4", "a/2"}));
    EXPECT_EQ(to_fixed(t.context[0], 6), "0.173287");
    EXPECT_EQ(to_fixed(t.context[1], 6), "0.346574");
}

TEST(Chapter14, BlueSourceFirstQuery) {
    const auto& t = chapter().read("blue-q1").trace;
    EXPECT_EQ(strings(t.scores), (S{"0", "0", "0"}));
    EXPECT_EQ(strings(t.weights), (S{"1/3", "1/3", "1/3"}));
    EXPECT_EQ(strings(t.context), (S{"0", "a/3"}));
}

TEST(Chapter14, Table142FrozenMemoryDeletion) {
    const auto& rows = chapter().intervention("table-14.2").rows;
    ASSERT_EQ(rows.size(), 4U);
    const S weights[] = {{"1/2", "1/4", "1/4"}, {"0", "1/2", "1/2"}, {"2/3", "0", "1/3"}, {"2/3", "1/3", "0"}};
    const S contexts[] = {{"a/2", "a/4"}, {"0", "a/2"}, {"2a/3", "0"}, {"2a/3", "a/3"}};
    const char* readouts[] = {"a", "a", "2a/3", "4a/3"};
    for (std::size_t k = 0; k < 4; ++k) {
        SCOPED_TRACE(k);
        EXPECT_EQ(rows[k].position, k);
        EXPECT_EQ(strings(rows[k].trace.weights), weights[k]);
        EXPECT_EQ(strings(rows[k].trace.context), contexts[k]);
        EXPECT_EQ(to_ascii(*rows[k].trace.readout), readouts[k]);
    }
    // "Removing key leaves exponentials 2 and 1, so the denominator becomes three."
    EXPECT_EQ(to_ascii(rows[2].trace.denominator), "3");
    EXPECT_EQ(strings(rows[2].trace.exponentials), (S{"2", "none", "1"}));
}

TEST(Chapter14, Table143InputDeletionWithRecomputation) {
    const auto& rows = chapter().intervention("table-14.3").rows;
    ASSERT_EQ(rows.size(), 4U);
    const std::vector<S> states[] = {{}, {{"0", "a"}, {"0", "0"}}, {{"a", "0"}, {"a", "0"}}, {{"a", "0"}, {"0", "a"}}};
    const S contexts[] = {{"a/2", "a/4"}, {"0", "a/2"}, {"a", "0"}, {"2a/3", "a/3"}};
    const char* readouts[] = {"a", "a", "a", "4a/3"};
    for (std::size_t k = 1; k < 4; ++k) {
        SCOPED_TRACE(k);
        ASSERT_EQ(rows[k].states.rows(), 2U);
        EXPECT_EQ(strings(rows[k].states.row(0)), states[k][0]);
        EXPECT_EQ(strings(rows[k].states.row(1)), states[k][1]);
        EXPECT_EQ(strings(rows[k].trace.context), contexts[k]);
        EXPECT_EQ(to_ascii(*rows[k].trace.readout), readouts[k]);
    }
    // Deleting the key token: both scores equal a, each weight is 1/2.
    EXPECT_EQ(strings(rows[2].trace.scores), (S{"a", "a"}));
    EXPECT_EQ(strings(rows[2].trace.weights), (S{"1/2", "1/2"}));
}

TEST(Chapter14, ZeroScoreIsNotRemoval) {
    // "a zero score would still contribute exponential 1"
    const auto& rows = chapter().intervention("zero-score-contrast").rows;
    EXPECT_EQ(strings(rows[1].trace.exponentials), (S{"1", "1", "1"}));
    EXPECT_EQ(strings(rows[1].trace.weights), (S{"1/3", "1/3", "1/3"}));
    const auto& removed = chapter().intervention("table-14.2").rows[1];
    EXPECT_NE(strings(rows[1].trace.weights), strings(removed.trace.weights));
}

TEST(Chapter14, Section146Costs) {
    const auto& c = chapter().cost("section-14.6").costs;
    EXPECT_EQ(c.fixed_context_numbers, 2);  // "The fixed context stores two numbers."
    EXPECT_EQ(c.stored_numbers, 6);         // "Three source states store six."
    EXPECT_EQ(c.fixed_context_bytes, 16);   // "16 versus 48 bytes"
    EXPECT_EQ(c.stored_bytes, 48);
    EXPECT_EQ(c.dot_products, 12);                    // "there are twelve dot products"
    EXPECT_EQ(c.multiplications_per_dot_product, 2);  // "two scalar multiplications"
    EXPECT_EQ(c.additions_per_dot_product, 1);        // "and an addition"
    EXPECT_EQ(c.sequential_encoder_steps, 3);         // "three successive state updates"
    EXPECT_EQ(c.sequential_decoder_steps, 4);         // "and the decoder still needs four"
}

TEST(Chapter14, ReferenceAnswers) {
    // 1. Scores [a,a,0], exponentials [2,2,1], total five, weights [2/5,2/5,1/5],
    //    context [2a/5,2a/5], readout 6a/5.
    const auto& e1 = chapter().read("exercise-1").trace;
    EXPECT_EQ(strings(e1.scores), (S{"a", "a", "0"}));
    EXPECT_EQ(strings(e1.exponentials), (S{"2", "2", "1"}));
    EXPECT_EQ(to_ascii(e1.denominator), "5");
    EXPECT_EQ(strings(e1.weights), (S{"2/5", "2/5", "1/5"}));
    EXPECT_EQ(strings(e1.context), (S{"2a/5", "2a/5"}));
    EXPECT_EQ(to_ascii(*e1.readout), "6a/5");
    // 2. A zero query: denominator three, weights all 1/3.
    const auto& e2 = chapter().read("exercise-2-zero-query").trace;
    EXPECT_EQ(to_ascii(e2.denominator), "3");
    EXPECT_EQ(strings(e2.weights), (S{"1/3", "1/3", "1/3"}));
    // 3. Frozen removal of key: weights 2/3, 1/3 on [a,0], [0,0]; context [2a/3,0].
    //    Re-encoding without key: both states [a,0]; context [a,0].
    EXPECT_EQ(strings(chapter().intervention("table-14.2").rows[2].trace.context), (S{"2a/3", "0"}));
    EXPECT_EQ(strings(chapter().intervention("table-14.3").rows[2].trace.context), (S{"a", "0"}));
    // 4. Removing color leaves the readout at a; removing key lowers it to 2a/3.
    EXPECT_EQ(to_ascii(*chapter().intervention("table-14.2").rows[1].trace.readout), "a");
    EXPECT_EQ(to_ascii(*chapter().intervention("table-14.2").rows[2].trace.readout), "2a/3");
    // 5. 100 × 2 = 200 numbers, 200 × 8 = 1600 bytes, 100 × 4 = 400 dot products.
    const auto& c5 = chapter().cost("exercise-5").costs;
    EXPECT_EQ(c5.stored_numbers, 200);
    EXPECT_EQ(c5.stored_bytes, 1600);
    EXPECT_EQ(c5.dot_products, 400);
}
