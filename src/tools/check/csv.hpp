// SPDX-License-Identifier: MIT
// exactattn internal: the records of an RFC 4180 CSV file (a class's answers), each with the line
// it starts on.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace exactattn::detail {

struct CsvRecords {
    std::vector<std::vector<std::string>> records;
    std::vector<int> lines;  ///< the line each record starts on
};

/// Every record of `csv` (a leading byte order mark dropped), as bytes: the text is not checked
/// to be UTF-8, so a caller can refuse one record and keep the others. ParseError at `file:line`
/// for a malformed record (a quote inside an unquoted field, a quoted field not closed).
CsvRecords read_csv_records(std::string_view csv, const std::string& file);

}  // namespace exactattn::detail
