// SPDX-License-Identifier: MIT
// exactattn: `check` — exact judgement of learner answers and diagnosis of known mistakes.
#include "exactattn/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "exactattn/answer_entry.hpp"
#include "exactattn/error.hpp"
#include "exactattn/linalg.hpp"
#include "exactattn/print.hpp"
#include "scenario/json.hpp"
#include "tools/check_tokens.hpp"
#include "tools/mistakes.hpp"
#include "report/report_json.hpp"
#include "report/targets.hpp"

namespace exactattn {

namespace {

using detail::Flat;
using detail::flatten;
using detail::Json;

std::vector<std::string> pointer_tokens(const std::string& pointer) {
    return detail::pointer_parts(pointer).value();  // already validated by the resolver
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

}  // namespace

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

// A wrong way of computing the read: its weights over some rows (entries outside the exact
// domain, e^k, are enclosed reals), and its exponentials and denominator when it changes them.
struct Alternative {
    std::vector<Real> weights;
    Matrix rows;
    std::optional<std::vector<Real>> exponentials;  ///< included positions only
    std::optional<Real> denominator;
};

std::vector<Real> reals(const std::vector<Value>& v) {
    std::vector<Real> out;
    out.reserve(v.size());
    for (const auto& x : v) out.push_back(Real::of(x));
    return out;
}

Real dot(const std::vector<Real>& w, const Matrix& rows, std::size_t i) {
    Real c = Real::of(Value());
    for (std::size_t j = 0; j < rows.size() && j < w.size(); ++j) c = c + w[j] * Real::of(rows[j][i]);
    return c;
}

std::optional<std::vector<Real>> alternative_quantity(const Alternative& a, const Situation& s) {
    const std::size_t d = s.request.query.size();
    if (s.quantity == "weights") return a.weights;
    if (s.quantity == "exponentials") return a.exponentials;
    if (s.quantity == "denominator") {
        if (!a.denominator) return std::nullopt;
        return std::vector<Real>{*a.denominator};
    }
    if (s.quantity == "scores") return std::nullopt;
    std::vector<Real> context;
    for (std::size_t i = 0; i < d; ++i) context.push_back(dot(a.weights, a.rows, i));
    if (s.quantity == "context") return context;
    if (s.quantity == "readout") {
        Real r = Real::of(Value());
        for (std::size_t i = 0; i < d && i < s.readout->size(); ++i) r = r + Real::of((*s.readout)[i]) * context[i];
        return std::vector<Real>{r};
    }
    return std::nullopt;
}

std::string position_list(const std::vector<std::size_t>& ps) {
    std::string out;
    for (std::size_t i = 0; i < ps.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == ps.size() ? " and " : ", ") + std::to_string(ps[i] + 1);
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Chapter 15 mistakes on a layer's quantities: the layer recomputed the wrong way, as a document
// of the same form as /layers/<name> (a row the wrong way cannot compute is null), then the
// target's part of it compared with the proposal.

// A query's row masked by `masked`, scored by `rule` (and `scale`).
using MaskFn = std::function<bool(std::size_t, std::size_t)>;

Json optional_json(const std::optional<Value>& v) { return v ? Json(to_ascii(*v)) : Json(nullptr); }

// Per head: scores, denominators, weights and outputs, each row computed or null.
struct AltHead {
    Json scores = Json::array();
    Json denominators = Json::array();
    Json weights = Json::array();
    Json outputs = Json::array();
    Matrix out_rows;
    bool complete = true;
};

void push_row(AltHead& a, const ReadTrace& r) {
    Json s = Json::array();
    Json w = Json::array();
    for (std::size_t j = 0; j < r.marks.size(); ++j) {
        s.push_back(optional_json(r.scores.at(j)));
        w.push_back(to_ascii(r.weights.at(j).value_or(Value())));
    }
    a.scores.push_back(s);
    a.weights.push_back(w);
    a.denominators.push_back(to_ascii(r.denominator));
    a.outputs.push_back(detail::vector_json(r.context));
    a.out_rows.push_back(r.context);
}

// The layer recomputed with another rule or mask (rows through the one read), or with the
// softmax taken down each column (over the queries) instead of along each row.
Json alternative_layer(const Json& right, const LayerResult& lr, ScoreRule rule, const Value& scale,
                       const MaskFn& masked, bool column_softmax) {
    const LayerTrace& t = lr.trace;
    Json doc = right;
    std::vector<AltHead> heads(t.heads.size());
    for (std::size_t h = 0; h < t.heads.size(); ++h) {
        const HeadTrace& ht = t.heads[h];
        AltHead& a = heads[h];
        const std::size_t nq = ht.rows.size();
        const std::size_t nk = ht.keys.rows();
        if (column_softmax) {
            std::vector<Value> col(nk);
            for (const auto& r : ht.rows) {
                for (std::size_t j = 0; j < nk; ++j) col[j] += r.exponentials.at(j).value_or(Value());
            }
            const Matrix v = ht.values.matrix();
            for (std::size_t i = 0; i < nq; ++i) {
                Json w = Json::array();
                Vector out(v.empty() ? 0 : v[0].size());
                for (std::size_t j = 0; j < nk; ++j) {
                    const Value e = ht.rows[i].exponentials.at(j).value_or(Value());
                    const Value wij = e.is_zero() ? Value() : e / col[j];
                    w.push_back(to_ascii(wij));
                    for (std::size_t c = 0; c < out.size(); ++c) out[c] += wij * v[j][c];
                }
                a.scores.push_back(right["heads"][h]["scores"][i]);
                a.denominators.push_back(nullptr);
                a.weights.push_back(w);
                a.outputs.push_back(detail::vector_json(out));
                a.out_rows.push_back(out);
            }
        } else {
            for (std::size_t i = 0; i < nq; ++i) {
                ReadRequest req;
                req.query = ht.queries.row(i);
                req.rule = rule;
                req.scale = scale;
                req.marks.resize(nk);
                for (std::size_t j = 0; j < nk; ++j) req.marks[j] = masked(i, j) ? Mark::Removed : Mark::Included;
                try {
                    push_row(a, attend(ht.keys, ht.values, req));
                } catch (const Error&) {  // this wrong way leaves the row undefined (all masked, no exact exponential)
                    a.scores.push_back(nullptr);
                    a.denominators.push_back(nullptr);
                    a.weights.push_back(nullptr);
                    a.outputs.push_back(nullptr);
                    a.complete = false;
                }
            }
        }
        Json& o = doc["heads"][h];
        o["scores"] = a.scores;
        o["denominators"] = a.denominators;
        o["weights"] = a.weights;
        o["outputs"] = a.outputs;
    }
    const bool complete = std::all_of(heads.begin(), heads.end(), [](const AltHead& a) { return a.complete; });
    doc["concat"] = nullptr;
    doc["output"] = nullptr;
    if (complete) {
        Matrix concat = heads[0].out_rows;
        for (std::size_t h = 1; h < heads.size(); ++h) concat = hconcat(concat, heads[h].out_rows);
        Matrix out = concat;
        if (lr.spec.layer.wo) out = mat_mul(concat, *lr.spec.layer.wo);
        if (lr.spec.layer.residual) out = mat_add(out, t.input);
        doc["concat"] = detail::matrix_json(concat);
        doc["output"] = detail::matrix_json(out);
    }
    return doc;
}

// The part of an alternative document at `sub`, flattened as flatten() does; none when it is
// missing or holds a row the wrong way cannot compute.
std::optional<Flat> alternative_part(const Json& doc, const std::string& sub, const Location& where) {
    const Json::json_pointer p(sub);
    if (!doc.contains(p)) return std::nullopt;
    const Json& part = doc.at(p);
    if (part.is_null()) return std::nullopt;
    if (part.is_array()) {
        for (const auto& x : part) {
            if (x.is_null() && !part.empty() &&
                std::any_of(part.begin(), part.end(), [](const Json& y) { return y.is_array(); })) {
                return std::nullopt;
            }
        }
    }
    try {
        return flatten(part, where, sub);
    } catch (const Error&) {
        return std::nullopt;
    }
}

// The rows of the proposed weights (a matrix, or one row) that do not sum to 1.
void layer_weight_findings(const LearnerAnswer& answer, const std::vector<std::string>& tokens, Judgement& j) {
    if (tokens.size() < 5 || tokens[4] != "weights" || tokens.size() > 6 || answer.scalar) return;
    const std::size_t cols = answer.columns > 0 ? answer.columns : answer.proposed.size();
    if (cols == 0) return;
    for (std::size_t r = 0; r * cols < answer.proposed.size(); ++r) {
        Value sum;
        for (std::size_t c = 0; c < cols && r * cols + c < answer.proposed.size(); ++c)
            sum += answer.proposed[r * cols + c];
        if (sum != Value(1)) {
            j.findings.push_back(
                answer.columns > 0
                    ? fmt::format("row {} of the proposed weights sums to {}, not 1", r + 1, to_unicode(sum))
                    : fmt::format("the proposed weights sum to {}, not 1", to_unicode(sum)));
            return;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The registry of known mistakes: each a named recomputation of the target quantity from the
// exact trace (a read's, an intervention row's or a layer's), compared with the answer under
// the same rule as the right value. A new mistake is a new entry, not a new code path.

// What the mistakes are recomputed from.
struct Ctx {
    const Report& rep;
    const Json& doc;
    const Flat& exact;
    std::optional<Situation> s;     // the target is a read's or an intervention row's quantity
    std::vector<std::size_t> incl;  // … and these of its positions are not removed
    std::vector<std::size_t> removed;
    const LayerResult* layer = nullptr;  // the target is a layer's quantity
    std::string layer_sub;               // … at this pointer below /layers/<name>
    Location where;
};

// The target computed the wrong way, flattened as the report's quantity (nullopt: no entry).
struct Wrong {
    std::string explain;
    std::vector<std::optional<Real>> values;
};

struct Mistake {
    const char* id;
    bool acceptable;  // accepted as right when the answer's exercise allows it ("accept": [id])
    std::function<std::optional<Wrong>(const Ctx&)> recompute;
};

// A read mistake's quantity at the target: the whole quantity, or the one element named.
std::optional<Wrong> read_wrong(const Ctx& c, std::string explain, const Alternative& a) {
    const auto q = alternative_quantity(a, *c.s);
    if (!q) return std::nullopt;
    std::vector<std::optional<Real>> values;
    if (c.s->quantity == "exponentials") {  // one per included position, none for a removed one
        std::size_t k = 0;
        for (std::size_t p = 0; p < c.s->trace->marks.size(); ++p) {
            values.push_back(c.s->trace->marks[p] == Mark::Removed || k >= q->size() ? std::nullopt
                                                                                     : std::optional<Real>((*q)[k++]));
        }
    } else {
        values.assign(q->begin(), q->end());
    }
    if (c.s->element) {
        if (*c.s->element >= values.size()) return std::nullopt;
        values = {values[*c.s->element]};
    }
    return Wrong{std::move(explain), std::move(values)};
}

// The rational k of each included score k·a (0 for a zero score); with `allow_rational`, a
// rational score r counts as k = r. None when a score is of another form (2^(1/2)·a, a²).
std::optional<std::vector<mpq_class>> score_multiples(const ReadTrace& t, const std::vector<std::size_t>& incl,
                                                      bool allow_rational) {
    std::vector<mpq_class> k(t.marks.size());
    for (auto p : incl) {
        const Value sc = *t.scores.at(p);
        if (sc.is_zero()) continue;
        if (sc.is_rational() && allow_rational)
            k[p] = sc.rational();
        else if (!sc.as_rational_multiple_of_a(k[p]))
            return std::nullopt;
    }
    return k;
}

std::optional<Wrong> layer_wrong(const Ctx& c, std::string explain, const Json& alt_doc) {
    const auto alt = alternative_part(alt_doc, c.layer_sub, c.where);
    if (!alt || alt->columns != c.exact.columns || alt->scalar != c.exact.scalar) return std::nullopt;
    std::vector<std::optional<Real>> values;
    for (const auto& v : alt->values) values.push_back(v ? std::optional<Real>(Real::of(*v)) : std::nullopt);
    return Wrong{std::move(explain), std::move(values)};
}

Json layer_alternative(const Ctx& c, ScoreRule rule, const Value& scale, const MaskFn& masked, bool column_softmax) {
    const Json& right = c.doc.at(Json::json_pointer(detail::pointer_join("/layers", c.layer->spec.name)));
    return alternative_layer(right, *c.layer, rule, scale, masked, column_softmax);
}

// The layer's mask without its causal part (the explicit mask and the padding), and whole.
MaskFn layer_other_mask(const LayerResult& lr) {
    const AttentionLayer& layer = lr.spec.layer;
    const std::size_t nk = lr.trace.masked.empty() ? 0 : lr.trace.masked[0].size();
    auto padded = std::make_shared<std::vector<bool>>(nk, false);
    for (auto p : layer.padding) padded->at(p - 1) = true;
    return [padded, &layer](std::size_t i, std::size_t k) {
        return (*padded)[k] || (!layer.mask.empty() && layer.mask[i][k]);
    };
}
MaskFn layer_same_mask(const LayerResult& lr) {
    return [&lr](std::size_t i, std::size_t k) { return static_cast<bool>(lr.trace.masked[i][k]); };
}

// What the mistakes at `target` are recomputed from: its read or intervention row (and which of
// its positions are removed), or its layer.
Ctx context_at(const Report& rep, const Json& doc, const Flat& exact, const std::string& target,
               const Location& where) {
    Ctx c{rep, doc, exact, std::nullopt, {}, {}, nullptr, {}, where};
    const auto tokens = pointer_tokens(target);
    if (tokens.size() >= 3 && tokens[0] == "layers") {
        for (const auto& l : rep.layers) c.layer = l.spec.name == tokens[1] ? &l : c.layer;
        if (c.layer != nullptr) c.layer_sub = target.substr(detail::pointer_join("/layers", c.layer->spec.name).size());
    } else {
        c.s = locate(rep, target);
        if (c.s) {
            for (std::size_t p = 0; p < c.s->trace->marks.size(); ++p) {
                (c.s->trace->marks[p] == Mark::Removed ? c.removed : c.incl).push_back(p);
            }
        }
    }
    return c;
}

// The target's read on its own memory with weight w(p) at each included position p and 0 at
// the others: the alternative of every mistake that only changes the weights.
template <class W>
Alternative reweighted(const Ctx& c, W&& w) {
    Alternative a{std::vector<Real>(c.s->trace->marks.size(), Real::of(Value())), c.s->memory.matrix(), {}, {}};
    for (auto p : c.incl) a.weights[p] = Real::of(w(p));
    return a;
}

const std::vector<Mistake>& registry() {
    static const std::vector<Mistake> table = {
        {"divide-by-count", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             if (!c.s) return std::nullopt;
             const auto& t = *c.s->trace;
             const auto count = static_cast<long>(c.incl.size());
             Alternative a = reweighted(c, [&](std::size_t p) { return *t.exponentials.at(p) / Value(count); });
             a.denominator = Real::of(Value(count));
             return read_wrong(c,
                               fmt::format("divided by the number of positions ({}) instead of the sum of the "
                                           "exponentials ({})",
                                           count, to_unicode(t.denominator)),
                               a);
         }},
        {"forget-exp", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             if (!c.s) return std::nullopt;
             const auto& t = *c.s->trace;
             const auto k = score_multiples(t, c.incl, true);
             if (!k) return std::nullopt;
             mpq_class total = 0;
             for (auto p : c.incl) total += (*k)[p];
             if (sgn(total) == 0) return std::nullopt;
             const Alternative a = reweighted(c, [&](std::size_t p) { return Value(mpq_class((*k)[p] / total)); });
             return read_wrong(c, "the scores were normalized directly, without exponentiating them", a);
         }},
        {"e-instead-of-2", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             // exp(k·a) = 2^k, since a = ln 2; a learner who reads the score k·a as k computes e^k.
             if (!c.s) return std::nullopt;
             const auto& t = *c.s->trace;
             const auto k = score_multiples(t, c.incl, false);
             if (!k || std::all_of(c.incl.begin(), c.incl.end(), [&](std::size_t p) { return sgn((*k)[p]) == 0; })) {
                 return std::nullopt;
             }
             Alternative a{std::vector<Real>(t.marks.size(), Real::of(Value())), c.s->memory.matrix(),
                           std::vector<Real>{}, Real::of(Value())};
             for (auto p : c.incl) {
                 a.exponentials->push_back(e_power((*k)[p]));
                 *a.denominator = *a.denominator + a.exponentials->back();
             }
             for (std::size_t i = 0; i < c.incl.size(); ++i)
                 a.weights[c.incl[i]] = (*a.exponentials)[i] / *a.denominator;
             return read_wrong(c,
                               "e^k was used instead of 2^k: a score k·a has exponential e^(k·a) = 2^k because "
                               "a = ln 2, not e^k",
                               a);
         }},
        {"equal-weights", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             if (!c.s) return std::nullopt;
             const Value equal(mpq_class(1, static_cast<long>(c.incl.size())));
             const Alternative a = reweighted(c, [&](std::size_t) { return equal; });
             return read_wrong(c, "equal weights were used instead of the softmax of the scores", a);
         }},
        {"unnormalized-exponentials", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             if (!c.s) return std::nullopt;
             const Alternative a = reweighted(c, [&](std::size_t p) { return *c.s->trace->exponentials.at(p); });
             return read_wrong(c, "the exponentials were used as weights without dividing by their sum", a);
         }},
        {"forget-renormalize", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             // After a removal the remaining exponentials are divided by their own sum; this
             // mistake keeps the full read's weights and only sets the removed ones to 0.
             if (!c.s || c.removed.empty()) return std::nullopt;
             ReadRequest full = c.s->request;
             for (auto& m : full.marks) m = m == Mark::Removed ? Mark::Included : m;
             const ReadTrace f = attend(c.s->memory, full);
             Alternative a = reweighted(c, [&](std::size_t p) { return *f.exponentials.at(p) / f.denominator; });
             a.denominator = Real::of(f.denominator);
             return read_wrong(c,
                               fmt::format("the weights were not renormalized after removing position{} {}: they "
                                           "still divide by the full sum {} instead of {}",
                                           c.removed.size() == 1 ? "" : "s", position_list(c.removed),
                                           to_unicode(f.denominator), to_unicode(c.s->trace->denominator)),
                               a);
         }},
        {"remaining-weights", true,
         [](const Ctx& c) -> std::optional<Wrong> {
             // The chapter lists a removal's weights for the remaining positions only.
             if (!c.s || c.removed.empty() || c.s->quantity != "weights" || c.s->element) return std::nullopt;
             Wrong w{fmt::format("only the weights of the remaining positions ({}) were listed; position{} {} "
                                 "{} weight 0",
                                 position_list(c.incl), c.removed.size() == 1 ? "" : "s", position_list(c.removed),
                                 c.removed.size() == 1 ? "has" : "have"),
                     {}};
             for (auto p : c.incl) w.values.emplace_back(Real::of(*c.s->trace->weights.at(p)));
             return w;
         }},
        {"zero-score-for-removal", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             // zero-score where the position should be removed, and the reverse.
             if (!c.s) return std::nullopt;
             const auto& marks = c.s->trace->marks;
             const bool has_removed =
                 std::any_of(marks.begin(), marks.end(), [](Mark m) { return m == Mark::Removed; });
             const bool has_zeroed = std::any_of(marks.begin(), marks.end(), [](Mark m) { return m == Mark::Zeroed; });
             if (!has_removed && !has_zeroed) return std::nullopt;
             ReadRequest swapped = c.s->request;
             for (auto& m : swapped.marks) {
                 if (m == Mark::Removed)
                     m = Mark::Zeroed;
                 else if (m == Mark::Zeroed)
                     m = Mark::Removed;
             }
             const ReadTrace alt = attend(c.s->memory, swapped);
             Alternative a{reals(quantity_of(alt, "weights")), c.s->memory.matrix(), {}, Real::of(alt.denominator)};
             return read_wrong(c,
                               has_removed ? "the position's score was set to zero (zero-score) instead of removing "
                                             "the position (remove-state); a zero score still contributes exponential 1"
                                           : "the position was removed (remove-state) instead of setting its score to "
                                             "zero (zero-score)",
                               a);
         }},
        {"delete-without-reencoding", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             // A token deletion computed on the frozen memory, without running the encoder again.
             if (!c.s || c.s->kind != InterventionKind::DeleteToken || c.s->position == 0) return std::nullopt;
             ReadRequest frozen = c.s->request;
             frozen.marks.assign(c.s->source->states.rows(), Mark::Included);
             frozen.marks[c.s->position - 1] = Mark::Removed;
             const ReadTrace alt = attend(c.s->source->states, frozen);
             Alternative a{{}, {}, {}, {}};
             const Matrix src_rows = c.s->source->states.matrix();
             for (std::size_t p = 0; p < src_rows.size(); ++p) {
                 if (p + 1 == c.s->position) continue;
                 a.weights.push_back(Real::of(alt.weights.at(p).value_or(Value())));
                 a.rows.push_back(src_rows[p]);
             }
             return read_wrong(c,
                               "the token's stored state was removed from the frozen memory without running the "
                               "encoder again; deleting an input token changes the later states",
                               a);
         }},
        {"embeddings-instead-of-states", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             if (!c.s || c.s->source == nullptr || !c.s->source->tokens || c.s->kind == InterventionKind::DeleteToken) {
                 return std::nullopt;
             }
             Alternative a{reals(quantity_of(*c.s->trace, "weights")), {}, {}, {}};
             for (const auto& tok : *c.s->source->tokens) a.rows.push_back(c.rep.scenario.embedding(tok));
             if (a.rows.size() != a.weights.size() || a.rows.empty() || a.rows[0].size() != c.s->request.query.size()) {
                 return std::nullopt;
             }
             return read_wrong(
                 c, "the weights were applied to the input embeddings instead of the stored encoder states", a);
         }},
        {"drop-a", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             // The factor a = ln 2 left out: every value Σ F_k a^k read as Σ F_k.
             // Without an a it gives the right answer (which check then cannot name, and which
             // fails a variant's mistakes_differ).
             Wrong w{"the factor a (= ln 2) was dropped from the answer", {}};
             for (const auto& v : c.exact.values) {
                 if (!v) {
                     w.values.emplace_back(std::nullopt);
                     continue;
                 }
                 Value dropped;
                 for (const auto& term : v->terms()) dropped += Value(term);
                 w.values.emplace_back(Real::of(dropped));
             }
             return w;
         }},
        {"forget-scale", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             if (c.layer == nullptr) return std::nullopt;
             const AttentionLayer& layer = c.layer->spec.layer;
             if (layer.rule != ScoreRule::ScaledDot && layer.rule != ScoreRule::Scaled) return std::nullopt;
             const std::size_t d_k = c.layer->trace.heads.empty() ? 0 : c.layer->trace.heads[0].keys.width();
             return layer_wrong(
                 c,
                 layer.rule == ScoreRule::ScaledDot
                     ? fmt::format("the scores were not divided by √d_k = √{} (the scale 1/√d_k was "
                                   "left out)",
                                   d_k)
                     : fmt::format("the declared scale {} was not applied to the scores", to_unicode(layer.scale)),
                 layer_alternative(c, ScoreRule::Dot, Value(1), layer_same_mask(*c.layer), false));
         }},
        {"no-causal-mask", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             if (c.layer == nullptr || !c.layer->spec.layer.causal) return std::nullopt;
             const AttentionLayer& layer = c.layer->spec.layer;
             return layer_wrong(c,
                                "attended to the future: without the causal mask, query i also sees the keys after i",
                                layer_alternative(c, layer.rule, layer.scale, layer_other_mask(*c.layer), false));
         }},
        {"mask-off-by-one-late", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             if (c.layer == nullptr || !c.layer->spec.layer.causal) return std::nullopt;
             const AttentionLayer& layer = c.layer->spec.layer;
             const MaskFn other = layer_other_mask(*c.layer);
             return layer_wrong(c, "the causal mask is off by one: query i was also given key i + 1",
                                layer_alternative(
                                    c, layer.rule, layer.scale,
                                    [other](std::size_t i, std::size_t k) { return other(i, k) || k > i + 1; }, false));
         }},
        {"mask-off-by-one-early", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             if (c.layer == nullptr || !c.layer->spec.layer.causal) return std::nullopt;
             const AttentionLayer& layer = c.layer->spec.layer;
             const MaskFn other = layer_other_mask(*c.layer);
             return layer_wrong(c, "the causal mask is off by one: query i was not given its own key i",
                                layer_alternative(
                                    c, layer.rule, layer.scale,
                                    [other](std::size_t i, std::size_t k) { return other(i, k) || k >= i; }, false));
         }},
        {"wrong-axis", false,
         [](const Ctx& c) -> std::optional<Wrong> {
             if (c.layer == nullptr) return std::nullopt;
             const AttentionLayer& layer = c.layer->spec.layer;
             return layer_wrong(c,
                                "normalised over the wrong axis: each key's column (over the queries) was made to sum "
                                "to 1 instead of each query's row (over the keys)",
                                layer_alternative(c, layer.rule, layer.scale, layer_same_mask(*c.layer), true));
         }},
    };
    return table;
}

