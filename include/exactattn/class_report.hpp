// SPDX-License-Identifier: MIT
// exactattn: a class graded against a directory of exercise variants (`check --variants DIR
// --answers CSV`, docs/check.md#a-class-on-variants) — every row judged as `check` judges it, and
// the class report: per exercise and part, how many were right, which known mistake reproduces
// each wrong answer, and how many no mistake explains.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "exactattn/answer_entry.hpp"
#include "exactattn/check.hpp"
#include "exactattn/document.hpp"
#include "exactattn/error.hpp"

namespace exactattn {

/// One row of a class CSV graded against variants.
struct ClassRow {
    int line = 0;              ///< the CSV line the record starts on
    std::string student;       ///< as written
    std::string variant_text;  ///< the `variant` or `seed` field as written
    std::size_t variant = 0;   ///< 1-based number of the variant it names (0: none found)
    std::uint64_t seed = 0;    ///< that variant's seed
    std::string target;        ///< the pointer judged (the variation's `answer` when the row names none)
    std::string part;          ///< the variation's label of that pointer, or the pointer
    std::string answer;        ///< as written
    /// Why the row could not be graded (a variant that does not exist, text that is not UTF-8, a
    /// seed out of range, a target that names nothing); placed at `refusal`.
    std::optional<Error> refusal;
    std::string invalid;              ///< the answer does not parse: the reason
    std::optional<Judgement> judged;  ///< set when the row was graded
};

/// The variants a directory written by `exactattn variants -o DIR` holds, and a class's rows
/// graded against them.
struct ClassGrade {
    std::string directory;
    std::string csv;           ///< the class CSV's path, as given
    std::string exercise;      ///< the exercise's id
    std::string title;         ///< its title
    std::size_t variants = 0;  ///< variant-01.json … variant-NN.json
    std::vector<ClassRow> rows;

    [[nodiscard]] std::size_t refused() const;
    [[nodiscard]] std::size_t wrong_or_invalid() const;
};

/// Grades the class CSV at `csv` (RFC 4180; columns `student`, `answer` and `variant` or `seed`,
/// optionally `target`) against the variants in `directory`, each row as `check VARIANT --target
/// T --proposed A` judges it (`tolerance` and `accept` override for every row). A row that cannot
/// be graded is kept with its refusal and the rest are graded. Errors (exit 2) only for what
/// stops the whole class: a directory without variants, a variant file that does not load, a
/// CSV without a header or the columns.
ClassGrade grade_class(const std::string& directory, const std::string& csv,
                       const std::optional<Tolerance>& tolerance = std::nullopt,
                       const std::vector<std::string>& accept = {});

/// The class report: a summary, per exercise part the outcomes (right, each known mistake,
/// no known mistake, invalid, refused) as a table and a bar chart, then one row per answer.
Document class_report_document(const ClassGrade& grade);

/// The class report as JSON: {"exercise", "variants", "parts": [{"target", "part", "answers",
/// "right", "wrong", "invalid", "refused", "unexplained", "mistakes": [{"id", "count"}]}],
/// "rows": [{"line", "student", "variant", "seed", "target", "answer", "verdict", "rule",
/// "mistake_id", "mistake", "feedback"}]}.
std::string class_report_json(const ClassGrade& grade);

/// A short label for a mistake id in a class report ("divided by the count"); two-step ids
/// (`a+b`) join their steps' labels with " + ".
std::string mistake_label(const std::string& id);

}  // namespace exactattn
