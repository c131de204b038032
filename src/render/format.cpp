// SPDX-License-Identifier: MIT
// exactattn: the table of output formats (include/exactattn/format.hpp).
#include "exactattn/format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>

#include "exactattn/error.hpp"

namespace exactattn {

namespace {

// One row a format, in the order of the documentation (docs/contributing.md, "A new output
// format"). A new format is one row here, its writer (render/formats/) and its case in
// make_writer (render/writer.cpp), which has no default, so the compiler names a missing case.
constexpr FormatInfo kFormats[] = {
    {Format::Text, "text", "text", true, true, 1, 16},
    {Format::Markdown, "markdown", "Markdown", true, true, 2, 6},
    {Format::Latex, "latex", "LaTeX", true, true, 2, 6},
    {Format::Html, "html", "HTML", true, true, 11, 20},
    {Format::Rst, "rst", "reStructuredText", true, true, 2, 10},
    {Format::Csv, "csv", "CSV", true, false, 1, 3},
    {Format::Json, "json", "JSON", false, true, 1, 16},
};

constexpr bool has_row(Format format) {
    for (const auto& f : kFormats) {
        if (f.format == format) return true;
    }
    return false;
}
// A value of Format without a row would have no name, writer costs or option: refuse to compile.
static_assert(has_row(Format::Text) && has_row(Format::Markdown) && has_row(Format::Latex) && has_row(Format::Csv) &&
                  has_row(Format::Json) && has_row(Format::Html) && has_row(Format::Rst),
              "every Format has a row in kFormats");
static_assert(std::size(kFormats) == 7, "one row a Format");

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

std::string format_words(FormatKind kind) {
    std::vector<std::string_view> names;
    for (const auto& f : kFormats) {
        if (kind == FormatKind::Any || (kind == FormatKind::Prose && f.prose) ||
            (kind == FormatKind::Document && f.tables))
            names.push_back(f.name);
    }
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
    }
    return out;
}

Format parse_format(std::string_view name) {
    for (const auto& f : kFormats) {
        if (f.name == name) return f.format;
    }
    throw usage_error(fmt::format("unknown format \"{}\"; expected {}", name, format_words()));
}

}  // namespace exactattn