// Whether the answer's entries match `q`: entry by entry over the whole quantity or, where it
// has no entry for some positions, over the entries it has. `lenient`: an expression in e that
// enclosures cannot tell from the value counts as a match (diagnosis of the e^k mistake).
struct Match {
    bool ok = false;
    bool undecided = false;
    std::vector<std::string> rules;
};

Match match_entries(const std::vector<AnswerEntry>& entries, const std::vector<std::optional<Real>>& q,
                    const Tolerance& tol, bool lenient) {
    Match m;
    std::vector<const Real*> present;
    for (const auto& v : q) {
        if (v) present.push_back(&*v);
    }
    if (entries.size() != present.size()) return m;
    m.ok = true;
    for (std::size_t i = 0; i < entries.size() && m.ok; ++i) {
        const EntryVerdict v = judge_entry(entries[i], *present[i], tol);
        if (std::find(m.rules.begin(), m.rules.end(), v.rule) == m.rules.end()) m.rules.push_back(v.rule);
        m.undecided = m.undecided || !v.decided;
        m.ok = v.match || (lenient && !v.decided);
    }
    return m;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
    return out;
}

// A token proposed for a quantity (a LearnerAnswer built by a caller, not read for this
// target): wrong, and said so, rather than judged as a number it does not have.
bool token_answer_to_value(const LearnerAnswer& answer, Judgement& j) {
    const auto token = std::find_if(answer.entries.begin(), answer.entries.end(),
                                    [](const AnswerEntry& e) { return e.form == AnswerEntry::Form::Token; });
    if (token == answer.entries.end()) return false;
    j.rule = "exact value";
    j.findings.push_back(fmt::format("{} is a token, but {} holds a value", token_text(token->text), answer.target));
    j.feedback = fmt::format("Wrong: {} holds a value, not a token.", answer.target);
    return true;
}

