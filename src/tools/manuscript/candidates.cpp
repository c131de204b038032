// SPDX-License-Identifier: MIT
// exactattn: the candidates of an unmarked manuscript (candidates.hpp).
#include "tools/manuscript/candidates.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tools/manuscript/claims.hpp"
#include "tools/manuscript/cue_words.hpp"
#include "tools/manuscript/quantities.hpp"

namespace exactattn::manuscript::binding {

namespace {

// Spans, tables and cells are in text order: found by binary search, not a scan a number.
int inside(const std::vector<Span>& v, std::size_t k) {
    const auto it = std::upper_bound(v.begin(), v.end(), k, [](std::size_t x, const Span& sp) { return x < sp.b; });
    if (it == v.begin() || !((it - 1)->b <= k && k < (it - 1)->e)) return -1;
    return static_cast<int>(it - 1 - v.begin());
}

// Environment names and alignment marks are no part of a value; a formula's body split at
// \qquad, \quad, a top-level `\text{and}` and `\\` not followed by a relation (a matrix
// environment is one value: its rows' `\\` are inside it).
std::vector<Span> split_statements(std::string& body) {
    std::vector<Span> stmts;
    std::size_t from = 0;
    int depth = 0;
    for (std::size_t k = 0; k <= body.size(); ++k) {
        bool cut = k == body.size();
        std::size_t skip = 0;
        if (!cut) {
            const char ch = body[k];
            if (ch == '{' || ch == '[' || ch == '(') ++depth;
            if (ch == '}' || ch == ']' || ch == ')') --depth;
            // A matrix environment is one value: its rows' `\\` are inside it.
            if (body.compare(k, 7, "\\begin{") == 0 || body.compare(k, 5, "\\end{") == 0) {
                const std::size_t g = body.find('}', k);
                if (g != std::string::npos && body.compare(g - 6, 6, "matrix") == 0) {
                    depth += body[k + 1] == 'b' ? 1 : -1;
                    k = g;
                    continue;
                }
            }
            if (depth == 0 && body.compare(k, 6, "\\qquad") == 0)
                cut = true, skip = 6;
            else if (depth == 0 && body.compare(k, 5, "\\quad") == 0)
                cut = true, skip = 5;
            else if (depth == 0 && body.compare(k, 2, "\\\\") == 0) {
                std::size_t n = k + 2;
                while (n < body.size() && space(body[n])) ++n;
                const bool relation = n < body.size() && (body[n] == '=' || body.compare(n, 7, "\\approx") == 0);
                if (relation) {
                    body[k] = body[k + 1] = ' ';
                } else {
                    cut = true;
                    skip = 2;
                }
            } else if (depth == 0 && body.compare(k, 6, "\\text{") == 0) {
                const std::size_t g = brace_group_end(body, k + 5);
                const std::string word = g == std::string::npos ? "" : lower(body.substr(k + 6, g - k - 7));
                if (word.find("and") != std::string::npos || word.find("so") != std::string::npos ||
                    word.find("for") != std::string::npos) {
                    cut = true;
                    skip = g - k;
                }
            }
        }
        if (cut) {
            stmts.push_back({from, k});
            from = k + skip;
            if (skip > 0) k += skip - 1;
        }
    }
    return stmts;
}

// The statements of a formula that are numeric, trimmed, with their shapes.
std::vector<std::pair<Span, StatementShape>> numeric_statements(const std::string& body,
                                                                const std::vector<Span>& stmts) {
    std::vector<std::pair<Span, StatementShape>> numeric;
    for (auto st : stmts) {
        while (st.b < st.e && (space(body[st.b]) || body[st.b] == ',')) ++st.b;
        while (st.e > st.b &&
               (space(body[st.e - 1]) || body[st.e - 1] == ',' || body[st.e - 1] == '.' || body[st.e - 1] == ';'))
            --st.e;
        if (st.e <= st.b) continue;
        const std::string text = body.substr(st.b, st.e - st.b);
        if (text.find_first_of("0123456789a½¼¾⅓") == std::string::npos) continue;
        const StatementShape shape = statement_shape(plain_notation(text));
        if (shape.numeric) numeric.emplace_back(st, shape);
    }
    return numeric;
}

// The candidates of a text, found kind by kind (math, cells, prose), then judged for what is
// no claim and placed in their lists.
class CandidateScan {
  public:
    CandidateScan(const Source& src, const std::string& s, const Binder& binder, const AuditOptions& options)
        : src(src), s(s), binder(binder), options(options), L(binder.layout()), covered(s.size() + 1, false) {}

