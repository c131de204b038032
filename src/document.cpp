// SPDX-License-Identifier: MIT
// exactattn: the document model and its renderers (text, Markdown, LaTeX, HTML, CSV).
#include "exactattn/document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "report_json.hpp"

namespace exactattn {

// ---------------------------------------------------------------------------------------------
// Formulas

namespace detail {

std::string html_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

}  // namespace detail

namespace {

using detail::html_escape;

std::string value_in(const Value& v, MathForm f) {
    switch (f) {
        case MathForm::Unicode: return detail::printed(v, Notation::Unicode);
        case MathForm::Latex: return detail::printed(v, Notation::Latex);
        case MathForm::Ascii: return to_ascii(v);
        case MathForm::MathML: return detail::printed(v, Notation::MathML);
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
        case Formula::Op::Plus: return " + ";
        case Formula::Op::Minus: return latex || ascii ? " - " : " − ";
        case Formula::Op::Times: return latex ? " \\times " : ascii ? "*" : " × ";
        case Formula::Op::Divide: return "/";
        case Formula::Op::Equals: return " = ";
        case Formula::Op::Approx: return latex ? " \\approx " : ascii ? " ~ " : " ≈ ";
        case Formula::Op::Arrow: return latex ? " \\to " : ascii ? " -> " : " → ";
        case Formula::Op::Open: return latex ? "\\left(" : "(";
        case Formula::Op::Close: return latex ? "\\right)" : ")";
        case Formula::Op::Semicolon: return "; ";
        case Formula::Op::Comma: return ", ";
    }
    return "";
}

const char* op_mathml(Formula::Op o) {
    switch (o) {
        case Formula::Op::Plus: return "+";
        case Formula::Op::Minus: return "−";
        case Formula::Op::Times: return "×";
        case Formula::Op::Divide: return "/";
        case Formula::Op::Equals: return "=";
        case Formula::Op::Approx: return "≈";
        case Formula::Op::Arrow: return "→";
        case Formula::Op::Open: return "(";
        case Formula::Op::Close: return ")";
        case Formula::Op::Semicolon: return ";";
        case Formula::Op::Comma: return ",";
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
    atoms_.push_back(Atom{Atom::Kind::Value, v, {}, {}, Op::Plus, {}, 0, false});
    return *this;
}
Formula& Formula::factor(const Value& v) {
    // A value too large for a display rewrite (docs/notation.md) is bracketed unless it is a
    // non-negative integer, without rendering it only to look.
    const bool plain = v.bit_size() > 4096 ? v.is_rational() && v.rational().get_den() == 1 && v.sign() >= 0
                                           : detail::plain_factor(detail::printed(v, Notation::Unicode));
    atoms_.push_back(Atom{Atom::Kind::Value, v, {}, {}, Op::Plus, {}, 0, !plain});
    return *this;
}
Formula& Formula::vector(const Vector& v) {
    atoms_.push_back(Atom{Atom::Kind::Vector, {}, v, {}, Op::Plus, {}, 0, false});
    return *this;
}
Formula& Formula::column(const std::vector<std::optional<Value>>& v) {
    atoms_.push_back(Atom{Atom::Kind::Column, {}, {}, v, Op::Plus, {}, 0, false});
    return *this;
}
Formula& Formula::op(Op o) {
    atoms_.push_back(Atom{Atom::Kind::Op, {}, {}, {}, o, {}, 0, false});
    return *this;
}
Formula& Formula::name(const std::string& n) {
    atoms_.push_back(Atom{Atom::Kind::Name, {}, {}, {}, Op::Plus, n, 0, false});
    return *this;
}
Formula& Formula::sqrt_of(std::size_t d) {
    atoms_.push_back(Atom{Atom::Kind::Sqrt, {}, {}, {}, Op::Plus, {}, d, false});
    return *this;
}
Formula& Formula::decimal(const std::string& d) {
    atoms_.push_back(Atom{Atom::Kind::Decimal, {}, {}, {}, Op::Plus, d, 0, false});
    return *this;
}
Formula& Formula::custom(std::function<std::string(MathForm)> render) {
    Atom a{Atom::Kind::Custom, {}, {}, {}, Op::Plus, {}, 0, false};
    a.fn = std::move(render);
    atoms_.push_back(std::move(a));
    return *this;
}
Formula& Formula::tex(const std::string& source) {
    atoms_.push_back(Atom{Atom::Kind::Tex, {}, {}, {}, Op::Plus, printable(source), 0, false});
    return *this;
}
Formula& Formula::append(const Formula& other) {
    if (!atoms_.empty() && !other.atoms_.empty() && other.atoms_.front().kind != Atom::Kind::Op &&
        atoms_.back().kind != Atom::Kind::Op) {
        atoms_.push_back(Atom{Atom::Kind::Raw, {}, {}, {}, Op::Plus, " ", 0, false});
    }
    atoms_.insert(atoms_.end(), other.atoms_.begin(), other.atoms_.end());
    return *this;
}
Formula& Formula::prerendered(const std::string& s) {
    atoms_.push_back(Atom{Atom::Kind::Raw, {}, {}, {}, Op::Plus, s, 0, false});
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
            case Atom::Kind::Column: out += list(a.col); break;
            case Atom::Kind::Op: out += ml ? fmt::format("<mo>{}</mo>", op_mathml(a.o)) : op_text(a.o, f); break;
            case Atom::Kind::Name: out += name_in(a.text, f); break;
            case Atom::Kind::Sqrt:
                out += ml ? fmt::format("<msqrt><mn>{}</mn></msqrt>", a.n)
                          : f == MathForm::Latex ? fmt::format("\\sqrt{{{}}}", a.n)
                          : f == MathForm::Ascii ? fmt::format("sqrt({})", a.n)
                                                 : fmt::format("√{}", a.n);
                break;
            case Atom::Kind::Decimal: out += ml ? "<mn>" + html_escape(a.text) + "</mn>" : a.text; break;
            case Atom::Kind::Raw: out += ml && a.text == " " ? "" : a.text; break;
            case Atom::Kind::Custom: out += a.fn(f); break;
            case Atom::Kind::Tex:
                out += f == MathForm::Latex ? a.text
                       : ml                 ? tex_mathml(a.text)
                                            : tex_to_text(a.text);
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
        if (p.kind == Kind::Text) text(p.text);
        else parts_.push_back(p);
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
                case Inline::Kind::Strong: out.strong(inner); break;
                case Inline::Kind::Emph: out.emph(inner); break;
                case Inline::Kind::Code: out.code(inner); break;
                default: {
                    // Author math goes to LaTeX as written; with unbalanced braces it would break
                    // the document, so it is kept as text (`$` included).
                    int depth = 0;
                    bool balanced = true;
                    for (std::size_t k = 0; k < inner.size() && balanced; ++k) {
                        if (inner[k] == '\\') ++k;  // \{ and \} are characters
                        else if (inner[k] == '{') ++depth;
                        else if (inner[k] == '}') balanced = --depth >= 0;
                    }
                    if (balanced && depth == 0) out.math(Formula().tex(inner));
                    else out.text("$" + inner + "$");
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
        {"approx", "≈"}, {"to", "→"}, {"cdot", "·"}, {"times", "×"}, {"le", "≤"}, {"leq", "≤"},
        {"ge", "≥"}, {"geq", "≥"}, {"ne", "≠"}, {"neq", "≠"}, {"infty", "∞"}, {"ldots", "…"},
        {"dots", "…"}, {"cdots", "⋯"}, {"alpha", "α"}, {"beta", "β"}, {"sum", "Σ"}, {"in", "∈"},
        {"quad", " "}, {"qquad", "  "}, {"top", "ᵀ"}, {"mid", "|"}, {"lvert", "|"}, {"rvert", "|"},
        {"left", ""}, {"right", ""}, {"sqrt", "√"}};
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
    "%   \\usepackage{booktabs}  % \\toprule, \\midrule, \\bottomrule\n"
    "%   \\usepackage{caption}   % \\captionof (tables placed where they stand)\n"
    "%   \\usepackage{xeCJK}     % CJK tokens (XeLaTeX), with \\setCJKmainfont{...}\n"
    "%   \\providecommand{\\exactattnToken}[1]{#1}  % how source tokens are set\n";

// `$…$` around math, its outer spaces moved outside (pandoc and GFM need `$x$`, not `$ x $`).
std::string dollars(const std::string& m) {
    const auto b = m.find_first_not_of(' ');
    if (b == std::string::npos) return m;
    const auto e = m.find_last_not_of(' ');
    return m.substr(0, b) + "$" + m.substr(b, e - b + 1) + "$" + m.substr(e + 1);
}

class Renderer {
public:
    Renderer(Format f, const RenderOptions& o) : f_(f), o_(o) {}

    [[nodiscard]] MathForm form() const {
        switch (f_) {
            case Format::Latex: return MathForm::Latex;
            case Format::Html: return MathForm::MathML;
            case Format::Markdown: return o_.markdown_math ? MathForm::Latex : MathForm::Unicode;
            default: return MathForm::Unicode;
        }
    }

    std::string inline_text(const Inline& in) const {
        std::string out;
        for (const auto& p : in.parts()) {
            switch (f_) {
                case Format::Latex: out += latex_part(p); break;
                case Format::Html: out += html_part(p); break;
                case Format::Markdown: out += markdown_part(p); break;
                default: out += p.kind == Inline::Kind::Math ? p.math.render(MathForm::Unicode) : p.text; break;
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
            case Inline::Kind::Text: return latex_escape(p.text);
            case Inline::Kind::Emph: return "\\emph{" + latex_escape(p.text) + "}";
            case Inline::Kind::Strong: return "\\textbf{" + latex_escape(p.text) + "}";
            case Inline::Kind::Code: return "\\texttt{" + latex_escape(p.text) + "}";
            case Inline::Kind::Math: return dollars(p.math.render(MathForm::Latex));
            case Inline::Kind::Token: return "\\exactattnToken{" + latex_escape(p.text) + "}";
        }
        return "";
    }
    std::string html_part(const Inline::Part& p) const {
        switch (p.kind) {
            case Inline::Kind::Text:
            case Inline::Kind::Token: return html_escape(p.text);
            case Inline::Kind::Emph: return "<em>" + html_escape(p.text) + "</em>";
            case Inline::Kind::Strong: return "<strong>" + html_escape(p.text) + "</strong>";
            case Inline::Kind::Code: return "<code>" + html_escape(p.text) + "</code>";
            case Inline::Kind::Math: {
                return "<math>" + p.math.render(MathForm::MathML) + "</math>";
            }
        }
        return "";
    }
    std::string markdown_part(const Inline::Part& p) const {
        switch (p.kind) {
            case Inline::Kind::Text:
            case Inline::Kind::Token: return p.text;
            case Inline::Kind::Emph: return "*" + p.text + "*";
            case Inline::Kind::Strong: return "**" + p.text + "**";
            case Inline::Kind::Code: return "`" + p.text + "`";
            case Inline::Kind::Math:
                return o_.markdown_math ? dollars(p.math.render(MathForm::Latex)) : p.math.render(MathForm::Unicode);
        }
        return "";
    }

    std::string block(const Heading& h) const {
        if (f_ == Format::Csv) return "";  // CSV carries the tables only
        const std::string t = inline_text(h.text);
        switch (f_) {
            case Format::Markdown: return std::string(static_cast<std::size_t>(h.level), '#') + " " + t + "\n\n";
            case Format::Latex:
                return (h.level <= 1 ? "\\section*{" : h.level == 2 ? "\\subsection*{" : "\\subsubsection*{") + t +
                       "}\n\n";
            case Format::Html: return fmt::format("<h{0}>{1}</h{0}>\n", h.level, t);
            case Format::Csv: return "";
            default: return t + "\n" + std::string(display_width(t), h.level <= 1 ? '=' : '-') + "\n";
        }
    }
    std::string block(const Paragraph& p) const {
        if (f_ == Format::Csv) return "";
        const std::string t = inline_text(p.text);
        switch (f_) {
            case Format::Html: return "<p>" + t + "</p>\n";
            case Format::Csv: return "";
            default: return t + "\n\n";
        }
    }
    std::string block(const Lines& l) const {
        if (f_ == Format::Csv) return "";
        std::string out;
        for (std::size_t i = 0; i < l.lines.size(); ++i) {
            const std::string t = inline_text(l.lines[i]);
            const bool last = i + 1 == l.lines.size();
            switch (f_) {
                case Format::Markdown: out += t + (last ? "\n" : "  \n"); break;
                case Format::Latex: out += t + (last ? "\n" : "\\\\\n"); break;
                case Format::Html: out += t + (last ? "" : "<br>\n"); break;
                case Format::Csv: break;
                default: out += t + "\n";
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
            case Format::Csv: return "";
            default:
                for (std::size_t i = 0; i < l.items.size(); ++i) {
                    out += (l.ordered ? std::to_string(i + 1) + ". " : std::string("- ")) + inline_text(l.items[i]) +
                           "\n";
                }
                return out + "\n";
        }
    }
    std::string block(const Quote& q) const {
        if (f_ == Format::Csv) return "";
        const std::string t = inline_text(q.text);
        switch (f_) {
            case Format::Latex: return "\\begin{quote}\n" + t + "\n\\end{quote}\n\n";
            case Format::Html: return "<blockquote><p>" + t + "</p></blockquote>\n";
            case Format::Markdown: return "> " + t + "\n\n";
            case Format::Csv: return "";
            default: return "  " + t + "\n\n";
        }
    }

  public:
    std::string caption_text(const TableBlock& t) const {
        std::string c = inline_text(t.caption);
        if (!t.number.empty()) {
            const std::string lead = "Table " + t.number;
            c = c.empty() ? lead : lead + (f_ == Format::Latex ? " --- " : " — ") + c;
        }
        return c;
    }

  private:
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
                    for (std::size_t i = 0; i < columns; ++i) out += (i > 0 ? " & " : "") + (i < row.size() ? row[i] : "");
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
               "</style>\n</head>\n<body>\n" +
               body + "</body>\n</html>\n";
    }

    std::string latex_document(const Document& doc, const std::string& body) const {
        return "\\documentclass{article}\n"
               "\\usepackage{amsmath}\n\\usepackage{booktabs}\n\\usepackage{caption}\n"
               "\\usepackage{xeCJK}\n"
               "\\IfFontExistsTF{Noto Serif CJK SC}{\\setCJKmainfont{Noto Serif CJK SC}}"
               "{\\IfFontExistsTF{WenQuanYi Micro Hei}{\\setCJKmainfont{WenQuanYi Micro Hei}}{}}\n"
               "\\providecommand{\\exactattnToken}[1]{#1}\n"
               "\\title{" +
               latex_escape(doc.title) + "}\n\\date{}\n\\begin{document}\n" + body + "\n\\end{document}\n";
    }

    Format f_;
    RenderOptions o_;
};

}  // namespace

std::string latex_requirements() { return kLatexRequirements; }

std::string render_inline(const Inline& in, Format format, const RenderOptions& options) {
    return Renderer(format, options).inline_text(in);
}

std::vector<std::vector<std::string>> table_cells(const TableBlock& table, Format format, const RenderOptions& options) {
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
            if (std::isalnum(u) != 0 || c == '.') slug += static_cast<char>(std::tolower(u));
            else if (!slug.empty() && slug.back() != '-') slug += '-';
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
