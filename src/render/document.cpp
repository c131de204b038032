// SPDX-License-Identifier: MIT
// exactattn: the document model and its renderers (text, Markdown, LaTeX, HTML, CSV).
#include "exactattn/document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "render/cells.hpp"
#include "render/text.hpp"

namespace exactattn {

// ---------------------------------------------------------------------------------------------
// Formulas

namespace {

using detail::html_escape;

std::string value_in(const Value& v, MathForm f) {
    switch (f) {
        case MathForm::Unicode:
            return detail::printed(v, Notation::Unicode);
        case MathForm::Latex:
            return detail::printed(v, Notation::Latex);
        case MathForm::Ascii:
            return to_ascii(v);
        case MathForm::MathML:
            return detail::printed(v, Notation::MathML);
    }
    return to_ascii(v);
}

// Author math in MathML: a single letter is an identifier (italic, like the values' a);
// anything else its plain-text reading in <mtext>.
std::string tex_mathml(const std::string& tex) {
    const std::string t = tex_to_text(tex);
    if (t.size() == 1 && std::isalpha(static_cast<unsigned char>(t[0])) != 0) return "<mi>" + t + "</mi>";
    return "<mtext>" + html_escape(t) + "</mtext>";
}

const char* op_text(Formula::Op o, MathForm f) {
    const bool latex = f == MathForm::Latex;
    const bool ascii = f == MathForm::Ascii;
    switch (o) {
        case Formula::Op::Plus:
            return " + ";
        case Formula::Op::Minus:
            return latex || ascii ? " - " : " − ";
        case Formula::Op::Times:
            return latex ? " \\times " : ascii ? "*" : " × ";
        case Formula::Op::Divide:
            return "/";
        case Formula::Op::Equals:
            return " = ";
        case Formula::Op::Approx:
            return latex ? " \\approx " : ascii ? " ~ " : " ≈ ";
        case Formula::Op::Arrow:
            return latex ? " \\to " : ascii ? " -> " : " → ";
        case Formula::Op::Open:
            return latex ? "\\left(" : "(";
        case Formula::Op::Close:
            return latex ? "\\right)" : ")";
        case Formula::Op::Semicolon:
            return "; ";
        case Formula::Op::Comma:
            return ", ";
    }
    return "";
}

const char* op_mathml(Formula::Op o) {
    switch (o) {
        case Formula::Op::Plus:
            return "+";
        case Formula::Op::Minus:
            return "−";
        case Formula::Op::Times:
            return "×";
        case Formula::Op::Divide:
            return "/";
        case Formula::Op::Equals:
            return "=";
        case Formula::Op::Approx:
            return "≈";
        case Formula::Op::Arrow:
            return "→";
        case Formula::Op::Open:
            return "(";
        case Formula::Op::Close:
            return ")";
        case Formula::Op::Semicolon:
            return ";";
        case Formula::Op::Comma:
            return ",";
    }
    return "";
}

std::string name_in(const std::string& n, MathForm f) {
    if (n.rfind("ln ", 0) == 0) {  // a function name and its argument: ln 2
        if (f == MathForm::Latex) return "\\ln " + n.substr(3);
        if (f == MathForm::MathML) return "<mi>ln</mi><mo>&#x2061;</mo><mn>" + html_escape(n.substr(3)) + "</mn>";
        return n;
    }
    const auto u = n.find('_');
    if (u == std::string::npos || f == MathForm::Ascii || f == MathForm::Unicode) {
        if (f == MathForm::MathML) return "<mi>" + html_escape(n) + "</mi>";
        return n;
    }
    const std::string base = n.substr(0, u);
    const std::string sub = n.substr(u + 1);
    if (f == MathForm::Latex) return base + "_{" + sub + "}";
    return "<msub><mi>" + html_escape(base) + "</mi><mn>" + html_escape(sub) + "</mn></msub>";
}

}  // namespace

// Text for a document, without terminal control characters (a scenario string may carry ESC
// sequences or a carriage return): each is written `<U+001B>`, as in error messages. Line
// breaks and tabs stay.
std::string printable(const std::string& s) {
    const auto control = [&](std::size_t i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '\n' || c == '\t') return 0;
        if (c < 0x20 || c == 0x7F) return 1;
        if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
            static_cast<unsigned char>(s[i + 1]) <= 0x9F) {
            return 2;  // C1 control, U+0080..U+009F
        }
        return 0;
    };
    std::size_t i = 0;
    while (i < s.size() && control(i) == 0) ++i;
    if (i == s.size()) return s;
    std::string out = s.substr(0, i);
    while (i < s.size()) {
        const int n = control(i);
        if (n == 0) {
            out += s[i++];
            continue;
        }
        const unsigned cp = n == 1 ? static_cast<unsigned char>(s[i]) : static_cast<unsigned char>(s[i + 1]);
        out += fmt::format("<U+{:04X}>", cp);
        i += static_cast<std::size_t>(n);
    }
    return out;
}

