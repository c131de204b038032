// SPDX-License-Identifier: MIT
// exactattn: `check` — locating the read, intervention row or layer a target was computed from.
#include "tools/check/locate.hpp"

#include "scenario/pointer.hpp"

namespace exactattn::detail {

std::vector<std::string> target_tokens(const std::string& pointer) {
    return pointer_parts(pointer).value();  // already validated by the resolver
}

namespace {

// The situation of the read named by t[1].
bool locate_read(const Report& rep, const std::vector<std::string>& t, Situation& s) {
    const ReadResult* rr = nullptr;
    for (const auto& r : rep.reads) rr = r.spec.name == t[1] ? &r : rr;
    if (rr == nullptr) return false;
    s.source = &rep.scenario.source(rr->spec.source);
    s.memory = s.source->states;
    s.values = s.memory;
    s.trace = &rr->trace;
    if (rr->spec.readout) s.readout = rr->spec.readout->values;
    s.request.query = rr->spec.query.values;
    s.request.marks = rr->trace.marks;
    return true;
}

// The situation of row t[3] of the intervention named by t[1].
bool locate_intervention_row(const Report& rep, const std::vector<std::string>& t, Situation& s) {
    const InterventionResult* ir = nullptr;
    for (const auto& r : rep.interventions) ir = r.spec.name == t[1] ? &r : ir;
    if (ir == nullptr) return false;
    const std::size_t k = std::stoul(t[3]);  // resolved: a valid row index
    const auto& row = ir->rows.at(k);
    s.source = &rep.scenario.source(ir->spec.source);
    s.memory = row.states;
    s.values = s.memory;
    s.trace = &row.trace;
    if (ir->spec.readout) s.readout = ir->spec.readout->values;
    s.request.query = ir->spec.query.values;
    s.request.marks = row.trace.marks;
    s.kind = ir->spec.kind;
    s.position = row.position;
    return true;
}

// Row t[5] of head t[3] of the layer named by t[1] (/layers/<l>/heads/<h>/<quantity>/<i>): one
// read with the head's keys and values, the layer's rule and scale, its masked keys removed.
bool locate_layer_row(const Report& rep, const std::vector<std::string>& t, Situation& s) {
    const LayerResult* lr = nullptr;
    for (const auto& l : rep.layers) lr = l.spec.name == t[1] ? &l : lr;
    if (lr == nullptr || t.size() < 6 || t[2] != "heads") return false;
    const auto& ht = lr->trace.heads.at(std::stoul(t[3]));  // resolved: valid indices
    const std::size_t i = std::stoul(t[5]);
    s.memory = ht.keys;
    s.values = ht.values;
    s.trace = &ht.rows.at(i);
    s.request.query = ht.queries.row(i);
    s.request.marks = s.trace->marks;
    s.request.rule = lr->spec.layer.rule;
    s.request.scale = lr->spec.layer.scale;
    return true;
}

// The read of step t[4] of regime t[2] of the rollout named by t[1]
// (/rollouts/<r>/<regime>/steps/<k>/<quantity>): the step's query over the source states.
bool locate_rollout_step(const Report& rep, const std::vector<std::string>& t, Situation& s) {
    const RolloutResult* rr = nullptr;
    for (const auto& r : rep.rollouts) rr = r.spec.name == t[1] ? &r : rr;
    if (rr == nullptr || t[3] != "steps") return false;
    const RegimeTrace* reg = t[2] == "generation"                               ? &rr->generation
                             : t[2] == "teacher-forcing" && rr->teacher_forcing ? &*rr->teacher_forcing
                                                                                : nullptr;
    const std::size_t k = std::stoul(t[4]);
    if (reg == nullptr || k == 0 || k > reg->steps.size()) return false;  // step 0 is s_0 alone
    const DecoderStep& st = reg->steps[k - 1];
    s.source = &rep.scenario.source(rr->spec.source);
    s.memory = s.source->states;
    s.values = s.memory;
    s.trace = &st.read;
    s.request.query = st.query;
    s.request.marks = st.read.marks;
    s.request.rule = ScoreRule::Dot;  // the decoder's read is the chapter's (docs/decoder.md)
    return true;
}

std::vector<Value> included_only(const Column& c) {
    std::vector<Value> out;
    for (std::size_t j = 0; j < c.size(); ++j) {
        if (auto v = c.at(j)) out.push_back(*v);
    }
    return out;
}

}  // namespace

std::optional<Situation> locate(const Report& rep, const std::string& target) {
    const auto t = target_tokens(target);
    Situation s;
    std::size_t q = 0;  // index of the quantity token
    if (t.size() >= 3 && t[0] == "reads") {
        if (!locate_read(rep, t, s)) return std::nullopt;
        q = 2;
    } else if (t.size() >= 5 && t[0] == "interventions" && t[2] == "rows") {
        if (!locate_intervention_row(rep, t, s)) return std::nullopt;
        q = 4;
    } else if (t.size() >= 6 && t[0] == "layers") {
        if (!locate_layer_row(rep, t, s)) return std::nullopt;
        // A layer's row of denominators, outputs, scores or weights is that read's quantity.
        static const std::pair<const char*, const char*> names[] = {
            {"denominators", "denominator"}, {"outputs", "context"}, {"scores", "scores"}, {"weights", "weights"}};
        for (const auto& [layer_name, read_name] : names) {
            if (t[4] == layer_name) s.quantity = read_name;
        }
        if (s.quantity.empty() || t.size() > 7 || (s.quantity == "denominator" && t.size() > 6)) return std::nullopt;
        if (t.size() == 7) s.element = std::stoul(t[6]);
        return s;
    } else if (t.size() >= 6 && t[0] == "rollouts") {
        if (!locate_rollout_step(rep, t, s)) return std::nullopt;
        q = 5;
        if (t[q] == "readout") return std::nullopt;
    } else {
        return std::nullopt;
    }
    s.request.readout = s.readout;
    if (t[0] != "rollouts") s.request.rule = rep.scenario.rule;
    s.quantity = t[q];
    static const char* known[] = {"scores", "exponentials", "denominator", "weights", "context", "readout"};
    bool ok = false;
    for (const char* k : known) ok = ok || s.quantity == k;
    if (!ok || t.size() > q + 2) return std::nullopt;
    if (t.size() == q + 2) s.element = std::stoul(t[q + 1]);
    return s;
}

Ctx context_at(const Report& rep, const Json& doc, const Flat& exact, const std::string& target,
               const Location& where) {
    Ctx c{rep, doc, exact, std::nullopt, {}, {}, nullptr, {}, where, std::make_shared<RowContexts>()};
    const auto tokens = target_tokens(target);
    if (tokens.size() >= 3 && tokens[0] == "layers") {
        for (const auto& l : rep.layers) c.layer = l.spec.name == tokens[1] ? &l : c.layer;
        if (c.layer != nullptr) c.layer_sub = target.substr(pointer_join("/layers", c.layer->spec.name).size());
    }
    // Every row of a layer is a read (docs/attention.md): its Chapter 14 mistakes apply too.
    c.s = locate(rep, target);
    if (c.s) {
        for (std::size_t p = 0; p < c.s->trace->marks.size(); ++p) {
            (c.s->trace->marks[p] == Mark::Removed ? c.removed : c.incl).push_back(p);
        }
    }
    return c;
}

std::vector<Value> quantity_of(const ReadTrace& t, const std::string& q) {
    if (q == "scores") return included_only(t.scores);
    if (q == "exponentials") return included_only(t.exponentials);
    if (q == "denominator") return {t.denominator};
    if (q == "weights") {
        std::vector<Value> w;
        for (std::size_t j = 0; j < t.weights.size(); ++j) w.push_back(t.weights.at(j).value_or(Value()));
        return w;
    }
    if (q == "context") return t.context;
    return {*t.readout};
}

std::string position_list(const std::vector<std::size_t>& ps) {
    std::string out;
    for (std::size_t i = 0; i < ps.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == ps.size() ? " and " : ", ") + std::to_string(ps[i] + 1);
    }
    return out;
}

}  // namespace exactattn::detail
