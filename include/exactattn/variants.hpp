// SPDX-License-Identifier: MIT
// exactattn: exercise variants (docs/variants.md) — a seeded generator specified so that any
// implementation reproduces it, drawn variants checked exactly against declared constraints,
// and their outputs: scenario files, answer keys, an exam sheet and a Moodle XML export.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exactattn/document.hpp"
#include "exactattn/random.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"

namespace exactattn {

/// What to draw: `count` variants of one exercise from the master seed, or (variant_seed) the
/// one variant of that seed, as a key prints it.
struct VariantRequest {
    std::string exercise;  ///< the exercise's id, or "exercise-<id>"
    std::int64_t count = 1;
    std::uint64_t seed = 0;
    bool variant_seed = false;  ///< `seed` is one variant's own seed (count must be 1)
};

struct Variant {
    std::size_t number = 0;  ///< 1-based, in the order drawn
    std::uint64_t seed = 0;  ///< re-creates this variant alone
    std::size_t draws = 0;   ///< draws it took to meet the constraints
    Report report;           ///< the variant's scenario (report.scenario) and everything it computes
    std::string file_text;   ///< write_scenario(report.scenario)
};

struct VariantSet {
    std::string source;     ///< the file (or "chapter14") the variants were drawn from
    Exercise exercise;      ///< the exercise as declared (prompt and variation)
    std::size_t index = 0;  ///< its position in the file's `exercises` (a warning's place)
    std::uint64_t seed = 0;
    bool variant_seed = false;
    std::vector<Variant> variants;
};

/// Draws the variants. Errors (exit code 2): UsageError for an unknown exercise or a bad
/// count, ShapeError/ReferenceError at the variation's pointer for a declaration that names
/// nothing, LimitError naming the constraint that failed most when a variant is unmet after
/// limits().max_variant_draws draws.
VariantSet draw_variants(const Scenario& base, const VariantRequest& request);

/// One variant's answer key: its seed, the command that re-creates it alone, the prompt, the
/// parts with their exact values, and the answer-key sentences of `answers`.
Document variant_key_document(const VariantSet& set, const Variant& v);

/// The exam sheet: every variant's prompt and parts, then the answers at the back.
Document variant_sheet_document(const VariantSet& set);

/// Moodle XML (docs/variants.md#moodle-xml): one numerical question per variant, the answer a
/// correctly rounded decimal with the declared absolute tolerance, the exact value in the
/// feedback.
std::string moodle_xml(const VariantSet& set);

/// The feedback of a Moodle answer: `Exact value: 18a/11 with a = ln 2 (≈ 1.13424084091627).`,
/// without "with a = ln 2" for a value free of a (`Exact value: −9/5 (≈ −1.80000000000000).`), its
/// minus signs all U+2212.
std::string moodle_exact_feedback(const Value& answer);

/// One output file: a name relative to the output directory, and its bytes.
struct OutputFile {
    std::string name;
    std::string text;
};

/// The PrairieLearn question (docs/variants.md#prairielearn): info.json, question.html and a
/// standard-library-only server.py whose generate() picks a variant from PrairieLearn's
/// variant_seed by integer arithmetic and whose grade() judges the answer as `check` does (the
/// declared absolute tolerance, inclusive, decided exactly) and names the registered mistake a
/// wrong answer reproduces. The output directory is itself the question's directory.
std::vector<OutputFile> prairielearn_files(const VariantSet& set);

/// Every file `exactattn variants -o DIR` writes: variant-NN.json and key-NN.md per variant,
/// sheet.md, sheet.tex (standalone), sheet.html, moodle.xml, and the PrairieLearn question's
/// info.json, question.html and server.py. `warn` receives the warnings
/// of sheet.html (author TeX outside the MathML subset, kept verbatim).
std::vector<OutputFile> variant_files(const VariantSet& set, const WarningSink& warn = {});

}  // namespace exactattn
