// SPDX-License-Identifier: MIT
// exactattn internal: JSON form of traces and reports (every exact value is its ascii string).
#include "report_json.hpp"

#include "exactattn/print.hpp"

namespace exactattn::detail {

Json value_json(const Value& v) { return to_ascii(v); }

Json vector_json(const Vector& v) {
    Json a = Json::array();
    for (const auto& x : v) a.push_back(to_ascii(x));
    return a;
}

Json matrix_json(const Memory& m) {
    Json a = Json::array();
    for (std::size_t j = 0; j < m.rows(); ++j) a.push_back(vector_json(m.row(j)));
    return a;
}

Json trace_to_json(const Memory* memory, const ReadTrace& t) {
    Json j;
    j["query"] = vector_json(t.query);
    if (memory != nullptr) j["memory"] = matrix_json(*memory);
    Json included = Json::array();
    Json removed = Json::array();
    Json zeroed = Json::array();
    for (std::size_t p = 0; p < t.marks.size(); ++p) {
        if (t.marks[p] != Mark::Removed) included.push_back(p + 1);
        if (t.marks[p] == Mark::Removed) removed.push_back(p + 1);
        if (t.marks[p] == Mark::Zeroed) zeroed.push_back(p + 1);
    }
    j["included"] = included;
    if (!removed.empty()) j["removed"] = removed;
    if (!zeroed.empty()) j["zeroed"] = zeroed;
    Json scores = Json::array();
    Json exps = Json::array();
    Json weights = Json::array();
    for (std::size_t p = 0; p < t.marks.size(); ++p) {
        const auto s = t.scores.at(p);
        const auto e = t.exponentials.at(p);
        scores.push_back(s ? Json(to_ascii(*s)) : Json(nullptr));
        exps.push_back(e ? Json(to_ascii(*e)) : Json(nullptr));
        weights.push_back(to_ascii(t.weights.at(p).value_or(Value())));
    }
    j["scores"] = scores;
    j["exponentials"] = exps;
    j["denominator"] = to_ascii(t.denominator);
    j["weights"] = weights;
    j["context"] = vector_json(t.context);
    if (t.readout) j["readout"] = to_ascii(*t.readout);
    Json dec = Json::array();
    for (const auto& c : t.context) dec.push_back(to_fixed(c, 6));
    j["context_decimal"] = dec;
    if (t.readout) j["readout_decimal"] = to_fixed(*t.readout, 6);
    return j;
}

Json costs_json(const Costs& c) {
    Json j;
    j["positions"] = c.input.positions;
    j["width"] = c.input.width;
    j["target_steps"] = c.input.target_steps;
    j["bytes_per_number"] = c.input.bytes_per_number;
    j["stored_numbers"] = c.stored_numbers;
    j["stored_bytes"] = c.stored_bytes;
    j["fixed_context_numbers"] = c.fixed_context_numbers;
    j["fixed_context_bytes"] = c.fixed_context_bytes;
    j["dot_products"] = c.dot_products;
    j["multiplications_per_dot_product"] = c.multiplications_per_dot_product;
    j["additions_per_dot_product"] = c.additions_per_dot_product;
    j["multiplications"] = c.multiplications;
    j["additions"] = c.additions;
    j["exponentials"] = c.exponentials;
    j["divisions"] = c.divisions;
    j["sequential_encoder_steps"] = c.sequential_encoder_steps;
    j["sequential_decoder_steps"] = c.sequential_decoder_steps;
    return j;
}

Json report_to_json(const Report& rep) {
    const Scenario& s = rep.scenario;
    Json j;
    j["title"] = s.title;
    j["a"] = {{"meaning", "ln 2"}, {"decimal", to_fixed(Value::ln2(), 6)}};
    j["assumptions"] = s.assumptions;
    Json vocab = Json::object();
    for (const auto& [tok, e] : s.vocabulary) vocab[tok] = vector_json(e);
    j["vocabulary"] = vocab;
    Json sources = Json::object();
    for (const auto& src : s.sources) {
        Json o;
        if (src.tokens) o["tokens"] = *src.tokens;
        if (!src.labels.empty()) o["labels"] = src.labels;
        o["states"] = matrix_json(src.states);
        sources[src.name] = o;
    }
    j["sources"] = sources;
    Json reads = Json::object();
    for (const auto& rr : rep.reads) {
        Json o = trace_to_json(&s.source(rr.spec.source).states, rr.trace);
        o["source"] = rr.spec.source;
        if (!rr.spec.query.name.empty()) o["query_name"] = rr.spec.query.name;
        if (rr.spec.readout) {
            if (!rr.spec.readout->name.empty()) o["readout_name"] = rr.spec.readout->name;
            o["readout_coefficients"] = vector_json(rr.spec.readout->values);
        }
        reads[rr.spec.name] = o;
    }
    j["reads"] = reads;
    Json inter = Json::object();
    for (const auto& ir : rep.interventions) {
        Json o;
        o["kind"] = intervention_name(ir.spec.kind);
        o["source"] = ir.spec.source;
        o["query"] = vector_json(ir.spec.query.values);
        if (ir.spec.readout) o["readout_coefficients"] = vector_json(ir.spec.readout->values);
        Json rows = Json::array();
        for (const auto& row : ir.rows) {
            Json r = trace_to_json(ir.spec.kind == InterventionKind::DeleteToken ? &row.states : nullptr,
                                   row.trace);
            r["position"] = row.position;
            if (ir.spec.kind == InterventionKind::DeleteToken) {
                if (row.position > 0) r["deleted"] = (*s.source(ir.spec.source).tokens)[row.position - 1];
                r["tokens"] = *row.tokens;
                r["states"] = r["memory"];
                r.erase("memory");
            }
            rows.push_back(r);
        }
        o["rows"] = rows;
        inter[ir.spec.name] = o;
    }
    j["interventions"] = inter;
    Json costs = Json::object();
    for (const auto& c : rep.costs) costs[c.spec.name] = costs_json(c.costs);
    j["costs"] = costs;
    return j;
}

}  // namespace exactattn::detail
