// SPDX-License-Identifier: MIT
// exactattn internal: what drawing a variant (variants.cpp) and judging its constraints
// (variant_constraints.cpp) share.
#pragma once

#include <fmt/format.h>

#include <string>

#include "exactattn/answer_entry.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail::variants {

/// Where the exercise's variation is declared, for errors.
struct Context {
    const Scenario* base = nullptr;
    Exercise exercise;
    std::size_t index = 0;  ///< position in /exercises
    Json base_json;         ///< the base scenario as written

    [[nodiscard]] Location at(const std::string& rest) const {
        Location l;
        l.file = base->file;
        l.pointer = fmt::format("/exercises/{}/variation{}", index, rest);
        return l;
    }
    [[nodiscard]] const Variation& variation() const { return *exercise.variation; }
};

/// Whether `other` lies within the declared absolute `tolerance` of the exact `value`, certified by
/// judge_entry (exact arithmetic in the domain, enclosures outside it; `decided` false when they
/// cannot tell).
EntryVerdict within_tolerance(const Value& value, const Real& other, const Value& tolerance);

/// The first declared constraint the variant fails, or "" when it meets them all.
std::string failed_constraint(const Context& c, const Report& rep, const Json& doc);

}  // namespace exactattn::detail::variants
