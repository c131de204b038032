// SPDX-License-Identifier: MIT
// exactattn: `check` — exact judgement of learner answers and diagnosis of known mistakes.
#include "exactattn/check.hpp"

#include <fmt/format.h>

#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "json_io.hpp"
#include "report_json.hpp"

namespace exactattn {

namespace {

using detail::Json;

std::vector<std::string> pointer_tokens(const std::string& pointer) {
    std::vector<std::string> out;
    const Json::json_pointer ptr(pointer);  // already validated by the resolver
    Json::json_pointer p = ptr;
    while (!p.empty()) {
        out.insert(out.begin(), p.back());
        p.pop_back();
    }
    return out;
}

// What the target quantity was computed from, when it is a quantity of a read or of an
// intervention row (the quantities whose known mistakes can be recomputed).
struct Situation {
    const Source* source = nullptr;
    Memory memory;
    const ReadTrace* trace = nullptr;
    std::optional<Vector> readout;
    ReadRequest request;
    std::optional<InterventionKind> kind;
    std::size_t position = 0;  // intervention row's position (0: none)
    std::string quantity;
    std::optional<std::size_t> element;  // a single element of the quantity (0-based)
};

std::optional<Situation> locate(const Report& rep, const std::string& target) {
    const auto t = pointer_tokens(target);
    Situation s;
    const Scenario& sc = rep.scenario;
    std::size_t q = 0;  // index of the quantity token
    if (t.size() >= 3 && t[0] == "reads") {
        const ReadResult* rr = nullptr;
        for (const auto& r : rep.reads) rr = r.spec.name == t[1] ? &r : rr;
        if (rr == nullptr) return std::nullopt;
        s.source = &sc.source(rr->spec.source);
        s.memory = s.source->states;
        s.trace = &rr->trace;
        if (rr->spec.readout) s.readout = rr->spec.readout->values;
        s.request.query = rr->spec.query.values;
        s.request.marks = rr->trace.marks;
        q = 2;
    } else if (t.size() >= 5 && t[0] == "interventions" && t[2] == "rows") {
        const InterventionResult* ir = nullptr;
        for (const auto& r : rep.interventions) ir = r.spec.name == t[1] ? &r : ir;
        if (ir == nullptr) return std::nullopt;
        const std::size_t k = std::stoul(t[3]);  // resolved: a valid row index
        const auto& row = ir->rows.at(k);
        s.source = &sc.source(ir->spec.source);
        s.memory = row.states;
        s.trace = &row.trace;
        if (ir->spec.readout) s.readout = ir->spec.readout->values;
        s.request.query = ir->spec.query.values;
        s.request.marks = row.trace.marks;
        s.kind = ir->spec.kind;
        s.position = row.position;
        q = 4;
    } else {
        return std::nullopt;
    }
    s.request.readout = s.readout;
    s.request.rule = sc.rule;
    s.quantity = t[q];
    static const char* known[] = {"scores", "exponentials", "denominator", "weights", "context", "readout"};
    bool ok = false;
    for (const char* k : known) ok = ok || s.quantity == k;
    if (!ok || t.size() > q + 2) return std::nullopt;
    if (t.size() == q + 2) s.element = std::stoul(t[q + 1]);
    return s;
}

// The report's value at a target, flattened; the place names the learner answer.
struct Flat {
    std::vector<std::optional<Value>> values;
    std::size_t columns = 0;
    bool scalar = false;
};

Flat flatten(const Json& j, const Location& where, const std::string& target) {
    // Text entries of the report (names, tokens, kinds) are not quantities to answer.
    static const char* text_keys[] = {"title", "assumptions", "meaning", "source", "kind", "tokens", "deleted",
                                      "labels", "query_name", "readout_name"};
    for (const auto& t : pointer_tokens(target)) {
        for (const char* k : text_keys) {
            if (t == k) {
                throw reference_error(fmt::format("{} names text (\"{}\"), not a quantity to answer", target, k),
                                      where);
            }
        }
    }
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

}  // namespace

namespace detail {

void check_answer_target(const Json& doc, const Scenario& s, const LearnerAnswer& la, const Location& where) {
    (void)s;
    flatten(resolve_pointer(doc, la.target, where), where, la.target);
}

}  // namespace detail

namespace {

std::vector<Value> included_only(const Column& c) {
    std::vector<Value> out;
    for (std::size_t j = 0; j < c.size(); ++j) {
        if (auto v = c.at(j)) out.push_back(*v);
    }
    return out;
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

// A wrong way of computing the read: its weights over some rows.
struct Alternative {
    std::string mistake;
    Vector weights;
    Matrix rows;
};

Vector combine(const Vector& w, const Matrix& rows, std::size_t d) {
    Vector c(d);
    for (std::size_t j = 0; j < rows.size() && j < w.size(); ++j) {
        for (std::size_t i = 0; i < d; ++i) c[i] += w[j] * rows[j][i];
    }
    return c;
}

std::optional<std::vector<Value>> alternative_quantity(const Alternative& a, const Situation& s) {
    const std::size_t d = s.request.query.size();
    if (s.quantity == "weights") return a.weights;
    if (s.quantity == "context") return combine(a.weights, a.rows, d);
    if (s.quantity == "readout") return std::vector<Value>{apply_readout(*s.readout, combine(a.weights, a.rows, d))};
    return std::nullopt;
}



std::string position_list(const std::vector<std::size_t>& ps) {
    std::string out;
    for (std::size_t i = 0; i < ps.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == ps.size() ? " and " : ", ") + std::to_string(ps[i] + 1);
    }
    return out;
}

// Whether `proposed` equals `full` (one entry per position), or lists exactly the entries of
// `full` at the included positions `incl` (the way the chapter lists a removal's weights).
bool same_quantity(const std::vector<Value>& proposed, const std::vector<Value>& full,
                   const std::vector<std::size_t>& incl) {
    if (proposed == full) return true;
    if (proposed.size() != incl.size() || incl.size() == full.size()) return false;
    for (std::size_t i = 0; i < incl.size(); ++i) {
        if (proposed[i] != full[incl[i]]) return false;
    }
    return true;
}

Judgement judge_at(const Report& rep, const detail::Json& doc, const LearnerAnswer& answer) {
    Judgement j;
    j.name = answer.name;
    j.target = answer.target;
    j.proposed = answer.proposed;
    j.scalar = answer.scalar;
    Location where;
    where.file = rep.scenario.file;
    where.pointer = "/learner_answers/" + answer.name + "/target";
    const Flat exact = flatten(detail::resolve_pointer(doc, answer.target, where), where, answer.target);
    j.exact = exact.values;
    j.columns = exact.columns;
    // The entries the report has (a removed position has no score and no exponential).
    std::vector<Value> present;
    std::vector<std::size_t> present_at;
    for (std::size_t i = 0; i < exact.values.size(); ++i) {
        if (exact.values[i]) {
            present.push_back(*exact.values[i]);
            present_at.push_back(i);
        }
    }
    const bool gaps = present.size() != exact.values.size();
    const bool shape_ok = answer.columns == exact.columns && answer.scalar == exact.scalar;
    if (shape_ok && !gaps && j.proposed == present) {
        j.correct = true;
        return j;
    }
    if (shape_ok && gaps && j.proposed == present) {
        j.correct = true;
        std::vector<std::size_t> missing;
        for (std::size_t i = 0; i < exact.values.size(); ++i) {
            if (!exact.values[i]) missing.push_back(i);
        }
        j.findings.push_back(fmt::format("listed for the included positions {}; position{} {} {} removed and "
                                         "{} none",
                                         position_list(present_at), missing.size() == 1 ? "" : "s",
                                         position_list(missing), missing.size() == 1 ? "was" : "were",
                                         missing.size() == 1 ? "has" : "have"));
        return j;
    }
    if (answer.columns != exact.columns) {
        j.findings.push_back(exact.columns > 0
                                 ? fmt::format("the answer is a matrix with {} columns", exact.columns)
                                 : std::string("the answer is not a matrix"));
    } else if (j.proposed.size() != exact.values.size() && j.proposed.size() != present.size()) {
        j.findings.push_back(fmt::format("{} values proposed where the answer has {}", j.proposed.size(),
                                         gaps ? present.size() : exact.values.size()));
    } else if (gaps && j.proposed.size() == exact.values.size()) {
        std::vector<std::size_t> missing;
        for (std::size_t i = 0; i < exact.values.size(); ++i) {
            if (!exact.values[i]) missing.push_back(i);
        }
        j.findings.push_back(fmt::format("position{} {} {} removed, so {} no entry here",
                                         missing.size() == 1 ? "" : "s", position_list(missing),
                                         missing.size() == 1 ? "was" : "were", missing.size() == 1 ? "it has" : "they have"));
    }
    const auto located = locate(rep, answer.target);
    if (!located) return j;
    const Situation& s = *located;
    const ReadTrace& t = *s.trace;
    const Matrix rows = s.memory.matrix();
    const std::size_t n = rows.size();
    std::vector<std::size_t> incl;
    for (std::size_t p = 0; p < n; ++p) {
        if (t.marks[p] != Mark::Removed) incl.push_back(p);
    }
    if (s.quantity == "weights" && !s.element && (j.proposed.size() == n || j.proposed.size() == incl.size())) {
        Value sum;
        for (const auto& w : j.proposed) sum += w;
        if (sum != Value(1)) {
            j.findings.push_back(fmt::format("the proposed weights sum to {}, not 1, so they are not a distribution",
                                             to_unicode(sum)));
        }
        if (j.proposed.size() == n) {
            for (auto p : incl) {
                if (t.marks[p] == Mark::Included && t.scores.at(p)->is_zero() && j.proposed[p].is_zero()) {
                    j.findings.push_back(fmt::format("position {} has score 0 but was given weight 0; exp(0) = 1, "
                                                     "so it keeps a share of the total",
                                                     p + 1));
                    break;
                }
            }
        }
    }
    // Recompute the known wrong ways and compare exactly.
    std::vector<Alternative> alts;
    const auto count = static_cast<long>(incl.size());
    {
        Alternative a{fmt::format("divided by the number of positions ({}) instead of the sum of the exponentials ({})",
                                  count, to_unicode(t.denominator)),
                      Vector(n), rows};
        for (auto p : incl) a.weights[p] = *t.exponentials.at(p) / Value(count);
        alts.push_back(a);
    }
    {
        Alternative a{"the scores were normalized directly, without exponentiating them", Vector(n), rows};
        // Scores are rational multiples of a (or rational): divide their coefficients.
        mpq_class total = 0;
        bool multiples = true;
        std::vector<mpq_class> k(n);
        for (auto p : incl) {
            const Value sc = *t.scores.at(p);
            if (sc.is_rational()) k[p] = sc.rational();
            else multiples = multiples && sc.as_rational_multiple_of_a(k[p]);
            total += k[p];
        }
        if (multiples && sgn(total) != 0) {
            for (auto p : incl) a.weights[p] = Value(mpq_class(k[p] / total));
            alts.push_back(a);
        }
    }
    {
        Alternative a{"equal weights were used instead of the softmax of the scores", Vector(n), rows};
        for (auto p : incl) a.weights[p] = Value(mpq_class(1, count));
        alts.push_back(a);
    }
    {
        Alternative a{"the exponentials were used as weights without dividing by their sum", Vector(n), rows};
        for (auto p : incl) a.weights[p] = *t.exponentials.at(p);
        alts.push_back(a);
    }
    // zero-score where the position should be removed, and the reverse.
    const bool has_removed = std::any_of(t.marks.begin(), t.marks.end(), [](Mark m) { return m == Mark::Removed; });
    const bool has_zeroed = std::any_of(t.marks.begin(), t.marks.end(), [](Mark m) { return m == Mark::Zeroed; });
    if (has_removed || has_zeroed) {
        ReadRequest swapped = s.request;
        for (auto& m : swapped.marks) {
            if (m == Mark::Removed) m = Mark::Zeroed;
            else if (m == Mark::Zeroed) m = Mark::Removed;
        }
        const ReadTrace alt = attend(s.memory, swapped);
        Alternative a{has_removed ? "the position's score was set to zero (zero-score) instead of removing the "
                                    "position (remove-state); a zero score still contributes exponential 1"
                                  : "the position was removed (remove-state) instead of setting its score to zero "
                                    "(zero-score)",
                      quantity_of(alt, "weights"), rows};
        alts.push_back(a);
    }
    // A token deletion computed on the frozen memory, without running the encoder again.
    if (s.kind == InterventionKind::DeleteToken && s.position > 0) {
        ReadRequest frozen = s.request;
        frozen.marks.assign(s.source->states.rows(), Mark::Included);
        frozen.marks[s.position - 1] = Mark::Removed;
        const ReadTrace alt = attend(s.source->states, frozen);
        Alternative a{"the token's stored state was removed from the frozen memory without running the encoder "
                      "again; deleting an input token changes the later states",
                      {}, {}};
        const Matrix src_rows = s.source->states.matrix();
        for (std::size_t p = 0; p < src_rows.size(); ++p) {
            if (p + 1 == s.position) continue;
            a.weights.push_back(alt.weights.at(p).value_or(Value()));
            a.rows.push_back(src_rows[p]);
        }
        alts.push_back(a);
    }
    // The right weights applied to the input embeddings instead of the stored states.
    if (s.source != nullptr && s.source->tokens && s.kind != InterventionKind::DeleteToken) {
        Alternative a{"the weights were applied to the input embeddings instead of the stored encoder states",
                      quantity_of(t, "weights"), {}};
        for (const auto& tok : *s.source->tokens) a.rows.push_back(rep.scenario.embedding(tok));
        if (a.rows.size() == n && !a.rows.empty() && a.rows[0].size() == s.request.query.size()) alts.push_back(a);
    }
    const std::vector<Value> right = quantity_of(t, s.quantity);
    for (const auto& a : alts) {
        auto q = alternative_quantity(a, s);
        if (!q || *q == right) continue;
        if (s.element) {
            if (*s.element >= q->size() || !j.scalar || j.proposed.size() != 1 || (*q)[*s.element] != j.proposed[0] ||
                (*q)[*s.element] == right.at(*s.element)) {
                continue;
            }
        } else if (!same_quantity(j.proposed, *q, s.quantity == "weights" ? incl : std::vector<std::size_t>{})) {
            continue;
        }
        j.mistake = a.mistake;
        break;
    }
    return j;
}

}  // namespace

Judgement judge(const Report& rep, const LearnerAnswer& answer) {
    return judge_at(rep, detail::report_to_json(rep), answer);
}

std::vector<Judgement> judge_all(const Report& rep, const std::vector<LearnerAnswer>& answers) {
    const detail::Json doc = detail::report_to_json(rep);
    std::vector<Judgement> out;
    out.reserve(answers.size());
    for (const auto& a : answers) out.push_back(judge_at(rep, doc, a));
    return out;
}

std::string quantity_text(const std::vector<std::optional<Value>>& values, std::size_t columns, bool scalar,
                          Notation n) {
    auto one = [n](const std::optional<Value>& v) { return v ? to_string(*v, n) : std::string("—"); };
    if (scalar && values.size() == 1) return one(values[0]);
    std::string out = "[";
    const std::size_t per = columns == 0 ? values.size() + 1 : columns;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (columns > 0 && i % per == 0) out += i == 0 ? "[" : "], [";
        else if (i > 0) out += ", ";
        out += one(values[i]);
    }
    if (columns > 0 && !values.empty()) out += "]";
    return out + "]";
}

std::string proposed_text(const Judgement& j, Notation n) {
    return quantity_text(std::vector<std::optional<Value>>(j.proposed.begin(), j.proposed.end()), j.columns, j.scalar,
                         n);
}

std::string exact_text(const Judgement& j, Notation n) { return quantity_text(j.exact, j.columns, j.scalar, n); }

std::string judgement_text(const Judgement& j) {
    std::string out = fmt::format("{}: {}: {}: proposed {}", j.name, j.correct ? "right" : "wrong", j.target,
                                  proposed_text(j, Notation::Unicode));
    if (!j.correct) out += fmt::format(", exact {}", exact_text(j, Notation::Unicode));
    for (const auto& f : j.findings) out += "; " + f;
    if (!j.correct) out += j.mistake.empty() ? "; no known mistake reproduces it" : "; mistake: " + j.mistake;
    return out + ".";
}

std::string check_json(const std::vector<Judgement>& judgements) {
    detail::Json all = detail::Json::array();
    std::size_t right = 0;
    for (const auto& j : judgements) {
        detail::Json proposed = detail::Json::array();
        for (const auto& v : j.proposed) proposed.push_back(to_ascii(v));
        detail::Json exact = detail::Json::array();
        for (const auto& v : j.exact) exact.push_back(v ? detail::Json(to_ascii(*v)) : detail::Json(nullptr));
        all.push_back({{"name", j.name},
                       {"target", j.target},
                       {"correct", j.correct},
                       {"proposed", proposed},
                       {"exact", exact},
                       {"columns", j.columns},
                       {"scalar", j.scalar},
                       {"findings", j.findings},
                       {"mistake", j.mistake.empty() ? detail::Json(nullptr) : detail::Json(j.mistake)}});
        right += j.correct ? 1 : 0;
    }
    detail::Json doc;
    doc["judgements"] = all;
    doc["right"] = right;
    doc["wrong"] = judgements.size() - right;
    return doc.dump(2) + "\n";
}

}  // namespace exactattn
