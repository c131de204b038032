// SPDX-License-Identifier: MIT
// exactattn internal: the base of the output formats' writers. The walk over a document — its
// blocks in order, captions, inline runs, table rows produced one at a time — is written once
// here; each format (render/formats/NAME.cpp, a class derived from Writer and its factory
// NAME_writer) says only how it writes each kind of block and inline part.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exactattn/document.hpp"
#include "exactattn/print.hpp"
#include "exactattn/table.hpp"

namespace exactattn::detail {

/// Where a table's values go, named by a refusal of the work budget while the table is written
/// (WorkRefusal::at): the document walk makes one a table and hands it down the calls that
/// write the table's rows.
struct TablePlace {
    std::string table;                 ///< "table 14.1", or the caption of an unnumbered table
    std::vector<std::string> columns;  ///< the headers as plain text
    /// ` (table 14.1)`; with a 1-based row ` (row 3 of table 14.1)`; with a column of the
    /// headers too ` (column "Weight", row 3 of table 14.1)`.
    [[nodiscard]] std::string text(std::size_t row = 0, std::size_t column = static_cast<std::size_t>(-1)) const;
};

class Writer {
  public:
    explicit Writer(const RenderOptions& options) : o_(options) {}
    virtual ~Writer() = default;
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    /// The document: each block in order, the blank lines after the last dropped, then page().
    std::string document(const Document& doc) const;
    /// One inline run, part by part.
    virtual std::string inline_text(const Inline& in) const;
    /// "Figure 14.1 — caption" (the lead alone without a caption, the caption alone without a
    /// number); caption_text() likewise for a table.
    std::string figure_caption(const FigureBlock& fb) const;
    std::string caption_text(const TableBlock& t) const;
    /// The math form a table's cells are produced in.
    [[nodiscard]] virtual MathForm form() const { return MathForm::Unicode; }
    /// How this writer writes math in form `f`: each value fitted to its options' max_width,
    /// a LaTeX value as its LaTeX mode says (make_writer); style() in the form of its cells.
    [[nodiscard]] MathStyle style(MathForm f) const { return {f, o_.max_width, latex_}; }
    [[nodiscard]] MathStyle style() const { return style(form()); }
    /// The header's and row j's cells as inline text (`cells` is scratch space); a refusal of
    /// the work budget while row j is written names its row and column in `place` (if any).
    std::vector<std::string> header_texts(const TableBlock& t) const;
    void row_texts(const TableBlock& t, std::size_t j, std::vector<Inline>& cells, std::vector<std::string>& out,
                   const TablePlace* place = nullptr) const;
    /// Where a table's values go: its number or caption, and its headers as plain text.
    TablePlace table_place(const TableBlock& t) const;

  protected:
    /// One inline part; by default plain text, math in Unicode.
    virtual std::string part(const Inline::Part& p) const;
    /// Whether the notation of generated prose is set as math (render/notation.hpp): in LaTeX,
    /// HTML, and Markdown with `$…$` math.
    [[nodiscard]] virtual bool typesets_notation() const { return false; }
    virtual std::string heading(const Heading& h) const = 0;
    virtual std::string paragraph(const Paragraph& p) const = 0;
    virtual std::string lines(const Lines& l) const = 0;
    virtual std::string items(const ItemList& l) const = 0;
    virtual std::string quote(const Quote& q) const = 0;
    virtual std::string figure(const FigureBlock& fb) const = 0;
    /// A table that is not `csv_only` (or any, where csv_only_tables()); its rows are written
    /// through each_row (or row_texts) with `place`.
    virtual std::string table(const TableBlock& t, const TablePlace& place) const = 0;
    /// The output around the body (an HTML page, a LaTeX document); by default the body.
    virtual std::string page(const Document& doc, const std::string& body) const;
    /// Between a caption's number and its text.
    [[nodiscard]] virtual const char* caption_dash() const { return " — "; }
    /// Whether the format writes the tables marked csv_only.
    [[nodiscard]] virtual bool csv_only_tables() const { return false; }

    /// Each row of `t` as inline text, handed to write(row) as it is produced: a table of
    /// millions of rows is never held as cells.
    template <class F>
    void each_row(const TableBlock& t, const TablePlace& place, F&& write) const {
        std::vector<Inline> cells;
        std::vector<std::string> row;
        for (std::size_t j = 0; j < t.rows; ++j) {
            row_texts(t, j, cells, row, &place);
            write(row);
        }
    }
    /// The table's notes as inline text, joined by `between`.
    std::string joined_notes(const TableBlock& t, const char* between) const;
    /// The lines of a figure's description as inline text.
    std::vector<std::string> description_lines(const FigureBlock& fb) const;
    /// `- item` or `1. item` lines, then an empty line (text and Markdown alike).
    std::string plain_list(const ItemList& l) const;

    RenderOptions o_;

  private:
    friend std::unique_ptr<Writer> make_writer(Format format, const RenderOptions& options, LatexValues latex);
    LatexValues latex_ = LatexValues::Display;

    std::string numbered_caption(const char* kind, const std::string& number, const Inline& caption) const;
};

/// The writer of a format (Json: the Text writer, for inline runs and cells; a document is
/// never rendered as JSON), writing LaTeX values as `latex` says (render() writes a LaTeX
/// document's values Fit, render_tikz its labels Linear).
std::unique_ptr<Writer> make_writer(Format format, const RenderOptions& options,
                                    LatexValues latex = LatexValues::Display);

/// The formats' writers, one file each in render/formats/.
std::unique_ptr<Writer> text_writer(const RenderOptions& options);
std::unique_ptr<Writer> markdown_writer(const RenderOptions& options);
std::unique_ptr<Writer> latex_writer(const RenderOptions& options);
std::unique_ptr<Writer> html_writer(const RenderOptions& options);
std::unique_ptr<Writer> csv_writer(const RenderOptions& options);
std::unique_ptr<Writer> rst_writer(const RenderOptions& options);

/// `$…$` around math, its outer spaces moved outside (pandoc and GFM need `$x$`, not `$ x $`).
std::string dollars(const std::string& m);

}  // namespace exactattn::detail
