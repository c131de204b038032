// SPDX-License-Identifier: MIT
// exactattn command line: a command's document delivered — rendered to its output, or with
// -o DIR as files in the directory (one CSV file a table, or report.md and its figures).
#include "delivery.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <variant>

#include "exactattn/error.hpp"
#include "exactattn/format.hpp"

namespace exactattn::cli {

void emit(const Document& doc, Format format, const RenderOptions& options, std::ostream& out, Delivery& d) {
    if (d.directory.empty()) {
        out << render(doc, format, options);
        return;
    }
    if (format == Format::Markdown) {
        // The report links each figure's SVG file, written beside it.
        const std::filesystem::path dir(d.directory);
        write_output_file((dir / "report.md").string(), render(doc, format, options));
        for (const auto& b : doc.blocks) {
            if (const auto* fb = std::get_if<FigureBlock>(&b)) {
                write_output_file((dir / figure_file_name(*fb)).string(), render_svg(*fb));
            }
        }
        d.directory_written = true;
        return;
    }
    if (format != Format::Csv) {
        Location where;
        where.context = "--output";
        throw usage_error(fmt::format("{} is a directory: -o DIR writes one CSV file per table (--format csv), or "
                                      "report.md and its figures (--format markdown); other formats go to one file",
                                      d.directory),
                          where);
    }
    for (const auto& f : csv_files(doc)) {
        write_output_file((std::filesystem::path(d.directory) / f.name).string(), f.text);
    }
    d.directory_written = true;
}

}  // namespace exactattn::cli
