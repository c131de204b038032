// SPDX-License-Identifier: MIT
// exactattn: running a scenario and rendering its report (text, Markdown, LaTeX, CSV, JSON).
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "exactattn/document.hpp"
#include "exactattn/encoder.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/table.hpp"

namespace exactattn {

struct ReadResult {
    ReadSpec spec;
    ReadTrace trace;
};

/// One row of an intervention table; position 0 is the row without intervention.
struct InterventionRow {
    std::size_t position = 0;
    std::optional<std::vector<std::string>> tokens;  ///< delete-token: the remaining tokens
    Memory states;                                   ///< the memory this row reads
    ReadTrace trace;
};

struct InterventionResult {
    InterventionSpec spec;
    std::vector<InterventionRow> rows;
};

struct CostResult {
    CostSpec spec;
    Costs costs;
};

/// One declared attention layer and its trace.
struct LayerResult {
    LayerSpec spec;
    LayerTrace trace;
};

/// Everything a scenario computes, exactly.
struct Report {
    Scenario scenario;
    std::vector<ReadResult> reads;
    std::vector<InterventionResult> interventions;
    std::vector<CostResult> costs;
    std::vector<LayerResult> layers;
    std::vector<RolloutResult> rollouts;

    [[nodiscard]] const RolloutResult& rollout(const std::string& name) const;
    [[nodiscard]] const ReadResult& read(const std::string& name) const;
    [[nodiscard]] const InterventionResult& intervention(const std::string& name) const;
    [[nodiscard]] const CostResult& cost(const std::string& name) const;
};

/// What a run's report is for, which decides what it is charged against max_report_cells
/// before anything is computed (docs/limits.md).
enum class ReportUse {
    /// Rendered as tables (text, markdown, LaTeX, HTML, CSV): every source's states and every
    /// read's trace with its memory are cells.
    Tables,
    /// Values only (JSON, written as it is printed; `verify`): the reads' columns are charged,
    /// not the sources, which are loaded (and bounded by max_cells) already.
    Values,
};

/// Runs every read, intervention and cost case of the scenario. Errors carry the file and the
/// JSON pointer of the declaration that failed. Before anything is computed, a report over
/// max_report_cells for its `use` is refused (LimitError at the source, read, intervention or
/// layer that passes it); its work is charged as it runs (docs/limits.md, "Predictions that
/// refuse").
Report run_scenario(const Scenario& scenario, ReportUse use = ReportUse::Tables);

/// The scenario with only the reads, interventions, costs, layers, rollouts and figures that
/// `pointers` point into (`/layers/l/heads/0/weights/3` keeps layer l, `/reads/r` read r), so
/// that running it computes what they need and nothing else: a variant's draw, or `check` of
/// one target beside a 500-row layer it never reads (docs/limits.md). A pointer to a read (…)
/// the scenario does not declare leaves it whole, so the error that follows lists them all.
Scenario only_what_pointers_need(Scenario scenario, const std::vector<std::string>& pointers);

/// The report as a document: the title, the declared assumptions, the encoder states, every
/// read (the Table 14.1 layout and its summary), every intervention table, layer and rollout,
/// then `figures` under a "Figures" heading (none: no heading), then every cost table, with the
/// scenario's table numbers and captions. The figures are drawn by a tool above this layer
/// (figures.hpp's run_document draws the scenario's own).
Document report_document(const Report& report, std::vector<FigureBlock> figures = {});

/// render_report(report, Format::Json) prepared for writing: what can fail (a decimal
/// rounding) is computed now; the function returned writes the text to a stream in chunks,
/// printing the arrays of n entries (states, scores, weights, …) as it goes, without the
/// document tree of the whole report. The report must outlive the function.
std::function<void(std::ostream&)> json_report_writer(const Report& report);

/// One read as a document: the Table 14.1 layout (rows produced on demand, so a read over
/// millions of positions prints without holding its table) and the summary lines.
Document read_document(const Memory& memory, const ReadTrace& trace,
                       const std::optional<Vector>& readout = std::nullopt);

/// `read --format json`: the object of docs/cli.md.
std::string read_json(const Memory& memory, const ReadTrace& trace);

/// The keys of read_json's object, in the order they are written (removed, zeroed, readout
/// and readout_decimal only when the read has them).
const std::vector<std::string>& read_json_fields();
/// UsageError naming the first of `fields` that is not one of read_json_fields().
void check_read_json_fields(const std::vector<std::string>& fields);

/// Writes read_json's text to `out` as it is produced, in chunks (a read over 10^6 positions
/// is hundreds of megabytes): with `fields` empty the same bytes as read_json, else only the
/// keys named (check_read_json_fields()), in
/// the object's own order. Everything that can fail with a documented error (the decimals
/// of the context and the readout) is computed before the first byte is written.
void write_read_json(const Memory& memory, const ReadTrace& trace, std::ostream& out,
                     const std::vector<std::string>& fields = {});

/// `read --format text`: render(read_document(...), Format::Text).
std::string read_text(const Memory& memory, const ReadTrace& trace,
                      const std::optional<Vector>& readout = std::nullopt);

/// One rollout as a document (docs/decoder.md): both regimes side by side a step at a time, the
/// divergence, each regime's step tables (read, state, scores, distribution, choice) and costs.
Document rollout_document(const Report& report, const RolloutResult& rollout);
/// `rollout`: the document in a format; JSON is the report's /rollouts/<name> object.
std::string render_rollout(const Report& report, const RolloutResult& rollout, Format format,
                           const RenderOptions& options = {});

/// `encode`: states of a token list as a document, and in a format (JSON: tokens and states).
Document encoding_document(const Scenario& scenario, const std::vector<std::string>& tokens);
std::string render_encoding(const Scenario& scenario, const std::vector<std::string>& tokens, Format format,
                            const RenderOptions& options = {});

}  // namespace exactattn
