// SPDX-License-Identifier: MIT
// exactattn: judging a learner's answer and naming the mistake when it is a known one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exactattn/print.hpp"
#include "exactattn/report.hpp"

namespace exactattn {

/// The verdict on one learner answer.
struct Judgement {
    std::string name;
    std::string target;          ///< JSON pointer of the quantity in the run report
    std::vector<Value> proposed;
    /// The report's value at the target, flattened row by row; empty entries where the report
    /// has none (the score of a removed position).
    std::vector<std::optional<Value>> exact;
    std::size_t columns = 0;     ///< > 0: a matrix of this width (states), row-major
    bool scalar = false;
    bool correct = false;
    std::vector<std::string> findings;  ///< e.g. "the proposed weights sum to 4/3, not 1"
    std::string mistake;                ///< a known mistake that reproduces the answer, or empty
};

/// Judges `answer` against the report. The target is resolved by the same resolver as
/// `verify`'s expect pointers, so it may name any quantity of the run report: a read's or an
/// intervention row's scores, weights, context or readout (or one element of them), a
/// source's states (or a row), a cost. A proposal that lists only the included positions of a
/// quantity that has none for the removed ones (scores, exponentials) is judged on those. Known mistakes are recognized by recomputing the
/// quantity the wrong way and comparing exactly: dividing by the number of positions instead of
/// the sum of exponentials, a zero score given zero weight, zero-score used for a removal (and
/// the reverse), a token deletion without re-encoding, normalizing scores without
/// exponentiating, exponentials used unnormalized, equal weights, and the right weights applied
/// to the input embeddings instead of the stored states. Throws ReferenceError when the target
/// names no read, intervention row or quantity.
Judgement judge(const Report& report, const LearnerAnswer& answer);
/// judge() for several answers, addressing the report once.
std::vector<Judgement> judge_all(const Report& report, const std::vector<LearnerAnswer>& answers);

/// A judged quantity in a notation: `a/2`, `[2/3, —, 1/3]` (— where the report has no entry),
/// `[[a, 0], [0, a]]` for a matrix of `columns` columns.
std::string quantity_text(const std::vector<std::optional<Value>>& values, std::size_t columns, bool scalar,
                          Notation n);
/// The proposed and the exact quantity of a judgement in a notation.
std::string proposed_text(const Judgement& j, Notation n);
std::string exact_text(const Judgement& j, Notation n);

/// One line: `name: right|wrong: target: proposed …, exact …; findings; mistake: …`.
std::string judgement_text(const Judgement& j);

/// `check --format json`: {"judgements": [{name, target, correct, proposed, exact (ascii
/// strings; null where the report has no entry), columns, scalar, findings, mistake}], "right",
/// "wrong"}.
std::string check_json(const std::vector<Judgement>& judgements);

}  // namespace exactattn
