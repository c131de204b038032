// SPDX-License-Identifier: MIT
// exactattn: the LaTeX writer — a fragment for XeLaTeX (its requirements in a comment at the top)
// or, with `standalone`, a whole document.
#include "render/writer.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "render/picture.hpp"

namespace exactattn {

namespace {

/// Tokens in a LaTeX document: CJK (and any) source tokens go through one macro the author
/// can redefine, e.g. to switch fonts.
constexpr const char* kLatexRequirements =
    "% exactattn LaTeX fragment. Needs in the preamble:\n"
    "%   \\usepackage{amsmath}   % \\tfrac, \\text\n"
    "%   \\usepackage{amssymb}   % \\mathbb and the other AMS symbols an author's math may use\n"
    "%   \\usepackage{booktabs}  % \\toprule, \\midrule, \\bottomrule\n"
    "%   \\usepackage{caption}   % \\captionof (tables placed where they stand)\n"
    "%   \\usepackage{xeCJK}     % CJK tokens (XeLaTeX), with \\setCJKmainfont{...}\n"
    "%   \\usepackage{graphicx}  % \\includegraphics (a figure's PDF)\n"
    "%   \\usepackage{tikz}      % figures\n"
    "%   \\providecommand{\\exactattnToken}[1]{#1}  % how source tokens are set\n";

/// The start of every body: a group in which a paragraph's lines may be spaced out by up to 30%
/// of the width rather than run past it, and the macros that make every table and value fit the
/// text width (docs/output.md). \\exactattnFit{tabular}{fits}{list} sets the tabular in a box and
/// measures it against \\linewidth and \\textheight: where it fits, `fits` is set
/// (\\exactattnTabular places the box, centred), where it does not, `list`: the rows
/// (\\exactattnRow{…}, one a paragraph with a hanging indent), ragged right, which break across
/// lines and pages. \\exactattnValue{display}{breakable} sets a long value's
/// display form where it fits a line (less the list form's indent) and otherwise its breakable
/// form, which TeX may end a line in after any + or −. While a tabular is measured
/// (\\exactattnMeasuring), a value wider than the line is not set at all but marks the table as
/// too wide, so that no measured box can exceed TeX's largest dimension (16383 pt; a table of
/// ten columns of values in Q(2^(1/48)) would). Local to the group, so the author's document is
/// left as it was (the one box register is allocated once, globally).
/// Tables set as a list without measuring the tabular (LatexWriter::table): more rows than a
/// tabular of them could hold on any page (each at least 15 pt at \\arraystretch 1.3), or more
/// LaTeX per row than could be measured (at up to some 6 pt a character, 16383 pt).
constexpr std::size_t kListRows = 400;
constexpr std::size_t kListCharacters = 2500;

constexpr const char* kBodyMacros =
    "\\begingroup\\emergencystretch=.3\\linewidth\n"
    "\\ifdefined\\exactattnBox\\else\\csname newbox\\endcsname\\exactattnBox\\fi\n"
    "\\long\\def\\exactattnFirst#1#2{#1}\\long\\def\\exactattnSecond#1#2{#2}%\n"
    "\\long\\def\\exactattnFit#1#2#3{\\global\\let\\exactattnChoice\\exactattnFirst\n"
    "\\setbox\\exactattnBox=\\hbox{\\def\\exactattnMeasuring{}#1}%\n"
    "\\ifdim\\wd\\exactattnBox>\\linewidth\\global\\let\\exactattnChoice\\exactattnSecond\\fi\n"
    "\\ifdim\\ht\\exactattnBox>\\textheight\\global\\let\\exactattnChoice\\exactattnSecond\\fi\n"
    "\\exactattnChoice{#2}{#3}}%\n"
    "\\def\\exactattnTabular{\\leavevmode\\box\\exactattnBox\\par}%\n"
    "\\long\\def\\exactattnRow#1{\\par\\noindent\\hangindent=1.5em\\hangafter=1 #1\\par\\smallskip}%\n"
    "\\long\\def\\exactattnValue#1#2{\\setbox2=\\hbox{$#1$}\\ifdefined\\exactattnMeasuring\n"
    "\\ifdim\\wd2>\\linewidth\\global\\let\\exactattnChoice\\exactattnSecond\\else#1\\fi\n"
    "\\else\\ifdim\\wd2>\\dimexpr\\linewidth-3em\\relax#2\\else#1\\fi\\fi}%\n";

}  // namespace

std::string latex_requirements() { return kLatexRequirements; }

namespace detail {

namespace {

class LatexWriter final : public Writer {
  public:
    using Writer::Writer;

