// SPDX-License-Identifier: MIT
// exactattn: scenario files (docs/scenario.md) — declared inputs of a chapter's computations.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exactattn/answer_entry.hpp"
#include "exactattn/attention.hpp"
#include "exactattn/decoder.hpp"
#include "exactattn/memory.hpp"
#include "exactattn/encoder.hpp"

namespace exactattn {

/// A source: tokens run through the encoder, or memory rows given directly.
struct Source {
    std::string name;
    std::optional<std::vector<std::string>> tokens;
    std::vector<std::string> labels;  ///< optional display names per position ("color")
    Memory states;                    ///< h_1..h_n (computed from the tokens, or given)

    /// "1: color" (label), "1: 红色" (token) or "1".
    [[nodiscard]] std::string position_label(std::size_t position) const;
    bool operator==(const Source&) const = default;
};

/// A vector with the name it was declared under (empty name: given inline).
struct NamedVector {
    std::string name;
    Vector values;
    bool operator==(const NamedVector&) const = default;
};

/// A matrix with the name it was declared under.
struct NamedMatrix {
    std::string name;
    Matrix values;
    bool operator==(const NamedMatrix&) const = default;
};

/// One declared read (`reads`).
struct ReadSpec {
    std::string name;
    std::string source;
    NamedVector query;
    std::optional<NamedVector> readout;
    std::vector<std::size_t> remove;  ///< 1-based positions
    std::vector<std::size_t> zero;    ///< 1-based positions
    std::string note;
    std::string number;   ///< the book's table number ("14.1"), printed "Table 14.1"
    std::string caption;  ///< the book's caption (Markdown), replacing the generated one
    bool operator==(const ReadSpec&) const = default;
};

enum class InterventionKind { RemoveState, ZeroScore, DeleteToken };
const char* intervention_name(InterventionKind k);

/// One declared intervention table (`interventions`): a no-intervention row plus one row per
/// position in `positions` (default: every position).
struct InterventionSpec {
    std::string name;
    InterventionKind kind = InterventionKind::RemoveState;
    std::string source;
    NamedVector query;
    std::optional<NamedVector> readout;
    std::vector<std::size_t> positions;
    std::string note;
    std::string number;   ///< the book's table number ("14.2")
    std::string caption;  ///< the book's caption (Markdown)
    bool operator==(const InterventionSpec&) const = default;
};

/// One declared cost case (`costs`).
struct CostSpec {
    std::string name;
    std::string source;  ///< n and d taken from it when not given
    CostInput input;
    bool operator==(const CostSpec&) const = default;
};

/// A learner's proposed answer to judge (`learner_answers`), see check.hpp.
/// Whether a run-report pointer names tokens rather than values (docs/check.md#token-answers):
/// a rollout's `reference`, a regime's `tokens`, a step's `input`, `chosen`, `reference` or
/// `argmax`, the divergence's `reference_prefix` and `generated_prefix`, a source's `tokens`, an
/// intervention row's `deleted` and `tokens` — or one element of such a list. Decided from the
/// pointer alone, so a proposal can be read before the report exists.
bool names_tokens(std::string_view pointer);

struct LearnerAnswer {
    std::string name;
    /// JSON pointer of the quantity in the run report, e.g. "/reads/example-14.1/weights" or
    /// "/interventions/table-14.3/rows/2/context".
    std::string target;
    std::vector<Value> proposed;       ///< one value for a scalar quantity; a matrix row by row (0 for
                                       ///< an entry outside the exact domain, such as e)
    std::vector<AnswerEntry> entries;  ///< the same entries as written (decimal, percentage, e…)
    bool scalar = false;
    std::size_t columns = 0;  ///< > 0: `proposed` is a matrix of this width
    std::string note;
    std::optional<Tolerance> tolerance;  ///< for decimals and percentages (none: the places written)
    std::vector<std::string> accept;     ///< registry mistakes accepted as right ("remaining-weights")
    bool operator==(const LearnerAnswer&) const = default;
};

/// One varied entry of an exercise's variation (docs/variants.md): a JSON pointer into the
/// scenario file as write_scenario writes it, and how the value there is drawn. A pointer to a
/// vector (or matrix) draws each number in it the same way.
struct VaryEntry {
    std::string at;
    bool integers = false;  ///< an integer from low to high (inclusive) …
    std::int64_t low = 0, high = 0;
    std::vector<std::string> choices;  ///< … or one of these JSON texts (value, vector, matrix)
    bool multiple_of_a = false;        ///< integers: the drawn k is written k·a ("ka")
    bool operator==(const VaryEntry&) const = default;
};

/// One part of a varied exercise: a quantity of the run report the sheet asks for.
struct VariationPart {
    std::string label;  ///< "the weights" (Markdown)
    std::string at;     ///< JSON pointer into the run report
    bool operator==(const VariationPart&) const = default;
};

/// An exercise's `variation` (docs/variants.md): what may vary, the constraints a good variant
/// meets (each checked exactly), the parts, and the numerical answer of the Moodle export.
struct Variation {
    std::vector<VaryEntry> vary;
    std::string prompt;  ///< the prompt with {{/pointer}} placeholders (run-report pointers)
    std::vector<VariationPart> parts;
    std::string answer;  ///< run-report pointer of one number (Moodle's numerical answer)
    Value tolerance;     ///< absolute tolerance of the numerical answer, > 0
    // Constraints (docs/variants.md#constraints).
    std::int64_t max_denominator = 0;  ///< > 0: every weight rational with a denominator ≤ this
    bool unique_maximum = false;       ///< the largest weight of each read is attained once
    bool distinct_parts = false;       ///< no two parts have the same value
    /// no two variants of a set have answers within the tolerance of each other
    bool distinct_answers = false;
    bool scores_in_domain = false;      ///< every score a rational multiple of a
    std::vector<std::string> mistakes;  ///< each gives a different answer than the right one
    /// The variant's own seed, which `variants` writes in each variant file (`"seed"`, a string of
    /// digits) and `check --variants` finds the variant by; none in a base file.
    std::optional<std::uint64_t> seed;
    bool operator==(const Variation&) const = default;
};

/// One exercise (`exercises`): prompt and the computations that answer it.
struct Exercise {
    std::string id;
    std::string title;
    std::string prompt;              ///< Markdown
    std::vector<std::string> reads;  ///< names of reads that answer it
    std::vector<std::string> interventions;
    std::vector<std::string> costs;
    std::vector<std::string> learner_answers;
    /// Rollout references: "<name>" (both regimes) or "<name>/<regime>/steps/<k>", step k exactly
    /// as the report's /rollouts/<name>/<regime>/steps/<k>.
    std::vector<std::string> rollouts;
    /// Layer references: "<name>" (every head's rows and the output), "<name>/heads/<h>", or the
    /// rest of a report pointer /layers/<name>/… naming a head's quantity, row or entry
    /// ("<name>/heads/<h>/weights/<i>", "<name>/output/<i>", "<name>/masked/<i>").
    std::vector<std::string> layers;
    std::string explanation;             ///< fixed text for what numbers cannot say
    std::optional<Tolerance> tolerance;  ///< for its learner answers that declare none
    std::vector<std::string> accept;     ///< mistakes accepted as right in its learner answers
    std::optional<Variation> variation;  ///< how variants of it are drawn (`variants`)
    bool operator==(const Exercise&) const = default;
};

/// Cross-check settings (`crosscheck`, docs/crosscheck.md). Every quantity is held to its
/// a-priori error bound; a declared tolerance can only tighten that limit, never loosen it.
struct CrosscheckSpec {
    std::optional<double> tolerance_ulps;  ///< none by default
    std::string rationale;                 ///< why the author declared the tolerance
    bool operator==(const CrosscheckSpec&) const = default;
};

/// A declared sequence (`sequences`): rows X given directly or as the tokens' embeddings.
struct SequenceSpec {
    std::string name;
    std::vector<std::string> tokens;  ///< labels of the rows (may be empty)
    Matrix rows;
    bool operator==(const SequenceSpec&) const = default;
};

/// One declared attention layer (`layers`), its names resolved: the query sequence, the
/// memory sequence for cross-attention (empty: self-attention), and the layer.
struct LayerSpec {
    std::string name;
    std::string sequence;
    std::string memory;
    AttentionLayer layer;
    std::string note;
    std::string number;   ///< "15.1": the layer's first table (the rest 15.1.2, 15.1.3, …; docs/output.md)
    std::string caption;  ///< Markdown: the first table's caption
    bool operator==(const LayerSpec&) const = default;
};

/// The kinds of figure a scenario can declare (docs/figures.md).
enum class FigureKind { ReadComparison, Dependency, Heatmap, Intervention, Crosscheck };
const char* figure_kind_name(FigureKind k);

/// One declared figure (`figures`): what it draws, from which declarations, with its number
/// and caption. Every number in it comes from the run's traces.
struct FigureSpec {
    std::string name;
    FigureKind kind = FigureKind::ReadComparison;
    std::vector<std::string> reads;      ///< read comparison: two or more; dependency, crosscheck: one
    std::string intervention;            ///< intervention chart
    std::string layer;                   ///< heatmap of a layer
    std::size_t head = 0;                ///< heatmap: one head (1-based), 0 for every head
    std::string rollout;                 ///< heatmap of a rollout: decoder steps × source positions
    Regime regime = Regime::Generation;  ///< heatmap of a rollout: the regime drawn
    std::string cost;                    ///< dependency: the cost case that declares the target steps
    std::size_t target_steps = 0;        ///< dependency: decoder steps (from `cost`)
    std::string number;                  ///< "14.1", printed "Figure 14.1"
    std::string caption;                 ///< Markdown
    std::string pdf;                     ///< LaTeX: \includegraphics of this PDF instead of TikZ
    bool operator==(const FigureSpec&) const = default;
};

/// A whole scenario file.
struct Scenario {
    std::string file;  ///< where it came from ("chapter14" for the built-in one)
    std::string title;
    std::vector<std::string> assumptions;
    std::vector<std::pair<std::string, Vector>> vocabulary;
    std::optional<Encoder> encoder;
    ScoreRule rule = ScoreRule::Dot;
    std::vector<Source> sources;
    std::vector<NamedVector> queries;
    std::vector<NamedVector> readouts;
    std::vector<ReadSpec> reads;
    std::vector<InterventionSpec> interventions;
    std::vector<CostSpec> costs;
    std::vector<SequenceSpec> sequences;
    std::vector<NamedMatrix> matrices;  ///< `matrices`: projections referenced by name
    std::vector<LayerSpec> layers;
    std::optional<Decoder> decoder;     ///< `decoder` (docs/decoder.md)
    std::vector<RolloutSpec> rollouts;  ///< `rollouts`
    std::vector<FigureSpec> figures;
    std::vector<Exercise> exercises;
    std::vector<LearnerAnswer> learner_answers;
    CrosscheckSpec crosscheck;
    /// `expect`: JSON pointer into the report → the expected value's JSON text.
    std::vector<std::pair<std::string, std::string>> expect;

