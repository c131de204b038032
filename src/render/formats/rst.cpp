// SPDX-License-Identifier: MIT
// exactattn: the reStructuredText writer — docutils' and Sphinx's markup, tables as list-table
// directives, math in the :math: role (its LaTeX).
#include "render/writer.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "exactattn/print.hpp"

namespace exactattn::detail {

namespace {

// Where an inline markup part (emphasis, literal, math) begins and ends, until inline_text
// knows its neighbours (kBegin and kEnd never reach the output: the cells of a run have had
// their control characters escaped before they get here).
constexpr char kBegin = '\x0e';
constexpr char kEnd = '\x0f';

// Text with reStructuredText's inline markup characters escaped: `*`, `` ` ``, `_` (a
// reference), `|` (a substitution) and the backslash itself.
std::string rst_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        if (c == '\\' || c == '*' || c == '`' || c == '_' || c == '|') out += '\\';
        out += c;
    }
    return out;
}

// Inline markup is recognized only next to whitespace or some punctuation (the reStructuredText
// specification, "Inline markup recognition rules"); elsewhere an escaped space (`\ `, which
// the reader drops) stands between the markup and the letter beside it.
bool opens_markup(char c) {
    return c == ' ' || c == '\n' || std::string_view("'\"([{<-/:").find(c) != std::string_view::npos;
}
bool closes_markup(char c) {
    return c == ' ' || c == '\n' || std::string_view("'\")]}>-/:.,;!?").find(c) != std::string_view::npos;
}

// A line that would start a list, a comment, a field or a transition if read at the start of
// a block: its first character escaped (`\-`, `\1` …), which the reader shows as it is.
bool starts_construct(const std::string& s) {
    if (s.empty()) return false;
    const char c = s[0];
    if (c == '-' || c == '+' || c == '#' || c == ':' || c == '.' || c == '=' || c == '~' || c == '^' || c == '>' ||
        c == '(' || s.rfind("•", 0) == 0 || s.rfind("‣", 0) == 0 || s.rfind("⁃", 0) == 0)
        return true;
    // An enumerator: `1.`, `a)`, `iv.` followed by a space or the end.
    std::size_t i = 0;
    while (i < s.size() && std::isalnum(static_cast<unsigned char>(s[i])) != 0) ++i;
    return i > 0 && i < s.size() && (s[i] == '.' || s[i] == ')') && (i + 1 == s.size() || s[i + 1] == ' ');
}

// Text broken at spaces into lines of about kColumns bytes, each line after the first indented
// by `indent` spaces (a list item's or a cell's continuation), `used` bytes already taken on the
// first. docutils refuses a line longer than 10,000 characters (its line_length_limit), which
// one paragraph of values in Q(2^(1/48)) exceeds; inline markup, :math: included, may span lines.
constexpr std::size_t kColumns = 100;
std::string wrapped(const std::string& text, std::size_t indent, std::size_t used = 0) {
    std::string out;
    std::size_t line_start = 0;  // in text
    std::size_t width = used;
    std::size_t from = 0;
    while (from < text.size()) {
        std::size_t space = text.find(' ', from);
        // An escaped space (`\ `) joins markup to a letter: never a place to break.
        while (space != std::string::npos && space > 0 && text[space - 1] == '\\') space = text.find(' ', space + 1);
        const std::size_t word_end = space == std::string::npos ? text.size() : space;
        // Never before a space: a line that begins with one would be read as indented.
        if (width + (word_end - line_start) > kColumns && from > line_start && text[from] != ' ') {
            out += text.substr(line_start, from - 1 - line_start) + "\n" + std::string(indent, ' ');
            line_start = from;
            width = indent;
        }
        from = word_end + 1;
    }
    return out + text.substr(line_start);
}

class RstWriter final : public Writer {
  public:
    using Writer::Writer;

    [[nodiscard]] bool typesets_notation() const override { return true; }
    MathForm form() const override { return MathForm::Latex; }

