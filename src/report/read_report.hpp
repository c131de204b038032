// SPDX-License-Identifier: MIT
// exactattn internal: one read as a document (read_report.cpp), for the run report and a decoder
// step's read.
#pragma once

#include <optional>
#include <string>

#include "exactattn/document.hpp"
#include "exactattn/report.hpp"

namespace exactattn::detail {

/// A value to six decimal places (0 as 0), for the "≈" of a context or readout.
std::string approx(const Value& v);
/// A position's label as the chapter prints it: `1: color`, or `1: 红色` (the token through the
/// token macro) when the source declares no labels; the number alone without a source.
Inline position_cell(const Source& src, std::size_t position);
/// The names of every position, `color, key, full stop`, for a weights header.
Inline position_names(const Source& src);
/// The Table 14.1 layout of one read: position, state, score derivation, exponential, weight
/// derivation, its rows produced on demand (a read over 10^7 positions as well as three).
TableBlock read_table(const Source* source, const Memory& memory, const ReadTrace& t, ScoreRule rule);
/// The read's totals as data, the CSV companion of its table `of`.
TableBlock read_data(const TableBlock& of, const ReadTrace& t);
/// Scores → exponentials → total; weights; context; readout, as lines.
Lines read_summary(const ReadTrace& t, const std::optional<Vector>& readout);

}  // namespace exactattn::detail
