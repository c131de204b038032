// SPDX-License-Identifier: MIT
// exactattn: the document model — headings, paragraphs with inline math, tables with caption,
// label and notes, lists — that every command produces, and one renderer per format.
//
// A producer (the report, the answer key, a read) says *what* it prints: text, exact values,
// formulas. A renderer says *how*: aligned text, Markdown, LaTeX, HTML (MathML) or CSV. A
// new format is one renderer; a new table is one producer.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "exactattn/memory.hpp"
#include "exactattn/table.hpp"
#include "exactattn/value.hpp"
#include "exactattn/warning.hpp"

namespace exactattn {

/// How math is written: terminal Unicode (`2a/3`, `√2`), LaTeX (`\tfrac{2a}{3}`), MathML (HTML),
/// or the canonical ascii form (CSV cells, read back by `eval` and SymPy).
enum class MathForm { Unicode, Latex, MathML, Ascii };

/// How a LaTeX value is written (docs/output.md):
/// - Display: the display form (LaTeX math elsewhere: Markdown's `$…$`, `eval --format latex`);
/// - Fit (the LaTeX writer's documents): a long value as `\\exactattnValue{display}{breakable}`, a
///   macro of the writer's body that sets the display form where it fits the line and the
///   breakable form (DisplayOptions::breakable) where it does not;
/// - Linear (TikZ labels): the breakable form, a sum over a denominator written with a slash as
///   in the SVG (`(20 − 5√2)a/14`), so that a label is no taller than a line of text.
enum class LatexValues { Display, Fit, Linear };

/// How a renderer writes math, handed down to every formula and table row it renders (as
/// FLINT hands down a context): the form, the width in terminal columns each value is fitted to
/// (RenderOptions::max_width; 0: every digit) and, in LaTeX, how a long value is written.
/// A MathForm alone is the style of math outside a document: every digit, the display form.
struct MathStyle {
    MathForm form = MathForm::Unicode;
    std::size_t max_width = 0;
    LatexValues latex = LatexValues::Display;

    MathStyle() = default;
    MathStyle(MathForm f, std::size_t width = 0, LatexValues l = LatexValues::Display)  // NOLINT: a form alone converts
        : form(f), max_width(width), latex(l) {}
    bool operator==(const MathStyle&) const = default;
};

/// A formula: exact values and vectors joined by operators and names, rendered per form
/// (`1 × a + 0 × 0 = a`, `(1/2)/(3/4) = 2/3`, `r = c_1 + 2c_2`).
class Formula {
  public:
    enum class Op { Plus, Minus, Times, Divide, Equals, Approx, Arrow, Open, Close, Semicolon, Comma };

    Formula() = default;
    explicit Formula(const Value& v) { value(v); }
    explicit Formula(const Vector& v) { vector(v); }

    Formula& value(const Value& v);
    /// A value in parentheses when it is not one plain token (a sum, a fraction, a negative).
    Formula& factor(const Value& v);
    Formula& vector(const Vector& v);
    /// Values with a gap where a position has none (a removed position's score): `[a, —, 0]`.
    Formula& column(const std::vector<std::optional<Value>>& v);
    Formula& op(Op o);
    /// A name such as `r`, `a`, `q`; `c_1` is written with a subscript.
    Formula& name(const std::string& n);
    /// √d for a whole number d.
    Formula& sqrt_of(std::size_t d);
    /// A correctly rounded decimal (printed as is).
    Formula& decimal(const std::string& d);
    /// Author math (`$…$` in a scenario's Markdown): LaTeX source, kept as written for LaTeX and
    /// Markdown, MathML from the documented subset in HTML, and read as plain text elsewhere
    /// (`\\ln 2` → ln 2, `\\tfrac{a}{2}` → a/2). `where` (the file and JSON pointer of the text)
    /// places the warning for a command outside the MathML subset.
    Formula& tex(const std::string& source, const Location& where = {});
    /// Appends the atoms of another formula (adjacent math runs become one).
    Formula& append(const Formula& other);
    /// Text written per form by a function (a learner's answer, printed as entered).
    Formula& custom(std::function<std::string(const MathStyle&)> render);
    /// Text already written in the form it will be rendered in (the streaming read printer
    /// memoizes its strings per form).
    Formula& prerendered(const std::string& s);

    [[nodiscard]] std::string render(const MathStyle& style) const;
    /// As render(style), handing `warn` a warning for each command of author TeX that MathML keeps
    /// verbatim (docs/output.md, "Author math in HTML").
    [[nodiscard]] std::string render(const MathStyle& style, const WarningSink& warn) const;
    [[nodiscard]] bool empty() const { return atoms_.empty(); }

