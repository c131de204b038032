// SPDX-License-Identifier: MIT
// exactattn: binding the numbers of an unmarked manuscript to the quantities their context states
// (docs/manuscript.md, "How audit binds a number"). Three steps: the numbers are read (math
// statements and chains, table cells, prose vectors and numbers, number words, units), the cues
// around each are gathered (entity: the example, table, exercise, section, caption, source and
// query named; field: the word naming the quantity, a column header, a unit, a formula's name;
// index: a position's label, a coordinate, a table row, the place in a list), and every quantity
// of the report is scored against the cues. The best is judged exactly.
#include "tools/manuscript/bind.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string_view>

#include "exactattn/limits.hpp"
#include "exactattn/pointers.hpp"
#include "exactattn/print.hpp"
#include "exactattn/scenario.hpp"
#include "tools/manuscript/claims.hpp"

namespace exactattn::manuscript {

namespace {

using detail::Json;

constexpr double kWorkPerNumber = 2e5;

// The ordinals the binder reads ("the second read", "the first query", "the third head"); each
// rule reads as many of them as it needs (ordinals(n): the first n).
constexpr std::array<std::string_view, 10> kOrdinals{"first", "second",  "third",  "fourth", "fifth",
                                                     "sixth", "seventh", "eighth", "ninth",  "tenth"};
constexpr std::span<const std::string_view> ordinals(std::size_t n) { return std::span(kOrdinals).first(n); }

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
// A cue that must not run into a word after it: one ending in a letter ("the second read") or a
// name written as one word ("r1", "blue-q1").
bool alnum_end(std::string_view cue) { return !cue.empty() && (alpha(cue.back()) || cue.find(' ') == cue.npos); }
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// ---------------------------------------------------------------------------------------------
// The catalogue: every numeric quantity of the report with its entity, field and indexes.

enum class EntityKind { Read, Intervention, Cost, Source, Constant, Vocabulary, Layer, Other };

struct Entity {
    std::string name;
    EntityKind kind = EntityKind::Other;
    std::string source;
    std::string query;
    std::string intervention;       ///< remove-state, delete-token, zero-score
    std::vector<std::string> cues;  ///< lower-case phrases naming it: "example 14.1", "table 14.2"
    int same_read = -1;             ///< an intervention: the read its row 0 equals (same source, query)
};

struct Item {
    std::string pointer;
    const Json* value = nullptr;
    int entity = -1;
    std::string field;
    int pos = 0;    ///< 1-based position (scores, weights, exponentials, states), 0: none
    int coord = 0;  ///< 1-based coordinate (context, query, a state's entry), 0: none
    int row = -1;   ///< intervention row, -1: none
    int head = 0;   ///< a layer's head (1-based), 0: none (the layer's input, concat, output)
    int qrow = 0;   ///< a layer's query row, the token that attends (1-based), 0: none
    int entries = -1;
    bool matrix = false;
};

bool is_index(const std::string& s) {
    return !s.empty() && s.size() < 9 && s.find_first_not_of("0123456789") == std::string::npos;
}

std::vector<std::string> segments(const std::string& pointer) {
    std::vector<std::string> out;
    std::size_t from = 1;
    while (from <= pointer.size()) {
        const std::size_t e = pointer.find('/', from);
        std::string seg = pointer.substr(from, e == std::string::npos ? std::string::npos : e - from);
        for (std::size_t p = seg.find("~1"); p != std::string::npos; p = seg.find("~1", p + 1)) seg.replace(p, 2, "/");
        for (std::size_t p = seg.find("~0"); p != std::string::npos; p = seg.find("~0", p + 1)) seg.replace(p, 2, "~");
        out.push_back(seg);
        if (e == std::string::npos) break;
        from = e + 1;
    }
    return out;
}

// "Example 14.1", "Table 14.2", "Section 14.4", "Exercise 2" in a note or caption, lower-cased.
void add_named_cues(const std::string& text, std::vector<std::string>& cues) {
    const std::string t = lower(text);
    for (const char* word : {"example", "table", "section", "exercise", "figure"}) {
        for (std::size_t k = t.find(word); k != std::string::npos; k = t.find(word, k + 1)) {
            std::size_t p = k + std::string_view(word).size();
            if (p >= t.size() || t[p] != ' ') continue;
            const std::size_t b = ++p;
            while (p < t.size() && (digit(t[p]) || (t[p] == '.' && p + 1 < t.size() && digit(t[p + 1])))) ++p;
            if (p > b) cues.push_back(fmt::format("{} {}", word, t.substr(b, p - b)));
        }
    }
}

// A name such as example-14.1, table-14.2, section-14.6, exercise-2-zero-query names itself.
void add_name_cue(const std::string& name, std::vector<std::string>& cues) {
    const std::size_t dash = name.find('-');
    if (dash == std::string::npos || dash + 1 >= name.size() || !digit(name[dash + 1])) return;
    const std::string word = lower(name.substr(0, dash));
    if (word != "example" && word != "table" && word != "section" && word != "exercise" && word != "figure") return;
    std::size_t e = dash + 1;
    while (e < name.size() && (digit(name[e]) || name[e] == '.')) ++e;
    cues.push_back(word + " " + name.substr(dash + 1, e - dash - 1));
}

// A read's or an intervention's own name in the prose: a name written as an identifier (r1,
// blue-q1, read_2) names itself; a name that is a plain word does so beside "read" ("read
// plain", "the plain read"). The i-th read declared is also "the i-th read" ("the second read").
void add_own_name_cues(const std::string& name, EntityKind kind, std::vector<std::string>& cues) {
    const std::string l = lower(name);
    auto add = [&cues](const std::string& cue) {
        if (std::find(cues.begin(), cues.end(), cue) == cues.end()) cues.push_back(cue);
    };
    const bool identifier =
        std::any_of(l.begin(), l.end(), [](char ch) { return digit(ch) || ch == '-' || ch == '_'; });
    if (identifier && l.size() >= 2) add(l);
    if (kind == EntityKind::Read && !identifier && l.size() >= 2) {
        add("read " + l);
        add(l + " read");
    }
}

const std::set<std::string, std::less<>>& numeric_fields() {
    static const std::set<std::string, std::less<>> f = {"query",   "memory",  "scores",  "exponentials", "denominator",
                                                         "weights", "context", "readout", "states"};
    return f;
}

struct Catalogue {
    std::vector<Entity> entities;
    std::vector<Item> items;
    std::vector<std::string> labels;  ///< position labels and tokens (lower-case), 1-based by index+1
    std::vector<std::vector<std::string>> label_positions;  ///< label → positions it names
    std::vector<std::string> query_names;                   ///< declared order
    std::vector<std::string> query_vectors;                 ///< "[1,0]" (no spaces), same order
    std::vector<std::string> source_names;
    /// The tokens of the layers' sequences (lower-case), each with its 1-based row: a layer's
    /// query rows and key positions are named by them ("elm attends to pine").
    std::vector<std::pair<std::string, int>> layer_tokens;
    bool has_layers = false;
};

int entity_index(Catalogue& c, const std::string& name, EntityKind kind) {
    for (std::size_t i = 0; i < c.entities.size(); ++i) {
        if (c.entities[i].name == name && c.entities[i].kind == kind) return static_cast<int>(i);
    }
    Entity e;
    e.name = name;
    e.kind = kind;
    c.entities.push_back(e);
    return static_cast<int>(c.entities.size() - 1);
}

std::string compact(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return s;
}

Catalogue catalogue_of(Quantities& q) {
    Catalogue c;
    const Report& r = q.report();
    const Scenario& sc = r.scenario;
    for (const auto& qv : sc.queries) {
        c.query_names.push_back(qv.name);
        std::string v = "[";
        for (std::size_t i = 0; i < qv.values.size(); ++i) v += (i ? "," : "") + compact(to_ascii(qv.values[i]));
        c.query_vectors.push_back(v + "]");
    }
    for (const auto& src : sc.sources) {
        c.source_names.push_back(lower(src.name));
        const int e = entity_index(c, src.name, EntityKind::Source);
        c.entities[static_cast<std::size_t>(e)].source = src.name;
        for (std::size_t i = 0; i < src.labels.size(); ++i) {
            const std::string l = lower(src.labels[i]);
            std::string hyphened = l;  // "full stop" is also written "the full-stop state"
            std::replace(hyphened.begin(), hyphened.end(), ' ', '-');
            for (const std::string& name : {l, hyphened}) {
                if (std::find(c.labels.begin(), c.labels.end(), name) != c.labels.end()) continue;
                c.labels.push_back(name);
                c.label_positions.push_back({std::to_string(i + 1)});
            }
        }
    }
    for (const auto& rr : r.reads) {
        const int e = entity_index(c, rr.spec.name, EntityKind::Read);
        auto& en = c.entities[static_cast<std::size_t>(e)];
        en.source = rr.spec.source;
        en.query = rr.spec.query.name;
        add_name_cue(rr.spec.name, en.cues);
        add_own_name_cues(rr.spec.name, EntityKind::Read, en.cues);
        const auto ordinal = ordinals(10);
        const std::size_t nth = static_cast<std::size_t>(&rr - r.reads.data());
        if (nth < ordinal.size()) en.cues.push_back(std::string(ordinal[nth]) + " read");
        add_named_cues(rr.spec.note, en.cues);
        if (!rr.spec.number.empty()) en.cues.push_back("table " + rr.spec.number);
    }
    for (const auto& ir : r.interventions) {
        const int e = entity_index(c, ir.spec.name, EntityKind::Intervention);
        auto& en = c.entities[static_cast<std::size_t>(e)];
        en.source = ir.spec.source;
        en.query = ir.spec.query.name;
        en.intervention = intervention_name(ir.spec.kind);
        add_name_cue(ir.spec.name, en.cues);
        add_own_name_cues(ir.spec.name, EntityKind::Intervention, en.cues);
        add_named_cues(ir.spec.note, en.cues);
        if (!ir.spec.number.empty()) en.cues.push_back("table " + ir.spec.number);
        for (std::size_t k = 0; k < c.entities.size(); ++k) {
            const auto& o = c.entities[k];
            if (o.kind == EntityKind::Read && o.source == en.source && o.query == en.query && en.same_read < 0)
                en.same_read = static_cast<int>(k);
        }
    }
    for (const auto& cr : r.costs) {
        const int e = entity_index(c, cr.spec.name, EntityKind::Cost);
        add_name_cue(cr.spec.name, c.entities[static_cast<std::size_t>(e)].cues);
    }
    for (const auto& ex : sc.exercises) {
        const std::string cue = "exercise " + lower(ex.id);
        auto add = [&](const std::vector<std::string>& names, EntityKind kind) {
            for (const auto& n : names) {
                for (auto& en : c.entities) {
                    if (en.name == n && en.kind == kind) en.cues.push_back(cue);
                }
            }
        };
        add(ex.reads, EntityKind::Read);
        add(ex.interventions, EntityKind::Intervention);
        add(ex.costs, EntityKind::Cost);
    }
    for (const auto& ls : sc.layers) {
        const int e = entity_index(c, ls.name, EntityKind::Layer);
        auto& en = c.entities[static_cast<std::size_t>(e)];
        const std::string l = lower(ls.name);
        for (const std::string& cue : {"layer " + l, l + " layer"}) en.cues.push_back(cue);
        add_name_cue(ls.name, en.cues);
        add_named_cues(ls.note, en.cues);
        if (!ls.number.empty()) en.cues.push_back("table " + ls.number);
        c.has_layers = true;
        for (const auto& seq : sc.sequences) {
            if (seq.name != ls.sequence) continue;
            for (std::size_t i = 0; i < seq.tokens.size(); ++i) {
                const std::pair<std::string, int> t{lower(seq.tokens[i]), static_cast<int>(i + 1)};
                if (std::find(c.layer_tokens.begin(), c.layer_tokens.end(), t) == c.layer_tokens.end())
                    c.layer_tokens.push_back(t);
            }
        }
    }
    const int constant = entity_index(c, "a", EntityKind::Constant);
    const int vocabulary = entity_index(c, "vocabulary", EntityKind::Vocabulary);
    for (const auto& [pointer, j] : q.all_values()) {
        const auto p = segments(pointer);
        if (p.empty()) continue;
        Item it;
        it.pointer = pointer;
        it.value = j;
        if (j->is_array()) {
            it.entries = static_cast<int>(j->size());
            it.matrix = !j->empty() && (*j)[0].is_array();
        }
        std::size_t at = 0;  // where the field's segment is
        if (p[0] == "a" && p.size() == 2 && p[1] == "value") {
            it.entity = constant;
            it.field = "a";
        } else if (p[0] == "vocabulary" && p.size() == 2) {
            it.entity = vocabulary;
            it.field = "embedding";
        } else if (p[0] == "sources" && p.size() >= 3 && p[2] == "states") {
            it.entity = entity_index(c, p[1], EntityKind::Source);
            at = 2;
        } else if (p[0] == "reads" && p.size() >= 3) {
            it.entity = entity_index(c, p[1], EntityKind::Read);
            at = 2;
        } else if (p[0] == "interventions" && p.size() >= 5 && p[2] == "rows" && is_index(p[3])) {
            it.entity = entity_index(c, p[1], EntityKind::Intervention);
            it.row = std::stoi(p[3]);
            at = 4;
        } else if (p[0] == "costs" && p.size() == 3) {
            it.entity = entity_index(c, p[1], EntityKind::Cost);
            // a cost case's count of exponentials, not the exponentials of a read
            it.field = p[2] == "exponentials" ? "exponential_count" : p[2];
        } else if (p[0] == "layers" && p.size() >= 3) {
            // A head's queries, keys, values, scores, denominators, weights and outputs, and the
            // layer's input, concatenation and output: by query row, key position, coordinate.
            it.entity = entity_index(c, p[1], EntityKind::Layer);
            std::size_t f = 2;
            if (p[2] == "heads") {
                if (p.size() < 5 || !is_index(p[3])) continue;
                it.head = std::stoi(p[3]) + 1;
                f = 4;
            }
            static const std::map<std::string, std::string, std::less<>> fields = {
                {"queries", "query"},   {"keys", "keys"},       {"values", "values"},
                {"scores", "scores"},   {"weights", "weights"}, {"denominators", "denominator"},
                {"outputs", "outputs"}, {"output", "outputs"},  {"concat", "outputs"},
                {"input", "embedding"}};
            const auto fi = fields.find(p[f]);
            if (fi == fields.end() || (it.head == 0) != (f == 2)) continue;
            it.field = fi->second;
            const bool by_key = p[f] == "keys" || p[f] == "values";
            const bool matrix_entry = p[f] == "scores" || p[f] == "weights";
            if (p.size() > f + 3 || j->is_null()) continue;  // a masked score has no value
            if (p.size() > f + 1) {
                if (!is_index(p[f + 1])) continue;
                (by_key ? it.pos : it.qrow) = std::stoi(p[f + 1]) + 1;
            }
            if (p.size() > f + 2) {
                if (!is_index(p[f + 2])) continue;
                (matrix_entry ? it.pos : it.coord) = std::stoi(p[f + 2]) + 1;
            }
            c.items.push_back(std::move(it));
            continue;
        } else {
            continue;  // rollouts, names and texts: not bound by context yet
        }
        if (at > 0) {
            it.field = p[at];
            if (!numeric_fields().contains(it.field)) continue;
            const bool by_position = it.field == "scores" || it.field == "weights" || it.field == "exponentials" ||
                                     it.field == "memory" || it.field == "states";
            if (p.size() > at + 1) {
                if (!is_index(p[at + 1])) continue;
                (by_position ? it.pos : it.coord) = std::stoi(p[at + 1]) + 1;
            }
            if (p.size() > at + 2) {
                if (!is_index(p[at + 2])) continue;
                it.coord = std::stoi(p[at + 2]) + 1;
            }
            if (it.field == "memory") it.field = "states";
        }
        c.items.push_back(std::move(it));
    }
    return c;
}

// ---------------------------------------------------------------------------------------------
// The text's structure: sentences, paragraphs, sections, tables, math.

struct Span {
    std::size_t b = 0, e = 0;
};

struct Cell {
    std::size_t b = 0, e = 0;  // trimmed content
    int row = 0, col = 0;
};

struct Table {
    Span whole;
    std::vector<Cell> cells;
    std::vector<std::string> headers;    // lower-case, per column
    std::vector<std::string> row_heads;  // lower-case first cell, per row
    std::string caption;                 // lower-case
};

struct Section {
    std::size_t b = 0;
    std::string number;   // "14.4"
    std::string heading;  // lower-case
};

struct Layout {
    std::vector<std::size_t> sentence_starts;
    std::vector<std::size_t> paragraph_starts;
    std::vector<Section> sections;
    std::vector<Span> math;  // including delimiters
    std::vector<Span> math_inner;
    std::vector<Table> tables;
    std::vector<std::pair<std::size_t, std::string>> list_items;  // offset, item number
};

std::size_t line_end(const std::string& s, std::size_t k) {
    const std::size_t e = s.find('\n', k);
    return e == std::string::npos ? s.size() : e;
}

bool blank_line(const std::string& s, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
        if (!space(s[i])) return false;
    }
    return true;
}

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

void find_tables(const std::string& s, ManuscriptFormat format, Layout& L) {
    if (format == ManuscriptFormat::Markdown) {
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
        return;
    }
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

bool heading_line(const std::string& s, std::size_t b, std::size_t e, ManuscriptFormat format) {
    if (format == ManuscriptFormat::Markdown) return b < e && s[b] == '#';
    return s.compare(b, 9, "\\section{") == 0 || s.compare(b, 10, "\\section*{") == 0 ||
           s.compare(b, 12, "\\subsection{") == 0 || s.compare(b, 9, "\\chapter{") == 0 ||
           s.compare(b, 10, "\\chapter*{") == 0 || s.compare(b, 13, "\\subsection*{") == 0;
}

Layout layout_of(const std::string& s, ManuscriptFormat format) {
    Layout L;
    find_math(s, format, L);
    find_tables(s, format, L);
    L.paragraph_starts.push_back(0);
    L.sentence_starts.push_back(0);
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
    // Sentence ends: `. ` `? ` `! ` (not a decimal point), `\\` rows of a tabular.
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
    std::sort(L.paragraph_starts.begin(), L.paragraph_starts.end());
    return L;
}

Span around(const std::vector<std::size_t>& starts, std::size_t k, std::size_t size) {
    auto it = std::upper_bound(starts.begin(), starts.end(), k);
    const std::size_t b = it == starts.begin() ? 0 : *(it - 1);
    const std::size_t e = it == starts.end() ? size : *it;
    return {b, e};
}

// ---------------------------------------------------------------------------------------------
// Numbers: candidates.

enum class Kind { MathStatement, Cell, Prose, Word };

struct Candidate {
    std::size_t b = 0, e = 0;
    Kind kind = Kind::Prose;
    bool markable = true;
    std::string label;  // a formula's leading name
    int table = -1, row = 0, col = 0;
    int list_index = 0;         // 1-based place in a list of numbers, 0: none
    int list_size = 0;          // the number of numbers in that list
    bool in_cell_list = false;  // one of several numbers in a table cell
    StatementShape shape;
    std::string not_claim;  // non-empty: why it is not a claim
};

std::size_t vulgar_at(const std::string& s, std::size_t k) {
    for (const auto& [glyph, spelled] : kVulgarFractions) {
        if (s.compare(k, glyph.size(), glyph) == 0) return glyph.size();
    }
    return 0;
}

// The end of a number token at k: 12, 0.75, 2a/3, a/2, 50%, 50\%, −0.75, ½; k when none.
std::size_t number_end(const std::string& s, std::size_t k) {
    std::size_t e = k;
    if (s.compare(e, 3, "−") == 0)
        e += 3;
    else if (s[e] == '-')
        ++e;
    const std::size_t digits_at = e;
    while (e < s.size() && (digit(s[e]) || (s[e] == '.' && e + 1 < s.size() && digit(s[e + 1])))) ++e;
    if (const std::size_t v = e < s.size() ? vulgar_at(s, e) : 0) return e + v;
    // A square root, alone or after its coefficient: √2, 2√2, 3√5/2.
    if (s.compare(e, 3, "√") == 0 && e + 3 < s.size() && digit(s[e + 3])) {
        e += 3;
        while (e < s.size() && digit(s[e])) ++e;
    }
    if (e == digits_at && !(e < s.size() && s[e] == 'a' && e + 2 < s.size() && s[e + 1] == '/' && digit(s[e + 2])))
        return k;
    if (e < s.size() && s[e] == 'a' && (e + 1 >= s.size() || !alpha(s[e + 1]))) ++e;
    if (e + 1 < s.size() && s[e] == '/' && digit(s[e + 1])) {
        ++e;
        while (e < s.size() && digit(s[e])) ++e;
    }
    if (e < s.size() && s[e] == '%') ++e;
    if (e + 1 < s.size() && s[e] == '\\' && s[e + 1] == '%') e += 2;
    return e;
}

std::size_t vector_end(const std::string& s, std::size_t k) {
    if (k > 0 && (s[k - 1] == '!' || s[k - 1] == ']')) return k;  // an image, a link's second part
    const std::size_t e = std::string_view(s).substr(0, std::min(s.size(), k + 200)).find(']', k);
    if (e == std::string::npos) return k;
    const std::string inner = s.substr(k + 1, e - k - 1);
    if (inner.find(',') == std::string::npos || inner.find('[') != std::string::npos) return k;
    bool number = false;
    for (std::size_t i = 0; i < inner.size(); ++i) {
        const char c = inner[i];
        if (digit(c)) number = true;
        if (!(digit(c) || c == 'a' || c == ',' || c == ' ' || c == '/' || c == '-' || c == '.' || c == '(' ||
              c == ')' || c == '+' || static_cast<unsigned char>(c) >= 0x80)) {
            return k;
        }
    }
    if (!number && inner.find('a') == std::string::npos) return k;
    return e + 1 < s.size() && (s[e + 1] == '(' || s[e + 1] == '{') ? k : e + 1;
}

bool op_at(const std::string& s, std::size_t k, std::size_t& len) {
    for (std::string_view op : {"+", "−", "-", "×", "·", "=", "≈", "*", "÷"}) {
        if (s.compare(k, op.size(), op) == 0) {
            len = op.size();
            return true;
        }
    }
    return false;
}

// A chain in prose: 2 + 1 + 1 = 4, 100 × 2 = 200: the token at [b, e) extended over operators.
std::size_t chain_end(const std::string& s, std::size_t e) {
    for (;;) {
        std::size_t k = e;
        while (k < s.size() && s[k] == ' ') ++k;
        std::size_t len = 0;
        if (k >= s.size() || !op_at(s, k, len)) return e;
        k += len;
        while (k < s.size() && s[k] == ' ') ++k;
        std::size_t next = k < s.size() && s[k] == '[' ? vector_end(s, k) : number_end(s, k);
        if (next == k && k < s.size() && s[k] == 'a' && (k + 1 >= s.size() || !alpha(s[k + 1]))) next = k + 1;
        if (next == k) return e;
        e = next;
    }
}

// A parenthesised sum over a number, (4 − √2)/7, (2√2 − 1)/7: the end after the divisor, or k
// when the parentheses hold anything but a sum or difference of numbers or no divisor follows.
std::size_t paren_fraction_end(const std::string& s, std::size_t k) {
    if (k >= s.size() || s[k] != '(') return k;
    const std::size_t close = std::string_view(s).substr(0, std::min(s.size(), k + 40)).find(')', k);
    if (close == std::string::npos || close + 2 >= s.size() || s[close + 1] != '/' || !digit(s[close + 2])) return k;
    std::size_t i = k + 1;
    while (i < close && s[i] == ' ') ++i;
    const std::size_t first = number_end(s, i);
    if (first == i) return k;
    const std::size_t inner = chain_end(s, first);
    std::size_t j = inner;
    while (j < close && s[j] == ' ') ++j;
    if (j != close || inner == first) return k;
    std::size_t e = close + 2;
    while (e < s.size() && digit(s[e])) ++e;
    return e;
}

std::string word_before_at(const std::string& s, std::size_t k) {
    std::size_t e = k;
    while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == '(' || s[e - 1] == '~')) --e;
    std::size_t b = e;
    while (b > 0 && e - b < 32 &&
           (alpha(s[b - 1]) || s[b - 1] == '.' || s[b - 1] == '\\' || static_cast<unsigned char>(s[b - 1]) >= 0x80))
        --b;
    std::string w = lower(s.substr(b, e - b));
    while (!w.empty() && w.back() == '.') w.pop_back();
    return w;
}

