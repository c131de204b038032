// SPDX-License-Identifier: MIT
// exactattn internal: the `decoder` and `rollouts` sections of a scenario file (docs/decoder.md).
#pragma once

#include "exactattn/scenario.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

/// Parses the two sections (after the sources), checking every shape against the decoder and
/// the rollouts' sources, with errors placed at the offending pointer.
void parse_decoder_sections(const Json& root, const Reader& r, Scenario& s);

}  // namespace exactattn::detail
