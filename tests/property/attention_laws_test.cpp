// SPDX-License-Identifier: MIT
// Laws of the attention read on random memories and queries (fixed seeds), general path.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "exactattn/decoder.hpp"
#include "exactattn/encoder.hpp"
#include "exactattn/print.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {

int iterations(int base) { return base * exactattn::test::multiplier(); }

// Entries k·a/q with small k and q ∈ {1, 2, 3}, so scores stay rational multiples of a.
Matrix random_memory(std::mt19937_64& rng, std::size_t n, std::size_t d) {
    std::uniform_int_distribution<int> k(-4, 4);
    std::uniform_int_distribution<int> q(1, 3);
    Matrix m(n, Vector(d));
    for (auto& row : m) {
        for (auto& x : row) x = Value(mpq_class(k(rng), q(rng))) * Value::ln2();
    }
    return m;
}

Vector random_query(std::mt19937_64& rng, std::size_t d) {
    std::uniform_int_distribution<int> k(-2, 2);
    Vector q(d);
    for (auto& x : q) x = Value(k(rng));
    return q;
}

Vector weights(const ReadTrace& t) {
    Vector w;
    for (std::size_t j = 0; j < t.weights.size(); ++j) w.push_back(t.weights.at(j).value_or(Value()));
    return w;
}

struct Case {
    Matrix memory;
    Vector query;
};

Case random_case(std::mt19937_64& rng) {
    std::uniform_int_distribution<std::size_t> nd(1, 5);
    const std::size_t n = nd(rng);
    const std::size_t d = nd(rng);
    return {random_memory(rng, n, d), random_query(rng, d)};
}

}  // namespace

TEST(AttentionLaws, WeightsSumToExactlyOne) {
    auto rng = exactattn::test::rng_for("AttentionLaws.Sum");
    for (int it = 0; it < iterations(150); ++it) {
        const Case c = random_case(rng);
        ReadRequest req{c.query, {}, std::nullopt, ScoreRule::Dot};
        const ReadTrace t = attend_general(Memory(c.memory), req);
        const Vector w = weights(t);
        EXPECT_EQ(std::accumulate(w.begin(), w.end(), Value()), Value(1));
        for (const auto& x : w) EXPECT_EQ(x.sign(), 1);
    }
}

TEST(AttentionLaws, ContextIsAWeightedAverage) {
    auto rng = exactattn::test::rng_for("AttentionLaws.Range");
    for (int it = 0; it < iterations(150); ++it) {
        const Case c = random_case(rng);
        const ReadTrace t = attend_general(Memory(c.memory), ReadRequest{c.query, {}, std::nullopt, ScoreRule::Dot});
        for (std::size_t i = 0; i < c.query.size(); ++i) {
            Value lo = c.memory[0][i];
            Value hi = c.memory[0][i];
            for (const auto& row : c.memory) {
                lo = min(lo, row[i]);
                hi = max(hi, row[i]);
            }
            EXPECT_LE(compare(lo, t.context[i]), 0) << to_ascii(t.context[i]);
            EXPECT_GE(compare(hi, t.context[i]), 0) << to_ascii(t.context[i]);
        }
    }
}

TEST(AttentionLaws, PermutingPositionsPermutesWeights) {
    auto rng = exactattn::test::rng_for("AttentionLaws.Permute");
    for (int it = 0; it < iterations(100); ++it) {
        const Case c = random_case(rng);
        std::vector<std::size_t> perm(c.memory.size());
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        Matrix shuffled;
        for (auto p : perm) shuffled.push_back(c.memory[p]);
        const ReadRequest req{c.query, {}, std::nullopt, ScoreRule::Dot};
        const ReadTrace a = attend_general(Memory(c.memory), req);
        const ReadTrace b = attend_general(Memory(shuffled), req);
        EXPECT_EQ(a.context, b.context);
        EXPECT_EQ(a.denominator, b.denominator);
        for (std::size_t k = 0; k < perm.size(); ++k) EXPECT_EQ(b.weights.at(k), a.weights.at(perm[k]));
    }
}

TEST(AttentionLaws, RemovingAPositionEqualsReadingTheReducedMemory) {
    auto rng = exactattn::test::rng_for("AttentionLaws.Remove");
    for (int it = 0; it < iterations(100); ++it) {
        Case c = random_case(rng);
        if (c.memory.size() < 2) continue;
        const std::size_t j = std::uniform_int_distribution<std::size_t>(0, c.memory.size() - 1)(rng);
        ReadRequest req{c.query, std::vector<Mark>(c.memory.size(), Mark::Included), std::nullopt, ScoreRule::Dot};
        req.marks[j] = Mark::Removed;
        const ReadTrace removed = attend_general(Memory(c.memory), req);
        Matrix reduced = c.memory;
        reduced.erase(reduced.begin() + static_cast<std::ptrdiff_t>(j));
        const ReadTrace direct =
            attend_general(Memory(reduced), ReadRequest{c.query, {}, std::nullopt, ScoreRule::Dot});
        EXPECT_EQ(removed.context, direct.context);
        EXPECT_EQ(removed.denominator, direct.denominator);
        EXPECT_EQ(removed.weights.at(j), Value());
        EXPECT_EQ(removed.scores.at(j), std::nullopt);
    }
}