// Words naming what a plain integer after them is an index or a reference of.
bool reference_word(const std::string& w) {
    static const std::set<std::string, std::less<>> words = {
        "chapter", "chapters", "section",   "sections",  "table",    "tables",    "figure",   "figures", "fig",
        "example", "examples", "exercise",  "exercises", "equation", "equations", "eq",       "part",    "§",
        "step",    "steps",    "appendix",  "page",      "pages",    "p",         "pp",       "query",   "queries",
        "head",    "heads",    "row",       "rows",      "column",   "columns",   "layer",    "layers",  "item",
        "items",   "position", "positions", "read",      "sec",      "tab",       "theorem",  "lemma",   "line",
        "lines",   "version",  "token",     "tokens",    "listing",  "problem",   "question", "case"};
    return words.contains(w) || (w.size() > 2 && w.ends_with("§"));
}

// ---------------------------------------------------------------------------------------------
// Cues.

struct FieldCue {
    std::string_view stem;
    std::vector<std::string> fields;
};

const std::vector<FieldCue>& field_cues() {
    static const std::vector<FieldCue> cues = {
        {"weight", {"weights"}},
        {"probabilit", {"weights"}},
        {"score", {"scores"}},
        {"dot product", {"scores"}},
        {"exponential", {"exponentials"}},
        {"exponentiat", {"exponentials"}},
        {"denominator", {"denominator"}},
        {"total", {"denominator"}},
        {"divid", {"denominator"}},
        {"divide", {"denominator"}},
        {"normaliz", {"denominator"}},
        {"context", {"context"}},
        {"coordinate", {"context"}},
        {"readout", {"readout"}},
        {"state", {"states"}},
        {"query", {"query"}},
        {"probe", {"query"}},
        {"embedding", {"embedding"}},
        {"ln 2", {"a"}},
        {"ln2", {"a"}},
        {"\\ln", {"a"}},
    };
    return cues;
}

