// SPDX-License-Identifier: MIT
// exactattn: the output formats of reports, one row each (docs/contributing.md, "A new output
// format"). Every list of format names, the estimate's markup costs and the writer dispatch read
// this table; nothing else spells a format's name.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace exactattn {

/// Output formats of reports (docs/cli.md).
enum class Format { Text, Markdown, Latex, Csv, Json, Html, Rst };

/// One output format: everything the rest of the code needs to know about it.
struct FormatInfo {
    Format format;
    /// The name a user writes (`--format markdown`, Python's `format="markdown"`).
    std::string_view name;
    /// The name in messages ("characters of Markdown").
    std::string_view title;
    /// Whether a report is rendered as a document of tables (false: JSON writes the data).
    bool tables;
    /// Whether it holds prose (an answer key's sentences); CSV holds only tables.
    bool prose;
    /// Characters of markup per printed character of a value and per value (measured on the
    /// chapter's values: LaTeX and Markdown's TeX math about twice the plain text, MathML about
    /// eleven times; JSON's quotes, comma, line break and indentation; a text table's padding of
    /// every cell to its column's width). The report's prediction (report/estimate) reads them.
    double markup_per_char;
    double markup_per_value;
};

/// Every format, in the order of the documentation.
std::span<const FormatInfo> formats();

/// The row of `format`.
const FormatInfo& format_info(Format format);

/// The format named `name` (one of formats()' names); UsageError otherwise.
Format parse_format(std::string_view name);

/// The names of the formats, for option checks and help texts: every one, or only those that
/// hold prose (`prose_only`: an answer key has sentences, which CSV cannot hold).
std::vector<std::string> format_names(bool prose_only = false);

/// The names joined for a help text: "text|markdown|latex|html|rst|csv|json".
std::string format_choices(bool prose_only = false);

/// Which formats a message lists: every one, those that hold prose (an answer key), or those a
/// document is rendered in (every one but JSON, which writes the data).
enum class FormatKind { Any, Prose, Document };
/// The names as a sentence lists them, for messages: "text, markdown, latex, html, rst, csv or
/// json".
std::string format_words(FormatKind kind = FormatKind::Any);

}  // namespace exactattn