Formula& Formula::value(const Value& v) {
    atoms_.push_back(Atom{Atom::Kind::Value, v, {}, {}, Op::Plus, {}, 0, false, {}});
    return *this;
}
Formula& Formula::factor(const Value& v) {
    // A value too large for a display rewrite (docs/notation.md) is bracketed unless it is a
    // non-negative integer, without rendering it only to look.
    const bool plain = v.bit_size() > 4096 ? v.is_rational() && v.rational().get_den() == 1 && v.sign() >= 0
                                           : detail::plain_factor(detail::printed(v, Notation::Unicode));
    atoms_.push_back(Atom{Atom::Kind::Value, v, {}, {}, Op::Plus, {}, 0, !plain, {}});
    return *this;
}
Formula& Formula::vector(const Vector& v) {
    atoms_.push_back(Atom{Atom::Kind::Vector, {}, v, {}, Op::Plus, {}, 0, false, {}});
    return *this;
}
Formula& Formula::column(const std::vector<std::optional<Value>>& v) {
    atoms_.push_back(Atom{Atom::Kind::Column, {}, {}, v, Op::Plus, {}, 0, false, {}});
    return *this;
}
Formula& Formula::op(Op o) {
    atoms_.push_back(Atom{Atom::Kind::Op, {}, {}, {}, o, {}, 0, false, {}});
    return *this;
}
Formula& Formula::name(const std::string& n) {
    atoms_.push_back(Atom{Atom::Kind::Name, {}, {}, {}, Op::Plus, n, 0, false, {}});
    return *this;
}
Formula& Formula::sqrt_of(std::size_t d) {
    atoms_.push_back(Atom{Atom::Kind::Sqrt, {}, {}, {}, Op::Plus, {}, d, false, {}});
    return *this;
}
Formula& Formula::decimal(const std::string& d) {
    atoms_.push_back(Atom{Atom::Kind::Decimal, {}, {}, {}, Op::Plus, d, 0, false, {}});
    return *this;
}
Formula& Formula::custom(std::function<std::string(MathForm)> render) {
    atoms_.push_back(Atom{Atom::Kind::Custom, {}, {}, {}, Op::Plus, {}, 0, false, std::move(render)});
    return *this;
}
Formula& Formula::tex(const std::string& source) {
    atoms_.push_back(Atom{Atom::Kind::Tex, {}, {}, {}, Op::Plus, printable(source), 0, false, {}});
    return *this;
}
Formula& Formula::append(const Formula& other) {
    if (!atoms_.empty() && !other.atoms_.empty() && other.atoms_.front().kind != Atom::Kind::Op &&
        atoms_.back().kind != Atom::Kind::Op) {
        atoms_.push_back(Atom{Atom::Kind::Raw, {}, {}, {}, Op::Plus, " ", 0, false, {}});
    }
    atoms_.insert(atoms_.end(), other.atoms_.begin(), other.atoms_.end());
    return *this;
}
Formula& Formula::prerendered(const std::string& s) {
    atoms_.push_back(Atom{Atom::Kind::Raw, {}, {}, {}, Op::Plus, s, 0, false, {}});
    return *this;
}

std::string Formula::render(MathForm f) const {
    const bool ml = f == MathForm::MathML;
    auto list = [&](const std::vector<std::optional<Value>>& xs) {
        std::string out = ml ? "<mo>[</mo>" : "[";
        for (std::size_t i = 0; i < xs.size(); ++i) {
            if (i > 0) out += ml ? "<mo separator=\"true\">,</mo>" : ", ";
            if (xs[i]) {
                out += value_in(*xs[i], f);
            } else {
                out += ml ? "<mo>—</mo>" : f == MathForm::Latex ? "\\text{—}" : f == MathForm::Ascii ? "null" : "—";
            }
        }
        return out + (ml ? "<mo>]</mo>" : "]");
    };
    std::string out;
    for (const auto& a : atoms_) {
        switch (a.kind) {
            case Atom::Kind::Value: {
                const std::string v = value_in(a.v, f);
                if (a.paren) {
                    out += ml ? "<mo>(</mo>" + v + "<mo>)</mo>"
                              : std::string(op_text(Op::Open, f)) + v + op_text(Op::Close, f);
                } else {
                    out += v;
                }
                break;
            }
            case Atom::Kind::Vector:
                out += list(std::vector<std::optional<Value>>(a.vec.begin(), a.vec.end()));
                break;
            case Atom::Kind::Column:
                out += list(a.col);
                break;
            case Atom::Kind::Op:
                out += ml ? fmt::format("<mo>{}</mo>", op_mathml(a.o)) : op_text(a.o, f);
                break;
            case Atom::Kind::Name:
                out += name_in(a.text, f);
                break;
            case Atom::Kind::Sqrt:
                out += ml                     ? fmt::format("<msqrt><mn>{}</mn></msqrt>", a.n)
                       : f == MathForm::Latex ? fmt::format("\\sqrt{{{}}}", a.n)
                       : f == MathForm::Ascii ? fmt::format("sqrt({})", a.n)
                                              : fmt::format("√{}", a.n);
                break;
            case Atom::Kind::Decimal:
                out += ml ? "<mn>" + html_escape(a.text) + "</mn>" : a.text;
                break;
            case Atom::Kind::Raw:
                out += ml && a.text == " " ? "" : a.text;
                break;
            case Atom::Kind::Custom:
                out += a.fn(f);
                break;
            case Atom::Kind::Tex:
                out += f == MathForm::Latex ? a.text : ml ? tex_mathml(a.text) : tex_to_text(a.text);
                break;
        }
    }
    return out;
}