Judgement judge_at(const Report& rep, const detail::Json& doc, const LearnerAnswer& given) {
    // A caller that gives only values (the Python binding's numbers) proposes exact forms.
    LearnerAnswer filled;
    if (given.entries.size() != given.proposed.size()) {
        filled = given;
        filled.entries.clear();
        for (const auto& v : given.proposed)
            filled.entries.push_back(AnswerEntry{to_ascii(v), AnswerEntry::Form::Exact, Real::of(v)});
    }
    const LearnerAnswer& answer = given.entries.size() != given.proposed.size() ? filled : given;
    Judgement j;
    j.name = answer.name;
    j.target = answer.target;
    j.proposed = answer.proposed;
    j.entries = answer.entries;
    j.scalar = answer.scalar;
    Location where;
    where.file = rep.scenario.file;
    where.pointer = "/learner_answers/" + answer.name + "/target";
    if (names_tokens(answer.target)) return detail::judge_tokens(rep, doc, answer, where);
    const Flat exact = flatten(detail::resolve_pointer(doc, answer.target, where), where, answer.target);
    j.exact = exact.values;
    j.columns = exact.columns;
    if (token_answer_to_value(answer, j)) return j;
    const Tolerance tol = answer.tolerance.value_or(Tolerance{});
    std::vector<std::optional<Real>> right;
    std::vector<std::size_t> present_at;
    for (std::size_t i = 0; i < exact.values.size(); ++i) {
        right.push_back(exact.values[i] ? std::optional<Real>(Real::of(*exact.values[i])) : std::nullopt);
        if (exact.values[i]) present_at.push_back(i);
    }
    const bool gaps = present_at.size() != exact.values.size();
    const bool shape_ok = answer.columns == exact.columns && answer.scalar == exact.scalar;
    const bool all_exact = std::all_of(answer.entries.begin(), answer.entries.end(),
                                       [](const AnswerEntry& e) { return e.form == AnswerEntry::Form::Exact; });
    std::vector<std::size_t> missing;
    for (std::size_t i = 0; i < exact.values.size(); ++i) {
        if (!exact.values[i]) missing.push_back(i);
    }
    if (shape_ok) {
        const Match m = match_entries(answer.entries, right, tol, false);
        j.rule = join(m.rules, "; ");
        if (m.ok) {
            j.correct = true;
            if (gaps) {
                j.findings.push_back(
                    fmt::format("listed for the included positions {}; position{} {} {} removed and "
                                "{} none",
                                position_list(present_at), missing.size() == 1 ? "" : "s", position_list(missing),
                                missing.size() == 1 ? "was" : "were", missing.size() == 1 ? "has" : "have"));
            }
            j.feedback = fmt::format("Right ({}).", j.rule);
            return j;
        }
        if (m.undecided) {
            j.findings.push_back(
                "an expression in e, outside the exact domain, that enclosures to 4096 bits cannot "
                "tell from the exact value: judged not equal");
        }
    }
    const std::size_t shape_findings = j.findings.size();  // an accepted listing drops its shape finding
    if (answer.columns != exact.columns) {
        j.findings.push_back(exact.columns > 0 ? fmt::format("the answer is a matrix with {} columns", exact.columns)
                                               : std::string("the answer is not a matrix"));
    } else if (answer.entries.size() != exact.values.size() && answer.entries.size() != present_at.size()) {
        j.findings.push_back(fmt::format("{} values proposed where the answer has {}", answer.entries.size(),
                                         gaps ? present_at.size() : exact.values.size()));
    } else if (gaps && answer.entries.size() == exact.values.size()) {
        j.findings.push_back(fmt::format(
            "position{} {} {} removed, so {} no entry here", missing.size() == 1 ? "" : "s", position_list(missing),
            missing.size() == 1 ? "was" : "were", missing.size() == 1 ? "it has" : "they have"));
    }
    const Ctx c = context_at(rep, doc, exact, answer.target, where);
    const auto tokens = pointer_tokens(answer.target);
    if (c.layer != nullptr && tokens[2] == "heads" && all_exact) layer_weight_findings(answer, tokens, j);
    if (c.s && all_exact && c.s->quantity == "weights" && !c.s->element) {
        const std::size_t n = c.s->trace->marks.size();
        if (answer.proposed.size() == n || answer.proposed.size() == c.incl.size()) {
            Value sum;
            for (const auto& w : answer.proposed) sum += w;
            if (sum != Value(1)) {
                j.findings.push_back(fmt::format(
                    "the proposed weights sum to {}, not 1, so they are not a distribution", to_unicode(sum)));
            }
            if (answer.proposed.size() == n) {
                for (auto p : c.incl) {
                    if (c.s->trace->marks[p] == Mark::Included && c.s->trace->scores.at(p)->is_zero() &&
                        answer.proposed[p].is_zero()) {
                        j.findings.push_back(
                            fmt::format("position {} has score 0 but was given weight 0; exp(0) = 1, "
                                        "so it keeps a share of the total",
                                        p + 1));
                        break;
                    }
                }
            }
        }
    }
    for (const Mistake& mistake : registry()) {
        const auto wrong = mistake.recompute(c);
        if (!wrong || wrong->values.empty()) continue;
        // A recomputation that gives the right values cannot be told from the right method.
        bool same = wrong->values.size() == right.size();
        for (std::size_t i = 0; same && i < right.size(); ++i) {
            same = wrong->values[i].has_value() == right[i].has_value() &&
                   (!right[i] || (wrong->values[i]->exact && *wrong->values[i]->exact == *right[i]->exact));
        }
        if (same) continue;
        const bool scalar_wanted = exact.scalar;
        if (scalar_wanted != answer.scalar || answer.columns != exact.columns) continue;
        const Match m = match_entries(answer.entries, wrong->values, tol, true);
        if (!m.ok) continue;
        // A weights answer may list a wrong way's weights for the remaining positions only.
        j.mistake = wrong->explain;
        j.mistake_id = mistake.id;
        if (mistake.acceptable &&
            std::find(answer.accept.begin(), answer.accept.end(), mistake.id) != answer.accept.end()) {
            j.correct = true;
            j.rule = join(m.rules, "; ");
            j.findings.resize(std::min(j.findings.size(), shape_findings));
            j.findings.push_back(fmt::format("accepted: {} (the exercise allows {})", wrong->explain, mistake.id));
            j.feedback = fmt::format("Right ({}); note: {}.", j.rule, wrong->explain);
            return j;
        }
        j.feedback = fmt::format("Wrong: {}.", wrong->explain);
        return j;
    }
    // Also the remaining positions of a wrong way's weights (the chapter's listing of a removal).
    if (c.s && c.s->quantity == "weights" && !c.s->element && !c.removed.empty() &&
        answer.entries.size() == c.incl.size()) {
        for (const Mistake& mistake : registry()) {
            if (mistake.acceptable) continue;
            const auto wrong = mistake.recompute(c);
            if (!wrong || wrong->values.size() != c.s->trace->marks.size()) continue;
            std::vector<std::optional<Real>> listed;
            for (auto p : c.incl) listed.push_back(wrong->values[p]);
            if (!match_entries(answer.entries, listed, tol, true).ok) continue;
            j.mistake = wrong->explain;
            j.mistake_id = mistake.id;
            j.feedback = fmt::format("Wrong: {}.", wrong->explain);
            return j;
        }
    }
    // No known mistake: say how far the answer is, entry by entry.
    if (shape_ok && answer.entries.size() == present_at.size()) {
        // The largest distance, compared by 96-bit enclosures' midpoints (exact rationals; the
        // distance is feedback, and two entries this close print alike anyway).
        std::optional<Real> largest;
        mpq_class largest_mid;
        std::size_t at = 0;
        for (std::size_t i = 0; i < answer.entries.size(); ++i) {
            Real d = distance(answer.entries[i], *right[present_at[i]]);
            const RationalInterval r = d.at(96);
            const mpq_class mid = (r.lo + r.hi) / 2;
            if (!largest || mid > largest_mid) {
                largest = std::move(d);
                largest_mid = mid;
                at = i;
            }
        }
        const std::string far = distance_text(*largest);
        j.distance = far;
        j.feedback = answer.entries.size() == 1
                         ? fmt::format("Wrong: no known mistake reproduces it; it is {} from the exact value.", far)
                         : fmt::format(
                               "Wrong: no known mistake reproduces it; it is up to {} from the exact value "
                               "(entry {}).",
                               far, at + 1);
    } else {
        j.feedback = "Wrong: no known mistake reproduces it; " +
                     (j.findings.empty() ? std::string("its shape differs from the answer's") : j.findings.back()) +
                     ".";
    }
    return j;
}

}  // namespace