// The words that name a layer's quantities beyond a read's (only when the scenario has layers:
// Chapter 14's "key" is a position's label, not a field).
const std::vector<FieldCue>& layer_field_cues() {
    static const std::vector<FieldCue> cues = {
        {"keys", {"keys"}},      {"values", {"values"}},      {"output", {"outputs"}},
        {"attend", {"weights"}}, {"coordinate", {"outputs"}},
    };
    return cues;
}

// Unit words after a count: "twelve dot products", "48 bytes", "100 source states".
const std::vector<FieldCue>& unit_cues() {
    static const std::vector<FieldCue> cues = {
        {"bytes per", {"bytes_per_number"}},
        {"byte per", {"bytes_per_number"}},
        {"byte", {"stored_bytes", "fixed_context_bytes"}},
        {"dot product", {"dot_products"}},
        {"dot-product", {"dot_products"}},
        {"multiplication", {"multiplications", "multiplications_per_dot_product"}},
        {"addition", {"additions", "additions_per_dot_product"}},
        {"exponentiation", {"exponential_count", "positions"}},
        {"exponential", {"exponential_count", "positions"}},
        {"division", {"divisions"}},
        {"number", {"stored_numbers", "fixed_context_numbers"}},
        {"source position", {"positions"}},
        {"source state", {"positions"}},
        {"encoder state", {"positions"}},
        {"position", {"positions"}},
        {"state", {"positions"}},
        {"score", {"positions"}},
        {"weight", {"positions"}},
        {"coordinate", {"width"}},
        {"output step", {"target_steps", "sequential_decoder_steps"}},
        {"target step", {"target_steps", "sequential_decoder_steps"}},
        {"step", {"target_steps"}},
        {"read", {"target_steps"}},
        {"update", {"sequential_encoder_steps", "sequential_decoder_steps"}},
    };
    return cues;
}

// The start of the word that ends at e, and whether it is a name written with digits ("r2",
// "q1"), which a number word's name may stand before ("the denominator of r2 becomes seven").
std::size_t word_start(const std::string& s, std::size_t e, bool& name) {
    std::size_t b = e;
    bool letters = false, digits = false;
    while (b > 0 && (alpha(s[b - 1]) || digit(s[b - 1]))) {
        --b;
        (alpha(s[b]) ? letters : digits) = true;
    }
    name = letters && digits;
    if (!name) {  // a word of letters only
        b = e;
        while (b > 0 && alpha(s[b - 1])) --b;
    }
    return b;
}

const std::set<std::string, std::less<>>& linking_words() {
    static const std::set<std::string, std::less<>> w = {
        "is",  "are",     "was",    "be",    "becomes", "become", "gives", "giving", "give",
        "of",  "by",      "equals", "equal", "now",     "then",   "still", "each",   "all",
        "the", "exactly", "at",     "to",    "remains", "stays",  "falls", "rises"};
    return w;
}

// Words of a negated or hypothetical sentence (with the spaces around them that count: the
// sentence's ends count as spaces).
const std::array<std::string_view, 15>& hypothetical_words() {
    static const std::array<std::string_view, 15> words{
        " would ",       " could ", " might ",  " not ",    "n't ",       " never ",    " unlike ", " instead ",
        " rather than ", " wrong ", " mistake", " learner", " incorrect", " proposed ", " if "};
    return words;
}

struct Scores {
    std::map<int, double> entity;
    std::map<std::string, double> field;
    std::map<int, double> pos;  // position cue → weight (negative evidence handled in scoring)
    std::map<int, double> coord;
    std::map<int, double> row;
    std::map<int, double> head;  ///< a layer's head named
    std::map<int, double> qrow;  ///< a layer's query row named (the token that attends)
    std::string reason_entity, reason_field, reason_index;
    bool hypothetical = false;
    /// The operation whose operand it is ("scaled by 1/2", "divided by 7"): a factor of the
    /// computation, not the quantity the words before it name (empty: none).
    std::string operand;
    std::string foreign;     ///< the nearest reference names something the scenario does not compute
    bool qualified = false;  ///< its unit has a word between ("two zero scores"): a count of a part
    /// A position's label stands between the nearest field word and the number ("a denominator
    /// of 6, and the star then takes 2/3"): the number is said of that position.
    bool label_after_field = false;
};

// Phrases found in a window of the lower-cased text.
bool has_phrase(const std::string& low, std::size_t b, std::size_t e, std::string_view phrase,
                std::size_t* at = nullptr, bool last = true) {
    std::size_t found = std::string::npos;
    // Searched within [b, e) only: a search to the end of the text would read a megabyte without
    // a full stop once a number.
    const std::string_view window = std::string_view(low).substr(0, std::min(e, low.size()));
    for (std::size_t k = window.find(phrase, b); k != std::string::npos && k + phrase.size() <= e;
         k = window.find(phrase, k + 1)) {
        const bool left = k == 0 || !alpha(low[k - 1]);
        const std::size_t r = k + phrase.size();
        const bool right =
            r >= low.size() ||
            !(digit(low[r]) || (digit(phrase.back()) && low[r] == '.' && r + 1 < low.size() && digit(low[r + 1])));
        if (left && right) {
            found = k;
            if (!last) break;
        }
    }
    if (found == std::string::npos) return false;
    if (at != nullptr) *at = found;
    return true;
}

// Where each phrase stands in a text, found once per phrase (sorted offsets): a search of a
// window around a number is then a binary search, not a read of the window once a number (a
// megabyte of numbers on one line cost 36 µs a number so).
class Occurrences {
  public:
    explicit Occurrences(const std::string& text) : text_(text) {}
    const std::vector<std::size_t>& of(std::string_view phrase) const {
        auto it = cache_.find(phrase);
        if (it == cache_.end()) {
            std::vector<std::size_t> at;
            if (!phrase.empty()) {
                for (std::size_t k = text_.find(phrase); k != std::string::npos; k = text_.find(phrase, k + 1))
                    at.push_back(k);
            }
            it = cache_.emplace(std::string(phrase), std::move(at)).first;
        }
        return it->second;
    }
    /// The offsets of `phrase` standing wholly inside [b, e), as a range of of(phrase).
    std::pair<const std::size_t*, const std::size_t*> within(std::string_view phrase, std::size_t b,
                                                             std::size_t e) const {
        const auto& at = of(phrase);
        const std::size_t* first = at.data();
        const std::size_t* last = at.data() + at.size();
        const std::size_t* lo = std::lower_bound(first, last, b);
        if (e < b + phrase.size()) return {lo, lo};
        const std::size_t* hi = std::upper_bound(lo, last, e - phrase.size());
        return {lo, hi};
    }
    bool any(std::string_view phrase, std::size_t b, std::size_t e) const {
        const auto [lo, hi] = within(phrase, b, e);
        return lo != hi;
    }

  private:
    const std::string& text_;
    mutable std::map<std::string, std::vector<std::size_t>, std::less<>> cache_;
};

// The text without spaces and math delimiters (`query $\left[1, 0\right]$` reads `query[1,0]`),
// with the offset in it of every offset of the text.
struct Compacted {
    std::string text;
    std::vector<std::size_t> at;  ///< at[k]: the offset in `text` of the text's offset k
    explicit Compacted(const std::string& s) {
        at.resize(s.size() + 1);
        for (std::size_t k = 0; k < s.size();) {
            at[k] = text.size();
            std::size_t skip = s[k] == ' ' ? 1 : 0;
            for (const std::string_view noise : {"$", "\\left", "\\right", "\\(", "\\)"}) {
                if (skip == 0 && s.compare(k, noise.size(), noise) == 0) skip = noise.size();
            }
            if (skip == 0) {
                text += s[k];
                skip = 1;
            }
            for (std::size_t i = 1; i < skip && k + i < s.size(); ++i) at[k + i] = text.size();
            k += skip;
        }
        at[s.size()] = text.size();
    }
};