Formula linear_combination(const std::vector<Value>& coeffs,
                           const std::function<void(Formula& f, std::size_t i, bool scaled)>& term) {
    Formula out;
    bool first = true;
    for (std::size_t i = 0; i < coeffs.size(); ++i) {
        const Value& c = coeffs[i];
        if (c.is_zero()) continue;
        const bool neg = c.sign() < 0;
        const Value mag = neg ? -c : c;
        if (!first || neg) out.op(neg ? Formula::Op::Minus : Formula::Op::Plus);
        first = false;
        if (mag != Value(1)) out.factor(mag);
        term(out, i, mag != Value(1));
    }
    if (first) out.value(Value());
    return out;
}

// ---------------------------------------------------------------------------------------------
// Inline content

Inline& Inline::text(const std::string& raw) {
    const std::string s = printable(raw);
    if (!parts_.empty() && parts_.back().kind == Kind::Text) {
        parts_.back().text += s;
    } else {
        parts_.push_back(Part{Kind::Text, s, {}});
    }
    return *this;
}
Inline& Inline::emph(const std::string& s) {
    parts_.push_back(Part{Kind::Emph, printable(s), {}});
    return *this;
}
Inline& Inline::strong(const std::string& s) {
    parts_.push_back(Part{Kind::Strong, printable(s), {}});
    return *this;
}
Inline& Inline::code(const std::string& s) {
    parts_.push_back(Part{Kind::Code, printable(s), {}});
    return *this;
}
Inline& Inline::math(const Formula& f) {
    if (!parts_.empty() && parts_.back().kind == Kind::Math) {
        parts_.back().math.append(f);
        return *this;
    }
    parts_.push_back(Part{Kind::Math, {}, f});
    return *this;
}
Inline& Inline::token(const std::string& s) {
    parts_.push_back(Part{Kind::Token, printable(s), {}});
    return *this;
}
Inline& Inline::append(const Inline& other) {
    for (const auto& p : other.parts_) {
        if (p.kind == Kind::Text)
            text(p.text);
        else
            parts_.push_back(p);
    }
    return *this;
}

Inline inline_markdown(const std::string& md) {
    Inline out;
    std::size_t i = 0;
    std::string plain;
    auto flush = [&] {
        if (!plain.empty()) out.text(plain);
        plain.clear();
    };
    while (i < md.size()) {
        const char c = md[i];
        if (c == '\\' && i + 1 < md.size() && std::string("*_`$\\").find(md[i + 1]) != std::string::npos) {
            plain += md[i + 1];
            i += 2;
            continue;
        }
        auto word = [&](std::size_t at) {
            return at < md.size() && (std::isalnum(static_cast<unsigned char>(md[at])) != 0 ||
                                      static_cast<unsigned char>(md[at]) >= 0x80);
        };
        auto span = [&](const std::string& open, Inline::Kind kind) {
            if (md.compare(i, open.size(), open) != 0) return false;
            const bool underscore = open == "_";
            if (underscore && i > 0 && word(i - 1)) return false;  // intraword: h_t
            auto end = md.find(open, i + open.size());
            while (underscore && end != std::string::npos && word(end + 1)) end = md.find(open, end + 1);
            if (end == std::string::npos || end == i + open.size()) return false;
            flush();
            const std::string inner = md.substr(i + open.size(), end - i - open.size());
            switch (kind) {
                case Inline::Kind::Strong:
                    out.strong(inner);
                    break;
                case Inline::Kind::Emph:
                    out.emph(inner);
                    break;
                case Inline::Kind::Code:
                    out.code(inner);
                    break;
                default: {
                    // Author math goes to LaTeX as written; with unbalanced braces it would break
                    // the document, so it is kept as text (`$` included).
                    int depth = 0;
                    bool balanced = true;
                    for (std::size_t k = 0; k < inner.size() && balanced; ++k) {
                        if (inner[k] == '\\')
                            ++k;  // \{ and \} are characters
                        else if (inner[k] == '{')
                            ++depth;
                        else if (inner[k] == '}')
                            balanced = --depth >= 0;
                    }
                    if (balanced && depth == 0)
                        out.math(Formula().tex(inner));
                    else
                        out.text("$" + inner + "$");
                    break;
                }
            }
            i = end + open.size();
            return true;
        };
        if (span("**", Inline::Kind::Strong) || span("`", Inline::Kind::Code) || span("$", Inline::Kind::Math) ||
            span("*", Inline::Kind::Emph) || span("_", Inline::Kind::Emph)) {
            continue;
        }
        plain += c;
        ++i;
    }
    flush();
    return out;
}

void TableBlock::add_row(std::vector<Inline> cells) {
    if (!held_) {
        held_ = std::make_shared<std::vector<std::vector<Inline>>>();
        auto held = held_;
        row = [held](std::size_t j, MathForm, std::vector<Inline>& out) { out = (*held)[j]; };
    }
    held_->push_back(std::move(cells));
    rows = held_->size();
}

