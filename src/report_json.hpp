// SPDX-License-Identifier: MIT
// exactattn internal: the JSON report that `expect` pointers address.
#pragma once

#include "exactattn/print.hpp"
#include "exactattn/report.hpp"
#include "json_io.hpp"

namespace exactattn::detail {

Json value_json(const Value& v);
Json vector_json(const Vector& v);
Json matrix_json(const Memory& m);
/// The read object of DESIGN.md §4 (memory included when given).
Json trace_to_json(const Memory* memory, const ReadTrace& t);
Json costs_json(const Costs& c);
Json report_to_json(const Report& rep);

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
