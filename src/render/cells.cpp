// SPDX-License-Identifier: MIT
// exactattn internal: a value as printed in a table cell (display form, fitted to the width the
// renderer hands down in its MathStyle).
#include "render/cells.hpp"

namespace exactattn::detail {

namespace {
// LaTeX longer than this many characters may be wider than a line of a narrow column (8 cm less
// the list form's indent): up to here a character sets at most some 5 pt, so a value this short
// is always written as it is.
constexpr std::size_t kFitCharacters = 32;
}  // namespace

bool plain_factor(const std::string& unicode) {
    const bool negative = unicode.rfind("−", 0) == 0 || unicode.rfind('-', 0) == 0;
    return !negative && unicode.find_first_of(" /+×") == std::string::npos;
}

std::string breakable_parentheses(const std::string& latex) {
    static const std::string open = "\\left(\\exactattnValue{";
    static const std::string close = "\\right)";
    std::string out;
    std::size_t from = 0;
    for (std::size_t at = latex.find(open); at != std::string::npos; at = latex.find(open, from)) {
        // The end of the macro's two arguments (balanced braces: printed TeX).
        std::size_t i = at + open.size() - 1;
        for (int group = 0; group < 2 && i < latex.size(); ++group) {
            int depth = 0;
            do {
                depth += latex[i] == '{' ? 1 : latex[i] == '}' ? -1 : 0;
                ++i;
            } while (depth > 0 && i < latex.size());
        }
        out += latex.substr(from, at - from);
        if (latex.compare(i, close.size(), close) == 0) {
            const std::size_t macro = at + 6;  // after "\left("
            out += "\\bigl(" + latex.substr(macro, i - macro) + "\\bigr)";
            from = i + close.size();
        } else {
            out += latex.substr(at, i - at);
            from = i;
        }
    }
    return out + latex.substr(from);
}

std::string latex_factor(const std::string& printed) {
    if (printed.rfind("\\exactattnValue{", 0) == 0) return "\\bigl(" + printed + "\\bigr)";
    return "\\left(" + printed + "\\right)";
}

std::string printed(const Value& v, Notation n, const MathStyle& style) {
    if (n == Notation::Ascii) return to_ascii(v);  // JSON and CSV data: the canonical form
    DisplayOptions options;
    options.max_width = style.max_width;
    if (n == Notation::Latex && style.latex == LatexValues::Linear) {
        options.breakable = true;
        return to_display(v, n, options);
    }
    std::string s = to_display(v, n, options);
    if (n == Notation::Latex && style.latex == LatexValues::Fit && s.size() > kFitCharacters) {
        // TeX chooses (docs/output.md): the display form where it fits the line, else the form
        // that breaks after its + and − signs.
        options.breakable = true;
        const std::string breaks = to_display(v, n, options);
        if (breaks != s) s = "\\exactattnValue{" + s + "}{" + breaks + "}";
    }
    if (n == Notation::MathML) {  // the content of the <math> element, for a larger formula
        const auto open = s.find('>');
        const auto close = s.rfind("</math>");
        if (s.rfind("<math", 0) == 0 && open != std::string::npos && close != std::string::npos) {
            s = s.substr(open + 1, close - open - 1);
        }
    }
    return s;
}

}  // namespace exactattn::detail
