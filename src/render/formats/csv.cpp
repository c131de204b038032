// SPDX-License-Identifier: MIT
// exactattn: the CSV writer — the tables only, RFC 4180 with CRLF line ends.
#include "render/writer.hpp"

namespace exactattn::detail {

namespace {

class CsvWriter final : public Writer {
  public:
    using Writer::Writer;

    std::string heading(const Heading&) const override { return ""; }
    std::string paragraph(const Paragraph&) const override { return ""; }
    std::string lines(const Lines&) const override { return ""; }
    std::string items(const ItemList&) const override { return ""; }
    std::string quote(const Quote&) const override { return ""; }
    [[nodiscard]] bool csv_only_tables() const override { return true; }
    std::string figure(const FigureBlock& fb) const override {
        std::string out;
        csv_row(out, {figure_caption(fb)}, 1);
        for (const auto& l : description_lines(fb)) csv_row(out, {l}, 1);
        return out + "\r\n";
    }

    std::string table(const TableBlock& t, const TablePlace& place) const override {
        const std::vector<std::string> headers = header_texts(t);
        const std::size_t columns = headers.size();
        std::string out;
        csv_row(out, headers, columns);
        each_row(t, place, [&](const std::vector<std::string>& row) { csv_row(out, row, columns); });
        return out + "\r\n";
    }
};

}  // namespace

std::unique_ptr<Writer> csv_writer(const RenderOptions& options) { return std::make_unique<CsvWriter>(options); }

}  // namespace exactattn::detail