std::vector<std::string> mistake_ids() {
    std::vector<std::string> out;
    for (const auto& m : registry()) out.emplace_back(m.id);
    return out;
}

std::vector<std::string> wrong_method_ids() {
    std::vector<std::string> out;
    for (const auto& m : registry()) {
        if (!m.acceptable) out.emplace_back(m.id);
    }
    return out;
}

namespace detail {

MistakenAnswers mistaken_answers(const Report& rep, const Json& doc, const std::string& target,
                                 const std::vector<std::string>& ids, const Location& where) {
    const Flat exact = flatten(resolve_pointer(doc, target, where), where, target);
    const Ctx c = context_at(rep, doc, exact, target, where);
    MistakenAnswers out;
    out.right = exact.values;
    for (const Mistake& m : registry()) {
        if (std::find(ids.begin(), ids.end(), m.id) == ids.end()) continue;
        auto wrong = m.recompute(c);
        if (wrong && !wrong->values.empty()) out.by_id.emplace_back(m.id, std::move(wrong->values));
    }
    return out;
}

}  // namespace detail

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

namespace {

// An ad-hoc target takes `tolerance` and `accept` from the first exercise (in file order) that
// lists it: its read, its intervention, or that intervention's row.
void inherit_exercise_rules(const Scenario& sc, LearnerAnswer& la) {
    auto under = [&la](const std::string& prefix) {
        return la.target.size() > prefix.size() && la.target.compare(0, prefix.size(), prefix) == 0 &&
               la.target[prefix.size()] == '/';
    };
    for (const auto& e : sc.exercises) {
        bool lists = false;
        for (const auto& r : e.reads) lists = lists || under(detail::pointer_join("/reads", r));
        for (const auto& i : e.interventions) {
            const auto slash = i.find('/');
            std::string prefix = detail::pointer_join("/interventions", i.substr(0, slash));
            if (slash != std::string::npos) prefix += i.substr(slash);
            lists = lists || under(prefix);
        }
        if (!lists) continue;
        if (!la.tolerance) la.tolerance = e.tolerance;
        if (la.accept.empty()) la.accept = e.accept;
        return;
    }
}

}  // namespace

