// SPDX-License-Identifier: MIT
// exactattn: the walk over a document that every output format shares, and the format's writer.
#include "render/writer.hpp"

#include <fmt/format.h>

#include <type_traits>

#include "exactattn/limits.hpp"
#include "render/notation.hpp"

namespace exactattn::detail {

std::string Writer::document(const Document& doc) const {
    std::string body;
    for (const auto& b : doc.blocks) {
        body += std::visit(
            [this](const auto& x) -> std::string {
                using B = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<B, Heading>) {
                    return heading(x);
                } else if constexpr (std::is_same_v<B, Paragraph>) {
                    return paragraph(x);
                } else if constexpr (std::is_same_v<B, Lines>) {
                    return lines(x);
                } else if constexpr (std::is_same_v<B, ItemList>) {
                    return items(x);
                } else if constexpr (std::is_same_v<B, Quote>) {
                    return quote(x);
                } else if constexpr (std::is_same_v<B, FigureBlock>) {
                    return figure(x);
                } else {
                    static_assert(std::is_same_v<B, TableBlock>, "a block kind without a writer");
                    if (x.csv_only && !csv_only_tables()) return std::string();
                    const TablePlace place = table_place(x);
                    try {
                        return table(x, place);
                    } catch (const WorkRefusal& r) {
                        throw r.at(place.text());  // a caption, a header, a row's layout
                    }
                }
            },
            b);
    }
    while (body.size() >= 2 && body[body.size() - 1] == '\n' && body[body.size() - 2] == '\n') body.pop_back();
    return page(doc, body);
}

std::string Writer::page(const Document&, const std::string& body) const { return body; }

std::string Writer::inline_text(const Inline& in) const {
    std::string out;
    for (const auto& p : in.parts()) {
        if (p.kind != Inline::Kind::Text || p.author || !typesets_notation()) {
            out += part(p);
            continue;
        }
        // One rule for all generated prose: its notation (e^k, √d_k, q_1) is math.
        for (const auto& piece : split_notation(p.text)) {
            out += piece.math ? part(Inline::Part{Inline::Kind::Math, {}, Formula().tex(piece.text), false})
                              : part(Inline::Part{Inline::Kind::Text, piece.text, {}, false});
        }
    }
    return out;
}

std::string Writer::part(const Inline::Part& p) const {
    return p.kind == Inline::Kind::Math ? p.math.render(style(MathForm::Unicode)) : p.text;
}

std::string Writer::figure_caption(const FigureBlock& fb) const {
    return numbered_caption("Figure", fb.number, fb.caption);
}

std::string Writer::caption_text(const TableBlock& t) const { return numbered_caption("Table", t.number, t.caption); }

std::string Writer::numbered_caption(const char* kind, const std::string& number, const Inline& caption) const {
    std::string c = inline_text(caption);
    if (!number.empty()) {
        const std::string lead = kind + (" " + number);
        c = c.empty() ? lead : lead + caption_dash() + c;
    }
    return c;
}

std::vector<std::string> Writer::header_texts(const TableBlock& t) const {
    std::vector<std::string> headers;
    for (const auto& h : t.headers) headers.push_back(inline_text(h));
    return headers;
}

void Writer::row_texts(const TableBlock& t, std::size_t j, std::vector<Inline>& cells, std::vector<std::string>& out,
                       const TablePlace* place) const {
    try {
        t.row(j, style(), cells);
    } catch (const WorkRefusal& r) {
        if (place == nullptr) throw;
        throw r.at(place->text(j + 1));  // no column yet: the row's cells are being produced
    }
    out.resize(cells.size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
        try {
            out[i] = inline_text(cells[i]);
        } catch (const WorkRefusal& r) {
            if (place == nullptr) throw;
            throw r.at(place->text(j + 1, i));
        }
    }
}

TablePlace Writer::table_place(const TableBlock& t) const {
    // Plain text: the parts that are text, each value in its display form (headers and
    // captions hold few).
    const auto plain = [this](const Inline& in) {
        std::string s;
        for (const auto& p : in.parts()) {
            s += p.kind == Inline::Kind::Math ? p.math.render(style(MathForm::Unicode)) : p.text;
        }
        return s;
    };
    TablePlace place;
    const std::string caption = plain(t.caption);
    place.table = !t.number.empty() ? "table " + t.number : caption.empty() ? "a table" : "table \"" + caption + "\"";
    for (const auto& h : t.headers) place.columns.push_back(plain(h));
    return place;
}

std::string TablePlace::text(std::size_t row, std::size_t column) const {
    std::string where;
    if (row > 0 && column < columns.size()) {
        where = fmt::format("column \"{}\", row {} of ", columns[column], row);
    } else if (row > 0) {
        where = fmt::format("row {} of ", row);
    }
    return fmt::format(" ({}{})", where, table);
}

std::string Writer::joined_notes(const TableBlock& t, const char* between) const {
    std::string notes;
    for (const auto& n : t.notes) notes += (notes.empty() ? "" : between) + inline_text(n);
    return notes;
}

std::vector<std::string> Writer::description_lines(const FigureBlock& fb) const {
    std::vector<std::string> lines;
    for (const auto& d : fb.description) lines.push_back(inline_text(d));
    return lines;
}

std::string Writer::plain_list(const ItemList& l) const {
    std::string out;
    for (std::size_t i = 0; i < l.items.size(); ++i) {
        out += (l.ordered ? std::to_string(i + 1) + ". " : std::string("- ")) + inline_text(l.items[i]) + "\n";
    }
    return out + "\n";
}

std::string dollars(const std::string& m) {
    const auto b = m.find_first_not_of(' ');
    if (b == std::string::npos) return m;
    const auto e = m.find_last_not_of(' ');
    return m.substr(0, b) + "$" + m.substr(b, e - b + 1) + "$" + m.substr(e + 1);
}

namespace {

std::unique_ptr<Writer> writer_of(Format format, const RenderOptions& options) {
    switch (format) {
        case Format::Markdown:
            return markdown_writer(options);
        case Format::Latex:
            return latex_writer(options);
        case Format::Html:
            return html_writer(options);
        case Format::Csv:
            return csv_writer(options);
        case Format::Rst:
            return rst_writer(options);
        case Format::Text:
        case Format::Json:  // JSON renders its inline runs and cells as text
            return text_writer(options);
    }
    return text_writer(options);  // unreachable: the switch names every Format (-Wswitch)
}

}  // namespace

std::unique_ptr<Writer> make_writer(Format format, const RenderOptions& options, LatexValues latex) {
    auto w = writer_of(format, options);
    w->latex_ = latex;
    return w;
}

}  // namespace exactattn::detail
