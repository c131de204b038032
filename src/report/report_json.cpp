// SPDX-License-Identifier: MIT
// exactattn internal: JSON form of traces and reports (every exact value is its ascii string).
#include "report/report_json.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <memory>
#include <ostream>
#include <string_view>
#include <unordered_map>

#include "report/attention_json.hpp"
#include "report/decoder_report.hpp"
#include "exactattn/print.hpp"

namespace exactattn::detail {

class TraceWriter;

// An array of n entries in ReportJson's tree: where it is, how to build it, how to write it.
struct LargeArray {
    std::string pointer;
    std::function<Json()> build;
    std::function<void(TraceWriter&, std::size_t)> write;  ///< as dump(2) prints it at an indent
    bool built = false;
};

TraceStrings::TraceStrings(const Memory& memory, const ReadTrace& t, Notation n, const MathStyle& style)
    : memory_(memory),
      t_(t),
      n_(n),
      style_(style),
      small_(memory.is_compact()                                    ? 2 * kSmall + 1
             : memory.is_columnwise() && memory.width() <= kColumns ? (2 * kSmall + 1) * memory.width()
                                                                    : 0) {}

const std::string& TraceStrings::entry(std::size_t j, std::size_t i) {
    if (small_.empty()) return scratch_ = printed(memory_.at(j, i), n_, style_);
    const std::int64_t k = memory_.integers()[j * memory_.width() + i];
    if (k >= -kSmall && k <= kSmall) {  // most memories: a few small integers, one lookup each
        // A unit a column: a table a column.
        const std::size_t column = memory_.is_columnwise() ? i * (2 * kSmall + 1) : 0;
        std::string& s = small_[column + static_cast<std::size_t>(k + kSmall)];
        if (s.empty()) s = printed(memory_.at(j, i), n_, style_);  // a printed value is never empty
        return s;
    }
    if (memory_.is_columnwise()) return scratch_ = printed(memory_.at(j, i), n_, style_);
    const auto it = entries_.find(k);
    if (it != entries_.end()) return it->second;
    std::string s = printed(memory_.at(j, i), n_, style_);
    if (entries_.size() >= kMax) return scratch_ = std::move(s);
    return entries_.emplace(k, std::move(s)).first->second;
}

const TraceStrings::Row& TraceStrings::row(std::size_t p) {
    // A compact score column's key fixes the score, hence the exponential and the weight.
    const auto key = t_.scores.key(p);
    if (key) {
        const auto it = keyed_.find(*key);
        if (it != keyed_.end()) return it->second;
    }
    std::string score = printed(*t_.scores.at(p), n_, style_);
    if (!key) {
        const auto it = rows_.find(score);
        if (it != rows_.end()) return it->second;
    }
    const Value e = *t_.exponentials.at(p);
    Row r{score, printed(e, n_, style_), printed(t_.weights.at(p).value_or(Value()), n_, style_),
          e.is_rational() && t_.denominator.is_rational()};
    if (rows_.size() + keyed_.size() >= kMax) return scratch_row_ = std::move(r);
    if (key) return keyed_.emplace(*key, std::move(r)).first->second;
    return rows_.emplace(std::move(score), std::move(r)).first->second;
}

Json value_json(const Value& v) { return to_ascii(v); }

Json vector_json(const Vector& v) {
    return json_array(v, [](const Value& x) { return to_ascii(x); });
}

Json matrix_json(const Matrix& m) { return json_array(m, vector_json); }

Json matrix_json(const Memory& m) {
    Json a = Json::array();
    for (std::size_t j = 0; j < m.rows(); ++j) a.push_back(vector_json(m.row(j)));
    return a;
}

// The JSON text of a read, written in chunks of about a megabyte to a stream (or kept whole
// for a string), only the keys selected. Not in the anonymous namespace: LargeArray (declared
// in report_json.hpp) names it, and in the library's unity build GCC warns of a type of
// external linkage using one of internal linkage (-Wsubobject-linkage).
class TraceWriter {
  public:
    TraceWriter(std::ostream* out, const std::vector<std::string>& fields) : out_(out), fields_(fields) {
        buf_.reserve(kChunk + 4096);
    }

