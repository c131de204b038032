// SPDX-License-Identifier: MIT
// Issue 5 regression: a scenario nesting 10^5 arrays (json_nesting_100000_deep.json, 200 KB) ran
// for minutes building JSON pointers (quadratic in the depth). It is refused before parsing,
// at the bracket past max_nesting, in milliseconds.
#include <gtest/gtest.h>

#include "exactattn/scenario.hpp"
#include "support/support.hpp"

TEST(ScenarioJson, DeepNestingIsALimitNotAHang) {
    const std::string file = exactattn::test::source_path("tests/regress/json_nesting_100000_deep.json");
    // {"notes": then brackets: the 200th '[' is nesting level 201, at column 10 + 200.
    EXPECT_ERROR(exactattn::load_scenario(file), exactattn::ErrorKind::Limit,
                 file + ":1:210: JSON nests at least 201 levels deep, over the limit of 200 (limits: max_nesting)");
}
