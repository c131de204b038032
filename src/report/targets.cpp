// SPDX-License-Identifier: MIT
// exactattn internal: what a learner answer's target names in the run report — a quantity
// (flattened to its values) or tokens — checked when the scenario runs and read by `check`.
#include "report/targets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "exactattn/error.hpp"
#include "report/report_json.hpp"

namespace exactattn::detail {

namespace {

// ReferenceError unless `target` may name a quantity: not tokens, not inside the report's text.
void refuse_words(const std::string& target, const Location& where) {
    if (names_tokens(target)) {
        throw reference_error(fmt::format("{} names tokens, not a quantity (a value, a vector or a matrix)", target),
                              where);
    }
    // Text entries of the report (names, tokens, kinds) are not quantities to answer.
    static const char* text_keys[] = {"title",  "assumptions", "meaning", "source",     "kind",
                                      "tokens", "deleted",     "labels",  "query_name", "readout_name"};
    for (const auto& t : pointer_parts(target).value_or(std::vector<std::string>{})) {
        for (const char* k : text_keys) {
            if (t == k) {
                throw reference_error(fmt::format("{} names text (\"{}\"), not a quantity to answer", target, k),
                                      where);
            }
        }
    }
}

}  // namespace

Flat flatten(const Json& j, const Location& where, const std::string& target) {
    refuse_words(target, where);
    Flat f;
    auto scalar = [&](const Json& x) -> std::optional<Value> {
        if (x.is_null()) return std::nullopt;
        if (x.is_string() || x.is_number() || x.is_binary()) return detail::json_value(x, where);
        throw reference_error(fmt::format("{} names {}, not a quantity to answer", target, detail::json_type(x)),
                              where);
    };
    if (!j.is_array()) {
        f.values.push_back(scalar(j));
        f.scalar = true;
        if (!f.values.back()) throw reference_error(fmt::format("{} has no value in the run report", target), where);
        return f;
    }
    for (const auto& x : j) {
        if (x.is_array()) {
            if (f.columns == 0) f.columns = x.size();
            if (x.size() != f.columns || f.columns == 0) {
                throw reference_error(fmt::format("{} names {}, not a quantity to answer", target, "a ragged array"),
                                      where);
            }
            for (const auto& y : x) f.values.push_back(scalar(y));
        } else {
            if (f.columns != 0) {
                throw reference_error(fmt::format("{} names {}, not a quantity to answer", target, "a ragged array"),
                                      where);
            }
            f.values.push_back(scalar(x));
        }
    }
    return f;
}

namespace {

// The report's quantities walked by pointer: each function answers the part of the pointer
// from index `k` on, or none when the report's values do not answer it (report_quantity then
// asks the JSON report, which names what is missing). Each mirrors its writer in report_json.cpp
// (trace_json, report_tree, costs_json) and attention_report.cpp (layer_to_json); the test of
// report_quantity compares the two on every pointer of every scenario of data/.
using Cell = std::optional<Value>;
using Parts = std::vector<std::string>;

// An index of an array of n entries as RFC 6901 writes it ("0", "12", no leading zero).
std::optional<std::size_t> index_in(const std::string& t, std::size_t n) {
    if (t.empty() || t.size() >= 10 || t.find_first_not_of("0123456789") != std::string::npos ||
        (t.size() > 1 && t[0] == '0')) {
        return std::nullopt;
    }
    const std::size_t k = std::stoul(t);
    if (k >= n) return std::nullopt;
    return k;
}

std::optional<Flat> scalar_at(Cell v, const Parts& t, std::size_t k) {
    if (k != t.size()) return std::nullopt;  // below a single value: nothing
    Flat f;
    f.values.push_back(std::move(v));
    f.scalar = true;
    return f;
}

// A vector of n cells, cell(i) the i-th; or one of its entries.
template <class F>
std::optional<Flat> vector_at(std::size_t n, const F& cell, const Parts& t, std::size_t k) {
    if (k == t.size()) {
        Flat f;
        f.values.reserve(n);
        for (std::size_t i = 0; i < n; ++i) f.values.push_back(cell(i));
        return f;
    }
    const auto i = index_in(t[k], n);
    if (!i) return std::nullopt;
    return scalar_at(cell(*i), t, k + 1);
}

// A matrix of rows × columns cells, cell(j, i) at row j; or one of its rows or entries.
template <class F>
std::optional<Flat> matrix_at(std::size_t rows, std::size_t columns, const F& cell, const Parts& t, std::size_t k) {
    if (k == t.size()) {
        if (rows > 0 && columns == 0) return std::nullopt;  // rows without entries: ragged, refused there
        Flat f;
        f.values.reserve(rows * columns);
        for (std::size_t j = 0; j < rows; ++j) {
            for (std::size_t i = 0; i < columns; ++i) f.values.push_back(cell(j, i));
        }
        f.columns = rows > 0 ? columns : 0;
        return f;
    }
    const auto j = index_in(t[k], rows);
    if (!j) return std::nullopt;
    return vector_at(
        columns, [&](std::size_t i) { return cell(*j, i); }, t, k + 1);
}

std::optional<Flat> vector_at(const Vector& v, const Parts& t, std::size_t k) {
    return vector_at(
        v.size(), [&v](std::size_t i) { return Cell(v[i]); }, t, k);
}

std::optional<Flat> matrix_at(const Matrix& m, const Parts& t, std::size_t k) {
    const std::size_t columns = m.empty() ? 0 : m.front().size();
    for (const auto& row : m) {
        if (row.size() != columns) return std::nullopt;
    }
    return matrix_at(
        m.size(), columns, [&m](std::size_t j, std::size_t i) { return Cell(m[j][i]); }, t, k);
}

std::optional<Flat> memory_at(const Memory& m, const Parts& t, std::size_t k) {
    return matrix_at(
        m.rows(), m.width(), [&m](std::size_t j, std::size_t i) { return Cell(m.at(j, i)); }, t, k);
}

Cell count(std::int64_t n) { return Value(static_cast<long>(n)); }

// The 1-based positions whose mark `keep` accepts; none when `always` is false and there are none
// (the report writes "removed" and "zeroed" only when some are).
std::optional<Flat> positions_at(const std::vector<Mark>& marks, bool (*keep)(Mark), bool always, const Parts& t,
                                 std::size_t k) {
    std::vector<std::size_t> at;
    for (std::size_t p = 0; p < marks.size(); ++p) {
        if (keep(marks[p])) at.push_back(p + 1);
    }
    if (at.empty() && !always) return std::nullopt;
    return vector_at(
        at.size(), [&at](std::size_t i) { return count(static_cast<std::int64_t>(at[i])); }, t, k);
}

bool is_included(Mark m) { return m != Mark::Removed; }
bool is_removed(Mark m) { return m == Mark::Removed; }
bool is_zeroed(Mark m) { return m == Mark::Zeroed; }

// A read's trace (trace_json): its memory when `memory` is given.
std::optional<Flat> trace_at(const ReadTrace& tr, const Memory* memory, const Parts& t, std::size_t k) {
    if (k == t.size()) return std::nullopt;  // the trace's object
    const std::string& key = t[k];
    const std::size_t n = tr.marks.size();
    if (key == "query") return vector_at(tr.query, t, k + 1);
    if (key == "memory" && memory != nullptr) return memory_at(*memory, t, k + 1);
    if (key == "included") return positions_at(tr.marks, is_included, true, t, k + 1);
    if (key == "removed") return positions_at(tr.marks, is_removed, false, t, k + 1);
    if (key == "zeroed") return positions_at(tr.marks, is_zeroed, false, t, k + 1);
    if (key == "scores")
        return vector_at(
            n, [&tr](std::size_t p) { return tr.scores.at(p); }, t, k + 1);
    if (key == "exponentials")
        return vector_at(
            n, [&tr](std::size_t p) { return tr.exponentials.at(p); }, t, k + 1);
    if (key == "denominator") return scalar_at(tr.denominator, t, k + 1);
    if (key == "weights") {
        return vector_at(
            n, [&tr](std::size_t p) { return Cell(tr.weights.at(p).value_or(Value())); }, t, k + 1);
    }
    if (key == "context") return vector_at(tr.context.values(), t, k + 1);
    if (key == "readout" && tr.readout) return scalar_at(*tr.readout, t, k + 1);
    return std::nullopt;
}

// The first entry named `name` (the JSON report's object keeps the first of a repeated name).
template <class R, class F>
auto named(const R& range, const std::string& name, const F& name_of) -> decltype(&*range.begin()) {
    for (const auto& x : range) {
        if (name_of(x) == name) return &x;
    }
    return nullptr;
}

std::optional<Flat> read_at(const Report& rep, const Parts& t) {
    const auto* rr = named(rep.reads, t[1], [](const ReadResult& r) -> const std::string& { return r.spec.name; });
    if (rr == nullptr || t.size() < 3) return std::nullopt;
    if (t[2] == "readout_coefficients") {
        return rr->spec.readout ? vector_at(rr->spec.readout->values, t, 3) : std::nullopt;
    }
    return trace_at(rr->trace, &rep.scenario.source(rr->spec.source).states, t, 2);
}

std::optional<Flat> intervention_at(const Report& rep, const Parts& t) {
    const auto* ir =
        named(rep.interventions, t[1], [](const InterventionResult& r) -> const std::string& { return r.spec.name; });
    if (ir == nullptr || t.size() < 3) return std::nullopt;
    if (t[2] == "query") return vector_at(ir->spec.query.values, t, 3);
    if (t[2] == "readout_coefficients") {
        return ir->spec.readout ? vector_at(ir->spec.readout->values, t, 3) : std::nullopt;
    }
    if (t[2] != "rows" || t.size() < 5) return std::nullopt;
    const auto k = index_in(t[3], ir->rows.size());
    if (!k) return std::nullopt;
    const InterventionRow& row = ir->rows[*k];
    if (t[4] == "position") return scalar_at(count(static_cast<std::int64_t>(row.position)), t, 5);
    if (t[4] == "states") {
        if (ir->spec.kind != InterventionKind::DeleteToken) return std::nullopt;
        return memory_at(row.states, t, 5);
    }
    return trace_at(row.trace, nullptr, t, 4);  // a row's states are its own key, above
}

std::optional<Flat> cost_at(const Report& rep, const Parts& t) {
    const auto* c = named(rep.costs, t[1], [](const CostResult& r) -> const std::string& { return r.spec.name; });
    if (c == nullptr || t.size() < 3) return std::nullopt;
    const CostInput& in = c->costs.input;
    const std::pair<const char*, std::int64_t> inputs[] = {{"positions", in.positions},
                                                           {"width", in.width},
                                                           {"target_steps", in.target_steps},
                                                           {"bytes_per_number", in.bytes_per_number}};
    for (const auto& [key, n] : inputs) {
        if (t[2] == key) return scalar_at(count(n), t, 3);
    }
    for (const auto& cc : cost_counts()) {
        if (t[2] == cc.key) return scalar_at(count(c->costs.*cc.count), t, 3);
    }
    return std::nullopt;
}

std::optional<Flat> head_at(const HeadTrace& h, const Parts& t) {
    if (t.size() < 6) return std::nullopt;
    const std::string& key = t[5];
    if (key == "queries") return memory_at(h.queries, t, 6);
    if (key == "keys") return memory_at(h.keys, t, 6);
    if (key == "values") return memory_at(h.values, t, 6);
    if (key == "outputs") {  // h.outputs(), without copying every row to answer one
        const std::size_t width = h.rows.empty() ? 0 : h.rows.front().context.size();
        for (const auto& r : h.rows) {
            if (r.context.size() != width) return std::nullopt;
        }
        return matrix_at(
            h.rows.size(), width, [&h](std::size_t j, std::size_t i) { return Cell(h.rows[j].context.values()[i]); }, t,
            6);
    }
    if (key == "denominators") {
        return vector_at(
            h.rows.size(), [&h](std::size_t i) { return Cell(h.rows[i].denominator); }, t, 6);
    }
    if (key != "scores" && key != "weights") return std::nullopt;
    const std::size_t columns = h.rows.empty() ? 0 : h.rows.front().marks.size();
    for (const auto& r : h.rows) {
        if (r.marks.size() != columns) return std::nullopt;
    }
    if (key == "scores") {
        return matrix_at(
            h.rows.size(), columns, [&h](std::size_t j, std::size_t p) { return h.rows[j].scores.at(p); }, t, 6);
    }
    return matrix_at(
        h.rows.size(), columns,
        [&h](std::size_t j, std::size_t p) { return Cell(h.rows[j].weights.at(p).value_or(Value())); }, t, 6);
}

std::optional<Flat> layer_at(const Report& rep, const Parts& t) {
    const auto* lr = named(rep.layers, t[1], [](const LayerResult& r) -> const std::string& { return r.spec.name; });
    if (lr == nullptr || t.size() < 3) return std::nullopt;
    const LayerTrace& tr = lr->trace;
    if (t[2] == "input") return matrix_at(tr.input, t, 3);
    if (t[2] == "concat") return matrix_at(tr.concat(), t, 3);
    if (t[2] == "output") return matrix_at(tr.output(), t, 3);
    if (t[2] != "heads" || t.size() < 4) return std::nullopt;
    const auto h = index_in(t[3], tr.heads.size());
    return h ? head_at(tr.heads[*h], t) : std::nullopt;
}

std::optional<Flat> quantity_at(const Report& rep, const Parts& t) {
    if (t.size() < 2) return std::nullopt;
    if (t[0] == "vocabulary") {
        const auto* e = named(rep.scenario.vocabulary, t[1],
                              [](const std::pair<std::string, Vector>& v) -> const std::string& { return v.first; });
        return e != nullptr ? vector_at(e->second, t, 2) : std::nullopt;
    }
    if (t[0] == "sources") {
        const auto* s = named(rep.scenario.sources, t[1], [](const Source& x) -> const std::string& { return x.name; });
        if (s == nullptr || t.size() < 3 || t[2] != "states") return std::nullopt;
        return memory_at(s->states, t, 3);
    }
    if (t[0] == "reads") return read_at(rep, t);
    if (t[0] == "interventions") return intervention_at(rep, t);
    if (t[0] == "costs") return cost_at(rep, t);
    if (t[0] == "layers") return layer_at(rep, t);
    return std::nullopt;
}

}  // namespace

namespace {

// The quantity at `target` when the report's values answer it, refused as flatten() refuses.
std::optional<Flat> values_at(const Report& rep, const std::string& target, const Location& where) {
    const auto parts = pointer_parts(target);
    if (!parts) return std::nullopt;
    auto f = quantity_at(rep, *parts);
    if (!f) return std::nullopt;
    refuse_words(target, where);
    if (f->scalar && !f->values.front()) {
        throw reference_error(fmt::format("{} has no value in the run report", target), where);
    }
    return f;
}

}  // namespace

Flat report_quantity(const Report& rep, const std::string& target, const Location& where, const Json& doc) {
    if (auto f = values_at(rep, target, where)) return std::move(*f);
    return flatten(resolve_pointer(doc, target, where), where, target);
}

TokensAt tokens_at(const Json& doc, const std::string& target, const Location& where) {
    const Json& x = resolve_pointer(doc, target, where);
    TokensAt out;
    if (x.is_string()) {
        out.tokens.push_back(x.get<std::string>());
        out.scalar = true;
        return out;
    }
    // A list of tokens; null in it is a step whose tie the rule refused (docs/decoder.md).
    if (x.is_array() && std::all_of(x.begin(), x.end(), [](const Json& y) { return y.is_string() || y.is_null(); })) {
        for (const auto& y : x) {
            out.tokens.push_back(y.is_null() ? std::nullopt : std::optional<std::string>(y.get<std::string>()));
        }
        return out;
    }
    if (x.is_null()) {
        const auto t = detail::pointer_parts(target).value_or(std::vector<std::string>{});
        const std::string why = !t.empty() && t.back() == "chosen"
                                    ? "the tie rule refused the tie at this step, so no token was chosen"
                                : !t.empty() && t[0] == "rollouts" && t.size() > 2 && t[2] == "divergence"
                                    ? "the generated tokens never leave the reference, so there is no divergence"
                                    : "the run report has no token there";
        throw reference_error(fmt::format("{} has no token to answer: {}", target, why), where);
    }
    throw reference_error(fmt::format("{} names {}, not tokens", target, json_type(x)), where);
}

void check_answer_target(const Report& rep, const LearnerAnswer& la, const Location& where, const Json& doc) {
    if (names_tokens(la.target)) {
        (void)tokens_at(doc, la.target, where);
        return;
    }
    (void)report_quantity(rep, la.target, where, doc);
}

}  // namespace exactattn::detail
