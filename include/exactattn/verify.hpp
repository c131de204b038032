// SPDX-License-Identifier: MIT
// exactattn: checking a scenario's `expect` entries against its computed report.
#pragma once

#include <string>
#include <vector>

#include "exactattn/report.hpp"

namespace exactattn {

/// One failed `expect` entry.
struct Mismatch {
    std::string pointer;
    std::string expected;  ///< as written in the file (compact JSON)
    std::string computed;  ///< ascii form(s) from the report (compact JSON)
};

/// One `expect` entry and its outcome (every entry, passed or failed, in file order).
struct Checked {
    std::string pointer;
    std::string expected;  ///< as written in the file (compact JSON)
    std::string computed;  ///< ascii form(s) from the report (compact JSON)
    bool passed = false;
};

struct VerifyResult {
    std::string file;
    std::size_t passed = 0;
    std::vector<Mismatch> failures;
    std::vector<Checked> entries;  ///< every entry in file order (the JUnit test cases)
};

/// Compares every `expect` entry with the report by exact value equality ("0.5a" equals
/// "a/2"), recursively through arrays; null matches only null. Throws ReferenceError (exit 2)
/// for a pointer that resolves to nothing, ParseError for an expected value that does not
/// parse, each naming the file and the pointer.
VerifyResult verify_report(const Report& report);

/// The report's value at a JSON pointer, as compact JSON (ReferenceError when absent).
std::string report_value_at(const Report& report, const std::string& pointer);

}  // namespace exactattn