std::vector<LearnerAnswer> select_answers(const Scenario& sc, const CheckRequest& req) {
    std::vector<LearnerAnswer> answers;
    if (req.ad_hoc) {
        answers.push_back(*req.ad_hoc);
        inherit_exercise_rules(sc, answers.back());
    } else {
        for (const auto& la : sc.learner_answers) {
            if (req.answer.empty() || la.name == req.answer) answers.push_back(la);
        }
        if (!req.answer.empty() && answers.empty()) {
            Location where;
            where.context = req.answer_place;
            throw reference_error(fmt::format("unknown learner answer \"{}\"", req.answer), where);
        }
        if (answers.empty()) throw reference_error("the scenario declares no learner_answers to check");
    }
    for (auto& la : answers) {
        if (req.tolerance) la.tolerance = req.tolerance;
        if (!req.accept.empty()) la.accept = req.accept;
    }
    return answers;
}

std::vector<Judgement> check_request(const Report& rep, const CheckRequest& req) {
    const auto answers = select_answers(rep.scenario, req);
    try {
        return judge_all(rep, answers);
    } catch (const Error& e) {
        if (!req.ad_hoc) throw;
        Location where;  // an ad-hoc target is placed at the option that gave it, not in the file
        where.context = req.target_place;
        throw Error(e.kind(), where, e.reason());
    }
}