    std::vector<Candidate> run() {
        math_candidates();
        cell_candidates();
        // Table headers are no claims.
        for (const auto& t : L.tables) {
            const std::size_t first_row_end = t.cells.empty() ? t.whole.e : line_end(s, t.whole.b);
            if (src.format == ManuscriptFormat::Markdown) cover(t.whole.b, first_row_end);
        }
        prose_candidates();
        not_claims();
        number_words();
        prose_lists();
        cands.insert(cands.end(), prose.begin(), prose.end());
        std::sort(cands.begin(), cands.end(), [](const Candidate& x, const Candidate& y) { return x.b < y.b; });
        math_lists();
        // Where each list starts: a position's label before a list is read against its first number.
        for (std::size_t i = 0; i < cands.size(); ++i) {
            auto& x = cands[i];
            x.list_b = x.list_index > 1 && i > 0 ? cands[i - 1].list_b : x.b;
        }
        return cands;
    }

  private:
    // The table and the cell that hold [b, e), or (-1, none).
    std::pair<int, const Cell*> cell_around(std::size_t b, std::size_t e) const {
        const auto t = std::upper_bound(L.tables.begin(), L.tables.end(), b,
                                        [](std::size_t x, const Table& tb) { return x < tb.whole.b; });
        if (t == L.tables.begin() || b >= (t - 1)->whole.e) return {-1, nullptr};
        const auto& cells = (t - 1)->cells;
        const auto c =
            std::upper_bound(cells.begin(), cells.end(), b, [](std::size_t x, const Cell& cl) { return x < cl.b; });
        if (c == cells.begin() || !((c - 1)->b <= b && e <= (c - 1)->e)) return {-1, nullptr};
        return {static_cast<int>(t - 1 - L.tables.begin()), &*(c - 1)};
    }
    void cover(std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e && i < covered.size(); ++i) covered[i] = true;
    }
    // The number of formulas inside [b, e).
    std::size_t formulas_in(std::size_t b, std::size_t e) const {
        const auto lo =
            std::lower_bound(L.math.begin(), L.math.end(), b, [](const Span& sp, std::size_t x) { return sp.b < x; });
        std::size_t n = 0;
        for (auto it = lo; it != L.math.end() && it->e <= e; ++it) ++n;
        return n;
    }
    // A formula's body as a value is read: its text, with the blanked parts blanked and the
    // environment names and alignment marks taken out.
    std::string math_body(const Span& in) const {
        std::string body = src.text.substr(in.b, in.e - in.b);
        for (std::size_t i = 0; i < body.size(); ++i) {
            if (s[in.b + i] == ' ' && src.text[in.b + i] != ' ' && src.text[in.b + i] != '\n') body[i] = ' ';
        }
        // Environment names and alignment marks are no part of a value.
        for (const char* env : {"\\begin{aligned}", "\\end{aligned}", "\\begin{align*}", "\\end{align*}",
                                "\\begin{split}", "\\end{split}", "\\begin{gathered}", "\\end{gathered}"}) {
            for (std::size_t p = body.find(env); p != std::string::npos; p = body.find(env, p + 1))
                blank(body, p, p + std::string_view(env).size());
        }
        // Alignment marks are no part of a value; a matrix environment's `&` separates its entries.
        {
            int env = 0;
            for (std::size_t k = 0; k < body.size(); ++k) {
                if (body.compare(k, 7, "\\begin{") == 0 || body.compare(k, 5, "\\end{") == 0) {
                    const std::size_t g = body.find('}', k);
                    if (g != std::string::npos && body.compare(g - 6, 6, "matrix") == 0)
                        env += body[k + 1] == 'b' ? 1 : -1;
                }
                if (body[k] == '&' && env == 0) body[k] = ' ';
            }
        }
        return body;
    }
    // Math: each statement of a formula.
    void math_candidates() {
        for (std::size_t mi = 0; mi < L.math.size(); ++mi) {
            const Span m = L.math[mi];
            const Span in = L.math_inner[mi];
            // A cell of several formulas (`$[0,a]$; $[0,0]$`, the rows of a matrix) is read whole
            // with the cells below, as in Markdown.
            if (const auto [t, cell] = cell_around(m.b, m.e); cell != nullptr && formulas_in(cell->b, cell->e) >= 2)
                continue;
            std::string body = math_body(in);
            std::vector<Span> stmts = split_statements(body);
            const std::vector<std::pair<Span, StatementShape>> numeric = numeric_statements(body, stmts);
            cover(m.b, m.e);
            for (const auto& [st, shape] : numeric) {
                Candidate c;
                c.kind = Kind::MathStatement;
                c.shape = shape;
                c.label = shape.label;
                c.table = -1;
                if (const auto [t, cell] = cell_around(m.b, m.e); cell != nullptr) {
                    c.table = t;
                    c.row = cell->row;
                    c.col = cell->col;
                    if (cell->col == 0) c.not_claim = "a table's row label";
                }
                if (numeric.size() == 1) {
                    c.b = m.b;
                    c.e = m.e;
                    // A formula that is a whole table cell is that cell.
                } else {
                    c.b = in.b + st.b;
                    c.e = in.b + st.e;
                    c.markable = false;
                }
                cands.push_back(c);
            }
        }
    }
    // Table cells: a cell that is one value is one claim.
    void cell_candidates() {
        for (std::size_t t = 0; t < L.tables.size(); ++t) {
            for (const auto& cell : L.tables[t].cells) {
                const int first = inside(L.math, cell.b);
                if (first >= 0 && inside(L.math, cell.e - 1) == first) continue;  // one formula: handled as math
                const std::string text = src.text.substr(cell.b, cell.e - cell.b);
                if (text.empty() || blank_line(s, cell.b, cell.e)) continue;
                if (cell.col == 0) {
                    cover(cell.b, cell.e);
                    if (text.find_first_of("0123456789") != std::string::npos) {
                        Candidate c;
                        c.b = cell.b;
                        c.e = cell.e;
                        c.not_claim = "a table's row label";
                        cands.push_back(c);
                    }
                    continue;
                }
                const std::string plain = plain_notation(text);
                const StatementShape shape = statement_shape(plain);
                const bool nullish = lower(trim(text)) == "—" || lower(trim(text)) == "none";
                if (!shape.numeric || nullish) continue;
                Candidate c;
                c.b = cell.b;
                c.e = cell.e;
                c.kind = Kind::Cell;
                c.shape = shape;
                c.label = shape.label;
                c.table = static_cast<int>(t);
                c.row = cell.row;
                c.col = cell.col;
                cover(cell.b, cell.e);
                cands.push_back(c);
            }
        }
    }
    // Where a number of the prose starts when `ln` stands before it: `ln 2` is one value (the
    // constant a), and `a = ln 2 ≈ 0.693147` one chain naming it, not `2 ≈ 0.693147`, whose own
    // arithmetic is false.
    [[nodiscard]] std::size_t ln_start(std::size_t k) const {
        std::size_t b = k;
        while (b > 0 && s[b - 1] == ' ') --b;
        if (b < 2 || s.compare(b - 2, 2, "ln") != 0 || (b > 2 && (alpha(s[b - 3]) || s[b - 3] == '\\'))) return k;
        b -= 2;
        std::size_t n = b;
        while (n > 0 && s[n - 1] == ' ') --n;
        if (n == 0 || s[n - 1] != '=' || covered[n - 1]) return b;
        --n;
        while (n > 0 && s[n - 1] == ' ') --n;
        if (n > 0 && s[n - 1] == 'a' && (n == 1 || !(alpha(s[n - 2]) || digit(s[n - 2])))) return n - 1;
        return b;
    }
    // Prose: vectors, numbers and chains, number words, a bare a.
    void prose_candidates() {
        for (std::size_t k = 0; k < s.size();) {
            if (covered[k]) {
                ++k;
                continue;
            }
            std::size_t e = k;
            if (s[k] == '[') e = vector_end(s, k);
            const bool starts = k == 0 || !(digit(s[k - 1]) || alpha(s[k - 1]) || s[k - 1] == '.' || s[k - 1] == '_' ||
                                            s[k - 1] == '^' || s[k - 1] == '\\');
            if (e == k && starts &&
                (digit(s[k]) || s.compare(k, 3, "−") == 0 || (s[k] == '-' && k + 1 < s.size() && digit(s[k + 1])) ||
                 vulgar_at(s, k) > 0 || (s[k] == 'a' && k + 2 < s.size() && s[k + 1] == '/') ||
                 (root_at(s, k) && k + 3 < s.size() && digit(s[k + 3])))) {
                e = number_end(s, k);
            }
            if (e == k && starts && s[k] == '(') e = paren_fraction_end(s, k);
            Candidate c;
            if (e > k) {
                e = chain_end(s, e);
                c.b = ln_start(k);
                c.e = e;
                c.kind = Kind::Prose;
            } else if (starts && alpha(s[k])) {
                std::size_t we = k;
                while (we < s.size() && alpha(s[we])) ++we;
                const std::string w = lower(s.substr(k, we - k));
                const bool number_word = std::find(kNumberWords.begin(), kNumberWords.end(), w) != kNumberWords.end();
                const std::string prev = word_before_at(s, k);
                // "a" as a value: after a verb or `to` before punctuation ("the score is a."), or
                // before "against" ("scores a against the key of elm": never the article there).
                // Or the last of a list of numbers ("its scores are a/2, a/2 and a").
                auto ends_a_list = [&] {
                    if (prev != "and" && prev != "or") return false;
                    std::size_t j = k;
                    while (j > 0 && s[j - 1] == ' ') --j;
                    j -= std::min(j, prev.size());
                    while (j > 0 && (s[j - 1] == ' ' || s[j - 1] == ',')) --j;
                    return j > 0 && (digit(s[j - 1]) || s[j - 1] == ')' || s[j - 1] == ']');
                };
                // Before a conjunction ("at a and the other two at 0") it is never the article.
                auto conjunction_after = [&] {
                    for (std::string_view cj : {" and ", " or ", " while ", " whereas ", " but "}) {
                        if (s.compare(we, cj.size(), cj) == 0) return true;
                    }
                    return false;
                };
                if (w == "a" && we < s.size() &&
                    (((s[we] == ',' || s[we] == '.' || s[we] == ';' || s[we] == ')' || conjunction_after()) &&
                      (prev == "is" || prev == "are" || prev == "at" || prev == "to" || prev == "equal" ||
                       prev == "equals" || prev == "be" || prev == "remains" || prev == "gives" || ends_a_list())) ||
                     s.compare(we, 9, " against ") == 0)) {
                    c.b = k;
                    c.e = we;
                    c.kind = Kind::Prose;
                } else if (number_word && w != "one" && w != "zero") {
                    c.b = k;
                    c.e = we;
                    c.kind = Kind::Word;
                } else {
                    k = we;
                    continue;
                }
            } else {
                ++k;
                continue;
            }
            k = std::max(c.e, k + 1);
            const std::string text = src.text.substr(c.b, c.e - c.b);
            c.shape = statement_shape(plain_notation(text));
            if (!c.shape.numeric && c.kind != Kind::Word) {
                c.not_claim = "";  // judged below: it cannot be read
            }
            if (const auto [t, cell] = cell_around(c.b, c.e); cell != nullptr) {
                c.table = t;
                c.row = cell->row;
                c.col = cell->col;
                c.markable = cell->b == c.b && cell->e == c.e;
            }
            prose.push_back(c);
        }
    }
    // Whether a unit of a count (`bytes`, `dot products`, unit_cues) follows the number ending at e.
    [[nodiscard]] bool unit_after(std::size_t e) const {
        while (e < s.size() && s[e] == ' ') ++e;
        for (const auto& uc : unit_cues()) {
            if (s.compare(e, uc.stem.size(), uc.stem) != 0) continue;
            std::size_t r = e + uc.stem.size();
            if (r < s.size() && s[r] == 's') ++r;
            if (r >= s.size() || !alpha(s[r])) return true;
        }
        return false;
    }
    // Not claims: references, years, list numbers, headings, labels, names.
    void not_claims() {
        // The start of every line, found once: a search back from each number would read a long
        // line once a number (quadratic on a megabyte written on one line).
        std::vector<std::size_t> line_starts{0};
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '\n') line_starts.push_back(i + 1);
        }
        for (auto& c : prose) {
            const std::string text = s.substr(c.b, c.e - c.b);
            // Digits alone (a year, a list item's number: 2024, 3), and digits and dots (what a
            // reference, a label or a heading numbers: 14, 14.1, 14.1.2).
            const bool digits_only = text.find_first_not_of("0123456789") == std::string::npos;
            const bool dotted_digits = text.find_first_not_of("0123456789.") == std::string::npos;
            const std::size_t line_b = *(std::upper_bound(line_starts.begin(), line_starts.end(), c.b) - 1);
            std::size_t w = line_b;
            while (w < c.b && (s[w] == ' ' || s[w] == '\t')) ++w;
            const bool first_on_line = w == c.b;
            const bool glued_after = c.e < s.size() && (alpha(s[c.e]) || s[c.e] == '_' || s[c.e] == '/' ||
                                                        (s[c.e] == '-' && c.e + 1 < s.size() && alpha(s[c.e + 1])));
            const bool glued_before = c.b > 0 && (s[c.b - 1] == '-' && c.b > 1 && alpha(s[c.b - 2]));
            if (c.kind == Kind::Word) {
                // A number word counts only beside a quantity's name: "twelve dot products",
                // "the denominator becomes three".
                continue;
            }
            if (glued_after || glued_before) {
                c.not_claim = "part of a name or path";
            } else if (options.ignore_years && text.size() == 4 && digits_only &&
                       (text.starts_with("1") || text.starts_with("20")) &&  // 2024, not 14.1 or 12.5
                       !unit_after(c.e)) {                                   // 1600 bytes is a count
                c.not_claim = "a year";
            } else if (options.ignore_lists && first_on_line && c.e < s.size() && (s[c.e] == '.' || s[c.e] == ')') &&
                       digits_only) {
                c.not_claim = "a list item's number";
            } else if (options.ignore_sections) {
                const std::string before = word_before_at(s, c.b);
                std::size_t p = c.b;
                while (p > 0 && s[p - 1] == ' ') --p;
                std::size_t q2 = p;
                while (q2 > 0 && std::isupper(static_cast<unsigned char>(s[q2 - 1]))) --q2;
                const Section* sec = binder.section_at(c.b);  // the heading line is the section's first
                const bool heading = sec != nullptr && c.b < line_end(s, sec->b);
                if (heading) {
                    c.not_claim = "a heading's number";
                } else if (dotted_digits && c.e + 1 < s.size() && s[c.e] == ':' && s[c.e + 1] == ' ') {
                    c.not_claim = "a label";
                } else if (dotted_digits && reference_word(before)) {
                    c.not_claim = fmt::format("a reference (after \"{}\")", before);
                } else if (dotted_digits && p - q2 >= 2 && p < c.b) {
                    c.not_claim = "the number of a name (after an abbreviation)";
                } else if (dotted_digits && c.b >= 3 && s.compare(c.b - 3, 3, "–") == 0) {
                    std::size_t r = c.b - 3;
                    while (r > 0 && (digit(s[r - 1]) || s[r - 1] == '.')) --r;
                    if (reference_word(word_before_at(s, r))) c.not_claim = "the end of a range of references";
                } else if (first_on_line && dotted_digits && text.find('.') != std::string::npos && c.e < s.size() &&
                           s[c.e] == ' ' && c.e + 1 < s.size() &&
                           std::isupper(static_cast<unsigned char>(s[c.e + 1]))) {
                    c.not_claim = "a heading's number";
                }
            }
            if (c.not_claim.empty() && options.ignore_citations && c.b > 0 && s[c.b - 1] == '(' && c.e < s.size() &&
                s[c.e] == ')' && word_before_at(s, c.b - 1) == "equation") {
                c.not_claim = "a citation";
            }
        }
    }
    // Number words beside a quantity's name: the unit after, or the name and a linking word before.
    void number_words() {
        for (auto& c : prose) {
            if (c.kind != Kind::Word) continue;
            bool named = false;
            std::string after = lower(s.substr(c.e, std::min<std::size_t>(40, s.size() - c.e)));
            std::size_t a = 0;
            while (a < after.size() && after[a] == ' ') ++a;
            after = after.substr(a);
            for (const auto& uc : unit_cues()) {
                const std::size_t at = after.find(uc.stem);
                if (at == std::string::npos) continue;
                const std::string gap = after.substr(0, at);
                if (gap.find_first_of(",.;:()") == std::string::npos && std::count(gap.begin(), gap.end(), ' ') <= 1)
                    named = true;
            }
            if (!named) {
                std::size_t p = c.b;
                for (int words = 0; words < 4 && p > 0; ++words) {
                    std::size_t e = p;
                    while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == ',')) --e;
                    bool name = false;
                    const std::size_t b = word_start(s, e, name);
                    if (b == e) break;
                    const std::string w = lower(s.substr(b, e - b));
                    bool field = false;
                    for (const auto& fc : field_cues()) {
                        if (w.starts_with(fc.stem)) field = true;
                    }
                    if (field && w != "state" && w != "states" && w != "query") {
                        named = true;
                        break;
                    }
                    if (!name && !linking_words().contains(w)) break;
                    p = b;
                }
            }
            if (!named) c.not_claim = "a number word that names no quantity";
        }
    }
    // Lists of numbers in prose: "[0,0], [0,a], [0,0]", "2/3 and 1/3"; several numbers in one
    // cell; each list's size.
    void prose_lists() {
        for (std::size_t i = 0; i + 1 < prose.size(); ++i) {
            auto& x = prose[i];
            auto& y = prose[i + 1];
            if (!x.not_claim.empty() || !y.not_claim.empty()) continue;
            const std::string gap = s.substr(x.e, y.b - x.e);
            if (gap == ", " || gap == " and " || gap == ", and " || gap == ",") {
                if ((x.shape.entries >= 0) == (y.shape.entries >= 0)) {
                    if (x.list_index == 0) x.list_index = 1;
                    y.list_index = x.list_index + 1;
                }
            }
        }
        // Several numbers in one cell (`$[0,a]$; $[0,0]$`, the rows of a matrix): their order is
        // their position.
        for (std::size_t i = 0; i < prose.size();) {
            std::size_t j = i + 1;
            while (j < prose.size() && prose[i].table >= 0 && prose[j].table == prose[i].table &&
                   prose[j].row == prose[i].row && prose[j].col == prose[i].col)
                ++j;
            for (std::size_t k = i; j - i >= 2 && k < j; ++k) {
                prose[k].list_index = static_cast<int>(k - i + 1);
                prose[k].in_cell_list = true;
            }
            i = j;
        }
        for (std::size_t i = prose.size(); i-- > 0;) {  // each list's size, from its last number
            auto& x = prose[i];
            if (x.list_index == 0) continue;
            const bool last = i + 1 == prose.size() || prose[i + 1].list_index != x.list_index + 1;
            x.list_size = last ? x.list_index : prose[i + 1].list_size;
        }
    }
    // A list that holds formulas (LaTeX's "$[1,0]$, $[0,1]$ and $[1,1]$") is a list as in prose.
    void math_lists() {
        bool math_lists = false;
        for (std::size_t i = 0; i + 1 < cands.size(); ++i) {
            auto& x = cands[i];
            auto& y = cands[i + 1];
            if (x.kind != Kind::MathStatement && y.kind != Kind::MathStatement) continue;
            if (x.table >= 0 || y.table >= 0 || !x.not_claim.empty() || !y.not_claim.empty() || !x.markable ||
                !y.markable || y.b < x.e)
                continue;
            const std::string gap = s.substr(x.e, y.b - x.e);
            if ((gap == ", " || gap == " and " || gap == ", and " || gap == ",") &&
                (x.shape.entries >= 0) == (y.shape.entries >= 0)) {
                if (x.list_index == 0) x.list_index = 1;
                y.list_index = x.list_index + 1;
                math_lists = true;
            }
        }
        for (std::size_t i = cands.size(); math_lists && i-- > 0;) {
            auto& x = cands[i];
            if (x.list_index == 0 || x.in_cell_list) continue;
            const bool last = i + 1 == cands.size() || cands[i + 1].list_index != x.list_index + 1;
            x.list_size = last ? x.list_index : cands[i + 1].list_size;
        }
    }

    const Source& src;
    const std::string& s;
    const Binder& binder;
    const AuditOptions& options;
    const Layout& L;
    std::vector<bool> covered;  ///< the bytes a candidate or a header already holds
    std::vector<Candidate> cands;
    std::vector<Candidate> prose;
};

}  // namespace

std::vector<Candidate> find_candidates(const Source& src, const std::string& s, const Binder& binder,
                                       const AuditOptions& options) {
    return CandidateScan(src, s, binder, options).run();
}

}  // namespace exactattn::manuscript::binding