std::string tex_to_text(const std::string& tex) {
    static const std::vector<std::pair<std::string, std::string>> words = {
        {"approx", "≈"}, {"to", "→"},     {"cdot", "·"},  {"times", "×"}, {"le", "≤"},    {"leq", "≤"},
        {"ge", "≥"},     {"geq", "≥"},    {"ne", "≠"},    {"neq", "≠"},   {"infty", "∞"}, {"ldots", "…"},
        {"dots", "…"},   {"cdots", "⋯"},  {"alpha", "α"}, {"beta", "β"},  {"sum", "Σ"},   {"in", "∈"},
        {"quad", " "},   {"qquad", "  "}, {"top", "ᵀ"},   {"mid", "|"},   {"lvert", "|"}, {"rvert", "|"},
        {"left", ""},    {"right", ""},   {"sqrt", "√"}};
    std::string out;
    std::size_t i = 0;
    // The argument of a command, `{…}` (one level of nesting) or one character.
    auto group = [&](std::size_t& at) {
        if (at < tex.size() && tex[at] == '{') {
            int depth = 0;
            const std::size_t start = at;
            for (; at < tex.size(); ++at) {
                if (tex[at] == '{') ++depth;
                if (tex[at] == '}' && --depth == 0) break;
            }
            const std::string inner = tex.substr(start + 1, at - start - 1);
            if (at < tex.size()) ++at;
            return tex_to_text(inner);
        }
        return at < tex.size() ? std::string(1, tex[at++]) : std::string();
    };
    auto wrap = [](const std::string& x) {
        return x.size() <= 1 || x.find_first_of(" +-−/") == std::string::npos ? x : "(" + x + ")";
    };
    while (i < tex.size()) {
        const char c = tex[i];
        if (c == '\\' && i + 1 < tex.size() && std::isalpha(static_cast<unsigned char>(tex[i + 1])) != 0) {
            std::size_t j = i + 1;
            while (j < tex.size() && std::isalpha(static_cast<unsigned char>(tex[j])) != 0) ++j;
            const std::string cmd = tex.substr(i + 1, j - i - 1);
            i = j;
            if (cmd == "frac" || cmd == "tfrac" || cmd == "dfrac") {
                const std::string num = group(i);
                const std::string den = group(i);
                out += wrap(num) + "/" + wrap(den);
            } else if (cmd == "sqrt") {
                out += "√" + wrap(group(i));
            } else if (cmd == "mathrm" || cmd == "text" || cmd == "operatorname" || cmd == "mathit" ||
                       cmd == "mathbf" || cmd == "textit" || cmd == "textbf") {
                out += group(i);
            } else {
                const auto w = std::find_if(words.begin(), words.end(), [&](const auto& p) { return p.first == cmd; });
                out += w != words.end() ? w->second : cmd;  // \ln, \exp, \max: the name itself
            }
            continue;
        }
        if (c == '\\' && i + 1 < tex.size()) {  // \, \; \{ \}
            const char n = tex[i + 1];
            out += n == ',' || n == ';' || n == ' ' || n == ':' ? std::string(" ") : std::string(1, n);
            i += 2;
            continue;
        }
        if ((c == '^' || c == '_') && i + 1 < tex.size() && tex[i + 1] == '{') {
            ++i;
            const std::string g = group(i);
            out += c + (g.size() == 1 ? g : (c == '^' ? "(" + g + ")" : "{" + g + "}"));
            continue;
        }
        if (c == '{' || c == '}') {
            ++i;
            continue;
        }
        out += c;
        ++i;
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Renderers

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

// `$…$` around math, its outer spaces moved outside (pandoc and GFM need `$x$`, not `$ x $`).
std::string dollars(const std::string& m) {
    const auto b = m.find_first_not_of(' ');
    if (b == std::string::npos) return m;
    const auto e = m.find_last_not_of(' ');
    return m.substr(0, b) + "$" + m.substr(b, e - b + 1) + "$" + m.substr(e + 1);
}

std::string svg_element(const FigureBlock& fb, bool xml);

class Renderer {
  public:
    Renderer(Format f, const RenderOptions& o) : f_(f), o_(o) {}

    [[nodiscard]] MathForm form() const {
        switch (f_) {
            case Format::Latex:
                return MathForm::Latex;
            case Format::Html:
                return MathForm::MathML;
            case Format::Markdown:
                return o_.markdown_math ? MathForm::Latex : MathForm::Unicode;
            default:
                return MathForm::Unicode;
        }
    }

    std::string inline_text(const Inline& in) const {
        std::string out;
        for (const auto& p : in.parts()) {
            switch (f_) {
                case Format::Latex:
                    out += latex_part(p);
                    break;
                case Format::Html:
                    out += html_part(p);
                    break;
                case Format::Markdown:
                    out += markdown_part(p);
                    break;
                default:
                    out += p.kind == Inline::Kind::Math ? p.math.render(MathForm::Unicode) : p.text;
                    break;
            }
        }
        return out;
    }

    std::string document(const Document& doc) const {
        std::string body;
        for (const auto& b : doc.blocks) body += std::visit([this](const auto& x) { return block(x); }, b);
        while (body.size() >= 2 && body[body.size() - 1] == '\n' && body[body.size() - 2] == '\n') body.pop_back();
        if (f_ == Format::Html) return html_page(doc, body);
        if (f_ == Format::Latex) return o_.standalone ? latex_document(doc, body) : kLatexRequirements + ("\n" + body);
        return body;
    }

  private:
    std::string latex_part(const Inline::Part& p) const {
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
    std::string html_part(const Inline::Part& p) const {
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
            case Inline::Kind::Math: {
                return "<math>" + p.math.render(MathForm::MathML) + "</math>";
            }
        }
        return "";
    }
    std::string markdown_part(const Inline::Part& p) const {
        switch (p.kind) {
            // Escaped as HTML is: a title, token or name holding <script> stays text.
            case Inline::Kind::Text:
            case Inline::Kind::Token:
                return detail::markdown_escape(p.text);
            case Inline::Kind::Emph:
                return "*" + detail::markdown_escape(p.text) + "*";
            case Inline::Kind::Strong:
                return "**" + detail::markdown_escape(p.text) + "**";
            case Inline::Kind::Code:
                return detail::markdown_code(p.text);
            case Inline::Kind::Math:
                return o_.markdown_math ? dollars(p.math.render(MathForm::Latex)) : p.math.render(MathForm::Unicode);
        }
        return "";
    }

    std::string block(const Heading& h) const {
        if (f_ == Format::Csv) return "";  // CSV carries the tables only
        const std::string t = inline_text(h.text);
        switch (f_) {
            case Format::Markdown:
                return std::string(static_cast<std::size_t>(h.level), '#') + " " + t + "\n\n";
            case Format::Latex:
                return (h.level <= 1   ? "\\section*{"
                        : h.level == 2 ? "\\subsection*{"
                                       : "\\subsubsection*{") +
                       t + "}\n\n";
            case Format::Html:
                return fmt::format("<h{0}>{1}</h{0}>\n", h.level, t);
            case Format::Csv:
                return "";
            default:
                return t + "\n" + std::string(display_width(t), h.level <= 1 ? '=' : '-') + "\n";
        }
    }
    std::string block(const Paragraph& p) const {
        if (f_ == Format::Csv) return "";
        const std::string t = inline_text(p.text);
        switch (f_) {
            case Format::Html:
                return "<p>" + t + "</p>\n";
            case Format::Csv:
                return "";
            default:
                return t + "\n\n";
        }
    }
    std::string block(const Lines& l) const {
        if (f_ == Format::Csv) return "";
        std::string out;
        for (std::size_t i = 0; i < l.lines.size(); ++i) {
            const std::string t = inline_text(l.lines[i]);
            const bool last = i + 1 == l.lines.size();
            switch (f_) {
                case Format::Markdown:
                    out += t + (last ? "\n" : "  \n");
                    break;
                case Format::Latex:
                    out += t + (last ? "\n" : "\\\\\n");
                    break;
                case Format::Html:
                    out += t + (last ? "" : "<br>\n");
                    break;
                case Format::Csv:
                    break;
                default:
                    out += t + "\n";
            }
        }
        if (f_ == Format::Html) return "<p>" + out + "</p>\n";
        return f_ == Format::Csv ? "" : out + "\n";
    }
    std::string block(const ItemList& l) const {
        std::string out;
        switch (f_) {
            case Format::Latex: {
                const char* env = l.ordered ? "enumerate" : "itemize";
                out += fmt::format("\\begin{{{}}}\n", env);
                for (const auto& it : l.items) out += "\\item " + inline_text(it) + "\n";
                return out + fmt::format("\\end{{{}}}\n\n", env);
            }
            case Format::Html: {
                const char* tag = l.ordered ? "ol" : "ul";
                out += fmt::format("<{}>\n", tag);
                for (const auto& it : l.items) out += "<li>" + inline_text(it) + "</li>\n";
                return out + fmt::format("</{}>\n", tag);
            }
            case Format::Csv:
                return "";
            default:
                for (std::size_t i = 0; i < l.items.size(); ++i) {
                    out +=
                        (l.ordered ? std::to_string(i + 1) + ". " : std::string("- ")) + inline_text(l.items[i]) + "\n";
                }
                return out + "\n";
        }
    }
    std::string block(const Quote& q) const {
        if (f_ == Format::Csv) return "";
        const std::string t = inline_text(q.text);
        switch (f_) {
            case Format::Latex:
                return "\\begin{quote}\n" + t + "\n\\end{quote}\n\n";
            case Format::Html:
                return "<blockquote><p>" + t + "</p></blockquote>\n";
            case Format::Markdown:
                return "> " + t + "\n\n";
            case Format::Csv:
                return "";
            default:
                return "  " + t + "\n\n";
        }
    }

    std::string block(const FigureBlock& fb) const {
        const std::string c = figure_caption(fb);
        std::vector<std::string> lines;
        for (const auto& d : fb.description) lines.push_back(inline_text(d));
        switch (f_) {
            case Format::Html: {
                std::string out = fb.label.empty() ? "<figure>\n" : "<figure id=\"" + html_escape(fb.label) + "\">\n";
                out += svg_element(fb, false);  // HTML parsers place <svg> in its namespace
                return out + "<figcaption>" + c + "</figcaption>\n</figure>\n";
            }
            case Format::Latex: {
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
            case Format::Markdown: {
                std::string out;
                if (!o_.csv_directory.empty()) {
                    // The image's alternative text is the caption as plain text.
                    // Brackets escaped too, so that a name cannot close the description early.
                    std::string alt;
                    for (const char ch : detail::markdown_escape(Renderer(Format::Text, o_).figure_caption(fb))) {
                        if (ch == '[' || ch == ']' || ch == '\\') alt += '\\';
                        alt += ch;
                    }
                    out += "![" + alt + "](" + figure_file_name(fb) + ")\n\n";
                }
                out += "**" + c + "**\n\n";
                for (std::size_t i = 0; i < lines.size(); ++i) out += lines[i] + (i + 1 < lines.size() ? "  \n" : "\n");
                if (o_.csv_directory.empty() && !fb.command.empty()) {
                    out += "\n*The drawing: " + detail::markdown_code(fb.command) +
                           " writes it as SVG; with `-o DIR` the report links " +
                           detail::markdown_escape(figure_file_name(fb)) + ".*\n";
                }
                return out + "\n";
            }
            case Format::Csv: {
                std::string out;
                csv_row(out, {c}, 1);
                for (const auto& l : lines) csv_row(out, {l}, 1);
                return out + "\r\n";
            }
            default: {
                std::string out = c + "\n";
                for (const auto& l : lines) out += "  " + l + "\n";
                return out + "\n";
            }
        }
    }

  public:
    std::string figure_caption(const FigureBlock& fb) const {
        return numbered_caption("Figure", fb.number, fb.caption);
    }
    std::string caption_text(const TableBlock& t) const { return numbered_caption("Table", t.number, t.caption); }

  private:
    // "Table 14.1 — caption" (" --- " in LaTeX); the lead alone without a caption, the caption
    // alone without a number.
    std::string numbered_caption(const char* kind, const std::string& number, const Inline& caption) const {
        std::string c = inline_text(caption);
        if (!number.empty()) {
            const std::string lead = kind + (" " + number);
            c = c.empty() ? lead : lead + (f_ == Format::Latex ? " --- " : " — ") + c;
        }
        return c;
    }

    std::string block(const TableBlock& t) const {
        if (t.csv_only && f_ != Format::Csv) return "";
        std::vector<std::string> headers;
        for (const auto& h : t.headers) headers.push_back(inline_text(h));
        const MathForm mf = form();
        std::vector<Inline> cells;
        auto strings = [&](std::size_t j, std::vector<std::string>& out) {
            t.row(j, mf, cells);
            out.resize(cells.size());
            for (std::size_t i = 0; i < cells.size(); ++i) out[i] = inline_text(cells[i]);
        };
        std::string notes;
        const char* between = f_ == Format::Html       ? "<br>\n"
                              : f_ == Format::Latex    ? "\\par\n"
                              : f_ == Format::Markdown ? "  \n"
                                                       : "\n";
        for (const auto& n : t.notes) notes += (notes.empty() ? "" : between) + inline_text(n);
        if (!notes.empty() && f_ != Format::Html && f_ != Format::Latex) notes += "\n";
        if (f_ == Format::Text) {
            std::string out = text_table(caption_text(t), headers, t.rows, strings);
            return out + (notes.empty() ? "" : notes) + "\n";
        }
        // Every other format writes the rows as they are produced: a table of millions of rows
        // is never held as cells.
        const std::size_t columns = headers.size();
        std::vector<std::string> r;
        const auto each_row = [&](const auto& write) {
            for (std::size_t j = 0; j < t.rows; ++j) {
                strings(j, r);
                write(r);
            }
        };
        std::string out;
        switch (f_) {
            case Format::Markdown: {
                const std::string c = caption_text(t);
                if (!c.empty()) out += "**" + c + "**\n\n";
                markdown_header(out, headers);
                each_row([&](const std::vector<std::string>& row) { markdown_row(out, row, columns); });
                return out + (notes.empty() ? "" : "\n" + notes) + "\n";
            }
            case Format::Csv:
                csv_row(out, headers, columns);
                each_row([&](const std::vector<std::string>& row) { csv_row(out, row, columns); });
                return out + "\r\n";
            case Format::Html: {
                out += "<div class=\"table\">\n";
                out += t.label.empty() ? "<table>\n" : "<table id=\"" + html_escape(t.label) + "\">\n";
                const std::string c = caption_text(t);
                if (!c.empty()) out += "<caption>" + c + "</caption>\n";
                out += "<thead><tr>";
                for (const auto& h : headers) out += "<th scope=\"col\">" + h + "</th>";
                out += "</tr></thead>\n<tbody>\n";
                each_row([&](const std::vector<std::string>& row) {
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
            default: {
                out += latex_table_head(t, headers);
                each_row([&](const std::vector<std::string>& row) {
                    for (std::size_t i = 0; i < columns; ++i)
                        out += (i > 0 ? " & " : "") + (i < row.size() ? row[i] : "");
                    out += " \\\\\n";
                });
                out += "\\bottomrule\n\\end{tabular}\n";
                if (!notes.empty()) out += "\\par\\smallskip{\\footnotesize " + notes + "}\n";
                return out + (o_.latex_floats ? "\\end{table}\n\n" : "\\end{center}\n\n");
            }
        }
    }

    // A LaTeX table up to its first row: the environment, the caption, the header.
    std::string latex_table_head(const TableBlock& t, const std::vector<std::string>& headers) const {
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

    std::string html_page(const Document& doc, const std::string& body) const {
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

    // The author's own preamble lines (--preamble FILE), after the packages the output needs.
    std::string preamble_lines() const {
        if (o_.preamble.empty()) return "";
        return o_.preamble.back() == '\n' ? o_.preamble : o_.preamble + "\n";
    }

    std::string latex_document(const Document& doc, const std::string& body) const {
        return "\\documentclass{article}\n"
               "\\usepackage{amsmath}\n\\usepackage{amssymb}\n\\usepackage{booktabs}\n\\usepackage{caption}\n"
               "\\usepackage{graphicx}\n\\usepackage{tikz}\n"
               "\\usepackage{xeCJK}\n"
               "\\IfFontExistsTF{Noto Serif CJK SC}{\\setCJKmainfont{Noto Serif CJK SC}}"
               "{\\IfFontExistsTF{WenQuanYi Micro Hei}{\\setCJKmainfont{WenQuanYi Micro Hei}}{}}\n"
               "\\providecommand{\\exactattnToken}[1]{#1}\n" +
               preamble_lines() + "\\title{" + latex_escape(doc.title) + "}\n\\date{}\n\\begin{document}\n" + body +
               "\n\\end{document}\n";
    }

    Format f_;
    RenderOptions o_;
};

// ---------------------------------------------------------------------------------------------
// Figures: one picture, two writers. Coordinates are written with one decimal by fmt (the
// same bytes on every machine), ids come from the figure's label (never a counter), and no
// date is written, so a figure's file can be compared byte for byte.

// One coordinate: one decimal, no negative zero.
std::string coord(double x) {
    std::string s = fmt::format("{:.1f}", x);
    if (s == "-0.0") s = "0.0";
    return s;
}

// Letters, digits, '.', '-' and '_' of a label; anything else becomes '-'.
std::string id_of(const FigureBlock& fb) {
    std::string key = !fb.label.empty() ? fb.label : fb.number.empty() ? "figure" : "figure-" + fb.number;
    for (auto& c : key) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) == 0 && c != '.' && c != '-' && c != '_') c = '-';
    }
    return key;
}

// The fonts of the SVG text: DejaVu Sans has the math signs (√, −, ×, →), WenQuanYi Micro Hei
// and Noto Sans CJK the CJK tokens; a viewer without them falls back to its sans-serif.
constexpr const char* kSvgFonts = "'DejaVu Sans', 'WenQuanYi Micro Hei', 'Noto Sans CJK SC', sans-serif";

// `xml`: a file of its own, which names the SVG namespace (inline in HTML it needs none).
std::string svg_element(const FigureBlock& fb, bool xml) {
    const Picture& p = fb.picture;
    const Renderer text(Format::Text, {});
    const std::string id = id_of(fb);
    std::string desc;
    for (const auto& d : fb.description) desc += (desc.empty() ? "" : " ") + text.inline_text(d);
    std::string out = fmt::format(
        "<svg{} width=\"120mm\" height=\"{}mm\" viewBox=\"0 0 {} {}\" role=\"img\" aria-labelledby=\"{}-title "
        "{}-desc\">\n",
        xml ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", coord(p.height * 120.0 / p.width), coord(p.width),
        coord(p.height), id, id);
    out += fmt::format("<title id=\"{}-title\">{}</title>\n", id, html_escape(text.figure_caption(fb)));
    out += fmt::format("<desc id=\"{}-desc\">{}</desc>\n", id, html_escape(desc));
    out += fmt::format(
        "<defs><marker id=\"{}-arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" "
        "markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#000000\"/></marker></defs>\n",
        id);
    out += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", coord(p.width),
                       coord(p.height));
    out += fmt::format("<g font-family=\"{}\" font-size=\"9\" fill=\"#000000\">\n", kSvgFonts);
    for (const auto& shape : p.shapes) {
        if (const auto* t = std::get_if<Picture::Text>(&shape)) {
            const char* anchor = t->anchor == Picture::Anchor::Start    ? "start"
                                 : t->anchor == Picture::Anchor::Middle ? "middle"
                                                                        : "end";
            out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"", coord(t->x), coord(t->y), anchor);
            if (t->size != 9) out += fmt::format(" font-size=\"{}\"", coord(t->size));
            if (t->bold) out += " font-weight=\"bold\"";
            if (t->light) out += " fill=\"#ffffff\"";
            out += ">" + html_escape(text.inline_text(t->text)) + "</text>\n";
        } else if (const auto* b = std::get_if<Picture::Box>(&shape)) {
            out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"", coord(b->x),
                               coord(b->y), coord(b->w), coord(b->h), b->fill.empty() ? "none" : b->fill);
            if (b->stroke) out += " stroke=\"#000000\" stroke-width=\"0.6\"";
            out += "/>\n";
            if (b->hatched) {
                out +=
                    fmt::format("<path d=\"M{},{} L{},{} M{},{} L{},{}\" stroke=\"#000000\" stroke-width=\"0.6\"/>\n",
                                coord(b->x), coord(b->y), coord(b->x + b->w), coord(b->y + b->h), coord(b->x),
                                coord(b->y + b->h), coord(b->x + b->w), coord(b->y));
            }
        } else if (const auto* a = std::get_if<Picture::Arrow>(&shape)) {
            out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#000000\" stroke-width=\"0.8\"",
                               coord(a->x1), coord(a->y1), coord(a->x2), coord(a->y2));
            if (a->dashed) out += " stroke-dasharray=\"3 2\"";
            if (a->head) out += fmt::format(" marker-end=\"url(#{}-arrow)\"", id);
            out += "/>\n";
        }
    }
    return out + "</g>\n</svg>\n";
}

// "#0072B2" as xcolor's {rgb,255:red,0;green,114;blue,178}.
std::string tikz_colour(const std::string& hex) {
    const auto channel = [&](std::size_t i) { return std::stoi(hex.substr(i, 2), nullptr, 16); };
    return fmt::format("{{rgb,255:red,{};green,{};blue,{}}}", channel(1), channel(3), channel(5));
}

}  // namespace