    // Opens key `name` ("{" or "," then "name":) and returns true when it is selected.
    bool key(const char* name) {
        if (!fields_.empty() && std::find(fields_.begin(), fields_.end(), name) == fields_.end()) return false;
        buf_ += first_ ? "{\"" : ",\"";
        first_ = false;
        buf_ += name;
        buf_ += "\":";
        return true;
    }
    void put(char c) { buf_ += c; }
    void put(std::string_view s) { buf_.append(s); }
    void put_string(std::string_view s) {
        buf_ += '"';
        buf_.append(s);  // ascii values and decimals need no escaping
        buf_ += '"';
    }
    void put_vector(const Vector& v) {
        buf_ += '[';
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (i > 0) buf_ += ',';
            put_string(to_ascii(v[i]));
        }
        buf_ += ']';
    }
    void put_positions(const std::vector<Mark>& marks, bool (*keep)(Mark)) {
        buf_ += '[';
        bool first = true;
        char digits[24];
        for (std::size_t p = 0; p < marks.size(); ++p) {
            if (!keep(marks[p])) continue;
            if (!first) buf_ += ',';
            first = false;
            buf_.append(digits, fmt::format_to(digits, "{}", p + 1));
            if (buf_.size() >= kChunk) flush();
        }
        buf_ += ']';
    }
    // The positions kept, as nlohmann's dump(2) prints an array of numbers at `indent`.
    void put_pretty_positions(const std::vector<Mark>& marks, std::size_t indent) {
        char digits[24];
        std::size_t count = 0;
        for (auto m : marks) count += m != Mark::Removed ? 1 : 0;
        std::size_t p = 0;
        put_pretty(count, indent, [&](std::size_t) {
            while (marks[p] == Mark::Removed) ++p;
            buf_.append(digits, fmt::format_to(digits, "{}", ++p));
        });
    }
    // An array of `count` elements as nlohmann's dump(2) prints it at `indent`: "[]", or each
    // element on its own line two spaces further in. element(i) writes element i.
    template <class F>
    void put_pretty(std::size_t count, std::size_t indent, F&& element) {
        if (count == 0) {
            buf_ += "[]";
            return;
        }
        buf_ += "[\n";
        for (std::size_t i = 0; i < count; ++i) {
            if (i > 0) buf_ += ",\n";
            buf_.append(indent + 2, ' ');
            element(i);
            flush_if_full();
        }
        buf_ += '\n';
        buf_.append(indent, ' ');
        buf_ += ']';
    }
    // Ends the object ("{}" when no key was selected) with `tail` after it.
    void close(std::string_view tail) {
        if (first_) buf_ += '{';
        buf_ += '}';
        buf_.append(tail);
    }
    // Hands a full chunk to the stream.
    void flush_if_full() {
        if (buf_.size() >= kChunk) flush();
    }
    void flush() {
        if (out_ != nullptr && !buf_.empty()) {
            out_->write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
            buf_.clear();
        }
    }
    std::string& text() { return buf_; }

  private:
    static constexpr std::size_t kChunk = std::size_t{1} << 20;
    std::ostream* out_;
    const std::vector<std::string>& fields_;
    std::string buf_;
    bool first_ = true;
};

