// SPDX-License-Identifier: MIT
// exactattn: `pointers` — every quantity of a run report by JSON pointer, with its value and what
// it is in words, so that an author can find the pointer of a number without reading the JSON.
#include "exactattn/pointers.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "exactattn/error.hpp"
#include "report/report_json.hpp"
#include "scenario/pointer.hpp"

namespace exactattn {

namespace {

using detail::Json;

// The words of a report field (the last named segment of a pointer); a field not listed is
// named by its key with `_` as spaces.
const std::map<std::string, std::string, std::less<>>& field_words() {
    static const std::map<std::string, std::string, std::less<>> words = {
        {"query", "query"},
        {"memory", "memory (the states read)"},
        {"included", "positions included"},
        {"scores", "scores"},
        {"exponentials", "exponentials"},
        {"denominator", "denominator (the sum of the exponentials)"},
        {"weights", "weights"},
        {"context", "context"},
        {"readout", "readout"},
        {"context_decimal", "context in decimals"},
        {"readout_decimal", "readout in decimals"},
        {"readout_coefficients", "readout coefficients"},
        {"source", "source name"},
        {"query_name", "query name"},
        {"readout_name", "readout name"},
        {"states", "states"},
        {"tokens", "tokens"},
        {"labels", "position labels"},
        {"kind", "kind"},
        {"position", "position changed (0: none)"},
        {"deleted", "deleted token"},
        {"outputs", "outputs"},
        {"output", "output"},
    };
    return words;
}

// The singular a vector's entry takes: "weight of position 2", "coordinate 1 of the context".
struct EntryWords {
    const char* noun;  // "weight"
    bool by_position;  // entries are positions (else coordinates)
};
std::optional<EntryWords> entry_words(std::string_view field) {
    static const std::map<std::string, EntryWords, std::less<>> words = {
        {"scores", {"score", true}},
        {"exponentials", {"exponential", true}},
        {"weights", {"weight", true}},
        {"memory", {"state", true}},
        {"states", {"state", true}},
        {"tokens", {"token", true}},
        {"labels", {"label", true}},
        {"included", {"entry", false}},
        {"query", {"coordinate", false}},
        {"context", {"coordinate", false}},
        {"context_decimal", {"coordinate", false}},
        {"readout_coefficients", {"coefficient", false}},
    };
    const auto it = words.find(field);
    if (it == words.end()) return std::nullopt;
    return it->second;
}

bool is_index(const std::string& s) {
    return !s.empty() && s.size() < 10 && s.find_first_not_of("0123456789") == std::string::npos;
}
std::size_t one_based(const std::string& s) { return static_cast<std::size_t>(std::stoul(s)) + 1; }

std::string words_of(std::string_view field) {
    const auto it = field_words().find(field);
    if (it != field_words().end()) return it->second;
    std::string w(field);
    for (char& c : w) {
        if (c == '_') c = ' ';
    }
    return w;
}

// "position 2 (钥匙)": a position of a source, with its token or label when it has one.
std::string position_of(const Source* src, std::size_t position) {
    if (src == nullptr) return fmt::format("position {}", position);
    const std::string label = src->position_label(position);
    const std::string plain = std::to_string(position);
    if (label == plain) return fmt::format("position {}", position);
    return fmt::format("position {} ({})", position, label.substr(plain.size() + 2));
}

const Source* find_source(const Scenario& s, const std::string& name) {
    for (const auto& src : s.sources) {
        if (src.name == name) return &src;
    }
    return nullptr;
}

// A field and the indexes after it: "weights" [1] → "weight of position 2 (钥匙)";
// "memory" [0, 1] → "coordinate 2 of state 1"; "context" [] → "context".
std::string field_phrase(const std::string& field, const std::vector<std::string>& idx, const Source* src) {
    if (idx.empty()) return words_of(field);
    const auto e = entry_words(field);
    if (!e || !is_index(idx[0])) {
        std::string w = words_of(field);
        for (const auto& i : idx) w += is_index(i) ? fmt::format(", entry {}", one_based(i)) : ", " + i;
        return w;
    }
    const std::size_t n = one_based(idx[0]);
    std::string what;
    if (e->by_position) {
        what = fmt::format("{} of {}", e->noun, position_of(src, n));
        if (field == "memory" || field == "states") what = fmt::format("state h_{} at {}", n, position_of(src, n));
    } else {
        what = fmt::format("{} {} of the {}", e->noun, n, words_of(field));
    }
    if (idx.size() > 1 && is_index(idx[1])) what = fmt::format("coordinate {} of {}", one_based(idx[1]), what);
    return what;
}

std::vector<std::string> rest(const std::vector<std::string>& p, std::size_t from) {
    return from < p.size() ? std::vector<std::string>(p.begin() + static_cast<std::ptrdiff_t>(from), p.end())
                           : std::vector<std::string>{};
}

std::string describe_read(const Report& r, const std::vector<std::string>& p) {
    const std::string& name = p[1];
    const Source* src = nullptr;
    std::string about = fmt::format("read {}", name);
    for (const auto& rr : r.reads) {
        if (rr.spec.name != name) continue;
        src = find_source(r.scenario, rr.spec.source);
        about = fmt::format("read {} (source {}, query {})", name, rr.spec.source,
                            rr.spec.query.name.empty() ? "given" : rr.spec.query.name);
    }
    if (p.size() < 3) return about;
    return field_phrase(p[2], rest(p, 3), src) + " in " + about;
}

std::string describe_intervention(const Report& r, const std::vector<std::string>& p) {
    const std::string& name = p[1];
    const InterventionResult* ir = nullptr;
    for (const auto& x : r.interventions) {
        if (x.spec.name == name) ir = &x;
    }
    const Source* src = ir != nullptr ? find_source(r.scenario, ir->spec.source) : nullptr;
    std::string about = fmt::format("intervention {}", name);
    if (ir != nullptr) about += fmt::format(" ({} on source {})", intervention_name(ir->spec.kind), ir->spec.source);
    if (p.size() < 3) return about;
    if (p[2] != "rows" || p.size() < 4 || !is_index(p[3])) return field_phrase(p[2], rest(p, 3), src) + " of " + about;
    const std::size_t k = one_based(p[3]) - 1;
    std::string row = fmt::format("row {}", k + 1);
    if (ir != nullptr && k < ir->rows.size()) {
        const std::size_t pos = ir->rows[k].position;
        const char* verb = ir->spec.kind == InterventionKind::RemoveState ? "removes"
                           : ir->spec.kind == InterventionKind::ZeroScore ? "zeroes the score of"
                                                                          : "deletes the token at";
        row =
            pos == 0 ? "the row without intervention" : fmt::format("the row that {} {}", verb, position_of(src, pos));
        // A deleted token's row reads a shorter memory: its positions are not the source's.
        if (ir->spec.kind == InterventionKind::DeleteToken && pos != 0) src = nullptr;
    }
    if (p.size() < 5) return fmt::format("{} of {}", row, about);
    return fmt::format("{} in {} of {}", field_phrase(p[4], rest(p, 5), src), row, about);
}

std::string describe_layer(const std::vector<std::string>& p) {
    std::string about = fmt::format("layer {}", p[1]);
    std::size_t at = 2;
    if (p.size() > 3 && p[2] == "heads" && is_index(p[3])) {
        about = fmt::format("head {} of {}", one_based(p[3]), about);
        at = 4;
    }
    if (at >= p.size()) return about;
    const std::string& field = p[at];
    const auto idx = rest(p, at + 1);
    if ((field == "weights" || field == "scores") && !idx.empty() && is_index(idx[0])) {
        const std::string noun = field == "weights" ? "weight" : "score";
        if (idx.size() > 1 && is_index(idx[1]))
            return fmt::format("{} of key {} for query {} in {}", noun, one_based(idx[1]), one_based(idx[0]), about);
        return fmt::format("{}s of query {} in {}", noun, one_based(idx[0]), about);
    }
    std::string what = words_of(field);
    if (!idx.empty() && is_index(idx[0])) what = fmt::format("row {} of {}", one_based(idx[0]), what);
    if (idx.size() > 1 && is_index(idx[1])) what = fmt::format("column {} of {}", one_based(idx[1]), what);
    return what + " in " + about;
}

std::string describe_generic(const std::vector<std::string>& p) {
    std::string out;
    for (const auto& s : p) {
        if (!out.empty()) out += ", ";
        out += is_index(s) ? fmt::format("entry {}", one_based(s)) : words_of(s);
    }
    return out;
}

std::string describe(const Report& r, const std::vector<std::string>& p) {
    if (p.empty()) return "the whole report";
    const std::string& top = p[0];
    if (top == "title") return "the scenario's title";
    if (top == "a") {
        if (p.size() > 1 && p[1] == "decimal") return "a = ln 2 in decimals";
        if (p.size() > 1 && p[1] == "meaning") return "what a stands for";
        if (p.size() > 1 && p[1] == "value") return "the constant a = ln 2";
        return "the constant a";
    }
    if (top == "assumptions") return p.size() > 1 ? fmt::format("assumption {}", one_based(p[1])) : "assumptions";
    if (top == "vocabulary") {
        if (p.size() == 1) return "the vocabulary (token embeddings)";
        if (p.size() == 2) return fmt::format("embedding of token {}", p[1]);
        return fmt::format("coordinate {} of the embedding of token {}", is_index(p[2]) ? one_based(p[2]) : 0, p[1]);
    }
    if (p.size() < 2) return words_of(top);
    if (top == "sources") {
        const Source* src = find_source(r.scenario, p[1]);
        const std::string about = fmt::format("source {}", p[1]);
        if (p.size() < 3) return about;
        return field_phrase(p[2], rest(p, 3), src) + " of " + about;
    }
    if (top == "reads") return describe_read(r, p);
    if (top == "interventions") return describe_intervention(r, p);
    if (top == "costs") return p.size() > 2 ? fmt::format("{} (costs {})", words_of(p[2]), p[1]) : "costs " + p[1];
    if (top == "layers") return describe_layer(p);
    return describe_generic(p);
}

// The canonical text of a quantity: a value's ascii string, a vector or matrix in brackets.
std::string text_of(const Json& j) {
    if (j.is_string()) return j.get<std::string>();
    if (j.is_array()) {
        std::string out = "[";
        for (std::size_t i = 0; i < j.size(); ++i) out += (i ? ", " : "") + text_of(j[i]);
        return out + "]";
    }
    if (j.is_null()) return "null";
    return j.dump();
}

bool is_quantity(const Json& j) {
    if (j.is_string() || j.is_number() || j.is_boolean()) return true;
    if (!j.is_array()) return false;
    for (const auto& x : j) {
        if (!is_quantity(x)) return false;
    }
    return true;
}

std::string escaped_key(const std::string& key) {
    std::string k;
    for (const char c : key) {
        if (c == '~')
            k += "~0";
        else if (c == '/')
            k += "~1";
        else
            k += c;
    }
    return k;
}

void walk(const Report& r, const Json& j, const std::string& at, std::vector<std::string>& parts,
          std::vector<PointerEntry>& out) {
    if (j.is_null()) return;
    if (is_quantity(j)) out.push_back({at, text_of(j), describe(r, parts)});
    if (j.is_object()) {
        for (const auto& [key, value] : j.items()) {
            parts.push_back(key);
            walk(r, value, at + "/" + escaped_key(key), parts, out);
            parts.pop_back();
        }
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) {
            parts.push_back(std::to_string(i));
            walk(r, j[i], detail::pointer_join(at, i), parts, out);
            parts.pop_back();
        }
    }
}

}  // namespace