    [[nodiscard]] const Source& source(const std::string& name) const;
    /// ReferenceError naming the declared sequences when `name` is not one.
    [[nodiscard]] const SequenceSpec& sequence(const std::string& name) const;
    /// ReferenceError naming the declared rollouts when `name` is not one.
    [[nodiscard]] const RolloutSpec& rollout(const std::string& name) const;
    /// Embedding of a token; ReferenceError naming the token and the vocabulary.
    [[nodiscard]] const Vector& embedding(const std::string& token) const;
    /// The decoder's s_0 for a rollout over `source`: the declared one, or the source's last state.
    [[nodiscard]] Vector decoder_initial(const std::string& source) const;
    /// Encoder states for tokens (the encoder and vocabulary must be declared), from the
    /// encoder's initial state or, when `from` is given, going on from that state.
    [[nodiscard]] Matrix encode_tokens(const std::vector<std::string>& tokens, Matrix* pre_activations = nullptr,
                                       const Vector* from = nullptr) const;
    /// Every declared field equal (`file` included): load(write(s)) == s.
    bool operator==(const Scenario&) const = default;
};

/// Parses scenario JSON text; `file` names it in errors. Throws Error (exit code 2) with the
/// file and JSON pointer (or line:column for malformed JSON).
Scenario parse_scenario(std::string_view json_text, const std::string& file);

/// The scenario as a scenario file (docs/scenario.md): JSON, two-space indented, keys in the
/// order of docs/scenario.md, exact values in the canonical ascii notation, so that
/// parse_scenario(write_scenario(s), s.file) == s. Keys the loader accepts but does not keep
/// (`notes`, `$schema`, `note` of a source, an encoder, a cost case) are not written; a flat
/// `costs` object is written as its one case, "default".
std::string write_scenario(const Scenario& s);

/// The bytes of an input file, read by the one reader of every input (scenarios, memories,
/// manuscripts, a LaTeX preamble): opened without blocking, and a FIFO, device, socket or
/// directory refused at once (UsageError `cannot read PATH: not a regular file …`), a file past
/// limits().max_file_bytes refused before it is read (LimitError placed at the file).
std::string read_input_file(const std::string& path);

/// Loads a scenario file, or the built-in one for the name "chapter14".
Scenario load_scenario(const std::string& path_or_builtin);

/// The built-in Chapter 14 scenario's JSON text (embedded at build time).
std::string_view builtin_chapter14();

/// A memory from the command line: `[[a,0],[0,a]]` (expressions), or `@FILE`, a JSON array
/// of rows in a file (numbers exact from their text, strings in the notation of docs/notation.md).
Memory load_memory_argument(const std::string& arg);

/// Splits a token list on spaces (UTF-8 tokens such as 红色 stay whole).
std::vector<std::string> split_tokens(std::string_view text);

}  // namespace exactattn
