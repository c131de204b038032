// SPDX-License-Identifier: MIT
// exactattn internal: the size and work of a report predicted from the scenario's declarations
// and its loaded inputs, before any of it is computed (docs/limits.md, "The report predicted
// from the declarations").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exactattn/decoder.hpp"
#include "exactattn/memory.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/table.hpp"
#include "exactattn/value.hpp"

namespace exactattn::detail {

/// Bounds on a set of exact values, from their sizes alone: log2 of the largest absolute
/// coefficient (of any power of a, any 2^(i/m)), the least common multiple of the rational
/// coefficients' denominators (capped), and the largest root degree m.
struct Magnitude {
    double log2 = -1e9;        ///< log2 of the largest |coefficient|; -1e9 for none or zero
    std::int64_t den = 1;      ///< lcm of the denominators, at most kHugeDenominator
    int root = 1;              ///< the largest m of Q(2^(1/m)) among the values
    double printed_chars = 0;  ///< the longest value printed, in characters, bounded by its bits

    static constexpr std::int64_t kHugeDenominator = std::int64_t{1} << 40;

    void add(const FieldElem& f);
    void add(const Value& v);
    void add(const Vector& v);
    void add(const Matrix& m);
    void add(const Magnitude& o);
    /// Every entry of a memory (compact memories through their integers and units).
    void add(const Memory& m);
};

/// One column's bound per column of a memory (or a matrix: entry [j][i] in column i).
std::vector<Magnitude> column_bounds(const Memory& m);
std::vector<Magnitude> column_bounds(const Matrix& m);

/// A bound on the scores q·k_j (times `scale`) of a read whose query entries are bounded by
/// `query` and whose key columns by `keys`: log2 of the largest |r| of a score r·a and the
/// denominator that r's divides.
struct ScoreBound {
    double log2 = -1e9;
    std::int64_t den = 1;
    bool irrational = false;  ///< a factor outside Q: the weights' field is taken as the largest
};
ScoreBound score_bound(const std::vector<Magnitude>& query, const std::vector<Magnitude>& keys, const Magnitude& scale);

/// What a part of the report holds and costs: its exact values, the characters they print as
/// (laid out: every cell of a column as wide as the widest), and the arithmetic that computes
/// them, in work units.
struct Estimate {
    double values = 0;
    /// Of `values`, those the report certainly holds: a rollout's generation may stop at its
    /// end token or a refused tie after its first step, so only that step is certain.
    double certain_values = 0;
    double chars = 0;
    double work = 0;
    void add(const Estimate& e, double times = 1);
};

/// One read over `n` positions of width `d` with scores bounded by `scores`: its scores,
/// exponentials, weights (the softmax's field degree m and the spread of the exponents decide
/// their sizes: see docs/limits.md), context and readout; with `memory` (the echoed key rows,
/// each entry of `value_chars` characters) when the report prints the memory beside the read.
Estimate read_estimate(double n, double d, const ScoreBound& scores, double value_chars, bool memory);

/// The work units of printing an estimate in `format` (per character printed, as the print
/// functions charge, with each format's markup around every value: LaTeX's \frac and math mode,
/// HTML's MathML, JSON's quotes and indentation).
double printing_work(const Estimate& e, Format format);

/// Characters of a value bounded by `m`.
double printed_chars(const Magnitude& m);

/// One declaration's part of the report: its pointer, what it is (for the refusal) and its
/// estimate.
struct ReportPart {
    std::string pointer;
    std::string what;
    Estimate estimate;
};

/// Every read, intervention, layer and rollout of the scenario, predicted before any is
/// computed; `tables`: the report is rendered as tables (the sources' states and each read's
/// memory are printed beside it).
std::vector<ReportPart> predict_report(const Scenario& s, bool tables);

/// The work a report printed in `format` is certainly charged for `e`: each value it certainly
/// holds printed with at least one character at kWorkPerPrintedCharacter (tables print every
/// value through the charged printers; the streamed JSON of `run` writes a read's columns
/// uncharged, so JSON is certain of nothing), and no arithmetic, which the fast path avoids.
double certain_work(const Estimate& e, Format format);

/// One declaration's exact values in the report, counted before it is computed to hold the
/// report to max_report_cells: `pointer` places a refusal, `why` says what the part holds.
struct ReportCells {
    std::string pointer;
    std::int64_t cells = 0;
    std::string why;
};

/// The exact values each source, read, intervention and layer adds to the report, in the order
/// they are computed; `tables`: rendered as tables (the sources' states and each read's memory
/// are cells). Each count is what the part prints, or at most twice it (a causal layer's masked
/// half), so a refusal on it is never more than twice early (docs/limits.md, "Predictions that
/// refuse"). A rollout is not counted here: its generation may stop at its first step or run all
/// of them, so no count up front is within 4× of what it prints; rollout_cells counts it once
/// it has run.
std::vector<ReportCells> report_cells(const Scenario& s, bool tables);

/// The exact values a computed rollout adds to the report, counted from its steps as the chosen
/// output prints them (`tables`: each step's row, its output scores and distribution, and its
/// read's table with the source's states; the data: each step's fields) over a source of
/// `positions` states of width `width`: what max_report_cells holds a rollout to once its
/// steps are known, since how many there will be is not known before (docs/limits.md).
std::int64_t rollout_cells(const RolloutResult& r, std::int64_t positions, std::int64_t width, bool tables);

}  // namespace exactattn::detail
