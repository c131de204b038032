// SPDX-License-Identifier: MIT
// exactattn: the Markdown writer — CommonMark with pipe tables and `$…$` math.
#include "render/writer.hpp"

#include "render/text.hpp"

namespace exactattn::detail {

namespace {

class MarkdownWriter final : public Writer {
  public:
    using Writer::Writer;

    [[nodiscard]] bool typesets_notation() const override { return o_.markdown_math; }
    std::string part(const Inline::Part& p) const override {
        switch (p.kind) {
            // Escaped as HTML is: a title, token or name holding <script> stays text.
            case Inline::Kind::Text:
            case Inline::Kind::Token:
                return markdown_escape(p.text);
            case Inline::Kind::Emph:
                return "*" + markdown_escape(p.text) + "*";
            case Inline::Kind::Strong:
                return "**" + markdown_escape(p.text) + "**";
            case Inline::Kind::Code:
                return markdown_code(p.text);
            case Inline::Kind::Math:
                return o_.markdown_math ? dollars(p.math.render(style(MathForm::Latex)))
                                        : p.math.render(style(MathForm::Unicode));
        }
        return "";
    }

    std::string heading(const Heading& h) const override {
        return std::string(static_cast<std::size_t>(h.level), '#') + " " + inline_text(h.text) + "\n\n";
    }

    std::string lines(const Lines& l) const override {
        std::string out;
        for (std::size_t i = 0; i < l.lines.size(); ++i)
            out += inline_text(l.lines[i]) + (i + 1 == l.lines.size() ? "\n" : "  \n");
        return out + "\n";
    }

    std::string figure(const FigureBlock& fb) const override {
        std::string out;
        if (o_.figure_files) {
            // The image's alternative text is the caption as plain text.
            // Brackets escaped too, so that a name cannot close the description early.
            std::string alt;
            for (const char ch : markdown_escape(make_writer(Format::Text, o_)->figure_caption(fb))) {
                if (ch == '[' || ch == ']' || ch == '\\') alt += '\\';
                alt += ch;
            }
            out += "![" + alt + "](" + figure_file_name(fb) + ")\n\n";
        }
        out += "**" + figure_caption(fb) + "**\n\n";
        const auto lines = description_lines(fb);
        for (std::size_t i = 0; i < lines.size(); ++i) out += lines[i] + (i + 1 < lines.size() ? "  \n" : "\n");
        if (!o_.figure_files && !fb.command.empty()) {
            out += "\n*The drawing: " + markdown_code(fb.command) +
                   " writes it as SVG; with `-o DIR` the report links " + markdown_escape(figure_file_name(fb)) +
                   ".*\n";
        }
        return out + "\n";
    }

    std::string table(const TableBlock& t, const TablePlace& place) const override {
        std::string notes = joined_notes(t, "  \n");
        if (!notes.empty()) notes += "\n";
        const std::vector<std::string> headers = header_texts(t);
        const std::size_t columns = headers.size();
        std::string out;
        const std::string c = caption_text(t);
        if (!c.empty()) out += "**" + c + "**\n\n";
        markdown_header(out, headers);
        each_row(t, place, [&](const std::vector<std::string>& row) { markdown_row(out, row, columns); });
        return out + (notes.empty() ? "" : "\n" + notes) + "\n";
    }

    MathForm form() const override { return o_.markdown_math ? MathForm::Latex : MathForm::Unicode; }

    std::string paragraph(const Paragraph& p) const override { return inline_text(p.text) + "\n\n"; }

    std::string items(const ItemList& l) const override { return plain_list(l); }

    std::string quote(const Quote& q) const override { return "> " + inline_text(q.text) + "\n\n"; }
};

}  // namespace

std::unique_ptr<Writer> markdown_writer(const RenderOptions& options) {
    return std::make_unique<MarkdownWriter>(options);
}

}  // namespace exactattn::detail
