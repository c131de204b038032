// SPDX-License-Identifier: MIT
// exactattn: the HTML writer — one HTML5 page, math in MathML, figures as inline SVG.
#include "render/writer.hpp"

#include <fmt/format.h>

#include "render/picture.hpp"
#include "render/text.hpp"

namespace exactattn::detail {

namespace {

class HtmlWriter final : public Writer {
  public:
    using Writer::Writer;

    [[nodiscard]] MathForm form() const override { return MathForm::MathML; }
    [[nodiscard]] bool typesets_notation() const override { return true; }
    std::string part(const Inline::Part& p) const override {
        switch (p.kind) {
            case Inline::Kind::Text:
            case Inline::Kind::Token:
                return html_escape(p.text);
            case Inline::Kind::Emph:
                return "<em>" + html_escape(p.text) + "</em>";
            case Inline::Kind::Strong:
                return "<strong>" + html_escape(p.text) + "</strong>";
            case Inline::Kind::Code:
                return "<code>" + html_escape(p.text) + "</code>";
            case Inline::Kind::Math:
                return "<math>" + p.math.render(style(MathForm::MathML), o_.warn) + "</math>";
        }
        return "";
    }

    std::string heading(const Heading& h) const override {
        return fmt::format("<h{0}>{1}</h{0}>\n", h.level, inline_text(h.text));
    }

    std::string lines(const Lines& l) const override {
        std::string out;
        for (std::size_t i = 0; i < l.lines.size(); ++i) {
            out += inline_text(l.lines[i]) + (i + 1 == l.lines.size() ? "" : "<br>\n");
        }
        return "<p>" + out + "</p>\n";
    }

    std::string items(const ItemList& l) const override {
        const char* tag = l.ordered ? "ol" : "ul";
        std::string out = fmt::format("<{}>\n", tag);
        for (const auto& it : l.items) out += "<li>" + inline_text(it) + "</li>\n";
        return out + fmt::format("</{}>\n", tag);
    }

    std::string quote(const Quote& q) const override {
        return "<blockquote><p>" + inline_text(q.text) + "</p></blockquote>\n";
    }

    std::string figure(const FigureBlock& fb) const override {
        std::string out = fb.label.empty() ? "<figure>\n" : "<figure id=\"" + html_escape(fb.label) + "\">\n";
        out += svg_element(fb, false, o_.max_width);  // HTML parsers place <svg> in its namespace
        return out + "<figcaption>" + figure_caption(fb) + "</figcaption>\n</figure>\n";
    }

    std::string table(const TableBlock& t, const TablePlace& place) const override {
        const std::string notes = joined_notes(t, "<br>\n");
        const std::vector<std::string> headers = header_texts(t);
        const std::size_t columns = headers.size();
        std::string out = "<div class=\"table\">\n";
        out += t.label.empty() ? "<table>\n" : "<table id=\"" + html_escape(t.label) + "\">\n";
        const std::string c = caption_text(t);
        if (!c.empty()) out += "<caption>" + c + "</caption>\n";
        out += "<thead><tr>";
        for (const auto& h : headers) out += "<th scope=\"col\">" + h + "</th>";
        out += "</tr></thead>\n<tbody>\n";
        each_row(t, place, [&](const std::vector<std::string>& row) {
            out += "<tr>";
            for (std::size_t i = 0; i < columns; ++i) {
                const std::string& cell = i < row.size() ? row[i] : std::string();
                out += i == 0 ? "<th scope=\"row\">" + cell + "</th>" : "<td>" + cell + "</td>";
            }
            out += "</tr>\n";
        });
        out += "</tbody>\n</table>\n";
        if (!notes.empty()) out += "<p class=\"note\">" + notes + "</p>\n";
        return out + "</div>\n";
    }

    std::string page(const Document& doc, const std::string& body) const override {
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
               html_escape(doc.title) +
               "</title>\n<style>\n"
               "body{font-family:serif;max-width:52rem;margin:0 auto;padding:1rem;line-height:1.45}\n"
               ".table{overflow-x:auto;margin:1rem 0}\n"
               "table{border-collapse:collapse;border-top:2px solid #000;border-bottom:2px solid #000}\n"
               "caption{caption-side:top;text-align:left;font-weight:bold;padding:.3rem 0}\n"
               "th,td{padding:.25rem .7rem;text-align:left;vertical-align:top}\n"
               "thead th{border-bottom:1px solid #000}\n"
               "tbody th{font-weight:normal}\n"
               "blockquote{margin:1rem 0;padding-left:1rem;border-left:3px solid #888}\n"
               ".note{font-size:.9em}\n"
               "figure{margin:1rem 0}\nfigure svg{max-width:100%;height:auto}\n"
               "figcaption{font-weight:bold;padding:.3rem 0}\n"
               "</style>\n</head>\n<body>\n" +
               body + "</body>\n</html>\n";
    }

    std::string paragraph(const Paragraph& p) const override { return "<p>" + inline_text(p.text) + "</p>\n"; }
};

}  // namespace

std::unique_ptr<Writer> html_writer(const RenderOptions& options) { return std::make_unique<HtmlWriter>(options); }

}  // namespace exactattn::detail
