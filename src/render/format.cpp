// SPDX-License-Identifier: MIT
// exactattn: the table of output formats (include/exactattn/format.hpp).
#include "exactattn/format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>

#include "exactattn/error.hpp"

namespace exactattn {

namespace {

// One row a format. A new format is one row here, its writer (render/formats/) and its case in
// make_writer (render/writer.cpp), which has no default, so the compiler names a missing case.
constexpr FormatInfo kFormats[] = {
    {Format::Text, "text", "text", true, true, 1, 16},   {Format::Markdown, "markdown", "Markdown", true, true, 2, 6},
    {Format::Latex, "latex", "LaTeX", true, true, 2, 6}, {Format::Html, "html", "HTML", true, true, 11, 20},
    {Format::Csv, "csv", "CSV", true, false, 1, 3},      {Format::Json, "json", "JSON", false, true, 1, 16},
};

constexpr bool has_row(Format format) {
    for (const auto& f : kFormats) {
        if (f.format == format) return true;
    }
    return false;
}
// A value of Format without a row would have no name, writer costs or option: refuse to compile.
static_assert(has_row(Format::Text) && has_row(Format::Markdown) && has_row(Format::Latex) && has_row(Format::Csv) &&
                  has_row(Format::Json) && has_row(Format::Html),
              "every Format has a row in kFormats");
static_assert(std::size(kFormats) == 6, "one row a Format");

}  // namespace

std::span<const FormatInfo> formats() { return kFormats; }

const FormatInfo& format_info(Format format) {
    for (const auto& f : kFormats) {
        if (f.format == format) return f;
    }
    return kFormats[0];  // unreachable: every Format has a row (static_assert above)
}

std::vector<std::string> format_names(bool prose_only) {
    std::vector<std::string> names;
    for (const auto& f : kFormats) {
        if (!prose_only || f.prose) names.emplace_back(f.name);
    }
    return names;
}

std::string format_choices(bool prose_only) { return fmt::format("{}", fmt::join(format_names(prose_only), "|")); }

Format parse_format(std::string_view name) {
    for (const auto& f : kFormats) {
        if (f.name == name) return f.format;
    }
    throw usage_error(fmt::format("unknown format \"{}\"; expected text, markdown, latex, html, csv or json", name));
}

}  // namespace exactattn
