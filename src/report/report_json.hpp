// SPDX-License-Identifier: MIT
// exactattn internal: the JSON report that `expect` pointers address.
#pragma once

#include <memory>
#include <ostream>
#include <unordered_map>

#include "exactattn/print.hpp"
#include "render/cells.hpp"
#include "render/text.hpp"
#include "exactattn/report.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

Json value_json(const Value& v);
Json vector_json(const Vector& v);
Json matrix_json(const Matrix& m);
Json matrix_json(const Memory& m);
/// The trace object of docs/report.md (memory included when given).
Json trace_to_json(const Memory* memory, const ReadTrace& t);
/// Memoized ascii strings of one trace. A read over 10^7 positions has few distinct entries
/// (memory integers, scores), and a position's exponential and weight are functions of its
/// score, so each distinct one is computed and printed once. The caches stop growing at a
/// fixed size; past it, strings are computed each time.
class TraceStrings {
  public:
    /// Strings in notation `n` (ascii for JSON, unicode for terminal text), each value printed
    /// in `style` (printed(): the renderer's width and LaTeX mode).
    TraceStrings(const Memory& memory, const ReadTrace& t, Notation n = Notation::Ascii, const MathStyle& style = {});

    /// Memory entry (j, i). The reference is valid until the next call.
    const std::string& entry(std::size_t j, std::size_t i);

    /// Score, exponential and weight of an included or zeroed position.
    struct Row {
        std::string score;
        std::string exponential;
        std::string weight;
        bool rational = false;  ///< exponential and denominator are rational
    };
    /// The strings of position p (0-based). The reference is valid until the next call.
    const Row& row(std::size_t p);

  private:
    static constexpr std::size_t kMax = 1 << 16;
    static constexpr std::int64_t kSmall = 1024;
    static constexpr std::size_t kColumns = 256;  ///< the widest memory with a table a column
    const Memory& memory_;
    const ReadTrace& t_;
    Notation n_;
    MathStyle style_;
    std::unordered_map<std::int64_t, std::string> entries_;
    /// entries k·unit for |k| ≤ kSmall, by k + kSmall (a block of them a column when the
    /// memory has a unit a column)
    std::vector<std::string> small_;
    std::unordered_map<std::string, Row> rows_;
    std::unordered_map<std::int64_t, Row> keyed_;
    std::string scratch_;
    Row scratch_row_;
};

/// The same text as trace_to_json(&memory, t).dump(), written without the document tree and
/// with repeated entries printed once (reads over millions of positions).
std::string trace_json_text(const Memory& memory, const ReadTrace& t);
/// The same text and a newline to `out` in chunks, only the keys in `fields` (all when empty;
/// the caller checks the names).
void write_trace_json(const Memory& memory, const ReadTrace& t, std::ostream& out,
                      const std::vector<std::string>& fields);
/// One count of a cost case: its JSON key, its label in the costs table, its member.
struct CostCount {
    const char* key;
    const char* label;
    std::int64_t Costs::*count;
};
/// The counts of a cost case in report order: the JSON object and the table list the same ones.
const std::vector<CostCount>& cost_counts();
Json costs_json(const Costs& c);
Json report_to_json(const Report& rep);

struct LargeArray;
/// report_to_json's tree with its arrays of n entries (a source's states; a read's memory,
/// included positions, scores, exponentials and weights) left out until they are needed:
/// `verify` builds only what its pointers reach, `run --format json` writes them as they are
/// printed. A report over 10^5 positions holds millions of strings in the whole tree.
class ReportJson {
  public:
    explicit ReportJson(const Report& rep);
    ~ReportJson();
    ReportJson(const ReportJson&) = delete;
    ReportJson& operator=(const ReportJson&) = delete;

    /// resolve_pointer(report_to_json(rep), pointer, where), building only the arrays on the
    /// pointer's path or under it.
    const Json& at(const std::string& pointer, const Location& where);
    /// report_to_json(rep).dump(2) and a newline, to `out` in chunks of about a megabyte.
    void write(std::ostream& out);

  private:
    Json doc_;
    std::vector<std::shared_ptr<LargeArray>> large_;
};

/// The entry of `doc` at the JSON pointer `pointer` (RFC 6901): the one resolver of every
/// command that addresses the report (verify's `expect`, check's targets, learner answers).
/// ReferenceError placed at `where` when the pointer is malformed or resolves to nothing.
const Json& resolve_pointer(const Json& doc, const std::string& pointer, const Location& where);

}  // namespace exactattn::detail
