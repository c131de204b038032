// SPDX-License-Identifier: MIT
// exactattn: exercise variants (docs/variants.md) — a seeded generator specified so that any
// implementation reproduces it, drawn variants checked exactly against declared constraints,
// and their outputs: scenario files, answer keys, an exam sheet and a Moodle XML export.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exactattn/document.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"

namespace exactattn {

/// SplitMix64 (Steele, Lea and Flood, 2014), exactly as docs/variants.md specifies it: the
/// state advances by 0x9E3779B97F4A7C15 and each output is the advanced state mixed by
/// z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31,
/// all arithmetic modulo 2^64. Only unsigned 64-bit operations: the same seed gives the same
/// numbers on every platform and compiler.
class SplitMix64 {
  public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next();
    /// A uniform integer in [0, n), n ≥ 1, by rejection: draw x = next() until
    /// x < 2^64 − (2^64 mod n), then return x mod n (no modulo bias).
    std::uint64_t below(std::uint64_t n);
    /// A uniform integer in [low, high]: low + below(high − low + 1) (2^64 draws next()).
    std::int64_t between(std::int64_t low, std::int64_t high);

  private:
    std::uint64_t state_;
};

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

/// Every file `exactattn variants -o DIR` writes: variant-NN.json and key-NN.md per variant,
/// sheet.md, sheet.tex (standalone), sheet.html and moodle.xml. `warn` receives the warnings
/// of sheet.html (author TeX outside the MathML subset, kept verbatim).
std::vector<OutputFile> variant_files(const VariantSet& set, const WarningSink& warn = {});

}  // namespace exactattn
