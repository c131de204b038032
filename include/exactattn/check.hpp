// SPDX-License-Identifier: MIT
// exactattn: judging a learner's answer and naming the mistake when it is a known one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exactattn/answer_entry.hpp"
#include "exactattn/print.hpp"
#include "exactattn/report.hpp"

namespace exactattn {

/// The verdict on one learner answer.
struct Judgement {
    std::string name;
    std::string target;  ///< JSON pointer of the quantity in the run report
    std::vector<Value> proposed;
    /// The report's value at the target, flattened row by row; empty entries where the report
    /// has none (the score of a removed position).
    std::vector<std::optional<Value>> exact;
    std::size_t columns = 0;  ///< > 0: a matrix of this width (states), row-major
    bool scalar = false;
    bool correct = false;
    std::vector<std::string> findings;  ///< e.g. "the proposed weights sum to 4/3, not 1"
    std::string mistake;                ///< a known mistake that reproduces the answer, or empty
    std::vector<AnswerEntry> entries;   ///< the proposal as written
    std::string rule;        ///< the rule(s) that judged it: "exact value", "6 decimal places (written with 6)"
    std::string mistake_id;  ///< the registry id of `mistake` ("divide-by-count"), or empty
    std::string feedback;    ///< one sentence for the learner
    std::string distance;    ///< no known mistake: the largest distance from the exact value
    /// The target holds tokens (names_tokens()): `exact_tokens` are the report's, `entries` the
    /// proposed ones (Form::Token); `proposed` and `exact` are then empty.
    bool tokens = false;
    std::vector<std::optional<std::string>> exact_tokens;  ///< none: a refused tie's step (null)
};

/// A token as an answer writes it: bare (`blue`, `红色`, `<s>`), or as a JSON string (`","`,
/// `" "`) when it is empty, has a comma, bracket or quote, or space at either end.
std::string token_text(const std::string& token);

/// The ids of the registry of known mistakes, in the order they are tried (docs/check.md).
std::vector<std::string> mistake_ids();
/// The ids of the registry's wrong methods: all but those an exercise may accept as right
/// ("remaining-weights"). The mistakes a variation's `mistakes_differ` may name (docs/variants.md).
std::vector<std::string> wrong_method_ids();

/// Reads a proposal as written — `0.259921`, `[2/3, 1/3]`, `[[a, 0], [0, a]]`, `[e, 1, 1]`,
/// `25.99%` — into `la` (entries, proposed, scalar, columns). ParseError with its column. When
/// `la.target` names tokens (names_tokens()), the proposal is a token or a list of tokens
/// instead: `blue`, `[a, blue, key, .]`, `["," , x]` (token_text()), compared exactly.
void read_proposal(std::string_view text, LearnerAnswer& la);

/// Judges `answer` against the report. The target is resolved by the same resolver as
/// `verify`'s expect pointers, so it may name any quantity of the run report: a read's or an
/// intervention row's scores, weights, context or readout (or one element of them), a
/// source's states (or a row), a cost. A proposal that lists only the included positions of a
/// quantity that has none for the removed ones (scores, exponentials) is judged on those. Known mistakes are recognized
/// by recomputing the quantity the wrong way and comparing exactly: dividing by the number of positions instead of the
/// sum of exponentials, a zero score given zero weight, zero-score used for a removal (and the reverse), a token
/// deletion without re-encoding, normalizing scores without exponentiating, exponentials used unnormalized, equal
/// weights, and the right weights applied to the input embeddings instead of the stored states. Throws ReferenceError
/// when the target names no read, intervention row or quantity.
Judgement judge(const Report& report, const LearnerAnswer& answer);
/// judge() for several answers, addressing the report once.
std::vector<Judgement> judge_all(const Report& report, const std::vector<LearnerAnswer>& answers);

/// What `check` is asked to judge. The command line and the Python module both build one and
/// call check_request(), so they select answers and judge them alike.
struct CheckRequest {
    std::string answer;                     ///< a declared learner answer by name (empty: every one)
    std::optional<LearnerAnswer> ad_hoc;    ///< an ad-hoc answer (target set, proposal read)
    std::optional<Tolerance> tolerance;     ///< overrides the declared or inherited tolerance
    std::vector<std::string> accept;        ///< overrides the accepted mistakes (when not empty)
    std::string answer_place = "--answer";  ///< where an unknown answer name is placed
    std::string target_place = "--target";  ///< where an ad-hoc target's errors are placed
};

/// The answers a request names: the ad-hoc one, which takes `tolerance` and `accept` of the
/// first exercise (in file order) that lists its target — the target's read, its
/// intervention, or that intervention's row (docs/cli.md#check) —, or the declared answer of
/// that name, or every declared one; then the request's overrides. ReferenceError for an
/// unknown name (placed at answer_place) or a scenario that declares no learner answers.
std::vector<LearnerAnswer> select_answers(const Scenario& scenario, const CheckRequest& request);
/// judge_all() of select_answers(); an ad-hoc target's errors are placed at target_place.
std::vector<Judgement> check_request(const Report& report, const CheckRequest& request);

/// A judged quantity in a notation: `a/2`, `[2/3, —, 1/3]` (— where the report has no entry),
/// `[[a, 0], [0, a]]` for a matrix of `columns` columns.
std::string quantity_text(const std::vector<std::optional<Value>>& values, std::size_t columns, bool scalar,
                          Notation n);
/// The proposed and the exact quantity of a judgement in a notation.
std::string proposed_text(const Judgement& j, Notation n);
std::string exact_text(const Judgement& j, Notation n);

/// One line: `name: right|wrong: target: proposed …, exact …; findings; mistake: …`.
std::string judgement_text(const Judgement& j);

/// `check --format json`: {"judgements": [{name, target, correct, proposed (as written), exact
/// (ascii strings; null where the report has no entry), columns, scalar, rule, findings,
/// mistake, mistake_id, feedback, distance}], "right", "wrong"}.
std::string check_json(const std::vector<Judgement>& judgements);

/// One row of a class's answers (`check --answers FILE`): columns student, target, answer.
struct ClassAnswer {
    std::string student;
    std::string target;
    std::string answer;
    int line = 0;  ///< the CSV line it starts on
};
/// Reads RFC 4180 CSV text with a header naming the columns student, target and answer (in any
/// order; other columns ignored). ParseError at `file:line` for a malformed record.
std::vector<ClassAnswer> read_class_answers(std::string_view csv, const std::string& file);
/// read_class_answers() of a file (UsageError when it cannot be read).
std::vector<ClassAnswer> load_class_answers(const std::string& path);

}  // namespace exactattn