    [[nodiscard]] MathForm form() const override { return MathForm::Latex; }
    [[nodiscard]] const char* caption_dash() const override { return " --- "; }
    [[nodiscard]] bool typesets_notation() const override { return true; }
    std::string part(const Inline::Part& p) const override {
        switch (p.kind) {
            case Inline::Kind::Text:  // a long word of '/'s (a JSON pointer in prose) may break after each
                return slash_words_break(latex_escape(p.text));
            case Inline::Kind::Emph:
                return "\\emph{" + latex_escape(p.text) + "}";
            case Inline::Kind::Strong:
                return "\\textbf{" + latex_escape(p.text) + "}";
            case Inline::Kind::Code:  // a path or pointer may break after each '/' or '-'
                return "\\texttt{" + code_breaks(latex_escape(p.text)) + "}";
            case Inline::Kind::Math:
                return dollars(p.math.render(style(MathForm::Latex)));
            case Inline::Kind::Token:
                return "\\exactattnToken{" + latex_escape(p.text) + "}";
        }
        return "";
    }

    std::string heading(const Heading& h) const override {
        return (h.level <= 1   ? "\\section*{"
                : h.level == 2 ? "\\subsection*{"
                               : "\\subsubsection*{") +
               inline_text(h.text) + "}\n\n";
    }

    // Summary lines (weights, context) are set ragged right and may break after a list's commas,
    // as a table cell in list form is: a list of irrational weights is wider than the text, and
    // justified, the first part of such a line is too loose for TeX to break it at all.
    std::string lines(const Lines& l) const override {
        if (l.lines.empty()) return "";
        std::string out = "{\\raggedright\n";
        for (std::size_t i = 0; i < l.lines.size(); ++i) {
            out += breakable(inline_text(l.lines[i])) + (i + 1 == l.lines.size() ? "\\par}\n" : "\\\\\n");
        }
        return out + "\n";
    }

    std::string items(const ItemList& l) const override {
        const char* env = l.ordered ? "enumerate" : "itemize";
        std::string out = fmt::format("\\begin{{{}}}\n", env);
        for (const auto& it : l.items) out += "\\item " + inline_text(it) + "\n";
        return out + fmt::format("\\end{{{}}}\n\n", env);
    }

    std::string quote(const Quote& q) const override {
        return "\\begin{quote}\n" + math_breakable(inline_text(q.text)) + "\n\\end{quote}\n\n";
    }

    // A figure stands where it is (center and \\captionof, so that the heading above it is never
    // left alone), or floats with --latex-floats.
    std::string figure(const FigureBlock& fb) const override {
        const bool floats = o_.latex_floats;
        std::string out = floats ? "\\begin{figure}[htbp]\n\\centering\n" : "\\begin{center}\n";
        if (!fb.pdf.empty()) {
            out += "\\includegraphics[width=12cm]{" + latex_escape(fb.pdf) + "}\n";
        } else {
            out += tikz_picture(fb, o_.max_width);
        }
        const std::string cap = inline_text(fb.caption);
        if (!fb.number.empty()) {
            out += "\\renewcommand{\\thefigure}{" + latex_escape(fb.number) + "}" +
                   (floats ? "\\caption{" : "\\captionof{figure}{") + cap + "}";
            if (!fb.label.empty()) out += "\\label{" + fb.label + "}";
            out += "\n";
        } else if (!cap.empty()) {
            out += (floats ? "\\caption*{" : "\\captionof*{figure}{") + cap + "}\n";
        }
        return out + (floats ? "\\end{figure}\n\n" : "\\end{center}\n\n");
    }

