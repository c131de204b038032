// SPDX-License-Identifier: MIT
// exactattn: the scenario writer — the inverse of the loader: parse(write(s)) == s.
#include "exactattn/print.hpp"
#include "exactattn/scenario.hpp"
#include "scenario/json.hpp"
#include "scenario/enum_names.hpp"

namespace exactattn {

namespace {

using detail::activation_names;
using detail::Json;
using detail::json_array;
using detail::name_of;
using detail::score_rule_names;
using detail::tie_rule_names;

// An integer that fits a JSON integer is written as one; every other value as its canonical
// ascii string, which parse_value reads back to the same value (print.hpp).
Json value_j(const Value& v) {
    if (v.is_rational() && v.rational().get_den() == 1 && v.rational().get_num().fits_slong_p()) {
        return Json(static_cast<std::int64_t>(v.rational().get_num().get_si()));
    }
    return Json(to_ascii(v));
}

Json vector_j(const Vector& v) { return json_array(v, value_j); }

Json matrix_j(const Matrix& m) { return json_array(m, vector_j); }

Json ref_j(const NamedVector& nv) { return nv.name.empty() ? vector_j(nv.values) : Json(nv.name); }

Json vocabulary_j(const std::vector<std::pair<std::string, Vector>>& vocabulary) {
    Json v = Json::object();
    for (const auto& [token, e] : vocabulary) v[token] = vector_j(e);
    return v;
}

// Strings, positions and flags as they are.
template <class T>
Json list_j(const std::vector<T>& v) {
    return json_array(v, [](const T& x) { return Json(x); });
}

void optional_text(Json& o, const char* key, const std::string& text) {
    if (!text.empty()) o[key] = text;
}

Json layer_j(const LayerSpec& l) {
    Json o;
    o["sequence"] = l.sequence;
    if (!l.memory.empty()) o["memory"] = l.memory;
    const AttentionLayer& a = l.layer;
    o["heads"] = json_array(a.heads, [](const AttentionHead& h) {
        return Json{{"wq", matrix_j(h.wq)}, {"wk", matrix_j(h.wk)}, {"wv", matrix_j(h.wv)}};
    });
    if (a.wo) o["wo"] = matrix_j(*a.wo);
    // Always explicit: the loader's default is the scenario's score rule.
    switch (a.rule) {
        case ScoreRule::Dot:
            o["scale"] = "none";
            break;
        case ScoreRule::ScaledDot:
            o["scale"] = "sqrt-dk";
            break;
        case ScoreRule::Scaled:
            o["scale"] = value_j(a.scale);
            break;
    }
    if (a.causal) o["causal"] = true;
    if (!a.padding.empty()) o["padding"] = list_j(a.padding);
    if (!a.mask.empty()) o["mask"] = json_array(a.mask, list_j<bool>);
    if (a.residual) o["residual"] = true;
    if (a.positional == Positional::Table) o["positions"] = matrix_j(a.positions);
    if (a.positional == Positional::Sinusoidal) o["positions"] = "sinusoidal";
    if (a.layer_norm) o["layer_norm"] = true;
    optional_text(o, "note", l.note);
    optional_text(o, "number", l.number);
    optional_text(o, "caption", l.caption);
    return o;
}

Json variation_j(const Variation& v) {
    Json o;
    Json vary = Json::array();
    for (const auto& e : v.vary) {
        Json x;
        x["at"] = e.at;
        if (e.integers) {
            x["integers"] = {e.low, e.high};
            if (e.multiple_of_a) x["multiple_of_a"] = true;
        } else {
            x["choices"] = json_array(e.choices, [](const std::string& text) { return Json::parse(text); });
        }
        vary.push_back(x);
    }
    o["vary"] = vary;
    optional_text(o, "prompt", v.prompt);
    o["parts"] = json_array(v.parts, [](const VariationPart& p) { return Json{{"label", p.label}, {"at", p.at}}; });
    o["answer"] = v.answer;
    o["tolerance"] = value_j(v.tolerance);
    Json c = Json::object();
    if (v.max_denominator > 0) c["max_denominator"] = v.max_denominator;
    if (v.unique_maximum) c["unique_maximum"] = true;
    if (v.distinct_parts) c["distinct_parts"] = true;
    if (v.distinct_answers) c["distinct_answers"] = true;
    if (v.scores_in_domain) c["scores_in_domain"] = true;
    if (!v.mistakes.empty()) c["mistakes_differ"] = list_j(v.mistakes);
    o["constraints"] = c;
    if (v.seed) o["seed"] = std::to_string(*v.seed);
    return o;
}

// {"decimal_places": 6}, {"absolute": "1/1000"}: the loader's form (AsWritten is no key at all).
Json tolerance_j(const Tolerance& t) {
    switch (t.kind) {
        case Tolerance::Kind::Absolute:
            return {{"absolute", t.amount.get_str()}};
        case Tolerance::Kind::Relative:
            return {{"relative", t.amount.get_str()}};
        case Tolerance::Kind::DecimalPlaces:
            return {{"decimal_places", t.digits}};
        case Tolerance::Kind::SignificantFigures:
            return {{"significant_figures", t.digits}};
        case Tolerance::Kind::AsWritten:
            break;
    }
    return Json();
}

void rules_j(Json& o, const std::optional<Tolerance>& t, const std::vector<std::string>& accept) {
    if (t && t->kind != Tolerance::Kind::AsWritten) o["tolerance"] = tolerance_j(*t);
    if (!accept.empty()) o["accept"] = list_j(accept);
}

Json decoder_j(const Decoder& d) {
    Json o;
    o["activation"] = name_of(activation_names(), d.activation);
    o["recurrent"] = matrix_j(d.recurrent);
    o["input"] = matrix_j(d.input);
    o["context"] = matrix_j(d.context);
    o["bias"] = vector_j(d.bias);
    o["initial"] = d.initial ? vector_j(*d.initial) : Json("encoder");
    o["query"] = d.query ? matrix_j(*d.query) : Json("state");
    o["output"] = matrix_j(d.output);
    o["output_reads"] = d.output_context ? "state-and-context" : "state";
    if (d.output_bias) o["output_bias"] = vector_j(*d.output_bias);
    o["vocabulary"] = vocabulary_j(d.vocabulary);
    o["start"] = d.start;
    if (d.end) o["end"] = *d.end;
    o["ties"] = name_of(tie_rule_names(), d.ties);
    return o;
}

Json rollout_j(const RolloutSpec& r) {
    Json o;
    o["source"] = r.source;
    if (!r.reference.empty()) o["reference"] = list_j(r.reference);
    if (r.steps > 0) o["steps"] = r.steps;  // 0: the reference's length
    if (r.cross_entropy) o["cross_entropy"] = true;
    if (r.digits != 6) o["digits"] = r.digits;
    optional_text(o, "note", r.note);
    optional_text(o, "number", r.number);
    optional_text(o, "caption", r.caption);
    return o;
}

Json figure_j(const FigureSpec& f) {
    Json o;
    o["kind"] = figure_kind_name(f.kind);
    switch (f.kind) {
        case FigureKind::ReadComparison:
            o["reads"] = list_j(f.reads);
            break;
        case FigureKind::Dependency:
            o["read"] = f.reads.front();
            o["cost"] = f.cost;
            break;
        case FigureKind::Heatmap:
            if (!f.rollout.empty()) {
                o["rollout"] = f.rollout;
                if (f.regime != Regime::Generation) o["regime"] = regime_name(f.regime);
                break;
            }
            o["layer"] = f.layer;
            if (f.head > 0) o["head"] = f.head;
            break;
        case FigureKind::Intervention:
            o["intervention"] = f.intervention;
            break;
        case FigureKind::Crosscheck:
            o["read"] = f.reads.front();
            break;
    }
    optional_text(o, "number", f.number);
    optional_text(o, "caption", f.caption);
    optional_text(o, "pdf", f.pdf);
    return o;
}

Json exercise_j(const Exercise& e) {
    Json o;
    o["id"] = e.id;
    optional_text(o, "title", e.title);
    o["prompt"] = e.prompt;
    if (!e.reads.empty()) o["reads"] = list_j(e.reads);
    if (!e.interventions.empty()) o["interventions"] = list_j(e.interventions);
    if (!e.costs.empty()) o["costs"] = list_j(e.costs);
    if (!e.learner_answers.empty()) o["learner_answers"] = list_j(e.learner_answers);
    if (!e.rollouts.empty()) o["rollouts"] = list_j(e.rollouts);
    if (!e.layers.empty()) o["layers"] = list_j(e.layers);
    optional_text(o, "explanation", e.explanation);
    rules_j(o, e.tolerance, e.accept);
    if (e.variation) o["variation"] = variation_j(*e.variation);
    return o;
}

Json source_j(const Source& src) {
    Json x;
    if (src.tokens) {
        x["tokens"] = list_j(*src.tokens);
    } else {
        x["memory"] = matrix_j(src.states.matrix());
    }
    if (!src.labels.empty()) x["labels"] = list_j(src.labels);
    return x;
}

// The read site that reads and interventions share: source, query and readout.
template <class Spec>
void site_j(Json& x, const Spec& r) {
    x["source"] = r.source;
    x["query"] = ref_j(r.query);
    if (r.readout) x["readout"] = ref_j(*r.readout);
}

// The book's table number, caption and note of a read or an intervention.
template <class Spec>
void table_text_j(Json& x, const Spec& r) {
    optional_text(x, "number", r.number);
    optional_text(x, "caption", r.caption);
    optional_text(x, "note", r.note);
}

Json read_j(const ReadSpec& r) {
    Json x;
    site_j(x, r);
    if (!r.remove.empty()) x["remove"] = list_j(r.remove);
    if (!r.zero.empty()) x["zero"] = list_j(r.zero);
    table_text_j(x, r);
    return x;
}

Json intervention_j(const InterventionSpec& is) {
    Json x;
    x["kind"] = intervention_name(is.kind);
    site_j(x, is);
    x["positions"] = list_j(is.positions);
    table_text_j(x, is);
    return x;
}

Json cost_j(const CostSpec& c) {
    Json x;
    if (!c.source.empty()) x["source"] = c.source;
    x["positions"] = c.input.positions;
    x["width"] = c.input.width;
    x["target_steps"] = c.input.target_steps;
    x["bytes_per_number"] = c.input.bytes_per_number;
    return x;
}

Json sequence_j(const SequenceSpec& q) {
    Json x;
    if (!q.tokens.empty()) x["tokens"] = list_j(q.tokens);
    x["rows"] = matrix_j(q.rows);
    return x;
}

Json learner_answer_j(const LearnerAnswer& la) {
    Json x;
    x["target"] = la.target;
    // Each entry as the learner wrote it (a decimal keeps its places, e stays e).
    // A refused tie's place in a token list is null.
    const auto entry = [&](std::size_t i) {
        return la.entries[i].form == AnswerEntry::Form::NoToken ? Json(nullptr) : Json(la.entries[i].text);
    };
    if (la.scalar) {
        x["proposed"] = entry(0);
    } else if (la.columns > 0) {
        Json m = Json::array();
        for (std::size_t i = 0; i < la.entries.size(); i += la.columns) {
            Json row = Json::array();
            for (std::size_t c = 0; c < la.columns; ++c) row.push_back(entry(i + c));
            m.push_back(row);
        }
        x["proposed"] = m;
    } else {
        Json a = Json::array();
        for (std::size_t i = 0; i < la.entries.size(); ++i) a.push_back(entry(i));
        x["proposed"] = a;
    }
    rules_j(x, la.tolerance, la.accept);
    optional_text(x, "note", la.note);
    return x;
}

// A section of named declarations, {name: f(declaration)} in declaration order, when any.
template <class List, class F>
void named_section(Json& root, const char* key, const List& list, F&& f) {
    if (list.empty()) return;
    Json o = Json::object();
    for (const auto& x : list) o[x.name] = f(x);
    root[key] = o;
}

}  // namespace

std::string write_scenario(const Scenario& s) {
    Json root;
    optional_text(root, "title", s.title);
    if (!s.assumptions.empty()) root["assumptions"] = list_j(s.assumptions);
    if (!s.vocabulary.empty()) root["vocabulary"] = vocabulary_j(s.vocabulary);
    if (s.encoder) {
        const Encoder& e = *s.encoder;
        root["encoder"] = {{"activation", name_of(activation_names(), e.activation)},
                           {"recurrent", matrix_j(e.recurrent)},
                           {"input", matrix_j(e.input)},
                           {"bias", vector_j(e.bias)},
                           {"initial", vector_j(e.initial)}};
    }
    root["score"] = name_of(score_rule_names(), s.rule);
    named_section(root, "sources", s.sources, source_j);
    named_section(root, "queries", s.queries, [](const NamedVector& nv) { return vector_j(nv.values); });
    named_section(root, "readouts", s.readouts, [](const NamedVector& nv) { return vector_j(nv.values); });
    named_section(root, "reads", s.reads, read_j);
    named_section(root, "interventions", s.interventions, intervention_j);
    named_section(root, "costs", s.costs, cost_j);
    named_section(root, "sequences", s.sequences, sequence_j);
    named_section(root, "matrices", s.matrices, [](const NamedMatrix& m) { return matrix_j(m.values); });
    named_section(root, "layers", s.layers, layer_j);
    if (s.decoder) root["decoder"] = decoder_j(*s.decoder);
    named_section(root, "rollouts", s.rollouts, rollout_j);
    named_section(root, "figures", s.figures, figure_j);
    named_section(root, "learner_answers", s.learner_answers, learner_answer_j);
    if (!s.exercises.empty()) root["exercises"] = json_array(s.exercises, exercise_j);
    if (s.crosscheck.tolerance_ulps || !s.crosscheck.rationale.empty()) {
        Json c = Json::object();
        if (s.crosscheck.tolerance_ulps) {
            // The double's exact rational value, which the loader rounds back to the same double.
            c["tolerance_ulps"] = value_j(Value(mpq_class(*s.crosscheck.tolerance_ulps)));
        }
        optional_text(c, "rationale", s.crosscheck.rationale);
        root["crosscheck"] = c;
    }
    if (!s.expect.empty()) {
        Json o = Json::object();
        for (const auto& [pointer, text] : s.expect) o[pointer] = Json::parse(text);
        root["expect"] = o;
    }
    return root.dump(2) + "\n";
}

}  // namespace exactattn
