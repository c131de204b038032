// SPDX-License-Identifier: MIT
// exactattn internal: the JSON document of an attention layer (attend --format json and the
// /layers/<name> part of the scenario report).
#pragma once

#include "exactattn/attention.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

Json layer_to_json(const LayerTrace& t);

}  // namespace exactattn::detail
