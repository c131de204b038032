// SPDX-License-Identifier: MIT
// exactattn: the structure of a manuscript's text as the binder reads it (layout.hpp).
#include "tools/manuscript/layout.hpp"

#include <algorithm>
#include <string_view>

#include "tools/manuscript/claims.hpp"
#include "tools/manuscript/marks.hpp"

namespace exactattn::manuscript::binding {

namespace {

// A section number at the start of a heading's text: "14.4 Give …" → "14.4".
std::string heading_number(const std::string& h) {
    std::size_t k = 0;
    while (k < h.size() && (h[k] == '#' || space(h[k]))) ++k;
    const std::size_t b = k;
    while (k < h.size() && (digit(h[k]) || h[k] == '.')) ++k;
    std::string n = h.substr(b, k - b);
    while (!n.empty() && n.back() == '.') n.pop_back();
    return n;
}

void find_math(const std::string& s, ManuscriptFormat format, Layout& L) {
    const bool latex = format == ManuscriptFormat::Latex;
    for (std::size_t k = 0; k < s.size(); ++k) {
        const char c = s[k];
        if (c == '\\' && k + 1 < s.size()) {
            if (latex && (s[k + 1] == '(' || s[k + 1] == '[')) {
                const std::string close = s[k + 1] == '(' ? "\\)" : "\\]";
                const std::size_t e = s.find(close, k + 2);
                if (e != std::string::npos) {
                    L.math.push_back({k, e + 2});
                    L.math_inner.push_back({k + 2, e});
                    k = e + 1;
                    continue;
                }
            }
            if (latex && s.compare(k, 7, "\\begin{") == 0) {
                const std::size_t ne = s.find('}', k + 7);
                if (ne != std::string::npos) {
                    const std::string env = s.substr(k + 7, ne - k - 7);
                    std::string base = env;
                    if (!base.empty() && base.back() == '*') base.pop_back();
                    if (base == "equation" || base == "align" || base == "gather" || base == "multline" ||
                        base == "displaymath" || base == "math" || base == "eqnarray") {
                        const std::string close = "\\end{" + env + "}";
                        const std::size_t e = s.find(close, ne);
                        if (e != std::string::npos) {
                            L.math.push_back({k, e + close.size()});
                            L.math_inner.push_back({ne + 1, e});
                            k = e + close.size() - 1;
                            continue;
                        }
                    }
                }
            }
            ++k;  // an escaped character
            continue;
        }
        if (c != '$') continue;
        if (k + 1 < s.size() && s[k + 1] == '$') {
            const std::size_t e = s.find("$$", k + 2);
            if (e == std::string::npos) break;
            L.math.push_back({k, e + 2});
            L.math_inner.push_back({k + 2, e});
            k = e + 1;
            continue;
        }
        if (k + 1 >= s.size() || space(s[k + 1])) continue;
        std::size_t e = k + 1;
        const std::size_t limit = std::min(s.size(), k + 4000);
        bool found = false;
        for (; e < limit; ++e) {
            if (s[e] == '\\') {
                ++e;
                continue;
            }
            if (s[e] == '\n' && e + 1 < s.size() && s[e + 1] == '\n') break;
            if (s[e] == '$' && !space(s[e - 1]) && (latex || e + 1 >= s.size() || !digit(s[e + 1]))) {
                found = true;
                break;
            }
        }
        if (!found) continue;
        L.math.push_back({k, e + 1});
        L.math_inner.push_back({k + 1, e});
        k = e;
    }
}

std::vector<std::string> split_cells(const std::string& line, char sep, std::vector<std::size_t>& starts) {
    std::vector<std::string> out;
    std::size_t from = 0;
    int depth = 0;
    bool in_math = false;
    for (std::size_t k = 0; k <= line.size(); ++k) {
        const char c = k < line.size() ? line[k] : sep;
        if (k < line.size() && c == '\\' && k + 1 < line.size()) {
            ++k;
            continue;
        }
        if (c == '$') in_math = !in_math;
        if (c == '{') ++depth;
        if (c == '}') --depth;
        if (c == sep && depth <= 0 && !in_math) {
            out.push_back(line.substr(from, k - from));
            starts.push_back(from);
            from = k + 1;
        }
    }
    return out;
}

void add_table_rows(const std::string& s, Table& t, const std::vector<Span>& rows, char sep, bool pipes) {
    int r = 0;
    for (const auto& row : rows) {
        std::string line = s.substr(row.b, row.e - row.b);
        std::vector<std::size_t> starts;
        auto cells = split_cells(line, sep, starts);
        if (pipes && !cells.empty()) {  // | a | b |: the empty ends are not cells
            cells.erase(cells.begin());
            starts.erase(starts.begin());
            if (!cells.empty() && trim(cells.back()).empty()) {
                cells.pop_back();
                starts.pop_back();
            }
        }
        bool rule = true;
        for (const auto& cell : cells) {
            if (cell.find_first_not_of(" -:|\t") != std::string::npos) rule = false;
        }
        if (rule) continue;
        for (std::size_t col = 0; col < cells.size(); ++col) {
            std::size_t b = row.b + starts[col];
            std::size_t e = b + cells[col].size();
            while (b < e && space(s[b])) ++b;
            while (e > b && space(s[e - 1])) --e;
            const std::string text = lower(s.substr(b, e - b));
            if (r == 0) {
                t.headers.push_back(text);
            } else {
                if (col == 0)
                    t.row_heads.resize(static_cast<std::size_t>(r) + 1),
                        t.row_heads[static_cast<std::size_t>(r)] = text;
                t.cells.push_back({b, e, r, static_cast<int>(col)});
            }
        }
        ++r;
    }
}

// The caption of a table: the paragraph just before it, and what follows it up to a blank line
// when that is a caption (`: …`, `Table: …`, `\caption`).
std::string caption_around(const std::string& s, std::size_t b, std::size_t e) {
    std::string out;
    std::size_t k = b;
    while (k > 0 && space(s[k - 1])) --k;
    const std::size_t pe = k;
    std::size_t pb = pe;
    while (pb > 0 && pe - pb < 600 && !(s[pb - 1] == '\n' && pb >= 2 && s[pb - 2] == '\n')) --pb;
    if (pe - pb < 600) out += s.substr(pb, pe - pb);
    std::size_t a = e;
    while (a < s.size() && space(s[a])) ++a;
    std::size_t ae = a;
    while (ae < s.size() && ae - a < 600 && !(s[ae] == '\n' && ae + 1 < s.size() && s[ae + 1] == '\n')) ++ae;
    const std::string after = lower(s.substr(a, std::min<std::size_t>(ae - a, 600)));
    if (after.starts_with(":") || after.starts_with("table") || after.find("\\caption") != std::string::npos)
        out += " " + after;
    return lower(out);
}

// Markdown's pipe tables: runs of two or more lines that start with `|`.
void markdown_tables(const std::string& s, Layout& L) {
    std::size_t k = 0;
    while (k < s.size()) {
        std::vector<Span> rows;
        std::size_t b = k;
        while (k < s.size()) {
            const std::size_t e = line_end(s, k);
            std::size_t w = k;
            while (w < e && (s[w] == ' ' || s[w] == '\t')) ++w;
            if (w < e && s[w] == '|') {
                rows.push_back({w, e});
                k = e + 1;
            } else {
                if (rows.empty()) b = e + 1;
                if (!rows.empty()) break;
                k = e + 1;
            }
        }
        if (rows.size() >= 2) {
            Table t;
            t.whole = {rows.front().b, rows.back().e};
            add_table_rows(s, t, rows, '|', true);
            t.caption = caption_around(s, rows.front().b, rows.back().e);
            L.tables.push_back(std::move(t));
        }
        (void)b;
    }
}

// LaTeX's tabulars, their rules blanked, their caption the table environment around them.
void latex_tables(const std::string& s, Layout& L) {
    std::string copy;
    for (std::size_t k = s.find("\\begin{tabular"); k != std::string::npos; k = s.find("\\begin{tabular", k + 1)) {
        const std::size_t end = s.find("\\end{tabular", k);
        if (end == std::string::npos) break;
        std::size_t body = s.find('}', k);  // \begin{tabular}
        if (body == std::string::npos || body > end) continue;
        ++body;
        while (body < end && (s[body] == '{' || s[body] == '[')) {  // {lll}, [t]
            const char close = s[body] == '{' ? '}' : ']';
            int depth = 0;
            for (; body < end; ++body) {
                if (s[body] == '{' || s[body] == '[') ++depth;
                if (s[body] == '}' || s[body] == ']') {
                    if (--depth == 0 && s[body] == close) {
                        ++body;
                        break;
                    }
                }
            }
        }
        std::vector<Span> rows;
        std::size_t from = body;
        for (std::size_t p = body; p <= end; ++p) {
            if (p == end || (s[p] == '\\' && p + 1 < end && s[p + 1] == '\\')) {
                rows.push_back({from, p});
                from = p + 2;
                ++p;
            } else if (s[p] == '\\') {
                ++p;
            }
        }
        Table t;
        t.whole = {k, end};
        if (copy.empty()) copy = s;  // rules are not cells (one copy for all the tabulars)
        for (const std::string_view rule : {"\\toprule", "\\midrule", "\\bottomrule", "\\hline"}) {
            const std::string_view in = std::string_view(copy).substr(0, end);
            for (std::size_t p = in.find(rule, body); p != std::string::npos; p = in.find(rule, p + 1))
                blank(copy, p, p + rule.size());
        }
        std::vector<Span> kept;
        for (const auto& r : rows) {
            if (!blank_line(copy, r.b, r.e)) kept.push_back(r);
        }
        add_table_rows(copy, t, kept, '&', false);
        // The caption: the table environment around the tabular.
        // (Searched within 2000 bytes: a search to the ends of the text would read it once a tabular.)
        const std::size_t near_from = k > 2000 ? k - 2000 : 0;
        std::size_t env = std::string_view(s).substr(near_from, k - near_from).rfind("\\begin{table");
        if (env != std::string::npos) env += near_from;
        const std::size_t env_end =
            std::string_view(s).substr(0, std::min(s.size(), end + 2000)).find("\\end{table", end + 1);
        std::string cap;
        if (env != std::string::npos && k - env < 2000) cap += s.substr(env, k - env);
        if (env_end != std::string::npos && env_end - end < 2000) cap += " " + s.substr(end, env_end - end);
        if (cap.empty()) cap = caption_around(s, k, end);
        t.caption = lower(cap);
        L.tables.push_back(std::move(t));
    }
}

void find_tables(const std::string& s, ManuscriptFormat format, Layout& L) {
    if (format == ManuscriptFormat::Markdown) {
        markdown_tables(s, L);
        return;
    }
    latex_tables(s, L);
}

bool heading_line(const std::string& s, std::size_t b, std::size_t e, ManuscriptFormat format) {
    if (format == ManuscriptFormat::Markdown) return b < e && s[b] == '#';
    return s.compare(b, 9, "\\section{") == 0 || s.compare(b, 10, "\\section*{") == 0 ||
           s.compare(b, 12, "\\subsection{") == 0 || s.compare(b, 9, "\\chapter{") == 0 ||
           s.compare(b, 10, "\\chapter*{") == 0 || s.compare(b, 13, "\\subsection*{") == 0;
}

// Paragraphs, sections, list items and table rows, line by line.
void scan_lines(const std::string& s, ManuscriptFormat format, Layout& L) {
    std::size_t prev_blank = true;
    int enumerate_count = 0;
    for (std::size_t k = 0; k < s.size();) {
        const std::size_t e = line_end(s, k);
        std::size_t w = k;
        while (w < e && (s[w] == ' ' || s[w] == '\t')) ++w;
        const bool is_blank = w == e;
        if (is_blank) {
            prev_blank = true;
        } else {
            if (prev_blank) {
                L.paragraph_starts.push_back(w);
                L.sentence_starts.push_back(w);
            }
            prev_blank = false;
            const bool heading = heading_line(s, w, e, format);
            if (heading) {
                Section sec;
                sec.b = w;
                std::string h = s.substr(w, e - w);
                if (format == ManuscriptFormat::Latex) {
                    const std::size_t ob = h.find('{');
                    h = ob == std::string::npos ? h : h.substr(ob + 1);
                }
                sec.heading = lower(h);
                sec.number = heading_number(h);
                L.sections.push_back(sec);
                L.paragraph_starts.push_back(w);
                L.sentence_starts.push_back(w);
                L.sentence_starts.push_back(e);
                L.paragraph_starts.push_back(e);
            }
            // List items: `1. `, `2) `, `\item`; table rows are sentences.
            std::size_t d = w;
            while (d < e && digit(s[d])) ++d;
            if (d > w && d + 1 < e && (s[d] == '.' || s[d] == ')') && s[d + 1] == ' ') {
                L.list_items.emplace_back(w, s.substr(w, d - w));
                L.sentence_starts.push_back(w);
                L.paragraph_starts.push_back(w);
            } else {
                // \item of an enumerate: its number counts the items since \begin{enumerate}.
                const std::string line = s.substr(w, e - w);
                if (line.find("\\begin{enumerate}") != std::string::npos) enumerate_count = 0;
                const std::size_t item = line.find("\\item");
                if (item != std::string::npos &&
                    (item == 0 || line.substr(0, item).find("\\begin{") != std::string::npos)) {
                    ++enumerate_count;
                    L.list_items.emplace_back(w + item, std::to_string(enumerate_count));
                    L.sentence_starts.push_back(w + item);
                    L.paragraph_starts.push_back(w + item);
                }
            }
            if (s[w] == '|') L.sentence_starts.push_back(w);
        }
        k = e + 1;
    }
}

// Sentence ends: `. ` `? ` `! ` (not a decimal point), `\\` rows of a tabular.
// Then the cells' ends; none inside math; in text order.
void sentence_ends(const std::string& s, Layout& L) {
    for (std::size_t k = 1; k + 1 < s.size(); ++k) {
        if ((s[k] == '.' || s[k] == '?' || s[k] == '!') && space(s[k + 1]) && !digit(s[k - 1])) {
            L.sentence_starts.push_back(k + 1);
        } else if ((s[k] == '.' || s[k] == '?' || s[k] == '!') && space(s[k + 1]) && digit(s[k - 1])) {
            // "… is 4. The next" ends a sentence; "14.2 Give" does not start with a space after.
            L.sentence_starts.push_back(k + 1);
        }
    }
    for (const auto& t : L.tables) {
        for (const auto& c : t.cells) {
            L.sentence_starts.push_back(c.b);
            L.sentence_starts.push_back(c.e);
        }
    }
    // A sentence end inside math is none ($x = 1. y$ is rare; a "." in math is a decimal).
    std::sort(L.sentence_starts.begin(), L.sentence_starts.end());
    L.sentence_starts.erase(std::unique(L.sentence_starts.begin(), L.sentence_starts.end()), L.sentence_starts.end());
    std::vector<std::size_t> kept;
    std::size_t m = 0;
    for (const std::size_t st : L.sentence_starts) {
        while (m < L.math.size() && L.math[m].e <= st) ++m;
        if (m < L.math.size() && L.math[m].b < st && st < L.math[m].e) continue;
        kept.push_back(st);
    }
    L.sentence_starts = std::move(kept);
}

}  // namespace

Layout layout_of(const std::string& s, ManuscriptFormat format) {
    Layout L;
    find_math(s, format, L);
    find_tables(s, format, L);
    L.paragraph_starts.push_back(0);
    L.sentence_starts.push_back(0);
    scan_lines(s, format, L);
    sentence_ends(s, L);
    std::sort(L.paragraph_starts.begin(), L.paragraph_starts.end());
    return L;
}

Span around(const std::vector<std::size_t>& starts, std::size_t k, std::size_t size) {
    auto it = std::upper_bound(starts.begin(), starts.end(), k);
    const std::size_t b = it == starts.begin() ? 0 : *(it - 1);
    const std::size_t e = it == starts.end() ? size : *it;
    return {b, e};
}

}  // namespace exactattn::manuscript::binding
