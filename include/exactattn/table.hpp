// SPDX-License-Identifier: MIT
// exactattn: one table, rendered as aligned text, GitHub Markdown, LaTeX booktabs or CSV.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "exactattn/format.hpp"

namespace exactattn {

/// A captioned table. Cells are already printed in the notation of the target format.
struct Table {
    std::string caption;
    std::vector<std::string> headers;
    std::vector<std::vector<std::string>> rows;

    /// Aligned columns; widths respect the display width of CJK text (红色 is 4 columns).
    [[nodiscard]] std::string text() const;
    /// A GitHub table, `|` in cells escaped.
    [[nodiscard]] std::string markdown() const;
    /// RFC 4180 CSV with a header row.
    [[nodiscard]] std::string csv() const;
    [[nodiscard]] std::string render(Format f) const;
};

/// Produces the cells of row j (0-based) into `cells`.
using TableRows = std::function<void(std::size_t j, std::vector<std::string>& cells)>;

/// The aligned text of Table::text() for rows produced on demand: `row` is called once per
/// row, in order, and the cells' texts are kept (about the size of the text returned) until
/// the widths of the columns are known.
std::string text_table(const std::string& caption, const std::vector<std::string>& headers, std::size_t rows,
                       const TableRows& row);

/// Escapes text for LaTeX (outside math mode).
std::string latex_escape(const std::string& s);

/// One row appended to `out`, `columns` cells wide: a Markdown pipe row (`|` escaped), the
/// Markdown header with its rule, an RFC 4180 CSV line (CRLF).
void markdown_row(std::string& out, const std::vector<std::string>& cells, std::size_t columns);
void markdown_header(std::string& out, const std::vector<std::string>& headers);
void csv_row(std::string& out, const std::vector<std::string>& cells, std::size_t columns);

}  // namespace exactattn