  private:
    struct Atom {
        enum class Kind { Value, Vector, Column, Op, Name, Sqrt, Decimal, Raw, Tex, Custom } kind;
        Value v;
        Vector vec;
        std::vector<std::optional<Value>> col;
        Op o = Op::Plus;
        std::string text;
        std::size_t n = 0;
        bool paren = false;
        std::function<std::string(const MathStyle&)> fn;
        std::shared_ptr<const Location> where;  ///< author TeX: where it was written (may be null)
    };
    std::vector<Atom> atoms_;
};

/// Σ c_i·t_i with the signs folded into the operators: `c_1 + 2c_2`, `a/2 + 2(a/4)`, `−c_1`.
/// A coefficient other than ±1 is written before its term, parenthesised unless one plain
/// token; `term(f, i, scaled)` writes t_i (`scaled`: a coefficient precedes it). 0 when every
/// coefficient is 0.
Formula linear_combination(const std::vector<Value>& coeffs,
                           const std::function<void(Formula& f, std::size_t i, bool scaled)>& term);

/// Inline content: text, emphasis, code and math, in order.
class Inline {
  public:
    enum class Kind { Text, Emph, Strong, Code, Math, Token };
    struct Part {
        Kind kind;
        std::string text;
        Formula math;
        /// Text the scenario's author wrote (inline_markdown): printed as written. Text the tool
        /// writes has its notation (`e^k`, `√d_k`, `q_1`) set as math in LaTeX, HTML and Markdown.
        bool author = false;
    };

    Inline() = default;
    Inline(const char* s) { text(s); }         // NOLINT: plain text converts implicitly
    Inline(const std::string& s) { text(s); }  // NOLINT
    Inline(const Formula& f) { math(f); }      // NOLINT

    Inline& text(const std::string& s);
    /// Text of the scenario's author, printed as written (Part::author).
    Inline& author_text(const std::string& s);
    Inline& emph(const std::string& s);
    Inline& strong(const std::string& s);
    Inline& code(const std::string& s);
    Inline& math(const Formula& f);
    /// A source token (红色): in LaTeX through the macro \exactattnToken, which an author can
    /// redefine (fonts, colour); plain text elsewhere.
    Inline& token(const std::string& s);
    Inline& value(const Value& v) { return math(Formula(v)); }
    Inline& vector(const Vector& v) { return math(Formula(v)); }
    /// Appends the parts of `other`.
    Inline& append(const Inline& other);

    [[nodiscard]] const std::vector<Part>& parts() const { return parts_; }
    [[nodiscard]] bool empty() const { return parts_.empty(); }

  private:
    std::vector<Part> parts_;
};

/// Author Markdown of a scenario (prompts, notes): `*emphasis*`, `**strong**`, `` `code` `` and
/// `$…$` math (kept as LaTeX source for LaTeX and Markdown, read as plain text elsewhere).
/// As in CommonMark, `_` opens or closes emphasis only at a word boundary (`h_t` is text).
/// `where` is where the text was written (its file and JSON pointer), which a warning about its
/// math names.
Inline inline_markdown(const std::string& markdown, const Location& where = {});

struct Heading {
    int level = 2;  ///< 1: the document's title, 2: a section, 3: a subsection
    Inline text;
};

struct Paragraph {
    Inline text;
};

/// Lines kept apart (a read's summary: scores → exponentials → total; weights; context).
struct Lines {
    std::vector<Inline> lines;
};

struct ItemList {
    bool ordered = false;
    std::vector<Inline> items;
};

/// A quoted passage (an exercise's prompt).
struct Quote {
    Inline text;
};

/// A table. Rows are produced on demand by `row`, so that a table of millions of rows is
/// never held in memory (the text renderer calls it twice a row: widths, then lines); `style`
/// is how the renderer writes math, for the cells' formulas and producers that memoize their
/// strings.
struct TableBlock {
    std::string label;   ///< cross-reference key (LaTeX \label, HTML id), may be empty
    std::string number;  ///< "14.1": printed as "Table 14.1" before the caption
    Inline caption;
    std::vector<Inline> headers;
    std::size_t rows = 0;
    std::function<void(std::size_t row, const MathStyle& style, std::vector<Inline>& cells)> row;
    std::vector<Inline> notes;
    /// Data that completes the preceding table for a spreadsheet (a read's total, context and
    /// readout): written only as CSV, where the prose summary has no place.
    bool csv_only = false;

    /// Adds a row held in the table (for small tables built cell by cell).
    void add_row(std::vector<Inline> cells);

  private:
    std::shared_ptr<std::vector<std::vector<Inline>>> held_;
};

/// A figure description: text, boxes and arrows in a coordinate system of points (1/72 in, y
/// down) whose width is drawn at 12 cm, a book's column. Rendered to SVG (render_svg) and to
/// TikZ (render_tikz) from the same shapes, so the two cannot disagree; every label is an
/// Inline (values in the display form, tokens as text).
struct Picture {
    enum class Anchor { Start, Middle, End };
    /// Text whose baseline starts (Start), is centred (Middle) or ends (End) at (x, y).
    struct Text {
        double x = 0, y = 0;
        Inline text;
        Anchor anchor = Anchor::Start;
        double size = 9;  ///< points at 12 cm
        bool bold = false;
        bool light = false;  ///< white text on a dark fill
    };
    /// A rectangle; `fill` is a colour "#RRGGBB" or empty; `stroke` draws its outline;
    /// `hatched` marks it with a diagonal cross (a masked cell).
    struct Box {
        double x = 0, y = 0, w = 0, h = 0;
        std::string fill;
        bool stroke = true;
        bool hatched = false;
    };
    /// A line from (x1, y1) to (x2, y2), with an arrow head at the end when `head`.
    struct Arrow {
        double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
        bool head = true;
        bool dashed = false;
    };
    using Shape = std::variant<Text, Box, Arrow>;

