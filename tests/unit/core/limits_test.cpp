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

// A value computed once and reused is charged as computing it again would be: the recorded
// steps, replayed by charge_steps, add to the job exactly what the computation added (a layer's
// table prints each distinct entry once, docs/limits.md).
TEST(WorkRecorder, ReplayedStepsChargeWhatTheComputationCharged) {
    const WorkBudget job;
    const Value x = Value::exp2(mpq_class(3, 4)) + Value(5);
    std::vector<double> steps;
    const double before = job.spent();
    {
        const WorkRecorder recorder(steps);
        const Value y = x * x * x;
        EXPECT_FALSE(y.is_zero());
    }
    const double computed = job.spent() - before;
    ASSERT_FALSE(steps.empty());
    ASSERT_GT(computed, 0);
    const double after_first = job.spent();
    EXPECT_TRUE(charge_steps(steps));
    // (units are doubles: the two differences of running totals agree to their rounding)
    EXPECT_NEAR(job.spent() - after_first, computed, 1e-12 * computed);
    // Steps charged after the recorder ended are not recorded.
    const std::size_t recorded = steps.size();
    const Value z = x * x;
    EXPECT_FALSE(z.is_zero());
    EXPECT_EQ(steps.size(), recorded);
}

// Steps that do not all fit what is left of the budget are not charged at all: the caller
// runs the step itself, which is refused with its own message where the budget runs out.
TEST(WorkRecorder, StepsOverTheBudgetAreRefusedWithoutCharge) {
    const WorkBudget job;
    std::vector<double> steps;
    {
        const WorkRecorder recorder(steps);
        const Value y = Value::exp2(mpq_class(1, 3)) * Value::exp2(mpq_class(1, 5));
        EXPECT_FALSE(y.is_zero());
    }
    ASSERT_FALSE(steps.empty());
    double total = 0;
    for (const double u : steps) total += u;
    Limits l = limits();
    l.max_work = static_cast<std::int64_t>(job.spent() + total / 2);
    const ScopedLimits scope(l);
    const double before = job.spent();
    EXPECT_FALSE(charge_steps(steps));
    EXPECT_EQ(job.spent(), before);
}

}  // namespace
}  // namespace exactattn
