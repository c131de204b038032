// SPDX-License-Identifier: MIT
// exactattn: running a scenario and rendering its report (text, Markdown, LaTeX, CSV, JSON).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exactattn/model.hpp"
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

/// Everything a scenario computes, exactly.
struct Report {
    Scenario scenario;
    std::vector<ReadResult> reads;
    std::vector<InterventionResult> interventions;
    std::vector<CostResult> costs;

    [[nodiscard]] const ReadResult& read(const std::string& name) const;
    [[nodiscard]] const InterventionResult& intervention(const std::string& name) const;
    [[nodiscard]] const CostResult& cost(const std::string& name) const;
};

/// Runs every read, intervention and cost case of the scenario. Errors carry the file and the
/// JSON pointer of the declaration that failed.
Report run_scenario(const Scenario& scenario);

/// The report in a format. JSON is the document `expect` pointers address (docs/report.md):
/// /sources/<name>/states, /reads/<name>/{scores,exponentials,denominator,weights,context,readout},
/// /interventions/<name>/rows/<k>/…, /costs/<name>/… (docs/scenario.md lists them all).
std::string render_report(const Report& report, Format format);

/// Tables of one read in the chapter's layout (Table 14.1): position, state, dot product,
/// exponential, normalized weight. Used by `read` and by the report.
/// The score column shows the rule used: `1 × a + 0 × 0 = a`, or for the scaled score
/// `(1 × a + 1 × a)/√2 = …` under the header "Scaled dot product with q (÷ √d)".
Table read_table(const Source* source, const Memory& memory, const ReadTrace& trace, Format format,
                 ScoreRule rule = ScoreRule::Dot);

/// `read --format json`: the trace object of docs/report.md ("Structure").
std::string read_json(const Memory& memory, const ReadTrace& trace);

/// `read --format text`: the table and the summary lines.
std::string read_text(const Memory& memory, const ReadTrace& trace);

/// `encode`: states of a token list in a format.
std::string render_encoding(const Scenario& scenario, const std::vector<std::string>& tokens,
                            Format format);

}  // namespace exactattn