    std::string inline_text(const Inline& in) const override {
        const std::string raw = Writer::inline_text(in);
        std::string out;
        if (!raw.empty() && raw[0] != kBegin && starts_construct(raw)) out += '\\';
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] == kBegin) {
                if (!out.empty() && !opens_markup(out.back())) out += "\\ ";
            } else if (raw[i] == kEnd) {
                const std::size_t next = raw.find_first_not_of(std::string{kBegin, kEnd}, i + 1);
                if (next != std::string::npos && !closes_markup(raw[next])) out += "\\ ";
            } else {
                out += raw[i];
            }
        }
        return out;
    }

    std::string part(const Inline::Part& p) const override {
        switch (p.kind) {
            case Inline::Kind::Text:
            case Inline::Kind::Token:
                return rst_escape(p.text);
            case Inline::Kind::Emph:
                return marked("*", p.text, "*");
            case Inline::Kind::Strong:
                return marked("**", p.text, "**");
            case Inline::Kind::Code:
                return literal(p.text);
            case Inline::Kind::Math: {
                const std::string m = p.math.render(style(MathForm::Latex));
                const auto b = m.find_first_not_of(' ');
                if (b == std::string::npos) return m;
                const auto e = m.find_last_not_of(' ');
                return m.substr(0, b) + kBegin + ":math:`" + m.substr(b, e - b + 1) + "`" + kEnd + m.substr(e + 1);
            }
        }
        return "";
    }

    std::string heading(const Heading& h) const override {
        const std::string t = inline_text(h.text);
        static constexpr char kUnderline[] = {'=', '-', '~', '^', '"'};
        const std::size_t level = std::min<std::size_t>(static_cast<std::size_t>(std::max(h.level, 1)), 5) - 1;
        return t + "\n" + std::string(display_width(t), kUnderline[level]) + "\n\n";
    }

    std::string paragraph(const Paragraph& p) const override { return wrapped(inline_text(p.text), 0) + "\n\n"; }

    std::string lines(const Lines& l) const override {
        std::string out;
        for (const auto& line : l.lines) out += "| " + wrapped(inline_text(line), 2, 2) + "\n";
        return out + "\n";
    }

    std::string items(const ItemList& l) const override {
        std::string out;
        for (std::size_t i = 0; i < l.items.size(); ++i) {
            const std::string marker = l.ordered ? std::to_string(i + 1) + ". " : std::string("- ");
            out += marker + wrapped(inline_text(l.items[i]), marker.size(), marker.size()) + "\n";
        }
        return out + "\n";
    }

    // An empty comment first, so that the indented quote is not read as more of a list above.
    std::string quote(const Quote& q) const override {
        return "..\n\n   " + wrapped(inline_text(q.text), 3, 3) + "\n\n";
    }

    // The caption as a rubric (an informal heading, which may hold math), the description as a
    // line block, and the command that draws the figure.
    std::string figure(const FigureBlock& fb) const override {
        std::string out = ".. rubric:: " + figure_caption(fb) + "\n\n";
        const auto lines = description_lines(fb);
        for (const auto& l : lines) out += "| " + wrapped(l, 2, 2) + "\n";
        if (!lines.empty()) out += "\n";
        if (!fb.command.empty()) {
            Inline drawing;
            drawing.text("The drawing: ").code(fb.command).text(" writes it as SVG.");
            out += wrapped(inline_text(drawing), 0) + "\n\n";
        }
        return out;
    }

    std::string table(const TableBlock& t, const TablePlace& place) const override {
        const std::string c = caption_text(t);
        // A list-table needs a row under its header: a table without rows has its header as its
        // one row.
        std::string out = ".. list-table::" + (c.empty() ? std::string() : " " + wrapped(c, 3, 16)) +
                          (t.rows == 0 ? "\n   :header-rows: 0\n\n" : "\n   :header-rows: 1\n\n");
        const std::vector<std::string> headers = header_texts(t);
        const std::size_t columns = headers.size();
        const auto row = [&](const std::vector<std::string>& cells) {
            for (std::size_t i = 0; i < columns; ++i) {
                out += i == 0 ? "   * -" : "     -";
                if (i < cells.size() && !cells[i].empty()) out += " " + wrapped(cells[i], 7, 7);
                out += "\n";
            }
        };
        row(headers);
        each_row(t, place, row);
        out += "\n";
        std::string notes;
        for (const auto& n : t.notes) notes += wrapped(inline_text(n), 0) + "\n\n";
        return out + notes;
    }

  private:
    // A literal, which cannot begin or end with a space or hold a backquote: plain text then.
    static std::string literal(const std::string& text) {
        if (text.empty() || text.front() == ' ' || text.back() == ' ' || text.find('`') != std::string::npos)
            return rst_escape(text);
        return std::string{kBegin} + "``" + text + "``" + kEnd;
    }
    // Emphasis and strong text (which may hold no markup and no space at either end).
    static std::string marked(const char* open, const std::string& text, const char* close) {
        if (text.empty() || text.front() == ' ' || text.back() == ' ') return rst_escape(text);
        return std::string{kBegin} + open + rst_escape(text) + close + kEnd;
    }
};

}  // namespace

std::unique_ptr<Writer> rst_writer(const RenderOptions& options) { return std::make_unique<RstWriter>(options); }

}  // namespace exactattn::detail