    double width = 340;  ///< 12 cm = 340 pt
    double height = 100;
    std::vector<Shape> shapes;

    Picture& text(double x, double y, Inline t, Anchor a = Anchor::Start, double size = 9, bool bold = false) {
        shapes.emplace_back(Text{x, y, std::move(t), a, size, bold, false});
        return *this;
    }
    Picture& box(double x, double y, double w, double h, std::string fill = {}, bool stroke = true) {
        shapes.emplace_back(Box{x, y, w, h, std::move(fill), stroke, false});
        return *this;
    }
    Picture& arrow(double x1, double y1, double x2, double y2, bool head = true, bool dashed = false) {
        shapes.emplace_back(Arrow{x1, y1, x2, y2, head, dashed});
        return *this;
    }
};

/// A numbered figure: a picture with caption and label, and a short description with its
/// numbers (the SVG's <desc>, and what text and CSV print in place of the drawing).
struct FigureBlock {
    std::string label;   ///< cross-reference key and the prefix of the SVG's ids ("figure-14.1")
    std::string number;  ///< "14.1": printed as "Figure 14.1" before the caption
    Inline caption;
    Picture picture;
    std::vector<Inline> description;
    /// How to draw it from the command line (`exactattn figure chapter14 --figure 14.1`):
    /// Markdown without `-o DIR` says so in place of the image.
    std::string command;
    /// LaTeX: `\includegraphics` of this PDF instead of the TikZ picture (the author's choice).
    std::string pdf;
};

/// The figure as a standalone SVG document (UTF-8, deterministic bytes).
std::string render_svg(const FigureBlock& figure);
/// The figure as a TikZ picture (a `tikzpicture` environment, no caption).
std::string render_tikz(const FigureBlock& figure);
/// The file a figure's SVG is written to beside a Markdown report (`figure-14.1.svg`).
std::string figure_file_name(const FigureBlock& figure);

using Block = std::variant<Heading, Paragraph, Lines, ItemList, Quote, TableBlock, FigureBlock>;

struct Document {
    std::string title;  ///< the page title (HTML <title>, LaTeX standalone \title)
    std::vector<Block> blocks;

    template <class B>
    Document& add(B block) {
        blocks.emplace_back(std::move(block));
        return *this;
    }
};

/// Options of the renderers.
struct RenderOptions {
    bool standalone = false;    ///< LaTeX: a complete document with its preamble
    bool latex_floats = false;  ///< LaTeX: tables as floats (default: placed where they stand)
    bool markdown_math = true;  ///< Markdown: `$…$` math (off: Unicode, for plain viewers)
    /// Fit every printed value to this many terminal columns by eliding the middle digits of
    /// long integers, written `12345…6789 (332 digits)` (docs/notation.md); 0: every digit.
    /// An elided value no longer names the exact value: only where an author asks for it.
    std::size_t max_width = 0;
    /// Markdown: each figure is written as an SVG file of its own beside the report
    /// (figure_file_name()), which the report links as an image; off: the report says how to
    /// draw it instead.
    bool figure_files = false;
    /// LaTeX with `standalone`: lines the author adds to the preamble, after the packages the
    /// output needs (`--preamble FILE`: an author's macros, fonts, packages).
    std::string preamble;
    /// Receives the warnings of the rendering (HTML: author TeX outside the MathML subset, kept
    /// verbatim); empty: they are dropped. The renderers never print.
    WarningSink warn;
};

/// One table of a document as a CSV file of its own: `01-table-14.1.csv`.
struct CsvFile {
    std::string name;     ///< file name: the table's position, then its number, label or caption
    std::string caption;  ///< "Table 14.1 — From comparisons …" (Unicode text)
    std::string text;     ///< RFC 4180, CRLF line ends
};

/// Every table of the document as its own CSV file, then `index.csv` (file, caption).
std::vector<CsvFile> csv_files(const Document& doc);

/// The document in a format: Text, Markdown, Latex, Html or Csv. UsageError for Json (JSON is
/// each command's data, not a document).
std::string render(const Document& doc, Format format, const RenderOptions& options = {});

/// One inline run in a format (Text: Unicode math), e.g. a table cell for a caller that lays
/// out the cells itself (the Python module).
std::string render_inline(const Inline& in, Format format, const RenderOptions& options = {});

/// The cells of a table in a format, every row produced (header row first).
std::vector<std::vector<std::string>> table_cells(const TableBlock& table, Format format,
                                                  const RenderOptions& options = {});

/// Author LaTeX math as plain Unicode text: `h_{t-1}`, `\\ln 2` → ln 2, `\\approx` → ≈.
std::string tex_to_text(const std::string& tex);

/// What a LaTeX fragment needs in the preamble of the document it is pasted into (also
/// written as a comment at the top of every fragment).
std::string latex_requirements();

}  // namespace exactattn