std::string render_svg(const FigureBlock& figure) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg_element(figure, true);
}

std::string render_tikz(const FigureBlock& figure) {
    const Picture& p = figure.picture;
    const Renderer latex(Format::Latex, {});
    // One unit is 12 cm / width, y grows downwards as in the SVG.
    const double unit = 120.0 / p.width;
    std::string out = fmt::format("\\begin{{tikzpicture}}[x={:.6f}mm,y=-{:.6f}mm]\n", unit, unit);
    const auto pt = [](double x, double y) { return "(" + coord(x) + "," + coord(y) + ")"; };
    for (const auto& shape : p.shapes) {
        if (const auto* t = std::get_if<Picture::Text>(&shape)) {
            const char* anchor = t->anchor == Picture::Anchor::Start    ? "base west"
                                 : t->anchor == Picture::Anchor::Middle ? "base"
                                                                        : "base east";
            // The font size scales with the picture: 9 units at 12 cm are 9 pt.
            const double size = t->size * unit / (25.4 / 72.27);
            out += fmt::format(
                "\\node[anchor={},inner sep=0pt,font=\\fontsize{{{}}}{{{}}}\\selectfont{}{}] at {} {{{}}};\n", anchor,
                coord(size), coord(size * 1.2), t->bold ? "\\bfseries" : "", t->light ? ",text=white" : "",
                pt(t->x, t->y), latex.inline_text(t->text));
        } else if (const auto* b = std::get_if<Picture::Box>(&shape)) {
            std::string opts;
            if (!b->fill.empty()) opts += "fill=" + tikz_colour(b->fill);
            if (b->stroke) opts += std::string(opts.empty() ? "" : ",") + "draw=black,line width=0.6pt";
            if (!opts.empty()) {
                out += fmt::format("\\path[{}] {} rectangle {};\n", opts, pt(b->x, b->y), pt(b->x + b->w, b->y + b->h));
            }
            if (b->hatched) {
                out += fmt::format("\\draw[line width=0.6pt] {} -- {} {} -- {};\n", pt(b->x, b->y),
                                   pt(b->x + b->w, b->y + b->h), pt(b->x, b->y + b->h), pt(b->x + b->w, b->y));
            }
        } else if (const auto* a = std::get_if<Picture::Arrow>(&shape)) {
            out += fmt::format("\\draw[line width=0.8pt{}{}] {} -- {};\n", a->head ? ",-stealth" : "",
                               a->dashed ? ",dashed" : "", pt(a->x1, a->y1), pt(a->x2, a->y2));
        }
    }
    return out + "\\end{tikzpicture}\n";
}