namespace {

void write_trace(const Memory& memory, const ReadTrace& t, TraceWriter& w) {
    // The same text as trace_to_json(&memory, t).dump(), written directly: the document tree
    // of a 10^7-position read would take gigabytes. The decimals, the only part that can fail
    // (a rounding past max_precision), come first, before anything is written.
    std::vector<std::string> decimals;
    for (const auto& c : t.context) decimals.push_back(to_fixed(c, 6));
    const std::string readout_decimal = t.readout ? to_fixed(*t.readout, 6) : std::string();
    TraceStrings cache(memory, t);
    const std::size_t n = t.marks.size();
    if (w.key("query")) w.put_vector(t.query);
    if (w.key("memory")) {
        w.put('[');
        for (std::size_t j = 0; j < memory.rows(); ++j) {
            w.put(j > 0 ? ",[" : "[");
            for (std::size_t i = 0; i < memory.width(); ++i) {
                if (i > 0) w.put(',');
                w.put_string(cache.entry(j, i));
            }
            w.put(']');
            w.flush_if_full();
        }
        w.put(']');
    }
    if (w.key("included")) w.put_positions(t.marks, [](Mark m) { return m != Mark::Removed; });
    const bool any_removed = std::any_of(t.marks.begin(), t.marks.end(), [](Mark m) { return m == Mark::Removed; });
    const bool any_zeroed = std::any_of(t.marks.begin(), t.marks.end(), [](Mark m) { return m == Mark::Zeroed; });
    if (any_removed && w.key("removed")) w.put_positions(t.marks, [](Mark m) { return m == Mark::Removed; });
    if (any_zeroed && w.key("zeroed")) w.put_positions(t.marks, [](Mark m) { return m == Mark::Zeroed; });
    const char* columns[] = {"scores", "exponentials", "weights"};
    for (int c = 0; c < 3; ++c) {
        if (c == 2 && w.key("denominator")) w.put_string(to_ascii(t.denominator));
        if (!w.key(columns[c])) continue;
        w.put('[');
        for (std::size_t p = 0; p < n; ++p) {
            if (p > 0) w.put(',');
            if (t.marks[p] == Mark::Removed) {
                w.put(c == 2 ? "\"0\"" : "null");
                continue;
            }
            const auto& r = cache.row(p);
            w.put_string(c == 0 ? r.score : c == 1 ? r.exponential : r.weight);
            w.flush_if_full();
        }
        w.put(']');
    }
    if (w.key("context")) w.put_vector(t.context);
    if (t.readout && w.key("readout")) w.put_string(to_ascii(*t.readout));
    if (w.key("context_decimal")) {
        w.put('[');
        for (std::size_t i = 0; i < decimals.size(); ++i) {
            if (i > 0) w.put(',');
            w.put_string(decimals[i]);
        }
        w.put(']');
    }
    if (t.readout && w.key("readout_decimal")) w.put_string(readout_decimal);
}

// A memory (a source's states, a read's memory) as dump(2) prints it at `indent`. Most of a
// large report's text: an entry of a compact memory with a small integer is one append of its
// separator, indent and quoted text, prepared once.
void write_pretty_matrix(TraceWriter& w, const Memory& m, TraceStrings& strings, std::size_t indent) {
    const std::string next = ",\n" + std::string(indent + 4, ' ');
    constexpr std::int64_t kSmall = 1024;
    std::vector<std::string> prepared(m.is_compact() ? 2 * kSmall + 1 : 0);
    w.put_pretty(m.rows(), indent, [&](std::size_t j) {
        w.put("[\n");
        w.put(std::string_view(next).substr(2));
        w.put_string(strings.entry(j, 0));
        for (std::size_t i = 1; i < m.width(); ++i) {
            const std::int64_t k = m.is_compact() ? m.integers()[j * m.width() + i] : kSmall + 1;
            if (k < -kSmall || k > kSmall) {
                w.put(next);
                w.put_string(strings.entry(j, i));
                continue;
            }
            std::string& p = prepared[static_cast<std::size_t>(k + kSmall)];
            if (p.empty()) p = next + '"' + strings.entry(j, i) + '"';
            w.put(p);
        }
        w.put('\n');
        w.put(std::string_view(next).substr(2, indent + 2));
        w.put(']');
    });
}

// Column c (0 scores, 1 exponentials, 2 weights) of a trace as dump(2) prints it at `indent`.
void write_pretty_column(TraceWriter& w, const ReadTrace& t, TraceStrings& strings, int c, std::size_t indent) {
    w.put_pretty(t.marks.size(), indent, [&](std::size_t p) {
        if (t.marks[p] == Mark::Removed) {
            w.put(c == 2 ? "\"0\"" : "null");
            return;
        }
        const auto& r = strings.row(p);
        w.put_string(c == 0 ? r.score : c == 1 ? r.exponential : r.weight);
    });
}

using LargeArrays = std::vector<std::shared_ptr<LargeArray>>;

// The marker that stands for large array k in ReportJson's tree, and its text in dump(2)
// (nlohmann escapes the control character).
constexpr std::string_view kMarker =
    "\x01"
    "exactattn:large-array:";
constexpr std::string_view kDumpedMarker = "\"\\u0001exactattn:large-array:";

// obj[key] = build(), or, when `large` collects the large arrays, a marker and its entry.
void put_large(Json& obj, const char* key, const std::string& pointer, LargeArrays* large, std::function<Json()> build,
               std::function<void(TraceWriter&, std::size_t)> write) {
    if (large == nullptr) {
        obj[key] = build();
        return;
    }
    obj[key] = std::string(kMarker) + std::to_string(large->size());
    large->push_back(
        std::make_shared<LargeArray>(LargeArray{pointer_join(pointer, key), std::move(build), std::move(write)}));
}

// obj[key] = the memory's entries, built or left to `large` like put_large's arrays.
void put_memory(Json& obj, const char* key, const std::string& pointer, LargeArrays* large, const Memory* memory,
                std::shared_ptr<TraceStrings> strings) {
    put_large(
        obj, key, pointer, large, [memory] { return matrix_json(*memory); },
        [memory, strings](TraceWriter& w, std::size_t indent) { write_pretty_matrix(w, *memory, *strings, indent); });
}

// A trace's object; its "memory" key only when `print_memory` (an intervention row prints its
// states under its own key, after its tokens).
Json trace_json(const Memory* memory, const ReadTrace& t, LargeArrays* large, const std::string& pointer,
                bool print_memory = true) {
    if (memory == nullptr) large = nullptr;  // the writers print through the memory's strings
    Json j;
    j["query"] = vector_json(t.query);
    // The arrays of n entries: built here, or left to `large` (ReportJson) with their writers,
    // which share the trace's memoized strings.
    std::shared_ptr<TraceStrings> strings;
    if (large != nullptr) strings = std::make_shared<TraceStrings>(*memory, t);
    if (memory != nullptr && print_memory) put_memory(j, "memory", pointer, large, memory, strings);
    put_large(
        j, "included", pointer, large,
        [&t] {
            Json included = Json::array();
            for (std::size_t p = 0; p < t.marks.size(); ++p) {
                if (t.marks[p] != Mark::Removed) included.push_back(p + 1);
            }
            return included;
        },
        [&t](TraceWriter& w, std::size_t indent) { w.put_pretty_positions(t.marks, indent); });
    Json removed = Json::array();
    Json zeroed = Json::array();
    for (std::size_t p = 0; p < t.marks.size(); ++p) {
        if (t.marks[p] == Mark::Removed) removed.push_back(p + 1);
        if (t.marks[p] == Mark::Zeroed) zeroed.push_back(p + 1);
    }
    if (!removed.empty()) j["removed"] = removed;
    if (!zeroed.empty()) j["zeroed"] = zeroed;
    // Column c of the trace: scores (null where removed), exponentials (null), weights ("0").
    const auto column = [&t](int c) {
        Json a = Json::array();
        for (std::size_t p = 0; p < t.marks.size(); ++p) {
            if (c == 2) {
                a.push_back(to_ascii(t.weights.at(p).value_or(Value())));
                continue;
            }
            const auto v = c == 0 ? t.scores.at(p) : t.exponentials.at(p);
            a.push_back(v ? Json(to_ascii(*v)) : Json(nullptr));
        }
        return a;
    };
    const char* names[] = {"scores", "exponentials", "weights"};
    for (int c = 0; c < 3; ++c) {
        if (c == 2) j["denominator"] = to_ascii(t.denominator);
        put_large(
            j, names[c], pointer, large, [column, c] { return column(c); },
            [&t, strings, c](TraceWriter& w, std::size_t indent) { write_pretty_column(w, t, *strings, c, indent); });
    }
    j["context"] = vector_json(t.context);
    if (t.readout) j["readout"] = to_ascii(*t.readout);
    Json dec = Json::array();
    for (const auto& c : t.context) dec.push_back(to_fixed(c, 6));
    j["context_decimal"] = dec;
    if (t.readout) j["readout_decimal"] = to_fixed(*t.readout, 6);
    return j;
}

}  // namespace

