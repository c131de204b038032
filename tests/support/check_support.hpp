// SPDX-License-Identifier: MIT
// Test support: judging one proposal as `check --target T --proposed P` does.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "exactattn/check.hpp"

namespace exactattn::test {

/// The judgement of `proposed` (as a learner writes it) for `target` in `rep`, under a
/// tolerance (`decimal-places:4`, … ; empty: none) and the mistakes an exercise accepts.
inline Judgement check(const Report& rep, const std::string& target, const std::string& proposed,
                       const std::string& tolerance = "", std::vector<std::string> accept = {}) {
    LearnerAnswer la;
    la.name = "t";
    la.target = target;
    read_proposal(proposed, la);
    if (!tolerance.empty()) la.tolerance = parse_tolerance(tolerance, Location{});
    la.accept = std::move(accept);
    return judge(rep, la);
}

}  // namespace exactattn::test
