// SPDX-License-Identifier: MIT
// pointers: every quantity of a report listed by pointer with its value and what it is. The
// values are the chapter's (Example 14.1: scores a, 0, 0; exponentials 2, 1, 1; total 4; weights
// 1/2, 1/4, 1/4; context [a/2, a/4]; Table 14.2 removes one state and renormalises).
#include "exactattn/pointers.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "exactattn/scenario.hpp"
#include "support/support.hpp"

namespace exactattn {
namespace {

const Report& chapter() {
    static const Report r = run_scenario(load_scenario("chapter14"), ReportUse::Values);
    return r;
}

const PointerEntry* find(const std::vector<PointerEntry>& all, const std::string& pointer) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const PointerEntry& e) { return e.pointer == pointer; });
    return it == all.end() ? nullptr : &*it;
}

TEST(Pointers, ExampleFourteenOneIsListedWithItsValuesAndWords) {
    const auto all = list_pointers(chapter(), "/reads/example-14.1");
    const PointerEntry* weights = find(all, "/reads/example-14.1/weights");
    ASSERT_NE(weights, nullptr);
    EXPECT_EQ(weights->value, "[1/2, 1/4, 1/4]");
    const PointerEntry* key = find(all, "/reads/example-14.1/weights/1");
    ASSERT_NE(key, nullptr);
    EXPECT_EQ(key->value, "1/4");
    EXPECT_EQ(key->description, "weight of position 2 (key) in read example-14.1 (source red, query q1)");
    const PointerEntry* total = find(all, "/reads/example-14.1/denominator");
    ASSERT_NE(total, nullptr);
    EXPECT_EQ(total->value, "4");
    EXPECT_EQ(find(all, "/reads/example-14.1/context")->value, "[a/2, a/4]");
    // Vectors come before their entries, in the report's order, and nothing outside `under`.
    EXPECT_LT(weights - all.data(), key - all.data());
    for (const auto& e : all) EXPECT_EQ(e.pointer.rfind("/reads/example-14.1", 0), 0u) << e.pointer;
}

TEST(Pointers, InterventionRowsSayWhatTheyChange) {
    // Table 14.2, remove-state on the red source with q1: removing state 1 leaves scores 0, 0,
    // exponentials 1, 1, weights [0, 1/2, 1/2].
    const auto all = list_pointers(chapter(), "/interventions/table-14.2");
    const PointerEntry* w = find(all, "/interventions/table-14.2/rows/1/weights");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->value, "[0, 1/2, 1/2]");
    EXPECT_EQ(describe_pointer(chapter(), "/interventions/table-14.2/rows/1/weights/2"),
              "weight of position 3 (full stop) in the row that removes position 1 (color) of intervention "
              "table-14.2 (remove-state on source red)");
    EXPECT_EQ(describe_pointer(chapter(), "/interventions/table-14.2/rows/0"),
              "the row without intervention of intervention table-14.2 (remove-state on source red)");
}

TEST(Pointers, TheWholeReportAndItsRefusals) {
    const auto all = list_pointers(chapter());
    EXPECT_NE(find(all, "/costs/section-14.6/stored_bytes"), nullptr);  // 3 positions × 2 × 8 bytes = 48
    EXPECT_EQ(find(all, "/costs/section-14.6/stored_bytes")->value, "48");
    EXPECT_EQ(find(all, "/a/decimal")->description, "a = ln 2 in decimals");
    EXPECT_ERROR_HAS(list_pointers(chapter(), "/nope"), ErrorKind::Reference, "/nope");
    EXPECT_ERROR_HAS(list_pointers(chapter(), "nope"), ErrorKind::Usage, "is not a JSON pointer");
}

}  // namespace
}  // namespace exactattn
