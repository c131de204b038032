// SPDX-License-Identifier: MIT
// exactattn internal: the values of exercise variants as their documents write them
// (variants.cpp draws them, variant_constraints.cpp judges them, variant_documents.cpp writes
// keys, sheets and Moodle XML).
#pragma once

#include <string>

#include "exactattn/document.hpp"
#include "exactattn/value.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

/// A report quantity as a formula: a value, a row, or rows (states).
Formula quantity_formula(const Json& j, const Location& where);
/// A terminating decimal (the loader checks the tolerance is one) written exactly.
std::string exact_decimal(const Value& v);
/// A quantity's exact values in canonical ascii, shaped as in the report: equal strings are
/// equal quantities.
std::string canonical(const Json& j, const Location& where);
/// The quantity at `pointer` of a report document.
const Json& report_at(const Json& doc, const std::string& pointer, const Location& where);

}  // namespace exactattn::detail