std::string describe_pointer(const Report& report, const std::string& pointer) {
    const auto parts = detail::pointer_parts(pointer);
    if (!parts) throw usage_error(fmt::format("\"{}\" is not a JSON pointer (RFC 6901: \"\" or /a/b)", pointer));
    return describe(report, *parts);
}

std::vector<PointerEntry> list_pointers(const Report& report, const std::string& under) {
    const auto parts = detail::pointer_parts(under);
    if (!parts) throw usage_error(fmt::format("\"{}\" is not a JSON pointer (RFC 6901: \"\" or /a/b)", under));
    std::vector<PointerEntry> out;
    std::vector<std::string> path = *parts;
    if (under.empty()) {
        walk(report, detail::report_to_json(report), under, path, out);
        return out;
    }
    detail::ReportJson doc(report);  // only the arrays on the way to `under` or below it
    Location where;
    where.file = report.scenario.file;
    where.pointer = under;
    walk(report, doc.at(under, where), under, path, out);
    return out;
}

Document pointers_document(const Report& report, const std::vector<PointerEntry>& entries) {
    Document doc;
    TableBlock t;
    t.caption = Inline(fmt::format("The quantities of {} by JSON pointer",
                                   report.scenario.title.empty() ? report.scenario.file : report.scenario.title));
    t.headers = {"Pointer", "Value", "What it is"};
    for (const auto& e : entries) {
        Inline p;
        p.code(e.pointer);
        t.add_row({p, Inline(e.value), Inline(e.description)});
    }
    doc.add(std::move(t));
    return doc;
}

std::string pointers_json(const std::vector<PointerEntry>& entries) {
    Json a = Json::array();
    for (const auto& e : entries) {
        Json o = Json::object();
        o["pointer"] = e.pointer;
        o["value"] = e.value;
        o["description"] = e.description;
        a.push_back(std::move(o));
    }
    return a.dump(2) + "\n";
}

}  // namespace exactattn
