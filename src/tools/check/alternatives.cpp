// SPDX-License-Identifier: MIT
// exactattn: `check` — a read or a layer computed the wrong way, for the known mistakes.
#include "tools/check/alternatives.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "exactattn/linalg.hpp"
#include "exactattn/print.hpp"
#include "report/report_json.hpp"

namespace exactattn::detail {

std::vector<Real> reals(const std::vector<Value>& v) {
    std::vector<Real> out;
    out.reserve(v.size());
    for (const auto& x : v) out.push_back(Real::of(x));
    return out;
}

namespace {

Real dot(const std::vector<Real>& w, const Matrix& rows, std::size_t i) {
    Real c = Real::of(Value());
    for (std::size_t j = 0; j < rows.size() && j < w.size(); ++j) c = c + w[j] * Real::of(rows[j][i]);
    return c;
}

}  // namespace

std::optional<std::vector<Real>> alternative_quantity(const Alternative& a, const Situation& s) {
    // The context has the width of what the weights combine: a layer's values (d_v), which need
    // not be the query's width (d_k).
    const std::size_t d = a.rows.empty() ? s.request.query.size() : a.rows[0].size();
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

// ---------------------------------------------------------------------------------------------
// Chapter 15 mistakes on a layer's quantities: the layer recomputed the wrong way, as a document
// of the same form as /layers/<name> (a row the wrong way cannot compute is null), then the
// target's part of it compared with the proposal.

namespace {

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
    a.outputs.push_back(vector_json(r.context));
    a.out_rows.push_back(r.context);
}

// A head with the softmax taken down each key's column (over the queries); its scores are the
// right ones (`right_scores`), its denominators none. Within one row, a compact column's entries
// with equal keys are equal; so key positions whose keys agree in every row (and are absent in
// the same rows) have equal exponentials, column sums and weights. Each such class of positions
// is computed once (an explicit entry is a class of its own), and a row's output sums each
// class's value rows first: Σ_j w_j·v_j = Σ_c w_c·(Σ_{j in c} v_j), exactly.
void column_softmax_head(const HeadTrace& ht, const Json& right_scores, AltHead& a) {
    const std::size_t nq = ht.rows.size();
    const std::size_t nk = ht.keys.rows();
    std::vector<std::size_t> cls(nk);  // position -> class
    std::vector<std::size_t> reps;     // class -> its first position
    {
        std::vector<std::vector<std::int64_t>> sig(nk);  // per row: (1, key), (0, 0) absent, or explicit
        std::vector<bool> alone(nk, false);
        for (const auto& r : ht.rows) {
            for (std::size_t j = 0; j < nk && !alone[j]; ++j) {
                if (const auto k = r.exponentials.key(j)) {
                    sig[j].insert(sig[j].end(), {1, *k});
                } else if (!r.exponentials.at(j)) {
                    sig[j].insert(sig[j].end(), {0, 0});
                } else {
                    alone[j] = true;
                }
            }
        }
        std::map<std::vector<std::int64_t>, std::size_t> seen;
        for (std::size_t j = 0; j < nk; ++j) {
            if (!alone[j]) {
                const auto [it, fresh] = seen.emplace(std::move(sig[j]), reps.size());
                if (!fresh) {
                    cls[j] = it->second;
                    continue;
                }
            }
            cls[j] = reps.size();
            reps.push_back(j);
        }
    }
    // Each row's exponential per class (one power per distinct key of the row), and their sums.
    std::vector<std::vector<Value>> e(nq, std::vector<Value>(reps.size()));
    std::vector<Value> col(reps.size());
    for (std::size_t i = 0; i < nq; ++i) {
        const Column& x = ht.rows[i].exponentials;
        std::map<std::int64_t, Value> by_key;
        for (std::size_t c = 0; c < reps.size(); ++c) {
            const std::size_t j = reps[c];
            if (const auto k = x.key(j)) {
                auto it = by_key.find(*k);
                if (it == by_key.end()) it = by_key.emplace(*k, x.at(j).value_or(Value())).first;
                e[i][c] = it->second;
            } else {
                e[i][c] = x.at(j).value_or(Value());
            }
            col[c] += e[i][c];
        }
    }
    const Matrix v = ht.values.matrix();
    const std::size_t d = v.empty() ? 0 : v[0].size();
    Matrix v_sum(reps.size(), Vector(d));
    for (std::size_t j = 0; j < nk && d > 0; ++j) {
        for (std::size_t c = 0; c < d; ++c) v_sum[cls[j]][c] += v[j][c];
    }
    std::vector<std::string> text(reps.size());
    for (std::size_t i = 0; i < nq; ++i) {
        Vector out(d);
        for (std::size_t c = 0; c < reps.size(); ++c) {
            const Value w = e[i][c].is_zero() ? Value() : e[i][c] / col[c];
            text[c] = to_ascii(w);
            for (std::size_t y = 0; y < d; ++y) out[y] += w * v_sum[c][y];
        }
        Json w = Json::array();
        for (std::size_t j = 0; j < nk; ++j) w.push_back(text[cls[j]]);
        a.scores.push_back(right_scores[i]);
        a.denominators.push_back(nullptr);
        a.weights.push_back(w);
        a.outputs.push_back(vector_json(out));
        a.out_rows.push_back(out);
    }
}

// A head whose rows are read with another rule, scale or mask.
void reread_head(const HeadTrace& ht, ScoreRule rule, const Value& scale, const MaskFn& masked, AltHead& a) {
    const std::size_t nq = ht.rows.size();
    const std::size_t nk = ht.keys.rows();
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

}  // namespace

Json alternative_layer(const Json& right, const LayerResult& lr, ScoreRule rule, const Value& scale,
                       const MaskFn& masked, bool column_softmax) {
    const LayerTrace& t = lr.trace;
    Json doc = right;
    std::vector<AltHead> heads(t.heads.size());
    for (std::size_t h = 0; h < t.heads.size(); ++h) {
        AltHead& a = heads[h];
        if (column_softmax)
            column_softmax_head(t.heads[h], right["heads"][h]["scores"], a);
        else
            reread_head(t.heads[h], rule, scale, masked, a);
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
        doc["concat"] = matrix_json(concat);
        doc["output"] = matrix_json(out);
    }
    return doc;
}

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

}  // namespace exactattn::detail