std::string trace_json_text(const Memory& memory, const ReadTrace& t) {
    const std::vector<std::string> all;
    TraceWriter w(nullptr, all);
    write_trace(memory, t, w);
    w.close("");
    return std::move(w.text());
}

void write_trace_json(const Memory& memory, const ReadTrace& t, std::ostream& out,
                      const std::vector<std::string>& fields) {
    TraceWriter w(&out, fields);
    write_trace(memory, t, w);
    w.close("\n");
    w.flush();
}

const std::vector<CostCount>& cost_counts() {
    static const std::vector<CostCount> counts = {
        {"stored_numbers", "Source-state numbers (n·d)", &Costs::stored_numbers},
        {"stored_bytes", "Source-state bytes", &Costs::stored_bytes},
        {"fixed_context_numbers", "Fixed-context numbers (d)", &Costs::fixed_context_numbers},
        {"fixed_context_bytes", "Fixed-context bytes", &Costs::fixed_context_bytes},
        {"dot_products", "Dot products (n·T)", &Costs::dot_products},
        {"multiplications_per_dot_product", "Multiplications per dot product (d)",
         &Costs::multiplications_per_dot_product},
        {"additions_per_dot_product", "Additions per dot product (d − 1)", &Costs::additions_per_dot_product},
        {"multiplications", "Scalar multiplications", &Costs::multiplications},
        {"additions", "Scalar additions", &Costs::additions},
        {"exponentials", "Exponentials", &Costs::exponentials},
        {"divisions", "Divisions", &Costs::divisions},
        {"sequential_encoder_steps", "Sequential encoder updates", &Costs::sequential_encoder_steps},
        {"sequential_decoder_steps", "Sequential decoder updates", &Costs::sequential_decoder_steps},
    };
    return counts;
}

