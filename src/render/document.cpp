// SPDX-License-Identifier: MIT
// exactattn: the document model's entry points — a document, an inline run or a table's cells
// in a format (each format's writer is in render/formats/), and a document's tables as CSV files.
#include "exactattn/document.hpp"

#include <fmt/format.h>

#include <cctype>
#include <memory>

#include "exactattn/error.hpp"
#include "render/writer.hpp"

namespace exactattn {

void TableBlock::add_row(std::vector<Inline> cells) {
    if (!held_) {
        held_ = std::make_shared<std::vector<std::vector<Inline>>>();
        auto held = held_;
        row = [held](std::size_t j, const MathStyle&, std::vector<Inline>& out) { out = (*held)[j]; };
    }
    held_->push_back(std::move(cells));
    rows = held_->size();
}

std::string render(const Document& doc, Format format, const RenderOptions& options) {
    if (!format_info(format).tables) {
        throw usage_error("a document is rendered as " + format_words(FormatKind::Document));
    }
    return detail::make_writer(format, options, format == Format::Latex ? LatexValues::Fit : LatexValues::Display)
        ->document(doc);
}

std::string render_inline(const Inline& in, Format format, const RenderOptions& options) {
    return detail::make_writer(format, options)->inline_text(in);
}

std::vector<std::vector<std::string>> table_cells(const TableBlock& table, Format format,
                                                  const RenderOptions& options) {
    const auto w = detail::make_writer(format, options);
    std::vector<std::vector<std::string>> out{w->header_texts(table)};
    std::vector<Inline> cells;
    for (std::size_t j = 0; j < table.rows; ++j) w->row_texts(table, j, cells, out.emplace_back());
    return out;
}

namespace {

// A file name from the table's number, label or caption: lower case, letters, digits, '.', '-'.
std::string table_slug(const std::string& key) {
    std::string slug;
    for (const char c : key) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) != 0 || c == '.')
            slug += static_cast<char>(std::tolower(u));
        else if (!slug.empty() && slug.back() != '-')
            slug += '-';
        if (slug.size() >= 40) break;
    }
    while (!slug.empty() && (slug.back() == '-' || slug.back() == '.')) slug.pop_back();
    return slug;
}

}  // namespace

std::vector<CsvFile> csv_files(const Document& doc) {
    const auto r = detail::make_writer(Format::Csv, {});
    std::vector<CsvFile> out;
    Table index;
    index.headers = {"file", "caption"};
    for (const auto& b : doc.blocks) {
        const auto* t = std::get_if<TableBlock>(&b);
        if (t == nullptr) continue;
        const auto cells = table_cells(*t, Format::Csv);
        Table tab;
        tab.headers = cells.front();
        tab.rows.assign(cells.begin() + 1, cells.end());
        const std::string slug = table_slug(!t->number.empty()  ? "table-" + t->number
                                            : !t->label.empty() ? t->label
                                                                : r->caption_text(*t));
        CsvFile f;
        f.name = fmt::format("{:02}{}{}.csv", out.size() + 1, slug.empty() ? "" : "-", slug);
        f.caption = r->caption_text(*t);
        f.text = tab.csv();
        index.rows.push_back({f.name, f.caption});
        out.push_back(std::move(f));
    }
    out.push_back(CsvFile{"index.csv", "the tables of this document", index.csv()});
    return out;
}

}  // namespace exactattn
