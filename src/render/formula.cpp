// SPDX-License-Identifier: MIT
// exactattn: formulas — values, operators, names and author TeX written in one math form
// (Unicode, LaTeX, MathML, ASCII).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <memory>
#include <vector>

#include "exactattn/document.hpp"
#include "exactattn/print.hpp"
#include "render/cells.hpp"
#include "render/tex_commands.hpp"
#include "render/text.hpp"

namespace exactattn {

namespace {

using detail::html_escape;

std::string value_in(const Value& v, const MathStyle& style) {
    switch (style.form) {
        case MathForm::Unicode:
            return detail::printed(v, Notation::Unicode, style);
        case MathForm::Latex:
            return detail::printed(v, Notation::Latex, style);
        case MathForm::Ascii:
            return to_ascii(v);
        case MathForm::MathML:
            return detail::printed(v, Notation::MathML, style);
    }
    return to_ascii(v);
}

// Author math as MathML (docs/output.md, "Author math"): the subset a chapter's prose uses —
// letters as identifiers, numbers, operators, groups, _ and ^, \frac, \sqrt, \mathbb, \mathrm,
// \text, Greek letters and the symbols tex_to_text knows, function names (\ln, \exp, \max). A
// command outside it is kept as its TeX, verbatim, in <mtext>, and `outside` is told its name.
class TexMathml {
  public:
    using Outside = std::function<void(const std::string& command)>;
    TexMathml(const std::string& tex, const Outside& outside) : t_(tex), outside_(outside) {}
    std::string run() {
        std::string out;
        while (i_ < t_.size()) out += script(atom());
        return "<mrow>" + out + "</mrow>";
    }