Json costs_json(const Costs& c) {
    Json j;
    j["positions"] = c.input.positions;
    j["width"] = c.input.width;
    j["target_steps"] = c.input.target_steps;
    j["bytes_per_number"] = c.input.bytes_per_number;
    for (const auto& k : cost_counts()) j[k.key] = c.*k.count;
    return j;
}

namespace {

// TraceStrings prints a memory's entries whatever the trace: a source's states have none.
const ReadTrace& no_trace() {
    static const ReadTrace none;
    return none;
}

Json report_tree(const Report& rep, LargeArrays* large) {
    const Scenario& s = rep.scenario;
    Json j;
    j["title"] = s.title;
    j["a"] = {{"meaning", "ln 2"}, {"value", "a"}, {"decimal", to_fixed(Value::ln2(), 6)}};
    j["assumptions"] = s.assumptions;
    Json vocab = Json::object();
    for (const auto& [tok, e] : s.vocabulary) append_distinct(vocab, tok, vector_json(e));
    j["vocabulary"] = vocab;
    Json sources = Json::object();
    for (const auto& src : s.sources) {
        Json o;
        if (src.tokens) o["tokens"] = *src.tokens;
        if (!src.labels.empty()) o["labels"] = src.labels;
        const Memory* states = &src.states;
        auto strings = large != nullptr ? std::make_shared<TraceStrings>(*states, no_trace()) : nullptr;
        put_memory(o, "states", pointer_join("/sources", src.name), large, states, std::move(strings));
        append_distinct(sources, src.name, std::move(o));
    }
    j["sources"] = sources;
    Json reads = Json::object();
    for (const auto& rr : rep.reads) {
        Json o = trace_json(&s.source(rr.spec.source).states, rr.trace, large, pointer_join("/reads", rr.spec.name));
        o["source"] = rr.spec.source;
        if (!rr.spec.query.name.empty()) o["query_name"] = rr.spec.query.name;
        if (rr.spec.readout) {
            if (!rr.spec.readout->name.empty()) o["readout_name"] = rr.spec.readout->name;
            o["readout_coefficients"] = vector_json(rr.spec.readout->values);
        }
        append_distinct(reads, rr.spec.name, std::move(o));
    }
    j["reads"] = reads;
    Json inter = Json::object();
    for (const auto& ir : rep.interventions) {
        Json o;
        o["kind"] = intervention_name(ir.spec.kind);
        o["source"] = ir.spec.source;
        o["query"] = vector_json(ir.spec.query.values);
        if (ir.spec.readout) o["readout_coefficients"] = vector_json(ir.spec.readout->values);
        // A row's arrays are large arrays like a read's (a deletion's n rows of n states and
        // weights are the report's bulk); its states come last, after its tokens.
        const bool deletion = ir.spec.kind == InterventionKind::DeleteToken;
        const std::string rows_pointer = pointer_join(pointer_join("/interventions", ir.spec.name), "rows");
        Json rows = Json::array();
        for (std::size_t k = 0; k < ir.rows.size(); ++k) {
            const auto& row = ir.rows[k];
            const std::string here = pointer_join(rows_pointer, std::to_string(k));
            Json r = trace_json(&row.states, row.trace, large, here, false);
            r["position"] = row.position;
            if (deletion) {
                if (row.position > 0) r["deleted"] = (*s.source(ir.spec.source).tokens)[row.position - 1];
                r["tokens"] = *row.tokens;
                auto strings = large != nullptr ? std::make_shared<TraceStrings>(row.states, no_trace()) : nullptr;
                put_memory(r, "states", here, large, &row.states, std::move(strings));
            }
            rows.push_back(std::move(r));
        }
        o["rows"] = rows;
        append_distinct(inter, ir.spec.name, std::move(o));
    }
    j["interventions"] = inter;
    Json costs = Json::object();
    for (const auto& c : rep.costs) append_distinct(costs, c.spec.name, costs_json(c.costs));
    j["costs"] = costs;
    if (!rep.layers.empty()) {
        Json layers = Json::object();
        for (const auto& lr : rep.layers) append_distinct(layers, lr.spec.name, layer_to_json(lr.trace));
        j["layers"] = layers;
    }
    if (!rep.rollouts.empty()) {
        Json rollouts = Json::object();
        for (const auto& r : rep.rollouts) append_distinct(rollouts, r.spec.name, rollout_to_json(rep, r));
        j["rollouts"] = rollouts;
    }
    return j;
}

}  // namespace

