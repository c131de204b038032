// SPDX-License-Identifier: MIT
// Limits: a ScopedLimits applies to its own thread only, over the process defaults.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <thread>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/value.hpp"

namespace exactattn {
namespace {

// The number of fields of an aggregate: the most initializers `T{…}` accepts.
struct AnyField {
    template <class T>
    constexpr operator T() const {  // NOLINT(google-explicit-constructor)
        return T{};
    }
};
template <class T, class... Fields>
constexpr std::size_t field_count() {
    if constexpr (requires { T{Fields{}..., AnyField{}}; }) {
        return field_count<T, Fields..., AnyField>();
    } else {
        return sizeof...(Fields);
    }
}

// The one table of limits (src/core/limits.cpp) has a row for every field of Limits, each row
// naming a field of its own: a field added without its row fails here.
TEST(LimitTable, EveryFieldOfLimitsHasOneRow) {
    EXPECT_EQ(all_limits().size(), field_count<Limits>());
    Limits l;
    std::int64_t mark = 2;
    for (const Limit which : all_limits()) set_limit_value(l, which, mark++);
    std::set<std::int64_t> seen;
    std::set<std::string> names;
    mark = 2;
    for (const Limit which : all_limits()) {
        SCOPED_TRACE(limit_name(which));
        EXPECT_EQ(limit_value(l, which), mark++);  // no other row wrote over this field
        seen.insert(limit_value(l, which));
        names.insert(limit_name(which));
        EXPECT_EQ(find_limit(limit_name(which)), which);
    }
    EXPECT_EQ(seen.size(), all_limits().size());
    EXPECT_EQ(names.size(), all_limits().size());
    EXPECT_EQ(find_limit("max_everything"), std::nullopt);
}

TEST(LimitTable, RowsReadAndSetTheirOwnField) {
    Limits l;
    EXPECT_EQ(limit_value(l, Limit::max_root), 64);  // docs/limits.md's defaults
    EXPECT_EQ(limit_value(l, Limit::max_variants), 1000);
    set_limit_value(l, Limit::max_root, 8);
    set_limit_value(l, Limit::max_work, std::int64_t{1} << 40);
    EXPECT_EQ(l.max_root, 8);
    EXPECT_EQ(l.max_work, std::int64_t{1} << 40);
    // The ceiling is the field's type: max_root, max_degree and max_nesting are ints.
    EXPECT_EQ(limit_ceiling(Limit::max_root), std::numeric_limits<int>::max());
    EXPECT_EQ(limit_ceiling(Limit::max_degree), std::numeric_limits<int>::max());
    EXPECT_EQ(limit_ceiling(Limit::max_nesting), std::numeric_limits<int>::max());
    EXPECT_EQ(limit_ceiling(Limit::max_bits), std::numeric_limits<std::int64_t>::max());
}

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
