// SPDX-License-Identifier: MIT
// exactattn: the text writer — plain text for a terminal.
#include "render/writer.hpp"

#include "exactattn/print.hpp"

namespace exactattn::detail {

namespace {

class TextWriter final : public Writer {
  public:
    using Writer::Writer;

    std::string heading(const Heading& h) const override {
        const std::string t = inline_text(h.text);
        return t + "\n" + std::string(display_width(t), h.level <= 1 ? '=' : '-') + "\n";
    }

    std::string lines(const Lines& l) const override {
        std::string out;
        for (const auto& line : l.lines) out += inline_text(line) + "\n";
        return out + "\n";
    }

    std::string figure(const FigureBlock& fb) const override {
        std::string out = figure_caption(fb) + "\n";
        for (const auto& l : description_lines(fb)) out += "  " + l + "\n";
        return out + "\n";
    }

    std::string table(const TableBlock& t, const TablePlace& place) const override {
        std::string notes = joined_notes(t, "\n");
        if (!notes.empty()) notes += "\n";
        std::vector<Inline> cells;
        const auto strings = [&](std::size_t j, std::vector<std::string>& out) { row_texts(t, j, cells, out, &place); };
        return text_table(caption_text(t), header_texts(t), t.rows, strings) + notes + "\n";
    }

    std::string paragraph(const Paragraph& p) const override { return inline_text(p.text) + "\n\n"; }

    std::string items(const ItemList& l) const override { return plain_list(l); }

    std::string quote(const Quote& q) const override { return "  " + inline_text(q.text) + "\n\n"; }
};

}  // namespace

std::unique_ptr<Writer> text_writer(const RenderOptions& options) { return std::make_unique<TextWriter>(options); }

}  // namespace exactattn::detail