TEST(AttentionLaws, ZeroScoreDiffersFromRemoval) {
    auto rng = exactattn::test::rng_for("AttentionLaws.Zero");
    for (int it = 0; it < iterations(100); ++it) {
        Case c = random_case(rng);
        if (c.memory.size() < 2) continue;
        const std::size_t j = std::uniform_int_distribution<std::size_t>(0, c.memory.size() - 1)(rng);
        ReadRequest zero{c.query, std::vector<Mark>(c.memory.size(), Mark::Included), std::nullopt, ScoreRule::Dot};
        zero.marks[j] = Mark::Zeroed;
        ReadRequest remove = zero;
        remove.marks[j] = Mark::Removed;
        const ReadTrace z = attend_general(Memory(c.memory), zero);
        const ReadTrace r = attend_general(Memory(c.memory), remove);
        // A zeroed position keeps exponential 1, so every other weight is strictly smaller.
        EXPECT_EQ(z.exponentials.at(j), Value(1));
        EXPECT_EQ(z.denominator, r.denominator + Value(1));
        for (std::size_t k = 0; k < c.memory.size(); ++k) {
            if (k == j) continue;
            EXPECT_EQ(compare(*z.weights.at(k), *r.weights.at(k)), -1);
        }
    }
}

TEST(AttentionLaws, EncoderRunIsRecurrent) {
    // With W_h = W_x = I, b = 0, relu: h_t = relu(h_{t-1} + x_t), checked coordinatewise.
    auto rng = exactattn::test::rng_for("AttentionLaws.Encoder");
    Encoder enc;
    enc.recurrent = {{1, 0}, {0, 1}};
    enc.input = {{1, 0}, {0, 1}};
    enc.bias = {0, 0};
    enc.initial = {0, 0};
    for (int it = 0; it < iterations(50); ++it) {
        const Matrix xs = random_memory(rng, 4, 2);
        const Matrix hs = encode(enc, xs);
        Vector h = enc.initial;
        for (std::size_t t = 0; t < xs.size(); ++t) {
            for (std::size_t i = 0; i < 2; ++i) {
                const Value pre = h[i] + xs[t][i];
                h[i] = pre.sign() > 0 ? pre : Value();
            }
            EXPECT_EQ(hs[t], h);
        }
    }
}

// Decoder rollouts on random exact decoders (fixed seed; EXACTATTN_TEST_SEED overrides): teacher
// forcing on the generated sequence repeats generation step for step, and every step's weights
// and output distribution sum to exactly 1. C = 0 keeps the state rational, so every read is
// exact; the context reaches the scores through W_o (often leaving the distribution refused,
// which the laws then skip).
TEST(DecoderLaws, TeacherForcingOnGeneratedTokensRepeatsGeneration) {
    auto rng = exactattn::test::rng_for("DecoderLaws");
    std::uniform_int_distribution<int> small(-2, 2);
    const auto v = [&] { return exactattn::Value(small(rng)); };
    const int rounds = 20 * exactattn::test::multiplier();
    for (int round = 0; round < rounds; ++round) {
        exactattn::Matrix memory;
        for (int j = 0; j < 3; ++j) memory.push_back({v() * exactattn::Value::ln2(), v() * exactattn::Value::ln2()});
        exactattn::Decoder d;
        d.activation = round % 2 == 0 ? exactattn::Activation::Relu : exactattn::Activation::Identity;
        d.recurrent = {{v(), v()}, {v(), v()}};
        d.input = {{v(), v()}, {v(), v()}};
        d.context = {{0, 0}, {0, 0}};
        d.bias = {v(), v()};
        d.initial = exactattn::Vector{v(), v()};
        for (const char* t : {"<s>", "x", "y", "z"}) d.vocabulary.emplace_back(t, exactattn::Vector{v(), v()});
        d.start = "<s>";
        d.output.assign(4, exactattn::Vector());
        for (std::size_t i = 0; i < 4; ++i) {
            for (std::size_t k = 0; k < 4; ++k) d.output[i].push_back(i < 2 ? v() * exactattn::Value::ln2() : v());
        }
        SCOPED_TRACE(::testing::Message() << "seed " << exactattn::test::seed() << " round " << round);
        const exactattn::RegimeTrace g =
            exactattn::roll_out(d, exactattn::Memory(memory), *d.initial, exactattn::Regime::Generation, 5, {}, false);
        const exactattn::RegimeTrace f = exactattn::roll_out(d, exactattn::Memory(memory), *d.initial,
                                                             exactattn::Regime::TeacherForcing, 5, g.tokens(), false);
        ASSERT_EQ(f.steps.size(), g.steps.size());
        for (std::size_t i = 0; i < g.steps.size(); ++i) {
            EXPECT_EQ(f.steps[i].query, g.steps[i].query);
            EXPECT_EQ(f.steps[i].read.context, g.steps[i].read.context);
            EXPECT_EQ(f.steps[i].state, g.steps[i].state);
            EXPECT_EQ(f.steps[i].scores, g.steps[i].scores);
            EXPECT_EQ(f.steps[i].argmax, g.steps[i].argmax);
            EXPECT_TRUE(f.steps[i].agrees());
            exactattn::Value sum;
            for (std::size_t j = 0; j < 3; ++j) sum += *g.steps[i].read.weights.at(j);
            EXPECT_EQ(sum, exactattn::Value(1));
            if (g.steps[i].distribution) {
                exactattn::Value total;
                for (std::size_t k = 0; k < 4; ++k) total += *g.steps[i].distribution->weights.at(k);
                EXPECT_EQ(total, exactattn::Value(1));
            }
        }
    }
}