std::string figure_file_name(const FigureBlock& figure) { return id_of(figure) + ".svg"; }

std::string latex_requirements() { return kLatexRequirements; }

std::string render_inline(const Inline& in, Format format, const RenderOptions& options) {
    return Renderer(format, options).inline_text(in);
}

std::vector<std::vector<std::string>> table_cells(const TableBlock& table, Format format,
                                                  const RenderOptions& options) {
    const Renderer r(format, options);
    std::vector<std::vector<std::string>> out(1);
    for (const auto& h : table.headers) out[0].push_back(r.inline_text(h));
    std::vector<Inline> cells;
    for (std::size_t j = 0; j < table.rows; ++j) {
        table.row(j, r.form(), cells);
        auto& row = out.emplace_back();
        for (const auto& c : cells) row.push_back(r.inline_text(c));
    }
    return out;
}

std::vector<CsvFile> csv_files(const Document& doc) {
    const Renderer r(Format::Csv, {});
    std::vector<CsvFile> out;
    Table index;
    index.headers = {"file", "caption"};
    for (const auto& b : doc.blocks) {
        const auto* t = std::get_if<TableBlock>(&b);
        if (t == nullptr) continue;
        const auto cells = table_cells(*t, Format::Csv);
        Table tab;
        tab.headers = cells.front();
        tab.rows.assign(cells.begin() + 1, cells.end());
        // A name from the table's number, label or caption: lower case, letters, digits, '.', '-'.
        std::string key = !t->number.empty() ? "table-" + t->number : !t->label.empty() ? t->label : r.caption_text(*t);
        std::string slug;
        for (const char c : key) {
            const auto u = static_cast<unsigned char>(c);
            if (std::isalnum(u) != 0 || c == '.')
                slug += static_cast<char>(std::tolower(u));
            else if (!slug.empty() && slug.back() != '-')
                slug += '-';
            if (slug.size() >= 40) break;
        }
        while (!slug.empty() && (slug.back() == '-' || slug.back() == '.')) slug.pop_back();
        CsvFile f;
        f.name = fmt::format("{:02}{}{}.csv", out.size() + 1, slug.empty() ? "" : "-", slug);
        f.caption = r.caption_text(*t);
        f.text = tab.csv();
        index.rows.push_back({f.name, f.caption});
        out.push_back(std::move(f));
    }
    out.push_back(CsvFile{"index.csv", "the tables of this document", index.csv()});
    return out;
}

std::string render(const Document& doc, Format format, const RenderOptions& options) {
    if (format == Format::Json) throw usage_error("a document is rendered as text, markdown, latex, html or csv");
    const detail::DisplayWidthScope width(options.max_width);
    return Renderer(format, options).document(doc);
}

}  // namespace exactattn