class Binder {
  public:
    Binder(const Source& src, const std::string& s, Quantities& q)
        : src_(src),
          s_(s),
          low_(lower(s)),
          occ_(low_),
          compact_(low_),
          compact_occ_(compact_.text),
          cat_(catalogue_of(q)),
          L_(layout_of(s, src.format)) {
        // The last entity each paragraph names, for the paragraphs after it in its section.
        for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
            for (const auto& cue : cat_.entities[i].cues) {
                for (std::size_t k = low_.find(cue); k != std::string::npos; k = low_.find(cue, k + 1)) {
                    const std::size_t r = k + cue.size();
                    if (r < low_.size() &&
                        (digit(low_[r]) || (low_[r] == '.' && r + 1 < low_.size() && digit(low_[r + 1]))))
                        continue;
                    if (k > 0 && (alpha(low_[k - 1]) ||
                                  (alnum_end(cue) && (digit(low_[k - 1]) || low_[k - 1] == '-' || low_[k - 1] == '_'))))
                        continue;
                    if (r < low_.size() && alnum_end(cue) &&
                        (alpha(low_[r]) || digit(low_[r]) || low_[r] == '-' || low_[r] == '_'))
                        continue;
                    mentions_.emplace_back(k, static_cast<int>(i));
                }
            }
        }
        // A list item of an exercises or answers section names its exercise.
        for (const auto& [at, number] : L_.list_items) {
            const Section* sec = section_at(at);
            if (sec == nullptr || number.empty()) continue;
            if (sec->heading.find("exercise") == std::string::npos && sec->heading.find("answer") == std::string::npos)
                continue;
            const std::string cue = "exercise " + number;
            for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
                const auto& c = cat_.entities[i].cues;
                if (std::find(c.begin(), c.end(), cue) != c.end()) items_.emplace_back(at, static_cast<int>(i));
            }
        }
        std::sort(mentions_.begin(), mentions_.end());
        std::sort(items_.begin(), items_.end());
    }

    const Catalogue& catalogue() const { return cat_; }
    const Layout& layout() const { return L_; }

    const Section* section_at(std::size_t k) const {
        const auto it = std::upper_bound(L_.sections.begin(), L_.sections.end(), k,
                                         [](std::size_t x, const Section& sec) { return x < sec.b; });
        return it == L_.sections.begin() ? nullptr : &*(it - 1);
    }

    // has_phrase on the text, by the phrase's offsets: the last (or first) occurrence of
    // `phrase` inside [b, e) that starts a word and does not run into a number.
    bool phrase(std::size_t b, std::size_t e, std::string_view p, std::size_t* at = nullptr, bool last = true) const {
        const auto [lo, hi] = occ_.within(p, b, e);
        auto fits = [&](std::size_t k) {
            const bool left = k == 0 || !alpha(low_[k - 1]);
            const std::size_t r = k + p.size();
            const bool right =
                r >= low_.size() ||
                !(digit(low_[r]) || (digit(p.back()) && low_[r] == '.' && r + 1 < low_.size() && digit(low_[r + 1])));
            return left && right;
        };
        if (last) {
            for (const std::size_t* it = hi; it != lo; --it) {
                if (fits(*(it - 1))) {
                    if (at != nullptr) *at = *(it - 1);
                    return true;
                }
            }
            return false;
        }
        for (const std::size_t* it = lo; it != hi; ++it) {
            if (fits(*it)) {
                if (at != nullptr) *at = *it;
                return true;
            }
        }
        return false;
    }

    // Whether the label at `at` is preceded closely by a word of removal ("removing key",
    // "delete the source key token", "removing the highest-weight color state").
    bool removal_before(std::size_t at) const {
        const std::string_view before = std::string_view(low_).substr(at > 32 ? at - 32 : 0, at > 32 ? 32 : at);
        return before.find("remov") != std::string_view::npos || before.find("delet") != std::string_view::npos ||
               before.find("zero") != std::string_view::npos || before.find("without") != std::string_view::npos;
    }

    // hypothetical() of the sentence [b, e), by the words' offsets.
    bool hypothetical_at(std::size_t b, std::size_t e) const {
        for (const std::string_view w : hypothetical_words()) {
            const bool need_left = w.front() == ' ';
            const bool need_right = w.back() == ' ';
            const std::string_view core =
                w.substr(need_left ? 1 : 0, w.size() - (need_left ? 1 : 0) - (need_right ? 1 : 0));
            const auto [lo, hi] = occ_.within(core, b, e);
            for (const std::size_t* it = lo; it != hi; ++it) {
                const std::size_t k = *it;
                const bool left = !need_left || k == b || space(low_[k - 1]);  // a line end too
                const bool right = !need_right || k + core.size() == e || space(low_[k + core.size()]);
                if (left && right) return true;
            }
        }
        return false;
    }

    Scores cues_for(const Candidate& c) const {
        Scores sc;
        // Each window is bounded, so that a megabyte without a full stop costs no more a number
        // than a chapter does.
        Span sent = around(L_.sentence_starts, c.b, s_.size());
        Span para = around(L_.paragraph_starts, c.b, s_.size());
        sent.b = std::max(sent.b, c.b > 400 ? c.b - 400 : 0);
        sent.e = std::min(sent.e, c.e + 300);
        para.b = std::max(para.b, c.b > 1500 ? c.b - 1500 : 0);
        para.b = std::min(para.b, sent.b);
        const Section* sec = section_at(c.b);
        const std::size_t sec_b = std::max(sec != nullptr ? sec->b : 0, para.b > 4000 ? para.b - 4000 : 0);
        // A display formula that stands alone in its paragraph continues the sentence before it
        // when that sentence has no full stop ("The weights of head 2 are" / $$A = …$$).
        if (cat_.has_layers && c.kind == Kind::MathStatement && blank_between(para.b, c.b) && para.b > 0) {
            std::size_t p = para.b;
            while (p > 0 && space(s_[p - 1])) --p;
            if (p > 0 && s_[p - 1] != '.' && s_[p - 1] != '|' && s_[p - 1] != '}') {
                const Span prev = around(L_.paragraph_starts, p - 1, s_.size());
                sent.b = std::max(prev.b, c.b > 400 ? c.b - 400 : 0);
                para.b = std::min(para.b, sent.b);
            }
        }
        sc.hypothetical = hypothetical_at(sent.b, sent.e);
        if (word_before_at(s_, c.b) == "by") {
            std::size_t k = c.b;
            while (k > 0 && (s_[k - 1] == ' ' || s_[k - 1] == '$')) --k;
            const std::string verb = word_before_at(s_, k - std::min<std::size_t>(k, 2));
            static const std::set<std::string, std::less<>> operations = {
                "scaled",     "scale",       "scales",  "scaling", "multiplied", "multiply",
                "multiplies", "multiplying", "divided", "divide",  "divides",    "dividing"};
            if (operations.contains(verb)) sc.operand = verb + " by";
        }
        std::size_t field_at = 0;  // the nearest field word before it in its sentence
        // Entities: named in the sentence, the paragraph, a table's caption, earlier in the section.
        auto give = [&sc](int e, double w) {
            auto& x = sc.entity[e];
            x = std::max(x, w);
        };
        std::string why;
        auto first_at = [this](std::size_t k) {
            return std::lower_bound(mentions_.begin(), mentions_.end(), std::pair<std::size_t, int>{k, -1});
        };
        bool named_in_sentence = false;
        for (auto it = first_at(para.b); it != mentions_.end() && it->first < sent.e; ++it) {
            const auto [at, e] = *it;
            if (at >= sent.b) {
                give(e, at < c.b ? 7 : 6);
                named_in_sentence = true;
            } else {
                give(e, 5);
            }
        }
        // A table whose caption names reads and no intervention holds a row per position; an
        // intervention's table, a row per intervention (and its row label names a position too).
        bool rows_are_positions = false;
        if (c.table >= 0) {
            const auto& t = L_.tables[static_cast<std::size_t>(c.table)];
            bool reads = false;
            bool interventions = false;
            for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
                for (const auto& cue : cat_.entities[i].cues) {
                    if (!has_phrase(t.caption, 0, t.caption.size(), cue)) continue;
                    give(static_cast<int>(i), 7);
                    reads = reads || cat_.entities[i].kind == EntityKind::Read;
                    interventions = interventions || cat_.entities[i].kind == EntityKind::Intervention;
                }
            }
            rows_are_positions = reads && !interventions;
        }
        // The entity named last before this paragraph in the section carries over.
        {
            const auto end = first_at(para.b);
            if (end != mentions_.begin() && (end - 1)->first >= sec_b) {
                const std::size_t last_at = (end - 1)->first;
                for (auto it = first_at(last_at); it != end; ++it) give(it->second, 3.5);
            }
        }
        {  // the exercise of a list item (the item this number stands in)
            const auto end = std::upper_bound(items_.begin(), items_.end(), std::pair<std::size_t, int>{c.b, 1 << 30});
            auto it = end;
            while (it != items_.begin() && (it - 1)->first == (end - 1)->first) --it;
            for (; it != end; ++it) {
                if (it->first < sec_b) continue;
                const Span item = around(L_.paragraph_starts, it->first, s_.size());
                if (c.b >= item.b && c.b < item.e) give(it->second, 5);
            }
        }
        if (sec != nullptr && !sec->number.empty()) {
            for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
                for (const auto& cue : cat_.entities[i].cues) {
                    if (cue == "section " + sec->number) give(static_cast<int>(i), 3);
                }
            }
        }
        // Fields: a formula's name, a column header, a unit after a count, the words before.
        auto field = [&sc](const std::string& f, double w) {
            auto& x = sc.field[f];
            x = std::max(x, w);
        };
        std::set<std::string> label_fields;  // the fields a formula's name states
        auto label_field = [&](const std::string& f) {
            field(f, 8);
            label_fields.insert(f);
        };
        if (!c.label.empty()) {
            const std::string l = lower(c.label);
            if (l.starts_with("h")) label_field("states");
            if (l.starts_with("c")) label_field("context");
            if (l == "r") label_field("readout");
            if (l.starts_with("q")) label_field("query");
            if (l == "n") label_field("positions");
            if (l == "d") label_field("width");
            if (l.starts_with("e^") || l.starts_with("exp")) label_field("exponentials");
            if (l.starts_with("\\alpha") || l.starts_with("alpha") || l.starts_with("α")) label_field("weights");
            if (cat_.has_layers) {  // S, A^{(2)}, o_1, y_3: a layer's scores, weights, outputs
                const char f0 = c.label[0];
                if (f0 == 'S') label_field("scores");
                if (f0 == 'A' || l.starts_with("\\alpha") || l.starts_with("α")) label_field("weights");
                if (f0 == 'o' || f0 == 'O' || f0 == 'y' || f0 == 'Y') label_field("outputs");
                const std::size_t d = l.find_first_of("0123456789");
                if (d != std::string::npos && (l.find("^{(") != std::string::npos || l.find("^(") != std::string::npos))
                    sc.head[l[d] - '0'] = 8;
                else if (d != std::string::npos &&
                         (f0 == 'o' || f0 == 'y' || l.starts_with("q_") || l.starts_with("q")))
                    sc.qrow[l[d] - '0'] = 8;
            }
            if (l.starts_with("h") || l.starts_with("c") || l.starts_with("q")) {
                const std::size_t d = l.find_first_of("0123456789");
                if (d != std::string::npos) {
                    const int k = l[d] - '0';
                    if (l.starts_with("h")) sc.pos[k] = 8;
                    if (l.starts_with("c") || l.starts_with("q")) {
                        // c_1, q_1: the read of the k-th query.
                        for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
                            const auto& en = cat_.entities[i];
                            if (static_cast<std::size_t>(k) <= cat_.query_names.size() && k >= 1 &&
                                en.query == cat_.query_names[static_cast<std::size_t>(k - 1)])
                                sc.entity[static_cast<int>(i)] += 2;
                        }
                    }
                }
            }
        }
        if (c.table >= 0) {
            const auto& t = L_.tables[static_cast<std::size_t>(c.table)];
            if (static_cast<std::size_t>(c.col) < t.headers.size()) {
                const std::string& h = t.headers[static_cast<std::size_t>(c.col)];
                for (const auto& fc : field_cues()) {
                    if (h.find(fc.stem) != std::string::npos) {
                        for (const auto& f : fc.fields) field(f, 8);
                    }
                }
                sc.reason_field = fmt::format("column \"{}\"", h);
                // A layer's table: the columns are keys, named by their tokens; the field is the
                // first one its caption names ("attention weights of head 1").
                for (const auto& [tok, i] : cat_.layer_tokens) {
                    if (lower(trim(h)) == tok) sc.pos[i] = 7;
                }
                if (cat_.has_layers && sc.field.empty()) {
                    std::size_t first = std::string::npos;
                    const FieldCue* fc0 = nullptr;
                    for (const auto* list : {&field_cues(), &layer_field_cues()}) {
                        for (const auto& fc : *list) {
                            std::size_t at = 0;
                            if (has_phrase(t.caption, 0, t.caption.size(), fc.stem, &at, false) && at < first) {
                                first = at;
                                fc0 = &fc;
                            }
                        }
                    }
                    if (fc0 != nullptr) {
                        for (const auto& f : fc0->fields) field(f, 8);
                        sc.reason_field = fmt::format("\"{}\" in the caption", fc0->stem);
                    }
                }
            }
            if (static_cast<std::size_t>(c.row) < t.row_heads.size()) {
                const std::string& rh = t.row_heads[static_cast<std::size_t>(c.row)];
                int k = 0;
                if (!rh.empty() && digit(rh[0])) k = rh[0] - '0';
                for (std::size_t i = 0; i < cat_.labels.size() && k == 0; ++i) {
                    if (rh.find(cat_.labels[i]) != std::string::npos) k = std::stoi(cat_.label_positions[i][0]);
                }
                for (const auto& [tok, i] : cat_.layer_tokens) {
                    if (rh == tok) sc.qrow[i] = 7;
                }
                if (rh == "none" || rh == "—" || rh == "-" || rh.starts_with("no ")) {
                    sc.row[0] = 7;
                } else if (k > 0) {
                    if (!rows_are_positions) sc.row[k] = 7;
                    sc.pos[c.in_cell_list ? c.list_index : k] = 7;
                }
                sc.reason_index = fmt::format("row \"{}\"", rh);
            }
        }
        // Units after a count (with `versus`, `and`, `or` and another number between).
        if (c.shape.entries < 0) {
            std::size_t k = c.e;
            std::string after = low_.substr(k, std::min<std::size_t>(60, low_.size() - k));
            for (const char* conn : {" versus ", " and ", " or ", " to "}) {
                if (after.starts_with(conn)) {
                    std::size_t p = std::string_view(conn).size();
                    std::size_t q = p;
                    while (q < after.size() && (digit(after[q]) || after[q] == '.')) ++q;
                    if (q > p) after = after.substr(q);
                }
            }
            std::size_t w = 0;
            while (w < after.size() && (after[w] == ' ' || after[w] == '$' || after[w] == '}')) ++w;
            after = after.substr(w);
            // skip one adjective: "zero scores", "scalar multiplications", "source-state"
            for (const auto& uc : unit_cues()) {
                const std::size_t at = after.find(uc.stem);
                if (at == std::string::npos) continue;
                const std::string gap = after.substr(0, at);
                if (gap.find_first_of(",.;:()") != std::string::npos) continue;
                if (std::count(gap.begin(), gap.end(), ' ') > 1 || gap.starts_with("and ") || gap.starts_with("the "))
                    continue;
                const std::size_t r = at + uc.stem.size();
                if (r < after.size() && alpha(after[r]) &&
                    !(after[r] == 's' && (r + 1 >= after.size() || !alpha(after[r + 1]))))
                    continue;
                for (const auto& f : uc.fields) field(f, 9);
                if (sc.reason_field.empty()) sc.reason_field = fmt::format("\"{}\" after it", uc.stem);
                sc.qualified = !gap.empty();
                break;
            }
        }
        // The words before it in its sentence (nearest first), and in its paragraph (by how
        // often each is named). A number word takes only the name beside it (its unit, or the
        // quantity's name just before it).
        if (c.kind == Kind::Word) {
            std::map<std::string, double> kept;
            for (const auto& [f, w] : sc.field) {
                if (w >= 9) kept[f] = w;
            }
            std::size_t p = kept.empty() ? c.b : 0;
            for (int words = 0; words < 4 && p > 0; ++words) {
                std::size_t e = p;
                while (e > 0 && (s_[e - 1] == ' ' || s_[e - 1] == ',')) --e;
                bool name = false;
                const std::size_t b = word_start(s_, e, name);
                if (b == e) break;
                const std::string w = low_.substr(b, e - b);
                for (const auto& fc : field_cues()) {
                    if (w.starts_with(fc.stem) && fc.stem != "state" && fc.stem != "query" && fc.stem != "probe") {
                        for (const auto& f : fc.fields) kept[f] = std::max(kept[f], 8.0);
                    }
                }
                if (!name && !linking_words().contains(w)) break;
                p = b;
            }
            sc.field = kept;
        } else {
            std::vector<std::pair<std::size_t, const FieldCue*>> found;
            for (const auto& fc : field_cues()) {
                std::size_t at = 0;
                if (!phrase(sent.b, c.b, fc.stem, &at)) continue;
                // In a layer, "the first query" and "query 3" name a row, not the query vectors.
                if (cat_.has_layers && fc.stem == "query" && query_names_row(at)) continue;
                found.emplace_back(at, &fc);
            }
            std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
            if (!found.empty()) field_at = found[0].first;
            double w = 6;
            for (const auto& [at, fc] : found) {
                // A cue with a mark between it and the number names the mark's quantity.
                const bool marked_between = src_.scan.compare(at, c.b - at, s_, at, c.b - at) != 0;
                for (const auto& f : fc->fields) field(f, marked_between ? 2 : w);
                if (sc.reason_field.empty()) sc.reason_field = fmt::format("\"{}\" before it", fc->stem);
                w = std::max(2.0, w - 3);
            }
            if (cat_.has_layers) {  // keys, values, outputs, "attends": a layer's quantities
                double lw = 6;
                std::vector<std::pair<std::size_t, const FieldCue*>> lfound;
                for (const auto& fc : layer_field_cues()) {
                    std::size_t at = 0;
                    if (phrase(sent.b, c.b, fc.stem, &at)) lfound.emplace_back(at, &fc);
                }
                std::sort(lfound.begin(), lfound.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
                for (const auto& [at, fc] : lfound) {
                    const double w2 = at >= field_at ? lw : std::min(lw, 3.0);
                    for (const auto& f : fc->fields) field(f, w2);
                    if (sc.reason_field.empty() || at >= field_at)
                        sc.reason_field = fmt::format("\"{}\" before it", fc->stem);
                    if (at >= field_at) field_at = at;
                    lw = std::max(2.0, lw - 3);
                }
            }
            if (c.table < 0) {
                std::map<std::string, int> count;
                std::size_t nearest = 0;
                const FieldCue* pf = nullptr;
                for (const auto& fc : field_cues()) {
                    const auto [lo, hi] = occ_.within(fc.stem, para.b, sent.b);
                    if (lo == hi) continue;
                    for (const auto& f : fc.fields) count[f] += static_cast<int>(hi - lo);
                    if (pf == nullptr || *(hi - 1) > nearest) {
                        nearest = *(hi - 1);
                        pf = &fc;
                    }
                }
                for (const auto& [f, n] : count) {
                    double pw = std::min(3.0, 1.0 + 0.5 * n);
                    if (pf != nullptr && std::find(pf->fields.begin(), pf->fields.end(), f) != pf->fields.end())
                        pw += 0.5;
                    field(f, pw);
                }
                if (sc.reason_field.empty() && pf != nullptr)
                    sc.reason_field = fmt::format("\"{}\" earlier in the paragraph", pf->stem);
            }
        }
        // A formula's name states its field: the field words of its sentence and paragraph say less
        // ("Since $a = \ln 2$, we have $e^a = 2$": an exponential, not the constant ln 2).
        if (!label_fields.empty()) {
            for (auto it = sc.field.begin(); it != sc.field.end();) {
                it = label_fields.contains(it->first) || it->second >= 8 ? std::next(it) : sc.field.erase(it);
            }
        }
        // A percentage states a share, and of the quantities only a weight is one ("each state
        // takes 33.3% of the read" is a weight, not a state's coordinate).
        {
            const std::string t = compact(s_.substr(c.b, c.e - c.b));
            if (c.shape.entries < 0 && (t.ends_with("%") || t.ends_with("%$"))) {
                for (auto it = sc.field.begin(); it != sc.field.end();) {
                    it = it->first == "weights" ? std::next(it) : sc.field.erase(it);
                }
            }
        }
        if (c.label.empty()) {  // a = ln 2 ≈ 0.693147: the constant
            const std::string t = compact(low_.substr(c.b, c.e - c.b));
            if (t.starts_with("$a=") || t.starts_with("a=") || t.starts_with("\\(a=")) field("a", 9);
        }
        // A cost case's count named by its unit or formula name fits any cost case named nowhere.
        {
            double unit = 0;
            for (const auto& [f, w] : sc.field) {
                if (w >= 8 &&
                    (f == "positions" || f == "width" || f.find("bytes") != std::string::npos ||
                     f.find("numbers") != std::string::npos || f.find("steps") != std::string::npos ||
                     f == "dot_products" || f.find("multiplications") != std::string::npos ||
                     f == "exponential_count" || f.find("additions") != std::string::npos || f == "divisions"))
                    unit = 3;
            }
            if (unit > 0) {
                for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
                    if (cat_.entities[i].kind == EntityKind::Cost) {
                        auto& x = sc.entity[static_cast<int>(i)];
                        x = std::max(x, unit);
                    }
                }
            }
        }
        // A number said of a table, figure or example the scenario does not compute (the
        // reference nearest it in its sentence names none of its entities): not bound.
        {
            std::size_t best_d = std::string::npos;
            std::string nearest;
            for (const std::string_view word : {"table ", "figure ", "example ", "exercise "}) {
                const auto [lo, hi] = occ_.within(word, sent.b, sent.e);
                for (const std::size_t* it = lo; it != hi; ++it) {
                    const std::size_t k = *it;
                    std::size_t p = k + std::string_view(word).size();
                    const std::size_t nb = p;
                    while (p < sent.e && (digit(low_[p]) || (low_[p] == '.' && p + 1 < sent.e && digit(low_[p + 1]))))
                        ++p;
                    if (p == nb) continue;
                    const std::size_t d = k > c.b ? k - c.b : c.b - k;
                    if (d < best_d) {
                        best_d = d;
                        nearest = low_.substr(k, p - k);
                    }
                }
            }
            if (!nearest.empty()) {
                bool known = false;
                for (const auto& en : cat_.entities) {
                    known = known || std::find(en.cues.begin(), en.cues.end(), nearest) != en.cues.end();
                }
                for (const auto& sec2 : L_.sections) {
                    known = known || (!sec2.number.empty() && nearest == "section " + sec2.number);
                }
                if (!known) sc.foreign = nearest;
            }
        }
        if (sc.field.empty()) return sc;  // nothing names a quantity: no entity needs weighing
        // Modifiers: the source, the query and the kind of intervention named closest.
        // (A paragraph's level reaches back over up to three short paragraphs before it: the
        // label lines of a figure or a list, "Read 1: q = [1,0]".)
        std::size_t reach = para.b;
        for (int back = 0; back < 6; ++back) {
            const auto it = std::lower_bound(L_.paragraph_starts.begin(), L_.paragraph_starts.end(), reach);
            if (it == L_.paragraph_starts.begin()) break;
            const std::size_t prev = *(it - 1);
            if (reach - prev > 120 || prev < sec_b || c.b - prev > 2000) break;
            reach = prev;
        }
        // A read or table named in the number's own sentence is not overruled by a source or query
        // named only in the paragraphs before it.
        auto level = [&](auto&& found, double ws, double wp, double wsec) -> std::pair<double, std::set<int>> {
            for (const auto& [b, e, w] :
                 {std::tuple{sent.b, sent.e, ws}, std::tuple{reach, sent.b, named_in_sentence ? 0.0 : wp},
                  std::tuple{sec_b, para.b, named_in_sentence ? 0.0 : wsec}}) {
                if (w == 0) break;
                std::set<int> hit = found(b, e);
                if (!hit.empty()) return {w, hit};
            }
            return {0.0, {}};
        };
        const auto [ws, sources] = level(
            [&](std::size_t b, std::size_t e) {
                std::set<int> hit;
                for (std::size_t i = 0; i < cat_.source_names.size(); ++i) {
                    if (phrase(b, e, cat_.source_names[i] + " source") || phrase(b, e, "the " + cat_.source_names[i]))
                        hit.insert(static_cast<int>(i));
                }
                return hit;
            },
            4, 3, 1.5);
        const auto [wq, queries] = level(
            [&](std::size_t b, std::size_t e) {
                std::set<int> hit;
                const auto ordinal = ordinals(4);
                for (std::size_t i = 0; i < cat_.query_names.size(); ++i) {
                    const std::string name = lower(cat_.query_names[i]);
                    bool h = phrase(b, e, name);
                    if (i < ordinal.size()) h = h || phrase(b, e, std::string(ordinal[i]) + " query");
                    if (name.size() == 2 && name[0] == 'q') {
                        h = h || phrase(b, e, fmt::format("q_{}", name[1])) ||
                            phrase(b, e, fmt::format("q_{{{}}}", name[1])) ||
                            phrase(b, e, fmt::format("c_{}", name[1])) ||
                            phrase(b, e, fmt::format("c_{{{}}}", name[1]));
                    }
                    if (name.find("zero") != std::string::npos) h = h || phrase(b, e, "zero query");
                    const std::size_t cb = compact_.at[b];
                    const std::size_t ce = compact_.at[std::max(b, e)];
                    h = h || compact_occ_.any("query" + cat_.query_vectors[i], cb, ce) ||
                        compact_occ_.any("q=" + cat_.query_vectors[i], cb, ce);
                    if (h) hit.insert(static_cast<int>(i));
                }
                return hit;
            },
            4, 3, 1);
        const auto [wk, kinds] = level(
            [&](std::size_t b, std::size_t e) {
                std::set<int> hit;
                auto named = [&](std::initializer_list<std::string_view> words) {
                    return std::any_of(words.begin(), words.end(),
                                       [&](std::string_view w) { return occ_.any(w, b, std::max(b, e)); });
                };
                if (named({"remov", "frozen"})) hit.insert(0);
                if (named({"delet", "re-encod", "recomput", "input token", "input key", "original-input"}))
                    hit.insert(1);
                if (named({"zeroed", "score to zero"})) hit.insert(2);
                return hit;
            },
            3, 3, 1);
        for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
            const auto& en = cat_.entities[i];
            double m = 0;
            if (!sources.empty() && !en.source.empty()) {
                const auto it = std::find(cat_.source_names.begin(), cat_.source_names.end(), lower(en.source));
                const int si = static_cast<int>(it - cat_.source_names.begin());
                m += sources.contains(si) ? ws : -ws;
            }
            if (!queries.empty() && !en.query.empty()) {
                const auto it = std::find(cat_.query_names.begin(), cat_.query_names.end(), en.query);
                const int qi = static_cast<int>(it - cat_.query_names.begin());
                m += queries.contains(qi) ? wq : -wq / 2;
            }
            if (en.kind == EntityKind::Intervention && !kinds.empty()) {
                const int ki = en.intervention == "remove-state" ? 0 : en.intervention == "delete-token" ? 1 : 2;
                m += kinds.contains(ki) ? wk : -wk;
            }
            if (m != 0) sc.entity[static_cast<int>(i)] += m;
        }
        if (cat_.has_layers) layer_cues(c, sent, reach, sec_b, sc);
        // Index cues in the sentence: a position's label (color, key), "first coordinate",
        // "removing key" (an intervention's row), the place in a list.
        if (c.table < 0) {
            std::size_t best_at = 0;
            int best_pos = 0;
            double best_w = 0;
            for (std::size_t i = 0; i < cat_.labels.size(); ++i) {
                std::size_t at = 0;
                if (phrase(sent.b, c.b, cat_.labels[i], &at) && (best_pos == 0 || at > best_at)) {
                    best_at = at;
                    best_pos = std::stoi(cat_.label_positions[i][0]);
                    best_w = 4;
                    // removing key, delete the color token: a row of an intervention
                    if (removal_before(at)) {
                        sc.row.clear();
                        sc.row[best_pos] = 6;
                        best_w = 0;
                    }
                }
                if (phrase(c.e, std::min(sent.e, c.e + 40), cat_.labels[i], &at, false) && best_pos == 0) {
                    best_pos = std::stoi(cat_.label_positions[i][0]);
                    best_w = 2;
                }
            }
            if (best_pos > 0 && best_w > 0) {
                sc.pos[best_pos] = best_w;
                sc.label_after_field = best_w >= 4 && best_at > field_at;
                sc.reason_index =
                    fmt::format("\"{}\" beside it",
                                cat_.labels[static_cast<std::size_t>(
                                    std::find_if(cat_.label_positions.begin(), cat_.label_positions.end(),
                                                 [&](const auto& v) { return v[0] == std::to_string(best_pos); }) -
                                    cat_.label_positions.begin())]);
            }
            // The removal an earlier sentence of the paragraph names ("delete the source key
            // token. The first state is [a,0].") holds for the sentences after it.
            const bool own_removal = occ_.any("remov", sent.b, c.b) || occ_.any("delet", sent.b, c.b);
            if (sc.row.empty() && !own_removal) {
                std::size_t last_at = 0;
                int last_pos = 0;
                for (std::size_t i = 0; i < cat_.labels.size(); ++i) {
                    std::size_t at = 0;
                    if (phrase(para.b, sent.b, cat_.labels[i], &at) && removal_before(at) &&
                        (last_pos == 0 || at > last_at)) {
                        last_at = at;
                        last_pos = std::stoi(cat_.label_positions[i][0]);
                    }
                }
                if (last_pos > 0) sc.row[last_pos] = 4;
            }
            // "the first coordinate"; "the first state", "the second score": a position. Of several
            // ("the first weight is 1/7, the second weight is 2/7"), the one nearest before it.
            const auto ordinal = ordinals(3);
            std::size_t coord_at = 0, pos_at = 0;
            int coord_k = 0, pos_k = 0;
            for (std::size_t i = 0; i < ordinal.size(); ++i) {
                const std::string o(ordinal[i]);
                for (const std::string& p : {o + " coordinate", o + " context coordinate"}) {
                    std::size_t at = 0;
                    if (phrase(sent.b, c.b, p, &at) && (coord_k == 0 || at > coord_at)) {
                        coord_at = at;
                        coord_k = static_cast<int>(i) + 1;
                    }
                }
                for (const char* noun : {" state", " score", " weight", " exponential", " position"}) {
                    std::size_t at = 0;
                    if (phrase(sent.b, c.b, o + noun, &at) && (pos_k == 0 || at > pos_at)) {
                        pos_at = at;
                        pos_k = static_cast<int>(i) + 1;
                    }
                }
            }
            if (coord_k > 0) sc.coord[coord_k] = 3;
            if (pos_k > 0) sc.pos[pos_k] = 4;
            if (phrase(sent.b, c.b, "before deletion") || phrase(sent.b, c.b, "no intervention")) sc.row[0] = 5;
            if (c.list_index > 0) {
                // A list of three or more numbers names positions in order ("the states are
                // [0,0], [0,a], [0,0]"); a shorter one may skip one ("weights 2/3 and 1/3").
                const double w = c.list_size >= 3 ? 3 : 1;
                if (sc.pos.empty()) sc.pos[c.list_index] = w;
                if (sc.coord.empty()) sc.coord[c.list_index] = 1;
            }
        }
        return sc;
    }

    // Whether the word "query" at `at` names a row of a layer: an ordinal before it ("the first
    // query") or a number after it ("query 3").
    bool query_names_row(std::size_t at) const {
        std::size_t e = at + 5;
        if (e < low_.size() && low_[e] == 's') ++e;
        if (e + 1 < low_.size() && low_[e] == ' ' && digit(low_[e + 1])) return true;
        std::size_t p = at;
        while (p > 0 && low_[p - 1] == ' ') --p;
        std::size_t b = p;
        while (b > 0 && alpha(low_[b - 1])) --b;
        const std::string w = low_.substr(b, p - b);
        return w == "last" || std::ranges::find(ordinals(6), w) != ordinals(6).end();
    }

    int layer_count() const {
        return static_cast<int>(std::count_if(cat_.entities.begin(), cat_.entities.end(),
                                              [](const Entity& e) { return e.kind == EntityKind::Layer; }));
    }

    // Whether [b, e) holds nothing but spaces and math delimiters.
    bool blank_between(std::size_t b, std::size_t e) const {
        for (std::size_t k = b; k < e && k < s_.size(); ++k) {
            if (!space(s_[k]) && s_[k] != '$' && s_[k] != '\\' && s_[k] != '[' && s_[k] != '(') return false;
        }
        return true;
    }

    // A token of a layer named in [b, e): a sequence token (pine), `token 3`, `query 3`, `key 1`,
    // `row 2`, `column 1`, `x_3`, `q_3`, `k_1`, `o_2`, `the third token`, `the first`, `itself`;
    // with its role: the query (the row, the token that attends) or the key it attends to.
    enum class Role { Unknown, Query, Key, Self };
    struct Mention {
        std::size_t at = 0, end = 0;
        int index = 0;
        Role role = Role::Unknown;
    };
    // The role the words just before a mention give it: "to", "against", "on", "key (of)",
    // "column" a key; "query (of)", "row (of)", "output of", "for" a query.
    Role role_before(std::size_t at) const {
        std::size_t p = at;
        std::vector<std::string> words;
        while (words.size() < 3 && p > 0) {
            while (p > 0 && (s_[p - 1] == ' ' || s_[p - 1] == '$')) --p;
            std::size_t b = p;
            while (b > 0 && alpha(low_[b - 1])) --b;
            if (b == p) break;
            words.push_back(low_.substr(b, p - b));
            p = b;
            if (words.back() != "the" && words.back() != "of") break;
        }
        std::erase(words, "the");
        if (words.empty()) return Role::Unknown;
        const std::string& w = words[0] == "of" && words.size() > 1 ? words[1] : words[0];
        static const std::set<std::string, std::less<>> key_words = {"to",   "against", "on",     "key",
                                                                     "keys", "column",  "columns"};
        static const std::set<std::string, std::less<>> query_words = {
            "query", "queries", "row", "rows", "for", "output", "outputs", "weights", "scores", "denominator"};
        if (words[0] == "of")
            return key_words.contains(w) && w != "to" ? Role::Key
                   : query_words.contains(w)          ? Role::Query
                                                      : Role::Unknown;
        if (key_words.contains(w)) return Role::Key;
        if (w == "query" || w == "row" || w == "for") return Role::Query;
        return Role::Unknown;
    }
    std::vector<Mention> token_mentions(std::size_t b, std::size_t e) const {
        std::vector<Mention> out;
        auto word_at = [&](std::size_t k, std::size_t len) {
            return (k == 0 || !alpha(low_[k - 1])) && (k + len >= low_.size() || !alpha(low_[k + len]));
        };
        // A token spelled as an English function word ("the" of "the cat sat") is the word where
        // a word follows it ("the second token", "against the first"), the token elsewhere
        // ("the, cat, sat", "attends to the.").
        static const std::set<std::string, std::less<>> function_words = {
            "the", "a", "an", "of", "to", "in", "on", "at", "by", "for", "and", "or", "is", "it", "as", "be"};
        for (const auto& [tok, i] : cat_.layer_tokens) {
            const auto [lo, hi] = occ_.within(tok, b, e);
            for (const std::size_t* it = lo; it != hi; ++it) {
                if (!word_at(*it, tok.size())) continue;
                std::size_t n = *it + tok.size();
                while (n < low_.size() && low_[n] == ' ') ++n;
                if (function_words.contains(tok) && n > *it + tok.size() && n < low_.size() && alpha(low_[n])) continue;
                out.push_back({*it, *it + tok.size(), i, role_before(*it)});
            }
        }
        static const std::array<std::pair<const char*, Role>, 7> nouns{{{"token", Role::Unknown},
                                                                        {"position", Role::Unknown},
                                                                        {"query", Role::Query},
                                                                        {"row", Role::Query},
                                                                        {"key", Role::Key},
                                                                        {"column", Role::Key},
                                                                        {"word", Role::Unknown}}};
        const auto ordinal = ordinals(6);
        for (const auto& [noun, role] : nouns) {
            const std::string n = std::string(noun) + " ";
            const auto [lo, hi] = occ_.within(n, b, e);
            for (const std::size_t* it = lo; it != hi; ++it) {
                const std::size_t d = *it + n.size();
                if (!word_at(*it, n.size() - 1) || d >= e || !digit(low_[d]) || (d + 1 < e && digit(low_[d + 1])))
                    continue;
                const Role r = role == Role::Unknown ? role_before(*it) : role;
                out.push_back({*it, d + 1, low_[d] - '0', r});
            }
            for (std::size_t o = 0; o < ordinal.size(); ++o) {
                const std::string phrase_o = std::string(ordinal[o]) + " " + noun;
                const auto [lo2, hi2] = occ_.within(phrase_o, b, e);
                for (const std::size_t* it = lo2; it != hi2; ++it) {
                    if (!word_at(*it, phrase_o.size()) &&
                        !(*it + phrase_o.size() < low_.size() && low_[*it + phrase_o.size()] == 's'))
                        continue;
                    const Role r = role == Role::Unknown ? role_before(*it) : role;
                    out.push_back({*it, *it + phrase_o.size(), static_cast<int>(o) + 1, r});
                }
            }
        }
        for (std::size_t o = 0; o < ordinal.size(); ++o) {  // "attends to the first"
            const std::string phrase_o = "the " + std::string(ordinal[o]);
            const auto [lo, hi] = occ_.within(phrase_o, b, e);
            for (const std::size_t* it = lo; it != hi; ++it) {
                const std::size_t r = *it + phrase_o.size();
                if (!word_at(*it, phrase_o.size())) continue;
                std::size_t n = r;
                while (n < low_.size() && low_[n] == ' ') ++n;
                std::size_t ne = n;
                while (ne < low_.size() && alpha(low_[ne])) ++ne;
                const std::string next = low_.substr(n, ne - n);
                // "the first query" is a noun's ordinal above; "the first with weight 1/4" a token's
                if (next != "with" && next != "and" && next != "by" && n != r + 0 && !next.empty()) continue;
                out.push_back({*it, r, static_cast<int>(o) + 1, role_before(*it + 4)});
            }
        }
        for (const char* sym : {"x_", "q_", "k_", "o_", "y_"}) {
            const auto [lo, hi] = occ_.within(sym, b, e);
            for (const std::size_t* it = lo; it != hi; ++it) {
                std::size_t d = *it + 2;
                if (d < e && low_[d] == '{') ++d;
                if (d >= e || !digit(low_[d]) || (*it > 0 && alpha(low_[*it - 1]))) continue;
                const Role r = sym[0] == 'k' ? Role::Key : sym[0] == 'x' ? role_before(*it) : Role::Query;
                out.push_back({*it, d + 1, low_[d] - '0', r});
            }
        }
        {
            const auto [lo, hi] = occ_.within("itself", b, e);
            for (const std::size_t* it = lo; it != hi; ++it) out.push_back({*it, *it + 6, 0, Role::Self});
        }
        std::sort(out.begin(), out.end(), [](const Mention& x, const Mention& y) { return x.at < y.at; });
        return out;
    }

    // A layer's cues: the head named nearest (its sentence, the paragraphs before it, its
    // section; a table's caption), and the query row and key position of the sentence's tokens.
    void layer_cues(const Candidate& c, const Span& sent, std::size_t reach, std::size_t sec_b, Scores& sc) const {
        if (sc.head.empty()) {
            auto heads_in = [&](std::size_t b, std::size_t e) {
                int before = 0, after = 0;
                std::size_t before_at = 0;
                const auto ordinal = ordinals(4);
                for (int h = 1; h <= 9; ++h) {
                    for (const std::string& p :
                         {fmt::format("head {}", h), fmt::format("head_{}", h),
                          h <= 4 ? fmt::format("{} head", ordinal[static_cast<std::size_t>(h - 1)])
                                 : std::string("\x01")}) {
                        std::size_t at = 0;
                        if (phrase(b, std::min(e, c.b), p, &at) && (before == 0 || at > before_at)) {
                            before = h;
                            before_at = at;
                        }
                        if (after == 0 && phrase(std::max(b, c.e), e, p, &at, false)) after = h;
                    }
                }
                return before > 0 ? before : after;
            };
            int h = 0;
            double w = 0;
            if (c.table >= 0) {
                const auto& t = L_.tables[static_cast<std::size_t>(c.table)];
                for (int k = 1; k <= 9 && h == 0; ++k) {
                    if (has_phrase(t.caption, 0, t.caption.size(), fmt::format("head {}", k))) h = k, w = 4;
                }
            }
            if (h == 0 && (h = heads_in(sent.b, sent.e)) > 0) w = 4;
            if (h == 0 && reach < sent.b && (h = heads_in(reach, sent.b)) > 0) w = 3;
            if (h == 0 && sec_b < reach && (h = heads_in(sec_b, reach)) > 0) w = 2;
            if (h > 0) sc.head[h] = w;
        }
        if (c.table >= 0) return;
        // "[1,0], [0,1] and [1,1]": vectors listed are the rows in order; "the weights are 1/7, 2/7
        // and 4/7": scalars listed are the keys of the row the sentence names, in order.
        const bool scalars_listed = c.list_index > 0 && c.list_size >= 2 && c.shape.entries < 0;
        if (c.list_index > 0 && c.list_size >= 2 && !scalars_listed) {
            sc.qrow[c.list_index] = c.list_size >= 3 ? 3 : 1;
            return;
        }
        const std::vector<Mention> ms = token_mentions(sent.b, sent.e);
        int q = 0, k = 0;
        for (const auto& m : ms) {
            if (m.end > c.b) break;
            switch (m.role) {
                case Role::Query:
                    q = m.index, k = 0;
                    break;
                case Role::Key:
                    k = m.index;
                    break;
                case Role::Self:
                    k = q;
                    break;
                case Role::Unknown:
                    if (q == 0) {
                        q = m.index;
                    } else if (k == 0) {
                        k = m.index;
                    } else {
                        q = m.index, k = 0;
                    }
                    break;
            }
        }
        // A key named right after it ("0 against the key of oak", "1/5 to oak", "2a against itself").
        for (const auto& m : ms) {
            if (m.at < c.e) continue;
            const std::string gap = low_.substr(c.e, m.at - c.e);
            bool only_links = gap.size() <= 24;
            std::size_t p = 0;
            while (only_links && p < gap.size()) {
                while (p < gap.size() && (gap[p] == ' ' || gap[p] == '$')) ++p;
                std::size_t we = p;
                while (we < gap.size() && alpha(gap[we])) ++we;
                const std::string w = gap.substr(p, we - p);
                if (we == p && p < gap.size()) only_links = false;
                if (!w.empty() && w != "against" && w != "to" && w != "the" && w != "key" && w != "of" && w != "on")
                    only_links = false;
                p = we;
            }
            if (only_links && (m.role == Role::Key || m.role == Role::Self || m.role == Role::Unknown))
                k = m.role == Role::Self ? q : m.index;
            break;
        }
        if (q == 0) {  // the token named after it ("… is the output of elm")
            for (const auto& m : ms) {
                if (m.at >= c.e && (m.role == Role::Query || m.role == Role::Unknown)) {
                    q = m.index;
                    break;
                }
            }
        }
        if (scalars_listed) k = c.list_index;  // the row, when the sentence names none, by value
        if (q > 0 && sc.qrow.empty()) sc.qrow[q] = 4;
        if (k > 0 && sc.pos.empty()) sc.pos[k] = 4;
        if (q > 0 || k > 0) {
            const std::string r = fmt::format("{}{}{}", q > 0 ? fmt::format("query {}", q) : "",
                                              q > 0 && k > 0 ? ", " : "", k > 0 ? fmt::format("key {}", k) : "");
            sc.reason_index = sc.reason_index.empty() ? r : sc.reason_index + ", " + r;
        }
    }

    double entity_score(const Scores& sc, const Item& it) const {
        auto of = [&sc](int e) {
            const auto x = sc.entity.find(e);
            return x == sc.entity.end() ? 0.0 : x->second;
        };
        const Entity& en = cat_.entities[static_cast<std::size_t>(it.entity)];
        double v = of(it.entity);
        if (en.kind == EntityKind::Intervention && it.row == 0 && en.same_read >= 0)
            v = std::max(v, of(en.same_read) - 0.5);
        if (en.kind == EntityKind::Source) {
            for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
                const auto& r = cat_.entities[i];
                if (r.kind == EntityKind::Read && r.source == en.name) v = std::max(v, of(static_cast<int>(i)) - 0.5);
            }
        }
        if (en.kind == EntityKind::Constant || en.kind == EntityKind::Vocabulary) v = std::max(v, 4.0);
        if (en.kind == EntityKind::Layer && layer_count() == 1) v = std::max(v, 4.0);
        // The states of the scenario's only source need no name: "the sun state is [a,0]".
        if (en.kind == EntityKind::Source && cat_.source_names.size() == 1) v = std::max(v, 3.5);
        return v;
    }

    double score(const Scores& sc, const Item& it) const {
        const double e = entity_score(sc, it);
        const auto f = sc.field.find(it.field);
        if (e <= 0 || f == sc.field.end()) return -1;
        // Said of a position (a label between the field word and it), it is no quantity of a whole
        // read or row (a denominator, a context, a readout).
        if (sc.label_after_field && it.pos == 0 &&
            cat_.entities[static_cast<std::size_t>(it.entity)].kind != EntityKind::Cost)
            return -1;
        double v = e + f->second;
        auto index = [&v](const std::map<int, double>& cues, int have) {
            if (cues.empty() || have <= 0) return;
            const auto x = cues.find(have);
            if (x != cues.end()) {
                v += x->second;
            } else {
                v -= cues.begin()->second;
            }
        };
        index(sc.pos, it.pos);
        index(sc.coord, it.coord);
        index(sc.qrow, it.qrow);
        index(sc.head, it.head);

        if (it.row >= 0 && !sc.row.empty()) {
            const auto x = sc.row.find(it.row);
            v += x != sc.row.end() ? x->second : -sc.row.begin()->second;
        }
        return v;
    }

  private:
    const Source& src_;
    const std::string& s_;
    std::string low_;
    Occurrences occ_;          ///< phrases in low_
    Compacted compact_;        ///< low_ without spaces and math delimiters
    Occurrences compact_occ_;  ///< phrases in compact_.text
    Catalogue cat_;
    Layout L_;
    std::vector<std::pair<std::size_t, int>> mentions_;  // (offset, entity) of each cue in the text
    std::vector<std::pair<std::size_t, int>> items_;     // (list item offset, entity of its exercise)
};