std::string quantity_text(const std::vector<std::optional<Value>>& values, std::size_t columns, bool scalar,
                          Notation n) {
    auto one = [n](const std::optional<Value>& v) { return v ? to_string(*v, n) : std::string("—"); };
    if (scalar && values.size() == 1) return one(values[0]);
    std::string out = "[";
    const std::size_t per = columns == 0 ? values.size() + 1 : columns;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (columns > 0 && i % per == 0)
            out += i == 0 ? "[" : "], [";
        else if (i > 0)
            out += ", ";
        out += one(values[i]);
    }
    if (columns > 0 && !values.empty()) out += "]";
    return out + "]";
}

std::string proposed_text(const Judgement& j, Notation n) {
    // Decimals, percentages and expressions in e as the learner wrote them (0.259921, not
    // 259921/1000000); exact forms in the notation; tokens as an answer writes them.
    if (j.tokens) return detail::tokens_text(detail::proposed_tokens(j.entries), j.scalar);
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < j.proposed.size(); ++i) {
        const bool written = i < j.entries.size() && j.entries[i].form != AnswerEntry::Form::Exact;
        cells.push_back(written ? j.entries[i].text : to_string(j.proposed[i], n));
    }
    if (j.scalar && cells.size() == 1) return cells[0];
    std::string out = "[";
    const std::size_t per = j.columns == 0 ? cells.size() + 1 : j.columns;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (j.columns > 0 && i % per == 0)
            out += i == 0 ? "[" : "], [";
        else if (i > 0)
            out += ", ";
        out += cells[i];
    }
    if (j.columns > 0 && !cells.empty()) out += "]";
    return out + "]";
}

