// SPDX-License-Identifier: MIT
// exactattn: judging a learner's answer and naming the mistake when it is a known one.
#pragma once

#include <string>
#include <vector>

#include "exactattn/report.hpp"

namespace exactattn {

/// The verdict on one learner answer.
struct Judgement {
    std::string name;
    std::string target;          ///< JSON pointer of the quantity in the run report
    std::vector<Value> proposed;
    std::vector<Value> exact;
    bool scalar = false;
    bool correct = false;
    std::vector<std::string> findings;  ///< e.g. "the proposed weights sum to 4/3, not 1"
    std::string mistake;                ///< a known mistake that reproduces the answer, or empty
};

/// Judges `answer` against the report. Known mistakes are recognized by recomputing the
/// quantity the wrong way and comparing exactly: dividing by the number of positions instead of
/// the sum of exponentials, a zero score given zero weight, zero-score used for a removal (and
/// the reverse), a token deletion without re-encoding, normalizing scores without
/// exponentiating, exponentials used unnormalized, equal weights, and the right weights applied
/// to the input embeddings instead of the stored states. Throws ReferenceError when the target
/// names no read, intervention row or quantity.
Judgement judge(const Report& report, const LearnerAnswer& answer);

/// One line: `name: right|wrong: target: proposed …, exact …; findings; mistake: …`.
std::string judgement_text(const Judgement& j);

}  // namespace exactattn
