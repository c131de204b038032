// SPDX-License-Identifier: MIT
// exactattn: the field cues of a number (binder.hpp): what a formula's name, a table's column
// and row, a unit after it and the words before it say it is, and how they narrow each other.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "tools/manuscript/binder.hpp"
#include "tools/manuscript/cue_work.hpp"

namespace exactattn::manuscript::binding {

// Fields and indexes a formula's name states: h_1, c_2, e^, alpha; in a layer S, A^{(2)}, o_1, y_3.
void Binder::label_cues(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
    if (!c.label.empty()) {
        const std::string l = lower(c.label);
        if (l.starts_with("h")) cw.label_field("states");
        if (l.starts_with("c")) cw.label_field("context");
        if (l == "r") cw.label_field("readout");
        if (l.starts_with("q")) cw.label_field("query");
        if (l == "n") cw.label_field("positions");
        if (l == "d") cw.label_field("width");
        if (l.starts_with("e^") || l.starts_with("exp")) cw.label_field("exponentials");
        if (l.starts_with("\\alpha") || l.starts_with("alpha") || l.starts_with("α")) cw.label_field("weights");
        if (cat_.has_layers) {  // S, A^{(2)}, o_1, y_3: a layer's scores, weights, outputs
            const char f0 = c.label[0];
            if (f0 == 'S') cw.label_field("scores");
            if (f0 == 'A' || l.starts_with("\\alpha") || l.starts_with("α")) cw.label_field("weights");
            if (f0 == 'o' || f0 == 'O' || f0 == 'y' || f0 == 'Y') cw.label_field("outputs");
            const std::size_t d = l.find_first_of("0123456789");
            if (d != std::string::npos && (l.find("^{(") != std::string::npos || l.find("^(") != std::string::npos))
                sc.head[l[d] - '0'] = 8;
            else if (d != std::string::npos && (f0 == 'o' || f0 == 'y' || l.starts_with("q_") || l.starts_with("q")))
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
}

// A table cell's cues: its column header (or the caption's first field word in a layer's
// table), the key its column names, and the row its row head names.
void Binder::table_cues(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
    bool& rows_are_positions = cw.rows_are_positions;
    if (c.table >= 0) {
        const auto& t = L_.tables[static_cast<std::size_t>(c.table)];
        if (static_cast<std::size_t>(c.col) < t.headers.size()) {
            const std::string& h = t.headers[static_cast<std::size_t>(c.col)];
            for (const auto& fc : field_cues()) {
                if (h.find(fc.stem) != std::string::npos) {
                    for (const auto& f : fc.fields) cw.field(f, 8);
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
                    for (const auto& f : fc0->fields) cw.field(f, 8);
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
}

// The word just before a count makes it a part ("the other two", "the remaining three", "the
// first two", "the last four", "the next two").
bool Binder::part_word_before(std::size_t b) const {
    std::size_t e = b;
    while (e > 0 && s_[e - 1] == ' ') --e;
    bool name = false;
    const std::size_t w = word_start(s_, e, name);
    if (w == e) return false;
    static const std::set<std::string, std::less<>> part{"other", "remaining", "first", "last", "next", "previous"};
    return part.contains(low_.substr(w, e - w));
}

// Units after a count (with `versus`, `and`, `or` and another number between).
void Binder::unit_after_cues(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
    if (c.shape.entries < 0) {
        std::size_t k = c.e;
        std::string after = low_.substr(k, std::min<std::size_t>(60, low_.size() - k));
        for (const char* conn : {" versus ", " and ", " or ", " to "}) {
            if (after.starts_with(conn)) {
                std::size_t p = std::string_view(conn).size();
                std::size_t q = p;
                while (q < after.size() && (digit(after[q]) || after[q] == '.')) ++q;
                if (q > p) {
                    after = after.substr(q);
                    k += q;
                }
            }
        }
        std::size_t w = 0;
        while (w < after.size() && (after[w] == ' ' || after[w] == '$' || after[w] == '}')) ++w;
        after = after.substr(w);
        k += w;
        // skip one adjective: "zero scores", "scalar multiplications", "source-state"; the nearest
        // unit is the number's ("four reads score three positions": reads, not scores), of two at
        // one place the longer (unit_cues lists it first: "output step" before "step")
        const FieldCue* unit = nullptr;
        std::size_t unit_at = 0;
        for (const auto& uc : unit_cues()) {
            const std::size_t at = after.find(uc.stem);
            if (at == std::string::npos || (unit != nullptr && at >= unit_at)) continue;
            const std::string gap = after.substr(0, at);
            if (gap.find_first_of(",.;:()") != std::string::npos) continue;
            if (std::count(gap.begin(), gap.end(), ' ') > 1 || gap.starts_with("and ") || gap.starts_with("the "))
                continue;
            const std::size_t r = at + uc.stem.size();
            if (r < after.size() && alpha(after[r]) &&
                !(after[r] == 's' && (r + 1 >= after.size() || !alpha(after[r + 1]))))
                continue;
            unit = &uc;
            unit_at = at;
        }
        if (unit == nullptr) return;
        // "Example 14.1 and Example 14.2 are two reads" counts the reads its sentence names, not a
        // cost case's target steps ("four reads require 400 dot products").
        if (unit->stem == "read" && cw.named_in_sentence &&
            std::any_of(sc.entity.begin(), sc.entity.end(), [&](const auto& ew) {
                return ew.second >= 6 && cat_.entities[static_cast<std::size_t>(ew.first)].kind == EntityKind::Read;
            })) {
            return;
        }
        for (const auto& f : unit->fields) cw.field(f, 9);
        if (sc.reason_field.empty()) sc.reason_field = fmt::format("\"{}\" after it", unit->stem);
        cw.unit = unit->stem;
        cw.unit_end = k + unit_at + unit->stem.size();
        // "the other two states", "the first three positions": a count of a part of what the
        // unit names, as an adjective between makes it.
        sc.qualified = unit_at > 0 || part_word_before(c.b);
    }
}

// A number word takes only the name beside it (its unit, or the quantity's name just before it).
void Binder::word_name_cues(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
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
}

// The field words before it in its sentence, nearest first (the nearest kept in field_at).
void Binder::sentence_field_cues(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
    const Span& sent = cw.sent;
    std::size_t& field_at = cw.field_at;
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
        for (const auto& f : fc->fields) cw.field(f, marked_between ? 2 : w);
        if (sc.reason_field.empty()) sc.reason_field = fmt::format("\"{}\" before it", fc->stem);
        w = std::max(2.0, w - 3);
    }
    // A value that opens its line as a label, `[0,a,0]: the dot product of the second query …`, is
    // what the words after its colon say, the nearest first.
    const bool label = (c.b == 0 || s_[c.b - 1] == '\n') && c.e + 1 < s_.size() && s_[c.e] == ':' && s_[c.e + 1] == ' ';
    if (!found.empty() || !label) return;
    for (const auto& fc : field_cues()) {
        std::size_t at = 0;
        if (phrase(c.e, sent.e, fc.stem, &at, false)) found.emplace_back(at, &fc);
    }
    std::sort(found.begin(), found.end());
    w = 6;
    for (const auto& [at, fc] : found) {
        for (const auto& f : fc->fields) cw.field(f, w);
        if (sc.reason_field.empty()) sc.reason_field = fmt::format("\"{}\" after its colon", fc->stem);
        w = std::max(2.0, w - 3);
    }
}

// A layer's field words before it in its sentence: keys, values, outputs, "attends".
void Binder::layer_word_cues(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
    const Span& sent = cw.sent;
    std::size_t& field_at = cw.field_at;
    double lw = 6;
    std::vector<std::pair<std::size_t, const FieldCue*>> lfound;
    for (const auto& fc : layer_field_cues()) {
        std::size_t at = 0;
        if (phrase(sent.b, c.b, fc.stem, &at)) lfound.emplace_back(at, &fc);
    }
    std::sort(lfound.begin(), lfound.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [at, fc] : lfound) {
        const double w2 = at >= field_at ? lw : std::min(lw, 3.0);
        for (const auto& f : fc->fields) cw.field(f, w2);
        if (sc.reason_field.empty() || at >= field_at) sc.reason_field = fmt::format("\"{}\" before it", fc->stem);
        if (at >= field_at) field_at = at;
        lw = std::max(2.0, lw - 3);
    }
}

// The field words of its paragraph before its sentence, by how often each is named.
void Binder::paragraph_field_cues(CueWork& cw) const {
    Scores& sc = cw.sc;
    const Span& sent = cw.sent;
    const Span& para = cw.para;
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
        if (pf != nullptr && std::find(pf->fields.begin(), pf->fields.end(), f) != pf->fields.end()) pw += 0.5;
        cw.field(f, pw);
    }
    if (sc.reason_field.empty() && pf != nullptr)
        sc.reason_field = fmt::format("\"{}\" earlier in the paragraph", pf->stem);
}

// The fields narrowed: by a formula's name, a percentage (a weight), `a =` (the constant).
void Binder::narrow_fields(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
    std::set<std::string>& label_fields = cw.label_fields;
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
    // A state is a vector: a single number is one of its coordinates only when its sentence says
    // so ("the second coordinate of h_3 is 0"). "The color and full stop states 1/4 each" and
    // "scores the color state at a and the others at 0" say something else of the states.
    if (c.shape.entries < 0 && sc.field.contains("states")) {
        const Span& sent = cw.sent;
        bool coordinate = false;
        for (const char* w : {"coordinate", "entry", "entries", "component"})
            coordinate = coordinate || phrase(sent.b, c.b, w);
        if (!coordinate) sc.field.erase("states");
    }
    if (c.label.empty()) {  // a = ln 2 ≈ 0.693147: the constant
        const std::string t = compact(low_.substr(c.b, c.e - c.b));
        if (t.starts_with("$a=") || t.starts_with("a=") || t.starts_with("\\(a=")) cw.field("a", 9);
    }
}

// A unit alone is no subject: "the 12 steps of a list", in a book whose cost case has 4 target
// steps, is a count of something else. A number whose only cue is the unit after it (no formula's
// name, no table) binds only when its own sentence names something of the scenario: an entity, a
// field word (before it or after its unit), a source or a query; or when it stands in an
// exercise's list item. What its paragraph or section names does not count: an aside between two
// sentences about a read's weights is still an aside. Else it is unbound, never wrong or verified
// (a count of a sort's steps equal to the target steps is not the target steps).
void Binder::lone_unit(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
    if (cw.unit.empty() || c.table >= 0 || !cw.label_fields.empty() || sc.field.empty()) return;
    if (cw.named_in_sentence || cw.named_in_item) return;
    const Span& sent = cw.sent;
    const std::size_t after = std::min(std::max(cw.unit_end, c.e), sent.e);
    auto words = [&](const std::vector<FieldCue>& cues) {
        for (const auto& fc : cues) {
            if (phrase(sent.b, c.b, fc.stem) || phrase(after, sent.e, fc.stem)) return true;
        }
        return false;
    };
    if (words(field_cues()) || (cat_.has_layers && words(layer_field_cues()))) return;
    if (!sources_named(sent.b, sent.e).empty() || !queries_named(sent.b, sent.e).empty()) return;
    sc.lone_unit = cw.unit;
}

// A cost case's count named by its unit or formula name fits any cost case named nowhere.
void Binder::cost_case_cues(CueWork& cw) const {
    Scores& sc = cw.sc;
    {
        double unit = 0;
        for (const auto& [f, w] : sc.field) {
            if (w >= 8 && (f == "positions" || f == "width" || f.find("bytes") != std::string::npos ||
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
}

}  // namespace exactattn::manuscript::binding