std::string exact_text(const Judgement& j, Notation n) {
    if (j.tokens) return detail::tokens_text(j.exact_tokens, j.exact_tokens.size() == 1 && j.scalar);
    return quantity_text(j.exact, j.columns, j.scalar, n);
}

std::string judgement_text(const Judgement& j) {
    std::string out = fmt::format("{}: {}: {}: proposed {}", j.name, j.correct ? "right" : "wrong", j.target,
                                  proposed_text(j, Notation::Unicode));
    if (!j.correct) out += fmt::format(", exact {}", exact_text(j, Notation::Unicode));
    if (!j.rule.empty() && j.rule != "exact value") out += "; rule: " + j.rule;  // JSON always names it
    for (const auto& f : j.findings) out += "; " + f;
    if (!j.correct && !j.mistake.empty()) out += "; mistake: " + j.mistake;
    if (!j.correct && j.mistake.empty()) {
        out += "; no known mistake reproduces it";
        if (!j.distance.empty()) out += fmt::format(" (it is {} from the exact value)", j.distance);
    }
    return out + ".";
}

std::string check_json(const std::vector<Judgement>& judgements) {
    detail::Json all = detail::Json::array();
    std::size_t right = 0;
    for (const auto& j : judgements) {
        detail::Json proposed = detail::Json::array();
        for (std::size_t i = 0; i < j.proposed.size(); ++i) {
            const bool written = i < j.entries.size() && j.entries[i].form != AnswerEntry::Form::Exact;
            proposed.push_back(written ? j.entries[i].text : to_ascii(j.proposed[i]));
        }
        if (j.tokens) {
            for (const auto& t : detail::proposed_tokens(j.entries)) {
                proposed.push_back(t ? detail::Json(*t) : detail::Json(nullptr));
            }
        }
        auto or_null = [](const std::string& s) { return s.empty() ? detail::Json(nullptr) : detail::Json(s); };
        detail::Json exact = detail::Json::array();
        for (const auto& v : j.exact) exact.push_back(v ? detail::Json(to_ascii(*v)) : detail::Json(nullptr));
        for (const auto& tok : j.exact_tokens) exact.push_back(tok ? detail::Json(*tok) : detail::Json(nullptr));
        all.push_back({{"name", j.name},
                       {"target", j.target},
                       {"correct", j.correct},
                       {"proposed", proposed},
                       {"exact", exact},
                       {"columns", j.columns},
                       {"scalar", j.scalar},
                       {"rule", or_null(j.rule)},
                       {"findings", j.findings},
                       {"mistake", or_null(j.mistake)},
                       {"mistake_id", or_null(j.mistake_id)},
                       {"feedback", j.feedback},
                       {"distance", or_null(j.distance)},
                       {"tokens", j.tokens}});
        right += j.correct ? 1 : 0;
    }
    detail::Json doc;
    doc["judgements"] = all;
    doc["right"] = right;
    doc["wrong"] = judgements.size() - right;
    return doc.dump(2) + "\n";
}