// ---------------------------------------------------------------------------------------------
// Not claims.

struct Blanked {
    std::size_t b, e;
    std::string why;
};

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

// Pandoc attributes, cross-references and citations, raw HTML, URLs, TeX commands whose
// arguments are no claims and TeX lengths: blanked, each number inside recorded as not a claim.
std::vector<Blanked> markup(std::string& s, ManuscriptFormat format) {
    std::vector<Blanked> out;
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
        if (s[k] == '{' && k + 1 < s.size() && (s[k + 1] == '#' || s[k + 1] == '.' || s[k + 1] == '-')) {
            const std::size_t e = std::string_view(s).substr(0, std::min(s.size(), k + 2000)).find('}', k);
            if (e != std::string::npos && std::string_view(s).substr(k, e - k).find('\n') == std::string::npos) {
                out.push_back({k, e + 1, "a pandoc attribute"});
                k = e;
                continue;
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
                    continue;
                }
            }
        }
        // Raw HTML: a tag with its attributes (`<img width="50">`, `</td>`), the whole of a
        // <script> or <style> element, the index of a <sub>, an entity (`&#8212;`).
        if (s[k] == '<' && k + 1 < s.size()) {
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
                    continue;
                }
            }
            if (s.compare(k + 1, 4, "http") == 0 || s.compare(k + 1, 7, "mailto:") == 0) {  // an autolink
                const std::size_t gt = s.find('>', k);
                if (gt != std::string::npos && std::string_view(s).substr(k, gt - k).find('\n') == std::string::npos) {
                    out.push_back({k, gt + 1, "a URL"});
                    k = gt;
                    continue;
                }
            }
        }
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
    // TeX commands whose arguments are names, lengths or counters, not claims (and the number
    // of arguments taken; LaTeX's headings are kept for their words). Markdown holds TeX in its
    // math (`\tag{14.3}`, `\label{eq:1}`) and in raw blocks.
    struct Command {
        std::string_view name;
        int args;
    };
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
    // Lengths: 2pt, 0.45\textwidth, \\[3mm].
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
    // In text order, overlaps merged (`\url{http://…}` is one span, its digits listed once).
    std::sort(out.begin(), out.end(), [](const Blanked& x, const Blanked& y) { return x.b < y.b; });
    std::vector<Blanked> merged;
    for (auto& x : out) {
        if (!merged.empty() && x.b < merged.back().e && x.why != "a heading" && merged.back().why != "a heading") {
            merged.back().e = std::max(merged.back().e, x.e);
            continue;
        }
        merged.push_back(std::move(x));
    }
    out = std::move(merged);
    for (const auto& x : out) {
        if (x.why == "a heading") continue;  // a heading's words stay for the cues; its number is excluded below
        blank(s, x.b, x.e);
    }
    return out;
}

}  // namespace