    // A table that fits the text width is a booktabs tabular; one that does not is set as a list,
    // one entry a row ("Step 1 --- Input <s>; Query [1, 0]; …"), whose lines break between entries,
    // after the commas of a vector, after the signs of a long value and inside long digit runs.
    // TeX decides, measuring the tabular in the document's own fonts against \\linewidth (12 cm
    // for a book's column, or whatever the author's document has), so the choice holds for any
    // font and any text width. Rows sit 1.3 times apart, so that stacked fractions in consecutive
    // rows do not touch; the caption stays with the start of its table. With --latex-floats only
    // the tabular floats: the list form stands where it is, so that it can break across pages.
    std::string table(const TableBlock& t, const TablePlace& place) const override {
        const std::vector<std::string> headers = header_texts(t);
        const std::size_t columns = headers.size();
        std::string tabular =
            "\\renewcommand{\\arraystretch}{1.3}\\begin{tabular}{" + std::string(columns, 'l') + "}\n\\toprule\n";
        for (std::size_t i = 0; i < columns; ++i) tabular += (i > 0 ? " & " : "") + headers[i];
        tabular += " \\\\\n\\midrule\n";
        std::vector<std::size_t> longest(columns, 0);  // characters of LaTeX, per column
        each_row(t, place, [&](const std::vector<std::string>& row) {
            for (std::size_t i = 0; i < columns; ++i) {
                const std::string& cell = i < row.size() ? row[i] : std::string();
                tabular += (i > 0 ? " & " : "") + cell;
                longest[i] = std::max(longest[i], cell.size());
            }
            tabular += " \\\\\n";
        });
        tabular += "\\bottomrule\n\\end{tabular}";
        // A tabular that no page can hold is not measured (TeX's dimensions end at 16383 pt): one
        // of more rows than kListRows, or whose cells' LaTeX, at their longest per column, adds up
        // to more than kListCharacters (a value wider than a line, which could be longer, counts
        // nothing when measured: see kBodyMacros).
        std::size_t row_characters = 0;
        for (const std::size_t n : longest) row_characters += n;
        const bool list_only = t.rows > kListRows || row_characters > kListCharacters;
        std::string list = "{\\raggedright\n";
        each_row(t, place, [&](const std::vector<std::string>& row) {
            list += "\\exactattnRow{";
            for (std::size_t i = 0; i < columns; ++i) {
                const std::string cell = breakable(i < row.size() ? row[i] : "");
                if (i == 0) {
                    list += "\\textbf{" + headers[0] + "} " + cell + " ---";
                } else {
                    list += std::string(i == 1 ? " " : ";\\enspace\\allowbreak ") + headers[i] + " " + cell;
                }
            }
            list += "}\n";
        });
        list += "\\par}\n";
        const std::string notes = joined_notes(t, "\\par\n");
        const std::string tail = notes.empty() ? "" : "\\par\\smallskip{\\footnotesize " + notes + "}\n";
        if (list_only) return table_head(t, false) + list + tail + "\\end{center}\n\n";
        if (!o_.latex_floats) {
            return table_head(t, false) + "\\exactattnFit{" + tabular + "}{\\exactattnTabular}{%\n" + list + "}%\n" +
                   tail + "\\end{center}\n\n";
        }
        return "\\exactattnFit{" + tabular + "}{%\n" + table_head(t, true) + "\\exactattnTabular\n" + tail +
               "\\end{table}}{%\n" + table_head(t, false) + list + tail + "\\end{center}}\n\n";
    }

    // The body in a group that lets TeX space a paragraph's lines out by up to 30% of the width rather than
    // run one past the text width (a long pointer or path, a formula that cannot break); the
    // author's document is left as it was after the group.
    std::string page(const Document& doc, const std::string& body) const override {
        const std::string grouped = std::string(kBodyMacros) + body + "\\endgroup\n";
        return o_.standalone ? standalone(doc, grouped) : kLatexRequirements + ("\n" + grouped);
    }

    // A paragraph holding a long value (an answer's 48-term weights) is set ragged right, as the
    // summary lines are: justified, a line of a value's breakable form has too little stretch to
    // fill the measure and ran a few points past it.
    // A paragraph or a quote may break after the commas of its vectors, as a summary line may: an
    // answer's vector of three weights in Q(2^(1/8)) has no other place to break inside its math,
    // and ran 287 pt past a 12 cm line (issue 37, tests/render/fixtures/print-ready.json).
    std::string paragraph(const Paragraph& p) const override {
        const std::string text = math_breakable(inline_text(p.text));
        if (text.find("\\exactattnValue{") == std::string::npos) return text + "\n\n";
        return "{\\raggedright\n" + text + "\\par}\n\n";
    }

  private:
    // A LaTeX table up to its rows: the environment (a float or not), the caption (kept with
    // what follows it).
    std::string table_head(const TableBlock& t, bool floats) const {
        std::string out = floats ? "\\begin{table}[htbp]\n\\centering\n" : "\\begin{center}\n";
        // A numbered table prints its own number ("Table 14.1: …", \ref gives 14.1): \thetable is
        // redefined inside the table's group. An unnumbered one takes the starred caption.
        const std::string c = inline_text(t.caption);
        if (!t.number.empty()) {
            out += "\\renewcommand{\\thetable}{" + latex_escape(t.number) + "}";
            // Where it stands, the caption is boxed: the skip \\captionof leaves below it is then
            // inside the box, so the \\nopagebreak below leaves no break between the caption and
            // the table (issue 37: 20 captions stood alone at a page's foot in 11 PDFs).
            out += floats ? "\\caption{" + c + "}" : "\\vbox{\\captionof{table}{" + c + "}";
            if (!t.label.empty()) out += "\\label{" + t.label + "}";
            out += floats ? "\n" : "}\n";
        } else if (!c.empty()) {
            out += floats ? "\\caption*{" + c + "}\n" : "\\vbox{\\captionof*{table}{" + c + "}}\n";
        }
        return out + "\\par\\nopagebreak\n";
    }