  private:
    // The atom at i_ and any _ and ^ after it.
    std::string script(std::string base) {
        std::string sub;
        std::string sup;
        for (;;) {
            skip_spaces();
            if (i_ < t_.size() && (t_[i_] == '_' || t_[i_] == '^')) {
                const char c = t_[i_++];
                (c == '_' ? sub : sup) = atom();
                continue;
            }
            break;
        }
        if (!sub.empty() && !sup.empty()) return "<msubsup>" + base + sub + sup + "</msubsup>";
        if (!sub.empty()) return "<msub>" + base + sub + "</msub>";
        if (!sup.empty()) return "<msup>" + base + sup + "</msup>";
        return base;
    }
    void skip_spaces() {
        while (i_ < t_.size() && t_[i_] == ' ') ++i_;
    }
    // A braced group's contents as one <mrow>, or the next atom.
    std::string argument() {
        skip_spaces();
        if (i_ < t_.size() && t_[i_] == '{') return group();
        return atom();
    }
    std::string group() {
        ++i_;  // '{'
        std::string out;
        while (i_ < t_.size() && t_[i_] != '}') out += script(atom());
        if (i_ < t_.size()) ++i_;
        return "<mrow>" + out + "</mrow>";
    }
    // The raw text of a braced argument ({Q} of \mathbb{Q}).
    std::string raw_argument() {
        skip_spaces();
        if (i_ >= t_.size() || t_[i_] != '{') return i_ < t_.size() ? std::string(1, t_[i_++]) : std::string();
        int depth = 0;
        const std::size_t start = ++i_;
        while (i_ < t_.size() && (t_[i_] != '}' || depth > 0)) {
            depth += t_[i_] == '{' ? 1 : t_[i_] == '}' ? -1 : 0;
            ++i_;
        }
        const std::string inner = t_.substr(start, i_ - start);
        if (i_ < t_.size()) ++i_;
        return inner;
    }
    std::string atom() {
        skip_spaces();
        if (i_ >= t_.size()) return "";
        const char c = t_[i_];
        if (c == '{') return group();
        if (c == '\\') return command();
        if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
            const std::size_t start = i_;
            while (i_ < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[i_])) != 0 || t_[i_] == '.')) ++i_;
            return "<mn>" + t_.substr(start, i_ - start) + "</mn>";
        }
        if (std::isalpha(static_cast<unsigned char>(c)) != 0) return "<mi>" + std::string(1, t_[i_++]) + "</mi>";
        if (static_cast<unsigned char>(c) >= 0x80) {  // a character typed as itself: √, ≈, α
            std::size_t len = 1;
            while (i_ + len < t_.size() && (static_cast<unsigned char>(t_[i_ + len]) & 0xC0U) == 0x80U) ++len;
            const std::string ch = t_.substr(i_, len);
            i_ += len;
            return "<mo>" + html_escape(ch) + "</mo>";
        }
        ++i_;
        if (c == '-') return "<mo>−</mo>";
        return "<mo>" + html_escape(std::string(1, c)) + "</mo>";
    }
    std::string command() {
        std::size_t j = i_ + 1;
        while (j < t_.size() && std::isalpha(static_cast<unsigned char>(t_[j])) != 0) ++j;
        if (j == i_ + 1) {  // \, \; \{ \} and the like
            const char n = i_ + 1 < t_.size() ? t_[i_ + 1] : ' ';
            i_ += 2;
            return n == ',' || n == ';' || n == ':' || n == ' ' || n == '!'
                       ? ""
                       : "<mo>" + html_escape(std::string(1, n)) + "</mo>";
        }
        const std::string cmd = t_.substr(i_ + 1, j - i_ - 1);
        i_ = j;
        if (cmd == "frac" || cmd == "tfrac" || cmd == "dfrac") {
            const std::string num = argument();
            return "<mfrac>" + num + argument() + "</mfrac>";
        }
        if (cmd == "sqrt") {
            skip_spaces();
            if (i_ < t_.size() && t_[i_] == '[') {
                const std::size_t end = t_.find(']', i_);
                const std::string index = TexMathml(t_.substr(i_ + 1, end - i_ - 1), outside_).run();
                i_ = end == std::string::npos ? t_.size() : end + 1;
                return "<mroot>" + argument() + index + "</mroot>";
            }
            return "<msqrt>" + argument() + "</msqrt>";
        }
        if (cmd == "mathbb") return "<mi mathvariant=\"double-struck\">" + html_escape(raw_argument()) + "</mi>";
        if (cmd == "mathbf") return "<mi mathvariant=\"bold\">" + html_escape(raw_argument()) + "</mi>";
        if (cmd == "mathrm" || cmd == "operatorname") {
            return "<mi mathvariant=\"normal\">" + html_escape(raw_argument()) + "</mi>";
        }
        if (cmd == "text" || cmd == "textrm" || cmd == "mbox")
            return "<mtext>" + html_escape(raw_argument()) + "</mtext>";
        if (cmd == "left" || cmd == "right" || cmd == "quad" || cmd == "qquad") return "";
        static const std::vector<std::string> functions = {"ln",  "log",    "exp",    "max",     "min", "sin", "cos",
                                                           "arg", "argmax", "argmin", "softmax", "lim", "det"};
        if (std::find(functions.begin(), functions.end(), cmd) != functions.end()) {
            // A function applied to what follows (ln 2) takes the invisible function application, as the
            // value writer's "ln 2" does; one with a limit or exponent (\max_j, \ln^2) takes it after the
            // script, which this reader does not place, so it stays a bare name there.
            skip_spaces();
            const bool scripted = i_ < t_.size() && (t_[i_] == '_' || t_[i_] == '^');
            return "<mi>" + cmd + "</mi>" + (scripted ? "" : "<mo>&#x2061;</mo>");
        }
        if (const auto* t = detail::find_tex_command(cmd)) {
            return t->letter ? "<mi>" + std::string(t->text) + "</mi>"
                             : "<mo>" + html_escape(std::string(t->text)) + "</mo>";
        }
        const std::string symbol = tex_to_text("\\" + cmd);
        if (symbol != cmd) return "<mo>" + html_escape(symbol) + "</mo>";
        if (outside_) outside_(cmd);
        return "<mtext>" + html_escape("\\" + cmd) + "</mtext>";  // outside the subset: verbatim
    }

    const std::string& t_;
    const Outside& outside_;
    std::size_t i_ = 0;
};

