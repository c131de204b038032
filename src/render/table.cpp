// SPDX-License-Identifier: MIT
// exactattn: table renderers.
#include "exactattn/table.hpp"

#include <fmt/format.h>

#include "exactattn/document.hpp"
#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/print.hpp"
#include "core/text.hpp"
#include "render/tex_commands.hpp"
#include "render/text.hpp"

namespace exactattn {

std::string text_table(const std::string& caption, const std::vector<std::string>& headers_in, std::size_t rows,
                       const TableRows& row_in) {
    // Each row is produced once (its values computed, printed and charged once: producing it
    // again for the lines doubled a layer's time and charge, issue 32) and kept as its cells'
    // texts in one buffer with their display widths; the lines are laid out from them.
    std::string texts;
    std::vector<std::size_t> ends;         // ends[c]: the end of cell c's text in `texts`
    std::vector<std::size_t> widths;       // widths[c]: its display width
    std::vector<std::size_t> row_ends{0};  // the cells of row r are row_ends[r] to row_ends[r + 1]
    std::vector<std::size_t> column(headers_in.size(), 0);
    const auto keep = [&](std::vector<std::string>& cells) {
        for (std::size_t i = 0; i < cells.size(); ++i) {
            // A cell is one line of text. A control character in it (a line break in a scenario's
            // label, a terminal escape) would split the row of a text or Markdown table or reach
            // the terminal, so it is shown as error messages show it, <U+000A>. Cells without one
            // (nearly all) are not copied.
            if (detail::has_control(cells[i])) cells[i] = escape_controls(cells[i]);
            const std::size_t w = display_width(cells[i]);
            if (i < column.size()) column[i] = std::max(column[i], w);
            texts += cells[i];
            ends.push_back(texts.size());
            widths.push_back(w);
        }
        row_ends.push_back(ends.size());
    };
    std::vector<std::string> cells = headers_in;
    keep(cells);
    for (std::size_t j = 0; j < rows; ++j) {
        row_in(j, cells);
        keep(cells);
    }
    std::string out;
    // Cells from..to of `texts` (the rule's have no text: `rule` gives their dashes).
    const auto line = [&](std::size_t from, std::size_t to, bool rule) {
        const std::size_t start = out.size();
        std::size_t printed = 0;
        for (std::size_t i = 0; i < column.size(); ++i) {
            std::size_t w = 0;
            if (rule) {
                out.append(column[i], '-');
                printed += column[i];
                w = column[i];
            } else if (from + i < to) {
                const std::size_t c = from + i;
                const std::size_t begin = c == 0 ? 0 : ends[c - 1];
                out.append(texts, begin, ends[c] - begin);
                w = widths[c];
            }
            if (i + 1 < column.size()) out.append(column[i] - w + 2, ' ');
        }
        if (!rule) printed = (to > from ? ends[to - 1] : 0) - (from == 0 ? 0 : ends[from - 1]);
        // The layout is printed text like the values (issue 27: a text rollout was refused
        // 3.7 s in, its JSON 0.5 s): the padding of every cell to its column's width.
        const double padding = static_cast<double>(out.size() - start) - static_cast<double>(printed);
        const double units = kWorkPerPrintedCharacter * std::max(padding, 0.0);
        if (!charge_work(units)) {
            // The writer adds the table's name (WorkRefusal::at).
            throw over_work(units, fmt::format("laying out a text row of {} characters", out.size() - start));
        }
        while (out.size() > start && out.back() == ' ') out.pop_back();
        out += '\n';
    };
    if (!caption.empty()) out += caption + "\n";
    line(row_ends[0], row_ends[1], false);
    line(0, 0, true);
    for (std::size_t j = 1; j <= rows; ++j) line(row_ends[j], row_ends[j + 1], false);
    return out;
}

std::string Table::text() const {
    return text_table(caption, headers, rows.size(),
                      [this](std::size_t j, std::vector<std::string>& cells) { cells = rows[j]; });
}

namespace {
std::string md_cell(const std::string& cell) {
    std::string escaped;
    const std::string& s = detail::has_control(cell) ? (escaped = escape_controls(cell)) : cell;
    std::string out;
    for (char c : s) {
        if (c == '|')
            out += "\\|";
        else
            out += c;
    }
    return out;
}
std::string csv_cell(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += "\"\"";
        else
            out += c;
    }
    return out + "\"";
}
}  // namespace

void markdown_row(std::string& out, const std::vector<std::string>& cells, std::size_t columns) {
    out += "|";
    for (std::size_t i = 0; i < columns; ++i) out += " " + md_cell(i < cells.size() ? cells[i] : "") + " |";
    out += "\n";
}

