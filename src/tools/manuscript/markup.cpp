// SPDX-License-Identifier: MIT
// exactattn: the markup of a manuscript whose numbers are no claims (markup.hpp).
#include "tools/manuscript/markup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <string_view>

#include "tools/manuscript/bind_text.hpp"
#include "tools/manuscript/marks.hpp"

namespace exactattn::manuscript::binding {

namespace {

// The HTML elements whose tags a Markdown manuscript may hold raw (pandoc passes them through).
bool html_tag_name(std::string_view name) {
    static constexpr std::string_view kNames =
        " a abbr article aside audio b blockquote body br button canvas caption center cite code "
        "col colgroup dd del details div dl dt em embed figcaption figure font footer h1 h2 h3 h4 "
        "h5 h6 head header hr html i iframe img input ins kbd label li link main mark math meta nav "
        "noscript object ol p path pre q s samp script section small source span strong style sub "
        "summary sup svg table tbody td template tfoot th thead title tr u ul var video wbr ";
    if (name.empty() || name.size() > 16) return false;
    const std::string word = " " + std::string(name) + " ";
    return kNames.find(word) != std::string_view::npos;
}

// A length in TeX (`2pt`, `0.45\textwidth`, `1.5em`) at [b, e): the unit after the number.
bool tex_length_after(const std::string& s, std::size_t e) {
    static const std::array<std::string_view, 15> units{"pt",
                                                        "em",
                                                        "ex",
                                                        "cm",
                                                        "mm",
                                                        "in",
                                                        "bp",
                                                        "pc",
                                                        "sp",
                                                        "mu",
                                                        "\\textwidth",
                                                        "\\linewidth",
                                                        "\\columnwidth",
                                                        "\\textheight",
                                                        "\\baselineskip"};
    for (const auto u : units) {
        if (s.compare(e, u.size(), u) != 0) continue;
        const std::size_t r = e + u.size();
        if (r >= s.size() || !alpha(s[r])) return true;
    }
    return false;
}

// A pandoc attribute at k (`{#sec-1}`, `{.class}`, `{width=50%}`): recorded, k at its end.
bool pandoc_attribute_at(const std::string& s, std::size_t& k, std::vector<Blanked>& out) {
    if (s[k] == '{' && k + 1 < s.size() && (s[k + 1] == '#' || s[k + 1] == '.' || s[k + 1] == '-')) {
        const std::size_t e = std::string_view(s).substr(0, std::min(s.size(), k + 2000)).find('}', k);
        if (e != std::string::npos && std::string_view(s).substr(k, e - k).find('\n') == std::string::npos) {
            out.push_back({k, e + 1, "a pandoc attribute"});
            k = e;
            return true;
        }
    }
    if (s[k] == '{') {  // {width=50%}
        const std::size_t e = std::string_view(s).substr(0, std::min(s.size(), k + 200)).find('}', k);
        if (e != std::string::npos && std::string_view(s).substr(k, e - k).find('\n') == std::string::npos) {
            const std::string body = s.substr(k + 1, e - k - 1);
            if (body.find('=') != std::string::npos && body.find('$') == std::string::npos &&
                body.find('[') == std::string::npos && !body.empty() && alpha(body[0])) {
                out.push_back({k, e + 1, "a pandoc attribute"});
                k = e;
                return true;
            }
        }
    }
    return false;
}

// Raw HTML: a tag with its attributes (`<img width="50">`, `</td>`), the whole of a
// <script> or <style> element, the index of a <sub>, an entity (`&#8212;`).
// At k, a '<' with a character after it: whether it starts raw HTML or an autolink (recorded,
// k at its end).
bool raw_html_at(const std::string& s, const std::string& low, std::size_t& k,
                 std::map<std::string, std::size_t>& next_close, std::vector<Blanked>& out) {
    const std::size_t nb = k + (s[k + 1] == '/' ? 2 : 1);
    std::size_t ne = nb;
    while (ne < s.size() && (alpha(s[ne]) || (ne > nb && digit(s[ne])))) ++ne;
    const std::string name = lower(s.substr(nb, ne - nb));
    const bool tag_end = ne < s.size() && (s[ne] == '>' || s[ne] == '/' || space(s[ne]));
    if (ne > nb && tag_end && html_tag_name(name)) {
        const std::size_t gt = std::string_view(s).substr(0, std::min(s.size(), k + 4000)).find('>', ne);
        if (gt != std::string::npos) {
            std::size_t e = gt + 1;
            const bool opening = s[k + 1] != '/' && s[gt - 1] != '/';
            std::string why = "raw HTML";
            if (opening && (name == "script" || name == "style" || name == "sub")) {
                // The element's content too: code, a style sheet, an index.
                // The next closing tag, found once per name and kept while it lies
                // ahead (a megabyte of unclosed <sub> is read once, not once a tag).
                std::size_t& c = next_close[name];
                if (c != std::string::npos && c < e) c = low.find("</" + name, e);
                if (c != std::string::npos) {
                    const std::size_t ce = s.find('>', c);
                    e = ce == std::string::npos ? s.size() : ce + 1;
                    why = name == "sub" ? "an index (<sub>)" : fmt::format("raw HTML (<{}>)", name);
                }
            }
            out.push_back({k, e, why});
            k = e - 1;
            return true;
        }
    }
    if (s.compare(k + 1, 4, "http") == 0 || s.compare(k + 1, 7, "mailto:") == 0) {  // an autolink
        const std::size_t gt = s.find('>', k);
        if (gt != std::string::npos && std::string_view(s).substr(k, gt - k).find('\n') == std::string::npos) {
            out.push_back({k, gt + 1, "a URL"});
            k = gt;
            return true;
        }
    }
    return false;
}

// URLs, and in Markdown pandoc attributes, raw HTML, HTML entities, cross-references and citations.
void markdown_markup(const std::string& s, ManuscriptFormat format, std::vector<Blanked>& out) {
    const bool markdown = format == ManuscriptFormat::Markdown;
    const std::string low = markdown ? lower(s) : std::string();
    std::map<std::string, std::size_t> next_close;  // element name → offset of its next closing tag
    for (std::size_t k = 0; k < s.size(); ++k) {
        // A URL, to the first space or closing bracket: its digits are a path's.
        if ((s.compare(k, 7, "http://") == 0 || s.compare(k, 8, "https://") == 0) && (k == 0 || !alpha(s[k - 1]))) {
            std::size_t e = k;
            while (e < s.size() && !space(s[e]) && s[e] != ')' && s[e] != '>' && s[e] != '}' && s[e] != '"' &&
                   e - k < 2000)
                ++e;
            out.push_back({k, e, "a URL"});
            k = e - 1;
            continue;
        }
        if (!markdown) continue;
        if (pandoc_attribute_at(s, k, out)) continue;
        if (s[k] == '<' && k + 1 < s.size() && raw_html_at(s, low, k, next_close, out)) continue;
        if (s[k] == '&' && k + 2 < s.size() && s[k + 1] == '#') {
            std::size_t e = k + 2;
            if (e < s.size() && (s[e] == 'x' || s[e] == 'X')) ++e;
            while (e < s.size() && std::isxdigit(static_cast<unsigned char>(s[e])) != 0 && e - k < 12) ++e;
            if (e < s.size() && s[e] == ';') {
                out.push_back({k, e + 1, "an HTML entity"});
                k = e;
                continue;
            }
        }
        if (s[k] == '@' && k + 1 < s.size() && (alpha(s[k + 1]) || s[k + 1] == '{') && (k == 0 || !alpha(s[k - 1]))) {
            std::size_t e = k + 1;
            while (e < s.size() && (alpha(s[e]) || digit(s[e]) || s[e] == '-' || s[e] == '_' || s[e] == ':' ||
                                    (s[e] == '.' && e + 1 < s.size() && (alpha(s[e + 1]) || digit(s[e + 1])))))
                ++e;
            out.push_back({k, e, "a cross-reference or citation"});
            k = e;
        }
    }
}

// TeX commands whose arguments are names, lengths or counters, not claims (and the number
// of arguments taken; LaTeX's headings are kept for their words). Markdown holds TeX in its
// math (`\tag{14.3}`, `\label{eq:1}`) and in raw blocks.
struct Command {
    std::string_view name;
    int args;
};

const std::array<Command, 47>& no_claim_commands() {
    static const std::array<Command, 47> commands{{
        {"label", 1},
        {"ref", 1},
        {"eqref", 1},
        {"cref", 1},
        {"Cref", 1},
        {"autoref", 1},
        {"pageref", 1},
        {"cite", 1},
        {"citep", 1},
        {"citet", 1},
        {"parencite", 1},
        {"textcite", 1},
        {"tag", 1},
        {"setcounter", 2},
        {"addtocounter", 2},
        {"includegraphics", 1},
        {"vspace", 1},
        {"hspace", 1},
        {"url", 1},
        {"href", 1},
        {"input", 1},
        {"include", 1},
        {"section", 1},
        {"subsection", 1},
        {"chapter", 1},
        {"usepackage", 1},
        {"RequirePackage", 1},
        {"documentclass", 1},
        {"setlength", 2},
        {"addtolength", 2},
        {"newcommand", 3},
        {"renewcommand", 3},
        {"providecommand", 3},
        {"newenvironment", 3},
        {"DeclareMathOperator", 2},
        {"hypersetup", 1},
        {"geometry", 1},
        {"bibliography", 1},
        {"bibliographystyle", 1},
        {"graphicspath", 1},
        {"rule", 2},
        {"raisebox", 1},
        {"resizebox", 2},
        {"scalebox", 1},
        {"textcolor", 1},
        {"color", 1},
        {"colorbox", 1},
    }};
    return commands;
}

void tex_command_markup(const std::string& s, ManuscriptFormat format, std::vector<Blanked>& out) {
    const bool markdown = format == ManuscriptFormat::Markdown;
    const auto& commands = no_claim_commands();
    for (std::size_t k = s.find('\\'); k != std::string::npos; k = s.find('\\', k + 1)) {
        std::size_t n = k + 1;
        while (n < s.size() && alpha(s[n])) ++n;
        const std::string_view name = std::string_view(s).substr(k + 1, n - k - 1);
        const auto cmd =
            std::find_if(commands.begin(), commands.end(), [&](const Command& c) { return c.name == name; });
        if (cmd == commands.end()) {
            if (!markdown && name == "begin") {  // \begin{tabular}{lll}: the column specification
                const std::size_t e = s.find('}', n);
                if (e != std::string::npos && e + 1 < s.size() && s[e + 1] == '{') {
                    const std::size_t g = brace_group_end(s, e + 1);
                    if (g != std::string::npos) out.push_back({e + 1, g, "a column specification"});
                }
            }
            continue;
        }
        const bool section = name == "section" || name == "subsection" || name == "chapter";
        if (markdown && section) continue;
        std::size_t e = n;
        if (e < s.size() && s[e] == '*') ++e;
        for (int args = 0; args < cmd->args + 2 && e < s.size() && (s[e] == '{' || s[e] == '['); ++args) {
            if (s[e] == '[') {  // options, not counted
                const std::size_t c = std::string_view(s).substr(0, std::min(s.size(), e + 2000)).find(']', e);
                if (c == std::string::npos) break;
                e = c + 1;
                --args;
                continue;
            }
            if (args >= cmd->args) break;
            const std::size_t g = brace_group_end(s, e);
            if (g == std::string::npos) break;
            e = g;
        }
        out.push_back({k, e, section ? "a heading" : fmt::format("an argument of \\{}", name)});
        k = e - 1;
    }
}

// Lengths: 2pt, 0.45\textwidth, \\[3mm].
void length_markup(const std::string& s, std::vector<Blanked>& out) {
    for (std::size_t k = 0; k < s.size(); ++k) {
        if (!digit(s[k]) || (k > 0 && (digit(s[k - 1]) || s[k - 1] == '.' || alpha(s[k - 1])))) continue;
        std::size_t e = k;
        while (e < s.size() && (digit(s[e]) || (s[e] == '.' && e + 1 < s.size() && digit(s[e + 1])))) ++e;
        if (tex_length_after(s, e)) {
            std::size_t u = e;
            if (s[u] == '\\') ++u;
            while (u < s.size() && alpha(s[u])) ++u;
            out.push_back({k, u, "a length"});
        }
        k = e - 1;
    }
}

// In text order, overlaps merged (`\url{http://…}` is one span, its digits listed once).
std::vector<Blanked> merged_spans(std::vector<Blanked> out) {
    std::sort(out.begin(), out.end(), [](const Blanked& x, const Blanked& y) { return x.b < y.b; });
    std::vector<Blanked> merged;
    for (auto& x : out) {
        if (!merged.empty() && x.b < merged.back().e && x.why != "a heading" && merged.back().why != "a heading") {
            merged.back().e = std::max(merged.back().e, x.e);
            continue;
        }
        merged.push_back(std::move(x));
    }
    return merged;
}

}  // namespace

// Pandoc attributes, cross-references and citations, raw HTML, URLs, TeX commands whose
// arguments are no claims and TeX lengths: blanked, each number inside recorded as not a claim.
std::vector<Blanked> markup(std::string& s, ManuscriptFormat format) {
    std::vector<Blanked> out;
    markdown_markup(s, format, out);
    tex_command_markup(s, format, out);
    length_markup(s, out);
    out = merged_spans(std::move(out));
    for (const auto& x : out) {
        if (x.why == "a heading") continue;  // a heading's words stay for the cues; its number is excluded below
        blank(s, x.b, x.e);
    }
    return out;
}

}  // namespace exactattn::manuscript::binding