namespace {

// Splits `text` at the commas outside brackets and parentheses.
std::vector<std::string_view> split_top(std::string_view text) {
    std::vector<std::string_view> out;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '(' || c == '[')
            ++depth;
        else if (c == ')' || c == ']')
            --depth;
        else if (c == ',' && depth == 0) {
            out.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    out.push_back(text.substr(start));
    return out;
}

std::string_view strip(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

// The inside of [ … ] when `s` is one bracketed list, else nullopt.
std::optional<std::string_view> bracketed(std::string_view s) {
    s = strip(s);
    if (s.size() < 2 || s.front() != '[' || s.back() != ']') return std::nullopt;
    int depth = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        depth += s[i] == '[' ? 1 : s[i] == ']' ? -1 : 0;
        if (depth == 0 && i + 1 < s.size()) return std::nullopt;  // [a], [b]: not one list
    }
    return s.substr(1, s.size() - 2);
}

void add_entry(std::string_view text, std::size_t offset, LearnerAnswer& la) {
    try {
        la.entries.push_back(parse_answer_entry(text));
    } catch (const Error& e) {
        Location where = e.where();
        if (where.column > 0)
            where.column += static_cast<int>(offset);
        else
            where.column = static_cast<int>(offset) + 1;
        // A word such as `blue` proposed for a quantity: say that the target holds values.
        const std::string_view word = strip(text);
        const bool wordlike = !word.empty() && std::none_of(word.begin(), word.end(), [](char c) {
            return (c >= '0' && c <= '9') || std::string_view("+-*/^()[],.% ").find(c) != std::string_view::npos;
        });
        if (e.kind() == ErrorKind::Parse && wordlike && !la.target.empty()) {
            throw Error(e.kind(), where, fmt::format("{}; {} holds values, not tokens", e.reason(), la.target));
        }
        throw Error(e.kind(), where, e.reason());
    }
    const auto& v = la.entries.back().value;
    la.proposed.push_back(v.exact ? *v.exact : Value());
}

}  // namespace

void read_proposal(std::string_view text, LearnerAnswer& la) {
    if (names_tokens(la.target)) {
        detail::read_token_proposal(text, la);
        return;
    }
    la.entries.clear();
    la.proposed.clear();
    la.columns = 0;
    la.scalar = false;
    auto offset_of = [&](std::string_view part) { return static_cast<std::size_t>(part.data() - text.data()); };
    const auto inner = bracketed(text);
    if (!inner) {
        add_entry(text, 0, la);
        la.scalar = true;
        return;
    }
    if (strip(*inner).empty()) throw parse_error(Location{}, "an empty list proposes nothing");
    const auto items = split_top(*inner);
    const bool matrix = bracketed(items.front()).has_value();
    for (std::size_t r = 0; r < items.size(); ++r) {
        const auto row = bracketed(items[r]);
        if (row.has_value() != matrix) {
            Location where;
            where.column = static_cast<int>(offset_of(items[r])) + 1;
            throw parse_error(where, "mixes rows ([…]) and single values");
        }
        if (!matrix) {
            add_entry(items[r], offset_of(items[r]), la);
            continue;
        }
        const auto cells = split_top(*row);
        if (r == 0) la.columns = cells.size();
        if (cells.size() != la.columns) {
            Location where;
            where.column = static_cast<int>(offset_of(items[r])) + 1;
            throw shape_error(fmt::format("row {} has {} entries, row 1 has {}", r + 1, cells.size(), la.columns),
                              where);
        }
        for (const auto& cell : cells) add_entry(cell, offset_of(cell), la);
    }
}

std::vector<ClassAnswer> read_class_answers(std::string_view csv, const std::string& file) {
    // Spreadsheet programs start a UTF-8 CSV with a byte order mark; it is not part of the first
    // column's name.
    if (csv.substr(0, 3) == "\xEF\xBB\xBF") csv.remove_prefix(3);
    // Names and answers are copied into every report: text that is not UTF-8 (a file saved as
    // Latin-1) is refused at its line and column, as in a scenario file.
    detail::check_file_utf8(csv, file);
    // RFC 4180: records end in CRLF (LF accepted), fields may be quoted with "", a quote inside
    // a quoted field is doubled, and a quoted field may hold commas and line breaks.
    std::vector<std::vector<std::string>> records;
    std::vector<int> lines;
    std::vector<std::string> record;
    std::string field;
    int line = 1;
    int record_line = 1;
    std::size_t i = 0;
    auto fail = [&](const std::string& why) {
        Location where;
        where.file = file;
        where.line = line;
        return parse_error(where, why);
    };
    bool any = false;
    while (i < csv.size()) {
        const char c = csv[i];
        if (c == '"' && field.empty()) {
            ++i;
            const int opened = line;
            for (;;) {
                if (i >= csv.size()) {
                    line = opened;
                    throw fail("a quoted field is not closed");
                }
                if (csv[i] == '"') {
                    if (i + 1 < csv.size() && csv[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                if (csv[i] == '\n') ++line;
                field += csv[i++];
            }
            if (i < csv.size() && csv[i] != ',' && csv[i] != '\n' && csv[i] != '\r') {
                throw fail("text after a quoted field's closing quote");
            }
            any = true;
            continue;
        }
        if (c == ',') {
            record.push_back(std::move(field));
            field.clear();
            any = true;
            ++i;
            continue;
        }
        if (c == '\r' || c == '\n') {
            if (c == '\r' && i + 1 < csv.size() && csv[i + 1] == '\n') ++i;
            ++i;
            if (any || !field.empty()) {
                record.push_back(std::move(field));
                records.push_back(std::move(record));
                lines.push_back(record_line);
            }
            record.clear();
            field.clear();
            any = false;
            record_line = ++line;
            continue;
        }
        if (c == '"') throw fail("a quote inside an unquoted field (quote the whole field and double the quote)");
        field += c;
        any = true;
        ++i;
    }
    if (any || !field.empty()) {
        record.push_back(std::move(field));
        records.push_back(std::move(record));
        lines.push_back(record_line);
    }
    if (records.empty()) {
        line = 1;
        throw fail("no header: the first record must name the columns student, target and answer");
    }
    const auto& header = records.front();
    auto column = [&](const char* name) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end()) {
            line = 1;
            throw fail(fmt::format("the header has no column \"{}\" (it needs student, target and answer)", name));
        }
        return static_cast<std::size_t>(it - header.begin());
    };
    const std::size_t cs = column("student");
    const std::size_t ct = column("target");
    const std::size_t ca = column("answer");
    std::vector<ClassAnswer> out;
    for (std::size_t r = 1; r < records.size(); ++r) {
        if (records[r].size() != header.size()) {
            line = lines[r];
            throw fail(fmt::format("{} fields where the header has {}", records[r].size(), header.size()));
        }
        out.push_back(ClassAnswer{records[r][cs], records[r][ct], records[r][ca], lines[r]});
    }
    return out;
}

std::vector<ClassAnswer> load_class_answers(const std::string& path) {
    return read_class_answers(detail::read_file(path), path);
}

}  // namespace exactattn
