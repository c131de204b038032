// SPDX-License-Identifier: MIT
// Deferred values (deferred.hpp): computed once, on first use, shared by copies, also under
// concurrent first use; a failed computation runs again; and the fast read's deferred context
// and weights factor equal the general path's canonical values.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "exactattn/deferred.hpp"
#include "exactattn/read.hpp"

using namespace exactattn;

TEST(Deferred, GivenValueIsComputed) {
    const Deferred<int> d(7);
    EXPECT_TRUE(d.computed());
    EXPECT_EQ(d.get(), 7);
    const Deferred<int> empty;
    EXPECT_TRUE(empty.computed());
    EXPECT_EQ(empty.get(), 0);
}

TEST(Deferred, RunsOnceOnFirstUseAndCopiesShareIt) {
    int calls = 0;
    const Deferred<int> d(std::function<int()>([&calls] { return ++calls * 10; }));
    EXPECT_FALSE(d.computed());
    EXPECT_EQ(calls, 0);
    const Deferred<int> copy = d;  // NOLINT(performance-unnecessary-copy-initialization)
    EXPECT_EQ(copy.get(), 10);
    EXPECT_TRUE(d.computed());
    EXPECT_EQ(d.get(), 10);
    EXPECT_EQ(calls, 1);
}

TEST(Deferred, ConcurrentFirstUseRunsOnce) {
    std::atomic<int> calls{0};
    const Deferred<std::vector<int>> d(std::function<std::vector<int>()>([&calls] {
        ++calls;
        return std::vector<int>(1000, 3);
    }));
    std::vector<std::thread> threads;
    std::atomic<long> total{0};
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&] {
            long s = 0;
            for (int x : d.get()) s += x;
            total += s;
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(calls.load(), 1);
    EXPECT_EQ(total.load(), 8L * 3000);
}

TEST(Deferred, AFailedComputationRunsAgain) {
    int calls = 0;
    const Deferred<int> d(std::function<int()>([&calls] {
        if (++calls == 1) throw std::runtime_error("first try fails");
        return 5;
    }));
    EXPECT_THROW((void)d.get(), std::runtime_error);
    EXPECT_FALSE(d.computed());
    EXPECT_EQ(d.get(), 5);
    EXPECT_EQ(calls, 2);
}

TEST(DeferredVector, SizeIsKnownBeforeTheEntries) {
    int calls = 0;
    const DeferredVector v(3, [&calls] {
        ++calls;
        return std::vector<Value>{Value(1), Value(mpq_class(1, 2)), Value()};
    });
    EXPECT_EQ(v.size(), 3U);
    EXPECT_FALSE(v.empty());
    EXPECT_FALSE(v.computed());
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(v[1], Value(mpq_class(1, 2)));
    EXPECT_TRUE(v.computed());
    EXPECT_EQ(v, (std::vector<Value>{Value(1), Value(mpq_class(2, 4)), Value(0)}));
    EXPECT_EQ(calls, 1);
}

// A fast read over a wide score spread leaves its context unreduced until it is looked at; then
// it is the canonical value. Memory rows (1, 0), (0, 1), (1, 1) · a with query (40, -30): scores
// 40a, -30a, 10a, so the exponentials are 2^40, 2^-30, 2^10 (a = ln 2) and, with
// D = 2^40 + 2^10 + 2^-30 = (2^70 + 2^40 + 1)/2^30, context_1 = (2^40 + 2^10)·a / D and
// context_2 = (2^-30 + 2^10)·a / D, i.e. (2^70 + 2^40)·a / (2^70 + 2^40 + 1) and
// (1 + 2^40)·a / (2^70 + 2^40 + 1). The first is in lowest terms (consecutive integers); the
// second too: modulo 2^40 + 1, 2^40 ≡ -1 and 2^70 ≡ -2^30, so 2^70 + 2^40 + 1 ≡ -2^30, and
// 2^40 + 1 is odd.
TEST(DeferredVector, FastReadReducesItsContextWhenLookedAt) {
    const Value a = Value::ln2();
    const Matrix rows = {{a, Value()}, {Value(), a}, {a, a}};
    ReadRequest req;
    req.query = {Value(40), Value(-30)};
    const ReadTrace t = attend(Memory(rows), req);
    ASSERT_TRUE(t.fast_path);
    EXPECT_FALSE(t.context.computed());
    EXPECT_EQ(t.context.size(), 2U);
    const mpz_class p70 = mpz_class(1) << 70;
    const mpz_class p40 = mpz_class(1) << 40;
    const mpz_class den = p70 + p40 + 1;
    EXPECT_EQ(t.context[0], Value(mpq_class(p70 + p40, den)) * a);
    EXPECT_EQ(t.context[1], Value(mpq_class(p40 + 1, den)) * a);
    EXPECT_TRUE(t.context.computed());
    EXPECT_EQ(t.context, attend_general(Memory(rows), req).context);
}
