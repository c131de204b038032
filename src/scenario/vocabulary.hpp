// SPDX-License-Identifier: MIT
// exactattn internal: names of the scenario file format that tools above the loader define
// the meaning of. The loader checks a file against these lists; a unit test holds each list
// equal to the tool's own (VocabularyTest.*), so the loader needs no tool to know them.
#pragma once

#include <string>
#include <vector>

namespace exactattn::detail {

/// The mistakes a variation's `mistakes_differ` may name (docs/variants.md#constraints): the
/// wrong methods of check's registry (check.hpp's wrong_method_ids()), in registry order.
const std::vector<std::string>& variation_mistake_ids();

}  // namespace exactattn::detail
