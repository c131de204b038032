// SPDX-License-Identifier: MIT
// exactattn internal: the `sequences`, `matrices` and `layers` sections of a scenario file.
#pragma once

#include "exactattn/scenario.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

/// Parses the three sections (after the vocabulary and the score rule), resolving names:
/// layers refer to declared sequences and matrices, or give matrices inline.
void parse_layer_sections(const Json& root, const Reader& r, Scenario& s);

}  // namespace exactattn::detail