    // A cell set in running text: a line may break after a comma (of a vector, or of prose) and
    // every 10 digits of a run of more than 12 (a long integer), but not inside a fraction.
    // Text whose words run longer than 16 characters with '/' in them may break after each '/'.
    static std::string slash_words_break(const std::string& text) {
        if (text.find('/') == std::string::npos) return text;
        std::string out;
        std::size_t start = 0;
        while (start < text.size()) {
            std::size_t end = text.find(' ', start);
            if (end == std::string::npos) end = text.size();
            const std::string word = text.substr(start, end - start);
            out += word.size() > 16 ? code_breaks(word) : word;
            if (end < text.size()) out += ' ';
            start = end + 1;
        }
        return out;
    }

    // Code (a file's path, a JSON pointer) may break after a '/' or '-' that has more after it.
    static std::string code_breaks(const std::string& code) {
        std::string out;
        for (std::size_t i = 0; i < code.size(); ++i) {
            out += code[i];
            if ((code[i] == '/' || code[i] == '-') && i + 1 < code.size()) out += "\\allowbreak{}";
        }
        return out;
    }

    static std::string breakable(const std::string& cell) {
        std::string out;
        std::size_t digits = 0;
        std::size_t run = 0;
        for (std::size_t i = 0; i < cell.size(); ++i) {
            const char c = cell[i];
            if (c >= '0' && c <= '9') {
                if (run == 0) {
                    std::size_t j = i;
                    while (j < cell.size() && cell[j] >= '0' && cell[j] <= '9') ++j;
                    run = j - i;
                    digits = 0;
                }
                if (run > 12 && digits > 0 && digits % 10 == 0) out += "\\allowbreak{}";
                ++digits;
                --run;
                out += c;
                continue;
            }
            run = 0;
            out += c;
            if (c == ',' && i + 1 < cell.size() && cell[i + 1] == ' ') out += "\\allowbreak{}";
        }
        return out;
    }

    // breakable() inside the $…$ of a paragraph only: its text already breaks at its spaces (a '$'
    // of the text is escaped, \\$).
    static std::string math_breakable(const std::string& text) {
        std::string out;
        std::size_t from = 0;
        bool math = false;
        for (std::size_t i = 0; i <= text.size(); ++i) {
            if (i < text.size() && (text[i] != '$' || (i > 0 && text[i - 1] == '\\'))) continue;
            const std::string run = text.substr(from, i - from);
            out += math ? breakable(run) : run;
            if (i < text.size()) out += '$';
            math = !math;
            from = i + 1;
        }
        return out;
    }

    std::string standalone(const Document& doc, const std::string& body) const {
        // The author's own preamble lines (--preamble FILE), after the packages the output needs.
        std::string preamble = o_.preamble;
        if (!preamble.empty() && preamble.back() != '\n') preamble += "\n";
        return "\\documentclass{article}\n"
               "\\usepackage{amsmath}\n\\usepackage{amssymb}\n\\usepackage{booktabs}\n\\usepackage{caption}\n"
               "\\usepackage{graphicx}\n\\usepackage{tikz}\n"
               "\\usepackage{xeCJK}\n"
               "\\IfFontExistsTF{Noto Serif CJK SC}{\\setCJKmainfont{Noto Serif CJK SC}}"
               "{\\IfFontExistsTF{WenQuanYi Micro Hei}{\\setCJKmainfont{WenQuanYi Micro Hei}}{}}\n"
               "\\providecommand{\\exactattnToken}[1]{#1}\n" +
               preamble + "\\title{" + latex_escape(doc.title) + "}\n\\date{}\n\\begin{document}\n" + body +
               "\n\\end{document}\n";
    }
};

}  // namespace

std::unique_ptr<Writer> latex_writer(const RenderOptions& options) { return std::make_unique<LatexWriter>(options); }

}  // namespace detail

}  // namespace exactattn
