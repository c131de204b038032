// SPDX-License-Identifier: MIT
// Limits: a ScopedLimits applies to its own thread only, over the process defaults.
#include <gtest/gtest.h>

#include <thread>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/value.hpp"

namespace exactattn {
namespace {

TEST(Limits, ScopesNestAndRestore) {
    const Limits defaults = limits();
    Limits outer;
    outer.max_exponent = 100;
    {
        const ScopedLimits a(outer);
        EXPECT_EQ(limits().max_exponent, 100);
        Limits inner = limits();
        inner.max_root = 8;
        {
            const ScopedLimits b(inner);
            EXPECT_EQ(limits().max_exponent, 100);
            EXPECT_EQ(limits().max_root, 8);
        }
        EXPECT_EQ(limits().max_root, defaults.max_root);
    }
    EXPECT_EQ(limits().max_exponent, defaults.max_exponent);
}

TEST(Limits, AScopeAppliesToItsOwnThreadOnly) {
    Limits strict;
    strict.max_exponent = 100;
    const ScopedLimits scoped(strict);
    // exp(200a) = 2^200 is past this thread's max_exponent …
    EXPECT_THROW((void)exp(Value(200) * Value::ln2()), Error);
    // … while another thread, without a scope of its own, computes under the defaults.
    bool other_ok = false;
    std::thread other([&] {
        other_ok = limits().max_exponent == Limits{}.max_exponent &&
                   exp(Value(200) * Value::ln2()) == Value(mpq_class(mpz_class(1) << 200));
    });
    other.join();
    EXPECT_TRUE(other_ok);
}

}  // namespace
}  // namespace exactattn
