// SPDX-License-Identifier: MIT
// exactattn: the LaTeX writer — a fragment for XeLaTeX (its requirements in a comment at the top)
// or, with `standalone`, a whole document.
#include "render/writer.hpp"

#include <fmt/format.h>

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
    "%   \\usepackage{tikz}      % figures (and \\usepackage{graphicx} for a figure's PDF)\n"
    "%   \\providecommand{\\exactattnToken}[1]{#1}  % how source tokens are set\n";

}  // namespace

std::string latex_requirements() { return kLatexRequirements; }

namespace detail {

namespace {

class LatexWriter final : public Writer {
  public:
    using Writer::Writer;

    [[nodiscard]] MathForm form() const override { return MathForm::Latex; }
    [[nodiscard]] const char* caption_dash() const override { return " --- "; }
    std::string part(const Inline::Part& p) const override {
        switch (p.kind) {
            case Inline::Kind::Text:
                return latex_escape(p.text);
            case Inline::Kind::Emph:
                return "\\emph{" + latex_escape(p.text) + "}";
            case Inline::Kind::Strong:
                return "\\textbf{" + latex_escape(p.text) + "}";
            case Inline::Kind::Code:
                return "\\texttt{" + latex_escape(p.text) + "}";
            case Inline::Kind::Math:
                return dollars(p.math.render(MathForm::Latex));
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

    std::string lines(const Lines& l) const override {
        std::string out;
        for (std::size_t i = 0; i < l.lines.size(); ++i) {
            out += inline_text(l.lines[i]) + (i + 1 == l.lines.size() ? "\n" : "\\\\\n");
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
        return "\\begin{quote}\n" + inline_text(q.text) + "\n\\end{quote}\n\n";
    }

    std::string figure(const FigureBlock& fb) const override {
        std::string out = "\\begin{figure}[htbp]\n\\centering\n";
        if (!fb.pdf.empty()) {
            out += "\\includegraphics[width=12cm]{" + latex_escape(fb.pdf) + "}\n";
        } else {
            out += render_tikz(fb);
        }
        const std::string cap = inline_text(fb.caption);
        if (!fb.number.empty()) {
            out += "\\renewcommand{\\thefigure}{" + latex_escape(fb.number) + "}\\caption{" + cap + "}";
            if (!fb.label.empty()) out += "\\label{" + fb.label + "}";
            out += "\n";
        } else if (!cap.empty()) {
            out += "\\caption*{" + cap + "}\n";
        }
        return out + "\\end{figure}\n\n";
    }

    std::string table(const TableBlock& t) const override {
        const std::string notes = joined_notes(t, "\\par\n");
        const std::vector<std::string> headers = header_texts(t);
        const std::size_t columns = headers.size();
        std::string out = table_head(t, headers);
        each_row(t, [&](const std::vector<std::string>& row) {
            for (std::size_t i = 0; i < columns; ++i) out += (i > 0 ? " & " : "") + (i < row.size() ? row[i] : "");
            out += " \\\\\n";
        });
        out += "\\bottomrule\n\\end{tabular}\n";
        if (!notes.empty()) out += "\\par\\smallskip{\\footnotesize " + notes + "}\n";
        return out + (o_.latex_floats ? "\\end{table}\n\n" : "\\end{center}\n\n");
    }

    std::string page(const Document& doc, const std::string& body) const override {
        return o_.standalone ? standalone(doc, body) : kLatexRequirements + ("\n" + body);
    }

    std::string paragraph(const Paragraph& p) const override { return inline_text(p.text) + "\n\n"; }

  private:
    // A LaTeX table up to its first row: the environment, the caption, the header.
    std::string table_head(const TableBlock& t, const std::vector<std::string>& headers) const {
        std::string out = o_.latex_floats ? "\\begin{table}[htbp]\n\\centering\n" : "\\begin{center}\n";
        // A numbered table prints its own number ("Table 14.1: …", \ref gives 14.1): \thetable is
        // redefined inside the table's group. An unnumbered one takes the starred caption.
        const std::string c = inline_text(t.caption);
        if (!t.number.empty()) {
            out += "\\renewcommand{\\thetable}{" + latex_escape(t.number) + "}";
            out += o_.latex_floats ? "\\caption{" + c + "}" : "\\captionof{table}{" + c + "}";
            if (!t.label.empty()) out += "\\label{" + t.label + "}";
            out += "\n";
        } else if (!c.empty()) {
            out += o_.latex_floats ? "\\caption*{" + c + "}\n" : "\\captionof*{table}{" + c + "}\n";
        }
        out += "\\begin{tabular}{" + std::string(headers.size(), 'l') + "}\n\\toprule\n";
        for (std::size_t i = 0; i < headers.size(); ++i) out += (i > 0 ? " & " : "") + headers[i];
        return out + " \\\\\n\\midrule\n";
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
