// SPDX-License-Identifier: MIT
// exactattn: the catalogue of the report's quantities the binder scores against
// (catalogue.hpp).
#include "tools/manuscript/catalogue.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>

#include "exactattn/pointers.hpp"
#include "exactattn/print.hpp"
#include "tools/manuscript/bind_text.hpp"

namespace exactattn::manuscript::binding {

namespace {

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

// A label as British spelling writes it ("colour" for "color", "centre" for "center"); the
// label itself when no variant applies.
std::string british(std::string l) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> variants{{
        {"color", "colour"},
        {"center", "centre"},
        {"gray", "grey"},
        {"neighbor", "neighbour"},
        {"favor", "favour"},
        {"harbor", "harbour"},
    }};
    for (const auto& [us, uk] : variants) {
        for (std::size_t k = l.find(us); k != std::string::npos; k = l.find(us, k + uk.size()))
            l.replace(k, us.size(), uk);
    }
    return l;
}

// The queries (their vectors written without spaces) and the sources with their positions' labels.
void add_queries_and_sources(Catalogue& c, const Scenario& sc) {
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
            for (const std::string& name : {l, hyphened, british(l), british(hyphened)}) {
                if (std::find(c.labels.begin(), c.labels.end(), name) != c.labels.end()) continue;
                c.labels.push_back(name);
                c.label_positions.push_back({std::to_string(i + 1)});
            }
        }
    }
}

// The reads and interventions, with the phrases naming them; an intervention knows the read
// whose source and query it shares.
void add_reads_and_interventions(Catalogue& c, const Report& r) {
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
}

// The cost cases, the exercises' cues of what they name, and the layers with their tokens.
void add_costs_exercises_layers(Catalogue& c, const Report& r, const Scenario& sc) {
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
}

// A head's queries, keys, values, scores, denominators, weights and outputs, and the
// layer's input, concatenation and output: by query row, key position, coordinate.
// Whether the layer's value at p (whose entity it gets) is one the binder binds.
bool layer_item(const std::vector<std::string>& p, const Json* j, Catalogue& c, Item& it) {
    it.entity = entity_index(c, p[1], EntityKind::Layer);
    std::size_t f = 2;
    if (p[2] == "heads") {
        if (p.size() < 5 || !is_index(p[3])) return false;
        it.head = std::stoi(p[3]) + 1;
        f = 4;
    }
    static const std::map<std::string, std::string, std::less<>> fields = {
        {"queries", "query"},   {"keys", "keys"},       {"values", "values"},
        {"scores", "scores"},   {"weights", "weights"}, {"denominators", "denominator"},
        {"outputs", "outputs"}, {"output", "outputs"},  {"concat", "outputs"},
        {"input", "embedding"}};
    const auto fi = fields.find(p[f]);
    if (fi == fields.end() || (it.head == 0) != (f == 2)) return false;
    it.field = fi->second;
    const bool by_key = p[f] == "keys" || p[f] == "values";
    const bool matrix_entry = p[f] == "scores" || p[f] == "weights";
    if (p.size() > f + 3 || j->is_null()) return false;  // a masked score has no value
    if (p.size() > f + 1) {
        if (!is_index(p[f + 1])) return false;
        (by_key ? it.pos : it.qrow) = std::stoi(p[f + 1]) + 1;
    }
    if (p.size() > f + 2) {
        if (!is_index(p[f + 2])) return false;
        (matrix_entry ? it.pos : it.coord) = std::stoi(p[f + 2]) + 1;
    }
    return true;
}

// The field and the indexes of a read's, source's or intervention's value whose field is p[at];
// whether it is one the binder binds.
bool field_indexes(const std::vector<std::string>& p, std::size_t at, Item& it) {
    it.field = p[at];
    if (!numeric_fields().contains(it.field)) return false;
    const bool by_position = it.field == "scores" || it.field == "weights" || it.field == "exponentials" ||
                             it.field == "memory" || it.field == "states";
    if (p.size() > at + 1) {
        if (!is_index(p[at + 1])) return false;
        (by_position ? it.pos : it.coord) = std::stoi(p[at + 1]) + 1;
    }
    if (p.size() > at + 2) {
        if (!is_index(p[at + 2])) return false;
        it.coord = std::stoi(p[at + 2]) + 1;
    }
    if (it.field == "memory") it.field = "states";
    return true;
}

// Every numeric value of the report, with its entity, field and indexes.
void add_items(Catalogue& c, Quantities& q) {
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
            if (layer_item(p, j, c, it)) c.items.push_back(std::move(it));
            continue;
        } else {
            continue;  // rollouts, names and texts: not bound by context yet
        }
        if (at > 0 && !field_indexes(p, at, it)) continue;
        c.items.push_back(std::move(it));
    }
}

}  // namespace

Catalogue catalogue_of(Quantities& q) {
    Catalogue c;
    const Report& r = q.report();
    const Scenario& sc = r.scenario;
    add_queries_and_sources(c, sc);
    add_reads_and_interventions(c, r);
    add_costs_exercises_layers(c, r, sc);
    add_items(c, q);
    return c;
}

}  // namespace exactattn::manuscript::binding