Json trace_to_json(const Memory* memory, const ReadTrace& t) { return trace_json(memory, t, nullptr, ""); }

Json report_to_json(const Report& rep) { return report_tree(rep, nullptr); }

ReportJson::ReportJson(const Report& rep) { doc_ = report_tree(rep, &large_); }

ReportJson::~ReportJson() = default;

const Json& ReportJson::at(const std::string& pointer, const Location& where) {
    // The large arrays on the pointer's path or under it; the rest stays a marker.
    for (auto& a : large_) {
        if (a->built) continue;
        const std::string& p = a->pointer;
        const bool under =
            p.size() > pointer.size() && p.compare(0, pointer.size(), pointer) == 0 && p[pointer.size()] == '/';
        const bool on_path =
            pointer.compare(0, p.size(), p) == 0 && (pointer.size() == p.size() || pointer[p.size()] == '/');
        if (!under && !on_path) continue;
        doc_.at(Json::json_pointer(p)) = a->build();
        a->built = true;
    }
    return resolve_pointer(doc_, pointer, where);
}

void ReportJson::write(std::ostream& out) {
    // The tree without its large arrays is small: dumped whole, and each marker in it replaced
    // by its array, written as it is printed. A marker's line starts with its key's indent.
    const std::string text = doc_.dump(2);
    std::vector<std::pair<std::size_t, std::size_t>> found;  // (position, array)
    for (std::size_t at = text.find(kDumpedMarker); at != std::string::npos; at = text.find(kDumpedMarker, at + 1)) {
        std::size_t k = 0;
        const char* first = text.data() + at + kDumpedMarker.size();
        const auto [end, ec] = std::from_chars(first, text.data() + text.size(), k);
        if (ec != std::errc() || *end != '"' || k >= large_.size() || large_[k]->built) break;
        found.emplace_back(at, k);
    }
    const auto unbuilt =
        static_cast<std::size_t>(std::count_if(large_.begin(), large_.end(), [](const auto& a) { return !a->built; }));
    if (found.size() != unbuilt) {
        // A string of the scenario that looks like a marker: the whole tree, as report_to_json.
        for (auto& a : large_) {
            if (!a->built) doc_.at(Json::json_pointer(a->pointer)) = a->build();
            a->built = true;
        }
        out << doc_.dump(2) << '\n';
        return;
    }
    const std::vector<std::string> all;
    TraceWriter w(&out, all);
    std::size_t done = 0;
    for (const auto& [at, k] : found) {
        w.put(std::string_view(text).substr(done, at - done));
        const std::size_t line = text.rfind('\n', at) + 1;  // the dump opens with "{\n": found
        large_[k]->write(w, text.find_first_not_of(' ', line) - line);
        done = text.find('"', at + 1) + 1;
        w.flush_if_full();
    }
    w.put(std::string_view(text).substr(done));
    w.put('\n');
    w.flush();
}

}  // namespace exactattn::detail