void markdown_header(std::string& out, const std::vector<std::string>& headers) {
    markdown_row(out, headers, headers.size());
    out += "|";
    for (std::size_t i = 0; i < headers.size(); ++i) out += " --- |";
    out += "\n";
}

void csv_row(std::string& out, const std::vector<std::string>& cells, std::size_t columns) {
    for (std::size_t i = 0; i < columns; ++i) out += (i > 0 ? "," : "") + csv_cell(i < cells.size() ? cells[i] : "");
    out += "\r\n";
}

std::string Table::markdown() const {
    // Cells are plain text here (the document renderer escapes its own): escaped as HTML is.
    const auto escaped = [](const std::vector<std::string>& cells) {
        std::vector<std::string> out;
        out.reserve(cells.size());
        for (const auto& c : cells) out.push_back(detail::markdown_escape(c));
        return out;
    };
    std::string out;
    if (!caption.empty()) out += "**" + detail::markdown_escape(caption) + "**\n\n";
    markdown_header(out, escaped(headers));
    for (const auto& r : rows) markdown_row(out, escaped(r), headers.size());
    return out;
}

std::string latex_escape(const std::string& s) {
    // Mathematical characters in prose (a scenario's note "≈ 0.69", "2×2") are set in math mode:
    // text fonts lack most of them.
    // The Greek letters and the relations of the one TeX table (tex_commands.hpp) as
    // \ensuremath{\name}; here, the characters written otherwise.
    static const std::pair<std::string_view, std::string_view> symbols[] = {
        {"−", "\\ensuremath{-}"},
        {"√", "\\ensuremath{\\surd}"},
        {"∛", "\\ensuremath{\\sqrt[3]{\\;}}"},
        {"∜", "\\ensuremath{\\sqrt[4]{\\;}}"},
        {"∑", "\\ensuremath{\\sum}"},
        {"…", "\\ldots{}"},
        {"—", "---"},
        {"–", "--"},
        // The capitals that TeX draws as Latin letters (Α, Β, Ε, …) become those letters.
        {"ο", "o"},
        {"Α", "A"},
        {"Β", "B"},
        {"Ε", "E"},
        {"Ζ", "Z"},
        {"Η", "H"},
        {"Ι", "I"},
        {"Κ", "K"},
        {"Μ", "M"},
        {"Ν", "N"},
        {"Ο", "O"},
        {"Ρ", "P"},
        {"Τ", "T"},
        {"Χ", "X"}};
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if ((static_cast<unsigned char>(c) & 0x80) != 0) {
            bool matched = false;
            for (const auto& [from, to] : symbols) {
                if (s.compare(i, from.size(), from) == 0) {
                    out += to;
                    i += from.size() - 1;
                    matched = true;
                    break;
                }
            }
            if (!matched) {
                if (const auto* t = detail::tex_command_writing(std::string_view(s).substr(i))) {
                    out += "\\ensuremath{\\";
                    out += t->name;
                    out += '}';
                    i += t->text.size() - 1;
                } else {
                    out += c;
                }
            }
            continue;
        }
        switch (c) {
            case '&':
                out += "\\&";
                break;
            case '%':
                out += "\\%";
                break;
            case '$':
                out += "\\$";
                break;
            case '#':
                out += "\\#";
                break;
            case '_':
                out += "\\_";
                break;
            case '{':
                out += "\\{";
                break;
            case '}':
                out += "\\}";
                break;
            case '~':
                out += "\\textasciitilde{}";
                break;
            case '^':
                out += "\\textasciicircum{}";
                break;
            case '\\':
                out += "\\textbackslash{}";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string Table::csv() const {
    std::string out;
    csv_row(out, headers, headers.size());
    for (const auto& r : rows) csv_row(out, r, headers.size());
    return out;
}

std::string Table::render(Format f) const {
    switch (f) {
        case Format::Text:
            return text();
        case Format::Markdown:
            return markdown();
        case Format::Latex:
        case Format::Html:
        case Format::Rst: {  // through the document renderers: one writer a format
            TableBlock t;
            t.caption = Inline(caption);
            for (const auto& h : headers) t.headers.emplace_back(h);
            for (const auto& r : rows) t.add_row(std::vector<Inline>(r.begin(), r.end()));
            Document doc;
            doc.add(std::move(t));
            return exactattn::render(doc, f);
        }
        case Format::Csv:
            return csv();
        case Format::Json:
            break;
    }
    throw usage_error("a table has no JSON form; use the report's JSON");
}

}  // namespace exactattn