// Author TeX as MathML; each command outside the subset is a warning placed where the TeX was
// written (docs/output.md, "Author math in HTML").
std::string tex_mathml(const std::string& tex, const Location* where, const WarningSink& warn) {
    if (!warn) return TexMathml(tex, {}).run();
    return TexMathml(tex,
                     [&](const std::string& cmd) {
                         warn(Warning{where != nullptr ? *where : Location{},
                                      fmt::format("TeX \\{} is outside the MathML subset, kept verbatim", cmd)});
                     })
        .run();
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

Formula& Formula::value(const Value& v) {
    atoms_.push_back(Atom{Atom::Kind::Value, v, {}, {}, Op::Plus, {}, 0, false, {}, nullptr});
    return *this;
}
Formula& Formula::factor(const Value& v) {
    // A value too large for a display rewrite (docs/notation.md) is bracketed unless it is a
    // non-negative integer, without rendering it only to look.
    const bool plain = v.bit_size() > 4096 ? v.is_rational() && v.rational().get_den() == 1 && v.sign() >= 0
                                           : detail::plain_factor(detail::printed(v, Notation::Unicode, {}));
    atoms_.push_back(Atom{Atom::Kind::Value, v, {}, {}, Op::Plus, {}, 0, !plain, {}, nullptr});
    return *this;
}
Formula& Formula::vector(const Vector& v) {
    atoms_.push_back(Atom{Atom::Kind::Vector, {}, v, {}, Op::Plus, {}, 0, false, {}, nullptr});
    return *this;
}
Formula& Formula::column(const std::vector<std::optional<Value>>& v) {
    atoms_.push_back(Atom{Atom::Kind::Column, {}, {}, v, Op::Plus, {}, 0, false, {}, nullptr});
    return *this;
}
Formula& Formula::op(Op o) {
    atoms_.push_back(Atom{Atom::Kind::Op, {}, {}, {}, o, {}, 0, false, {}, nullptr});
    return *this;
}
Formula& Formula::name(const std::string& n) {
    atoms_.push_back(Atom{Atom::Kind::Name, {}, {}, {}, Op::Plus, n, 0, false, {}, nullptr});
    return *this;
}
Formula& Formula::sqrt_of(std::size_t d) {
    atoms_.push_back(Atom{Atom::Kind::Sqrt, {}, {}, {}, Op::Plus, {}, d, false, {}, nullptr});
    return *this;
}
Formula& Formula::decimal(const std::string& d) {
    atoms_.push_back(Atom{Atom::Kind::Decimal, {}, {}, {}, Op::Plus, d, 0, false, {}, nullptr});
    return *this;
}
Formula& Formula::custom(std::function<std::string(const MathStyle&)> render) {
    atoms_.push_back(Atom{Atom::Kind::Custom, {}, {}, {}, Op::Plus, {}, 0, false, std::move(render), nullptr});
    return *this;
}
Formula& Formula::tex(const std::string& source, const Location& where) {
    atoms_.push_back(Atom{Atom::Kind::Tex,
                          {},
                          {},
                          {},
                          Op::Plus,
                          detail::printable(source),
                          0,
                          false,
                          {},
                          where.empty() ? nullptr : std::make_shared<const Location>(where)});
    return *this;
}
Formula& Formula::append(const Formula& other) {
    if (!atoms_.empty() && !other.atoms_.empty() && other.atoms_.front().kind != Atom::Kind::Op &&
        atoms_.back().kind != Atom::Kind::Op) {
        atoms_.push_back(Atom{Atom::Kind::Raw, {}, {}, {}, Op::Plus, " ", 0, false, {}, nullptr});
    }
    atoms_.insert(atoms_.end(), other.atoms_.begin(), other.atoms_.end());
    return *this;
}
Formula& Formula::prerendered(const std::string& s) {
    atoms_.push_back(Atom{Atom::Kind::Raw, {}, {}, {}, Op::Plus, s, 0, false, {}, nullptr});
    return *this;
}

std::string Formula::render(const MathStyle& style) const { return render(style, WarningSink{}); }

std::string Formula::render(const MathStyle& style, const WarningSink& warn) const {
    const MathForm f = style.form;
    const bool ml = f == MathForm::MathML;
    auto list = [&](const std::vector<std::optional<Value>>& xs) {
        std::string out = ml ? "<mo>[</mo>" : "[";
        for (std::size_t i = 0; i < xs.size(); ++i) {
            if (i > 0) out += ml ? "<mo separator=\"true\">,</mo>" : ", ";
            if (xs[i]) {
                out += value_in(*xs[i], style);
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
                const std::string v = value_in(a.v, style);
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
                out += a.fn(style);
                break;
            case Atom::Kind::Tex:
                out += f == MathForm::Latex ? a.text
                       : ml                 ? tex_mathml(a.text, a.where.get(), warn)
                                            : tex_to_text(a.text);
                break;
        }
    }
    return f == MathForm::Latex ? detail::breakable_parentheses(out) : out;
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

std::string tex_to_text(const std::string& tex) {
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
            } else if (cmd == "quad" || cmd == "qquad") {
                out += cmd == "quad" ? " " : "  ";
            } else if (cmd != "left" && cmd != "right") {
                const auto* t = detail::find_tex_command(cmd);
                out += t != nullptr ? std::string(t->text) : cmd;  // \ln, \exp, \max: the name itself
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

}  // namespace exactattn
