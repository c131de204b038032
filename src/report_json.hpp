// SPDX-License-Identifier: MIT
// exactattn internal: the JSON report that `expect` pointers address.
#pragma once

#include <unordered_map>

#include "exactattn/print.hpp"
#include "exactattn/report.hpp"
#include "json_io.hpp"

namespace exactattn::detail {

Json value_json(const Value& v);
Json vector_json(const Vector& v);
Json matrix_json(const Memory& m);
/// The trace object of docs/report.md (memory included when given).
Json trace_to_json(const Memory* memory, const ReadTrace& t);
/// Memoized ascii strings of one trace. A read over 10^7 positions has few distinct entries
/// (memory integers, scores), and a position's exponential and weight are functions of its
/// score, so each distinct one is computed and printed once. The caches stop growing at a
/// fixed size; past it, strings are computed each time.
class TraceStrings {
public:
    /// Strings in notation `n` (ascii for JSON, unicode for terminal text).
    TraceStrings(const Memory& memory, const ReadTrace& t, Notation n = Notation::Ascii);

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
    const Memory& memory_;
    const ReadTrace& t_;
    Notation n_;
    std::unordered_map<std::int64_t, std::string> entries_;
    std::unordered_map<std::string, Row> rows_;
    std::unordered_map<std::int64_t, Row> keyed_;
    std::string scratch_;
    Row scratch_row_;
};

/// The same text as trace_to_json(&memory, t).dump(), written without the document tree and
/// with repeated entries printed once (reads over millions of positions).
std::string trace_json_text(const Memory& memory, const ReadTrace& t);
Json costs_json(const Costs& c);
Json report_to_json(const Report& rep);

/// The entry of `doc` at the JSON pointer `pointer` (RFC 6901): the one resolver of every
/// command that addresses the report (verify's `expect`, check's targets, learner answers).
/// ReferenceError placed at `where` when the pointer is malformed or resolves to nothing.
const Json& resolve_pointer(const Json& doc, const std::string& pointer, const Location& where);

/// Throws ReferenceError at `where` unless the learner answer's target names a quantity of
/// the report `doc` (a value, a vector or a matrix of values). Defined in check.cpp.
void check_answer_target(const Json& doc, const Scenario& s, const LearnerAnswer& la, const Location& where);

// Derivations shared by the table and the streaming printer (report.cpp): every factor that
// is not one plain token is parenthesised, "(1/2)/(3/4) = 2/3", and the scaled score shows
// its division, "(1 × a + 1 × a)/√4 = a/2".
std::string dot_derivation(const std::vector<std::string>& q, const std::vector<std::string>& h,
                           const std::string& score, ScoreRule rule);
std::string weight_derivation(const std::string& e, const std::string& den, const std::string& w);
std::string score_header(const std::string& query, ScoreRule rule, std::size_t d);

// Cell helpers shared by the renderers (report.cpp).
Notation notation_of(Format f);
std::string cell(const Value& v, Format f);
std::string cell(const Vector& v, Format f);
std::string text_cell(const std::string& s, Format f);
std::string approx(const Value& v);
std::string approx(const Vector& v);
std::string readout_formula(const Vector& coeffs);
std::vector<Value> column_values(const Column& c, const Value& absent);

}  // namespace exactattn::detail