std::vector<BoundNumber> bind_numbers(const Source& src, const std::vector<Mark>& marks, Quantities& q,
                                      const AuditOptions& options) {
    std::string s = src.scan;
    for (const auto& m : marks) blank(s, m.begin, m.end);
    for (const auto& [b, e] : noclaim_spans(src)) blank(s, b, e);
    const std::vector<Blanked> blanked = markup(s, src.format);
    Binder binder(src, s, q);
    const Layout& L = binder.layout();
    std::vector<Candidate> cands;

    // Spans, tables and cells are in text order: found by binary search, not a scan a number.
    auto inside = [](const std::vector<Span>& v, std::size_t k) -> int {
        const auto it = std::upper_bound(v.begin(), v.end(), k, [](std::size_t x, const Span& sp) { return x < sp.b; });
        if (it == v.begin() || !((it - 1)->b <= k && k < (it - 1)->e)) return -1;
        return static_cast<int>(it - 1 - v.begin());
    };
    // The table and the cell that hold [b, e), or (-1, none).
    auto cell_around = [&L](std::size_t b, std::size_t e) -> std::pair<int, const Cell*> {
        const auto t = std::upper_bound(L.tables.begin(), L.tables.end(), b,
                                        [](std::size_t x, const Table& tb) { return x < tb.whole.b; });
        if (t == L.tables.begin() || b >= (t - 1)->whole.e) return {-1, nullptr};
        const auto& cells = (t - 1)->cells;
        const auto c =
            std::upper_bound(cells.begin(), cells.end(), b, [](std::size_t x, const Cell& cl) { return x < cl.b; });
        if (c == cells.begin() || !((c - 1)->b <= b && e <= (c - 1)->e)) return {-1, nullptr};
        return {static_cast<int>(t - 1 - L.tables.begin()), &*(c - 1)};
    };
    std::vector<bool> covered(s.size() + 1, false);
    auto cover = [&covered](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e && i < covered.size(); ++i) covered[i] = true;
    };

    // The number of formulas inside [b, e).
    auto formulas_in = [&L](std::size_t b, std::size_t e) {
        const auto lo =
            std::lower_bound(L.math.begin(), L.math.end(), b, [](const Span& sp, std::size_t x) { return sp.b < x; });
        std::size_t n = 0;
        for (auto it = lo; it != L.math.end() && it->e <= e; ++it) ++n;
        return n;
    };
    // Math: each statement of a formula.
    for (std::size_t mi = 0; mi < L.math.size(); ++mi) {
        const Span m = L.math[mi];
        const Span in = L.math_inner[mi];
        // A cell of several formulas (`$[0,a]$; $[0,0]$`, the rows of a matrix) is read whole
        // with the cells below, as in Markdown.
        if (const auto [t, cell] = cell_around(m.b, m.e); cell != nullptr && formulas_in(cell->b, cell->e) >= 2)
            continue;
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
        // Split at \qquad, \quad, top-level `,` before a name, and `\\` not followed by a relation.
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
    // Table cells: a cell that is one value is one claim.
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
    // Table headers are no claims.
    for (const auto& t : L.tables) {
        const std::size_t first_row_end = t.cells.empty() ? t.whole.e : line_end(s, t.whole.b);
        if (src.format == ManuscriptFormat::Markdown) cover(t.whole.b, first_row_end);
    }
    // Prose: vectors, numbers and chains, number words, a bare a.
    std::vector<Candidate> prose;
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
             (s.compare(k, 3, "√") == 0 && k + 3 < s.size() && digit(s[k + 3])))) {
            e = number_end(s, k);
        }
        if (e == k && starts && s[k] == '(') e = paren_fraction_end(s, k);
        Candidate c;
        if (e > k) {
            e = chain_end(s, e);
            c.b = k;
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
            if (w == "a" && we < s.size() &&
                (((s[we] == ',' || s[we] == '.' || s[we] == ';' || s[we] == ')') &&
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
    // Not claims: references, years, list numbers, headings, labels, names.
    const std::string low = lower(s);
    // The start of every line, found once: a search back from each number would read a long
    // line once a number (quadratic on a megabyte written on one line).
    std::vector<std::size_t> line_starts{0};
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\n') line_starts.push_back(i + 1);
    }
    for (auto& c : prose) {
        const std::string text = s.substr(c.b, c.e - c.b);
        const bool plain_int = text.find_first_not_of("0123456789.") == std::string::npos;
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
        } else if (options.ignore_years && text.size() == 4 && plain_int && text.find('.') == std::string::npos &&
                   (text.starts_with("1") || text.starts_with("20"))) {  // 2024, not 14.1 or 12.5
            c.not_claim = "a year";
        } else if (options.ignore_lists && first_on_line && c.e < s.size() && (s[c.e] == '.' || s[c.e] == ')') &&
                   text.find('.') == std::string::npos && plain_int) {
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
            } else if (plain_int && c.e + 1 < s.size() && s[c.e] == ':' && s[c.e + 1] == ' ') {
                c.not_claim = "a label";
            } else if (plain_int && reference_word(before)) {
                c.not_claim = fmt::format("a reference (after \"{}\")", before);
            } else if (plain_int && p - q2 >= 2 && p < c.b) {
                c.not_claim = "the number of a name (after an abbreviation)";
            } else if (plain_int && c.b >= 3 && s.compare(c.b - 3, 3, "–") == 0) {
                std::size_t r = c.b - 3;
                while (r > 0 && (digit(s[r - 1]) || s[r - 1] == '.')) --r;
                if (reference_word(word_before_at(s, r))) c.not_claim = "the end of a range of references";
            } else if (first_on_line && plain_int && text.find('.') != std::string::npos && c.e < s.size() &&
                       s[c.e] == ' ' && c.e + 1 < s.size() && std::isupper(static_cast<unsigned char>(s[c.e + 1]))) {
                c.not_claim = "a heading's number";
            }
        }
        if (c.not_claim.empty() && options.ignore_citations && c.b > 0 && s[c.b - 1] == '(' && c.e < s.size() &&
            s[c.e] == ')' && word_before_at(s, c.b - 1) == "equation") {
            c.not_claim = "a citation";
        }
        (void)low;
    }
    // Number words beside a quantity's name: the unit after, or the name and a linking word before.
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
    // Lists of numbers in prose: "[0,0], [0,a], [0,0]", "2/3 and 1/3".
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
    cands.insert(cands.end(), prose.begin(), prose.end());
    std::sort(cands.begin(), cands.end(), [](const Candidate& x, const Candidate& y) { return x.b < y.b; });
    // A list that holds formulas (LaTeX's "$[1,0]$, $[0,1]$ and $[1,1]$") is a list as in prose.
    {
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

    // Judge each.
    std::vector<BoundNumber> out;
    const auto& items = binder.catalogue().items;
    for (const auto& bl : blanked) {
        if (bl.why == "a heading") continue;
        for (std::size_t k = bl.b; k < bl.e; ++k) {
            if (digit(src.scan[k]) && (k == bl.b || !digit(src.scan[k - 1]))) {
                std::size_t e = k;
                while (e < bl.e && (digit(src.scan[e]) || src.scan[e] == '.')) ++e;
                BoundNumber n;
                n.begin = k;
                n.end = e;
                const Location where = src.at(k);
                n.finding.line = where.line;
                n.finding.column = where.column;
                n.finding.text = src.text.substr(k, e - k);
                n.finding.verdict = AuditVerdict::NotAClaim;
                n.finding.reason = bl.why;
                out.push_back(std::move(n));
                k = e;
            }
        }
    }
    for (const auto& c : cands) {
        BoundNumber n;
        n.begin = c.b;
        n.end = c.e;
        n.markable = c.markable;
        const Location where = src.at(c.b);
        n.finding.line = where.line;
        n.finding.column = where.column;
        n.finding.text = src.text.substr(c.b, c.e - c.b);
        for (auto& ch : n.finding.text) {
            if (ch == '\n') ch = ' ';
        }
        if (!c.not_claim.empty()) {
            n.finding.verdict = AuditVerdict::NotAClaim;
            n.finding.reason = c.not_claim;
            out.push_back(std::move(n));
            continue;
        }
        placed(where, [&] {
            if (!charge_work(kWorkPerNumber)) throw over_work(kWorkPerNumber, "auditing a number of the prose");
        });
        AuditFinding& f = n.finding;
        const std::string written = c.kind == Kind::Word ? f.text : f.text;
        if (!c.shape.numeric) {
            f.verdict = AuditVerdict::Unbound;
            f.reason = "it cannot be read as a value";
            out.push_back(std::move(n));
            continue;
        }
        const Scores sc = binder.cues_for(c);
        // A chain that contradicts itself (1 + 2 + 1 = 5) is wrong whatever it is said of. A quantity
        // that verifies or refutes it says more, so its own arithmetic is the verdict only where no
        // quantity decides (unbound, ambiguous), and never in a negated or hypothetical sentence.
        auto settle = [&](BoundNumber& b) {
            AuditFinding& g = b.finding;
            if ((g.verdict == AuditVerdict::Unbound || g.verdict == AuditVerdict::Ambiguous) && !sc.hypothetical) {
                std::optional<std::string> own;
                try {
                    own = chain_contradiction(written);
                } catch (const Error& e) {
                    if (work_refusal(e)) throw;
                }
                if (own) {
                    g.verdict = AuditVerdict::Wrong;
                    g.reason = "its own arithmetic";
                    g.detail = *own;
                    g.bound.clear();  // what its context fitted (weakly, or several) is not what it is wrong against
                }
            }
            out.push_back(std::move(b));
        };
        // A row of a layer's weights written as its sum ("2/5+1/5+2/5=1"): its terms are a row of
        // weights and the sum is 1; no one pointer holds the sum, so it is not marked.
        if (binder.catalogue().has_layers && c.shape.entries < 0 && sc.field.contains("weights") &&
            sc.foreign.empty()) {
            const auto links = chain_elements(plain_notation(written));
            std::vector<std::string> terms;
            if (links.size() >= 2) {
                const std::string& first = links[0].second;
                int depth = 0;
                std::size_t from = 0;
                for (std::size_t k = 0; k <= first.size(); ++k) {
                    if (k < first.size() && (first[k] == '(' || first[k] == '[' || first[k] == '{')) ++depth;
                    if (k < first.size() && (first[k] == ')' || first[k] == ']' || first[k] == '}')) --depth;
                    if (k == first.size() || (depth == 0 && first[k] == '+')) {
                        terms.push_back(trim(first.substr(from, k - from)));
                        from = k + 1;
                    }
                }
            }
            std::vector<std::pair<double, const Item*>> rows;
            for (const auto& it : items) {
                if (terms.size() < 2 || it.field != "weights" || it.matrix || it.qrow == 0 ||
                    it.entries != static_cast<int>(terms.size()))
                    continue;
                const double v = binder.score(sc, it);
                if (v > 0) rows.emplace_back(v, &it);
            }
            if (!rows.empty()) {
                std::stable_sort(rows.begin(), rows.end(),
                                 [](const auto& x, const auto& y) { return x.first > y.first; });
                std::string vec = "[";
                for (std::size_t i = 0; i < terms.size(); ++i) vec += (i ? ", " : "") + terms[i];
                vec += "]";
                ClaimJudgement total;
                const Item* row = nullptr;
                try {
                    total = judge_claim(written, detail::Json("1"));
                    for (const auto& [v, it] : rows) {
                        if (v < rows[0].first - 2) break;
                        if (judge_claim(vec, *it->value).passed) {
                            row = it;
                            break;
                        }
                    }
                } catch (const Error& e) {
                    if (work_refusal(e)) throw;
                }
                n.markable = false;
                AuditQuantity aq;
                const Item& shown = row != nullptr ? *row : *rows[0].second;
                aq.pointer = shown.pointer;
                aq.value = quantity_text(*shown.value);
                aq.description = describe_pointer(q.report(), shown.pointer);
                f.bound.push_back(aq);
                f.reason = "the sum of a row of weights";
                if (total.passed && row != nullptr) {
                    f.verdict = AuditVerdict::Verified;
                } else if (sc.hypothetical) {
                    f.verdict = AuditVerdict::Unbound;
                    f.reason = "in a negated or hypothetical sentence; its context fits the sum of a row of weights";
                } else {
                    f.verdict = AuditVerdict::Wrong;
                    f.detail = !total.passed ? fmt::format("a row of weights sums to 1: {}", total.detail)
                                             : "its terms are no row of the weights its context fits";
                }
                settle(n);
                continue;
            }
        }
        std::vector<std::pair<double, const Item*>> ranked;
        for (const auto& it : items) {
            if (sc.field.empty()) break;
            if (it.entries != c.shape.entries || it.matrix != c.shape.matrix) continue;
            const double v = binder.score(sc, it);
            if (v > 0) ranked.emplace_back(v, &it);
        }
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
        const Report& report = q.report();
        auto quantity = [&report](const Item& it) {
            AuditQuantity aq;
            aq.pointer = it.pointer;
            aq.value = quantity_text(*it.value);
            aq.description = describe_pointer(report, it.pointer);
            return aq;
        };
        auto why = [&sc] {
            std::string r;
            for (const auto& part : {sc.reason_field, sc.reason_index}) {
                if (!part.empty()) r += (r.empty() ? "" : ", ") + part;
            }
            return r;
        };
        if (!sc.foreign.empty()) {
            f.verdict = AuditVerdict::Unbound;
            f.reason = fmt::format("it is said of {}, which the scenario does not compute", sc.foreign);
            settle(n);
            continue;
        }
        if (ranked.empty()) {
            f.verdict = AuditVerdict::Unbound;
            f.reason = "no quantity of the scenario fits its context";
            settle(n);
            continue;
        }
        const double best = ranked[0].first;
        bool done = false;
        for (const auto& [v, it] : ranked) {
            if (v < best - 2) break;
            bool equal = false;
            try {
                equal = judge_claim(written, *it->value).passed;
            } catch (const Error& e) {
                if (work_refusal(e)) throw;
            }
            if (equal) {
                f.verdict = AuditVerdict::Verified;
                f.bound.push_back(quantity(*it));
                f.reason = why();
                done = true;
                break;
            }
        }
        if (done) {
            settle(n);
            continue;
        }
        std::vector<const Item*> top;
        for (const auto& [v, it] : ranked) {
            if (v >= best - 0.01) top.push_back(it);
        }
        std::set<std::string> values;
        for (const auto* it : top) values.insert(it->value->dump());
        if (sc.hypothetical) {
            f.verdict = AuditVerdict::Unbound;
            f.reason = fmt::format("in a negated or hypothetical sentence; its context fits {}", top[0]->pointer);
            for (const auto* it : top) f.bound.push_back(quantity(*it));
        } else if (!sc.operand.empty()) {
            f.verdict = AuditVerdict::Unbound;
            f.reason = fmt::format("a factor (after \"{}\"), not the quantity its context names; it fits {}",
                                   sc.operand, top[0]->pointer);
            f.bound.push_back(quantity(*top[0]));
        } else if (best < 10 || [&] {
                       const auto fw = sc.field.find(top[0]->field);
                       return fw == sc.field.end() || fw->second < 5;
                   }()) {
            f.verdict = AuditVerdict::Unbound;
            f.reason = fmt::format("its context fits {} only weakly", top[0]->pointer);
            f.bound.push_back(quantity(*top[0]));
        } else if (values.size() == 1) {
            f.verdict = AuditVerdict::Wrong;
            f.bound.push_back(quantity(*top[0]));
            f.reason = why();
            try {
                f.detail = judge_claim(written, *top[0]->value).detail;
            } catch (const Error& e) {
                if (work_refusal(e)) throw;
                f.detail = e.reason();
            }
        } else {
            // Several quantities fit as well (16 and 48 bytes; the key's weight in Example 14.1
            // and in the row of an intervention) and it equals none of them, nor any quantity
            // scored within 2 of them: wrong, with them listed. Ambiguous when its unit is
            // qualified ("two zero scores" counts a part of what the unit names).
            const bool none_of = !sc.qualified;
            f.verdict = none_of ? AuditVerdict::Wrong : AuditVerdict::Ambiguous;
            for (const auto* it : top) {
                if (f.bound.size() < 4) f.bound.push_back(quantity(*it));
            }
            f.reason = why();
            if (f.verdict == AuditVerdict::Wrong) f.detail = "it equals none of the quantities its context fits";
        }
        settle(n);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const BoundNumber& x, const BoundNumber& y) { return x.begin < y.begin; });
    return out;
}

}  // namespace exactattn::manuscript
