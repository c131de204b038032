// SPDX-License-Identifier: MIT
// exactattn: the quantities of a scenario's run report, listed by JSON pointer with their exact
// values and what each one is (`exactattn pointers`, docs/manuscript.md "Finding a pointer"):
// what an author marks a number with, and what `verify`, `check` and `expect` address.
#pragma once

#include <string>
#include <vector>

#include "exactattn/document.hpp"
#include "exactattn/report.hpp"

namespace exactattn {

/// One quantity of a report.
struct PointerEntry {
    std::string pointer;      ///< RFC 6901, e.g. /reads/example-14.1/weights/1
    std::string value;        ///< its exact value in the canonical ascii notation; a vector or
                              ///< matrix as [1/2, 1/4, 1/4]; text (a token, a name) as written
    std::string description;  ///< what it is, e.g. "weight of position 2 (钥匙) in read example-14.1"
};

/// Every quantity of the report at `under` or below it (every one for ""): scalars, and vectors
/// and matrices as a whole before their entries, in the report's order. ReferenceError when
/// `under` names nothing.
std::vector<PointerEntry> list_pointers(const Report& report, const std::string& under = "");

/// What the quantity at `pointer` is, in words (its position 1-based, as the chapter counts).
std::string describe_pointer(const Report& report, const std::string& pointer);

/// The list as a document: one table (pointer, value, what it is), for every output format.
Document pointers_document(const Report& report, const std::vector<PointerEntry>& entries);

/// The list as JSON: an array of {"pointer", "value", "description"} objects.
std::string pointers_json(const std::vector<PointerEntry>& entries);

}  // namespace exactattn
