// SPDX-License-Identifier: MIT
// exactattn: `check` — the registry of known mistakes, each a named recomputation of the target
// quantity from the exact trace (a read's, an intervention row's or a layer's), compared with the
// answer under the same rule as the right value.
#include "tools/check/mistakes.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "exactattn/print.hpp"
#include "exactattn/check.hpp"
#include "exactattn/linalg.hpp"
#include "report/report_json.hpp"
#include "report/targets.hpp"
#include "scenario/pointer.hpp"
#include "tools/check/alternatives.hpp"

namespace exactattn::detail {

namespace {

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
    const Json& right = c.doc.at(Json::json_pointer(pointer_join("/layers", c.layer->spec.name)));
    return alternative_layer(right, *c.layer, rule, scale, masked, column_softmax);
}

// The target's read on its own memory with weight w(p) at each included position p and 0 at
// the others: the alternative of every mistake that only changes the weights.
template <class W>
Alternative reweighted(const Ctx& c, W&& w) {
    Alternative a{std::vector<Real>(c.s->trace->marks.size(), Real::of(Value())), c.s->values.matrix(), {}, {}};
    for (auto p : c.incl) a.weights[p] = Real::of(w(p));
    return a;
}

// ---------------------------------------------------------------------------------------------
// Mistakes of a read or an intervention row (Chapter 14).

std::optional<Wrong> divide_by_count(const Ctx& c) {
    if (!c.s) return std::nullopt;
    const auto& t = *c.s->trace;
    const auto count = static_cast<long>(c.incl.size());
    Alternative a = reweighted(c, [&](std::size_t p) { return *t.exponentials.at(p) / Value(count); });
    a.denominator = Real::of(Value(count));
    return read_wrong(c,
                      fmt::format("divided by the number of positions ({}) instead of the sum of the "
                                  "exponentials ({})",
                                  count, to_display(t.denominator, Notation::Unicode)),
                      a);
}

std::optional<Wrong> forget_exp(const Ctx& c) {
    if (!c.s) return std::nullopt;
    const auto& t = *c.s->trace;
    const auto k = score_multiples(t, c.incl, true);
    if (!k) return std::nullopt;
    mpq_class total = 0;
    for (auto p : c.incl) total += (*k)[p];
    if (sgn(total) == 0) return std::nullopt;
    const Alternative a = reweighted(c, [&](std::size_t p) { return Value(mpq_class((*k)[p] / total)); });
    return read_wrong(c, "the scores were normalized directly, without exponentiating them", a);
}

std::optional<Wrong> e_instead_of_2(const Ctx& c) {
    // exp(k·a) = 2^k, since a = ln 2; a learner who reads the score k·a as k computes e^k.
    if (!c.s) return std::nullopt;
    const auto& t = *c.s->trace;
    const auto k = score_multiples(t, c.incl, false);
    if (!k || std::all_of(c.incl.begin(), c.incl.end(), [&](std::size_t p) { return sgn((*k)[p]) == 0; })) {
        return std::nullopt;
    }
    Alternative a{std::vector<Real>(t.marks.size(), Real::of(Value())), c.s->values.matrix(), std::vector<Real>{},
                  Real::of(Value())};
    for (auto p : c.incl) {
        a.exponentials->push_back(e_power((*k)[p]));
        *a.denominator = *a.denominator + a.exponentials->back();
    }
    for (std::size_t i = 0; i < c.incl.size(); ++i) a.weights[c.incl[i]] = (*a.exponentials)[i] / *a.denominator;
    return read_wrong(c,
                      "e^k was used instead of 2^k: a score k·a has exponential e^(k·a) = 2^k because "
                      "a = ln 2, not e^k",
                      a);
}

std::optional<Wrong> equal_weights(const Ctx& c) {
    if (!c.s) return std::nullopt;
    const Value equal(mpq_class(1, static_cast<long>(c.incl.size())));
    const Alternative a = reweighted(c, [&](std::size_t) { return equal; });
    return read_wrong(c, "equal weights were used instead of the softmax of the scores", a);
}

std::optional<Wrong> unnormalized_exponentials(const Ctx& c) {
    if (!c.s) return std::nullopt;
    const Alternative a = reweighted(c, [&](std::size_t p) { return *c.s->trace->exponentials.at(p); });
    return read_wrong(c, "the exponentials were used as weights without dividing by their sum", a);
}

std::optional<Wrong> forget_renormalize(const Ctx& c) {
    // After a removal the remaining exponentials are divided by their own sum; this mistake
    // keeps the full read's weights and only sets the removed ones to 0.
    if (!c.s || c.removed.empty()) return std::nullopt;
    ReadRequest full = c.s->request;
    for (auto& m : full.marks) m = m == Mark::Removed ? Mark::Included : m;
    const ReadTrace f = attend(c.s->memory, c.s->values, full);
    Alternative a = reweighted(c, [&](std::size_t p) { return *f.exponentials.at(p) / f.denominator; });
    a.denominator = Real::of(f.denominator);
    // On a layer's row the removed positions are masked keys (docs/attention.md).
    return read_wrong(
        c,
        fmt::format(fmt::runtime(c.layer != nullptr ? "the mask was applied after the softmax: with key{0} {1} "
                                                      "masked, the weights still divide by the full sum {2} "
                                                      "instead of {3}"
                                                    : "the weights were not renormalized after removing "
                                                      "position{0} {1}: they still divide by the full sum {2} "
                                                      "instead of {3}"),
                    c.removed.size() == 1 ? "" : "s", position_list(c.removed),
                    to_display(f.denominator, Notation::Unicode),
                    to_display(c.s->trace->denominator, Notation::Unicode)),
        a);
}

std::optional<Wrong> remaining_weights(const Ctx& c) {
    // The chapter lists a removal's weights for the remaining positions only.
    if (!c.s || c.removed.empty() || c.s->quantity != "weights" || c.s->element) return std::nullopt;
    Wrong w{fmt::format(fmt::runtime(c.layer != nullptr
                                         ? "only the weights of the unmasked keys ({}) were listed; masked key{} {} "
                                           "{} weight 0"
                                         : "only the weights of the remaining positions ({}) were listed; "
                                           "position{} {} {} weight 0"),
                        position_list(c.incl), c.removed.size() == 1 ? "" : "s", position_list(c.removed),
                        c.removed.size() == 1 ? "has" : "have"),
            {}};
    for (auto p : c.incl) w.values.emplace_back(Real::of(*c.s->trace->weights.at(p)));
    return w;
}

std::optional<Wrong> zero_score_for_removal(const Ctx& c) {
    // zero-score where the position should be removed, and the reverse.
    if (!c.s) return std::nullopt;
    const auto& marks = c.s->trace->marks;
    const bool has_removed = std::any_of(marks.begin(), marks.end(), [](Mark m) { return m == Mark::Removed; });
    const bool has_zeroed = std::any_of(marks.begin(), marks.end(), [](Mark m) { return m == Mark::Zeroed; });
    if (!has_removed && !has_zeroed) return std::nullopt;
    ReadRequest swapped = c.s->request;
    for (auto& m : swapped.marks) {
        if (m == Mark::Removed)
            m = Mark::Zeroed;
        else if (m == Mark::Zeroed)
            m = Mark::Removed;
    }
    const ReadTrace alt = attend(c.s->memory, c.s->values, swapped);
    Alternative a{reals(quantity_of(alt, "weights")), c.s->values.matrix(), {}, Real::of(alt.denominator)};
    return read_wrong(c,
                      c.layer != nullptr ? "the masked key's score was set to zero instead of masking the key; a "
                                           "zero score still contributes exponential 1"
                      : has_removed      ? "the position's score was set to zero (zero-score) instead of removing "
                                           "the position (remove-state); a zero score still contributes exponential 1"
                                         : "the position was removed (remove-state) instead of setting its score to "
                                           "zero (zero-score)",
                      a);
}

std::optional<Wrong> delete_without_reencoding(const Ctx& c) {
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
}

std::optional<Wrong> embeddings_instead_of_states(const Ctx& c) {
    if (!c.s || c.s->source == nullptr || !c.s->source->tokens || c.s->kind == InterventionKind::DeleteToken) {
        return std::nullopt;
    }
    Alternative a{reals(quantity_of(*c.s->trace, "weights")), {}, {}, {}};
    for (const auto& tok : *c.s->source->tokens) a.rows.push_back(c.rep.scenario.embedding(tok));
    if (a.rows.size() != a.weights.size() || a.rows.empty() || a.rows[0].size() != c.s->request.query.size()) {
        return std::nullopt;
    }
    return read_wrong(c, "the weights were applied to the input embeddings instead of the stored encoder states", a);
}

std::optional<Wrong> drop_a(const Ctx& c) {
    // The factor a = ln 2 left out: every value Σ F_k a^k read as Σ F_k. Without an a it gives
    // the right answer (which check then cannot name, and which fails a variant's
    // mistakes_differ).
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
}

// ---------------------------------------------------------------------------------------------
// Mistakes of an attention layer (Chapter 15).

// A read under `score: scaled-dot` (or a declared scale) computed with the plain dot product.
std::optional<Wrong> forget_read_scale(const Ctx& c) {
    const ReadRequest& r = c.s->request;
    if (r.rule != ScoreRule::ScaledDot && r.rule != ScoreRule::Scaled) return std::nullopt;
    ReadRequest plain = r;
    plain.rule = ScoreRule::Dot;
    plain.scale = Value(1);
    ReadTrace alt;
    try {
        alt = attend(c.s->memory, c.s->values, plain);
    } catch (const Error&) {  // the unscaled scores have no exact exponential: nothing to compare
        return std::nullopt;
    }
    Alternative a{reals(quantity_of(alt, "weights")), c.s->values.matrix(), reals(quantity_of(alt, "exponentials")),
                  Real::of(alt.denominator)};
    return read_wrong(
        c,
        r.rule == ScoreRule::ScaledDot
            ? fmt::format("the scores were not divided by √d = √{} (the scale 1/√d was left out)", r.query.size())
            : fmt::format("the declared scale {} was not applied to the scores",
                          to_display(r.scale, Notation::Unicode)),
        a);
}

std::optional<Wrong> forget_scale(const Ctx& c) {
    if (c.layer == nullptr) return c.s ? forget_read_scale(c) : std::nullopt;
    const AttentionLayer& layer = c.layer->spec.layer;
    if (layer.rule != ScoreRule::ScaledDot && layer.rule != ScoreRule::Scaled) return std::nullopt;
    const std::size_t d_k = c.layer->trace.heads.empty() ? 0 : c.layer->trace.heads[0].keys.width();
    return layer_wrong(c,
                       layer.rule == ScoreRule::ScaledDot
                           ? fmt::format("the scores were not divided by √d_k = √{} (the scale 1/√d_k was "
                                         "left out)",
                                         d_k)
                           : fmt::format("the declared scale {} was not applied to the scores",
                                         to_display(layer.scale, Notation::Unicode)),
                       layer_alternative(c, ScoreRule::Dot, Value(1), layer_same_mask(*c.layer), false));
}

std::optional<Wrong> no_causal_mask(const Ctx& c) {
    if (c.layer == nullptr || !c.layer->spec.layer.causal) return std::nullopt;
    const AttentionLayer& layer = c.layer->spec.layer;
    return layer_wrong(c, "attended to the future: without the causal mask, query i also sees the keys after i",
                       layer_alternative(c, layer.rule, layer.scale, layer_other_mask(*c.layer), false));
}

// The causal mask shifted by one: query i also loses the keys `lost(i, k)` says.
std::optional<Wrong> shifted_causal_mask(const Ctx& c, const char* explain, bool (*lost)(std::size_t, std::size_t)) {
    if (c.layer == nullptr || !c.layer->spec.layer.causal) return std::nullopt;
    const AttentionLayer& layer = c.layer->spec.layer;
    const MaskFn other = layer_other_mask(*c.layer);
    return layer_wrong(c, explain,
                       layer_alternative(
                           c, layer.rule, layer.scale,
                           [other, lost](std::size_t i, std::size_t k) { return other(i, k) || lost(i, k); }, false));
}

std::optional<Wrong> mask_off_by_one_late(const Ctx& c) {
    return shifted_causal_mask(c, "the causal mask is off by one: query i was also given key i + 1",
                               [](std::size_t i, std::size_t k) { return k > i + 1; });
}

std::optional<Wrong> mask_off_by_one_early(const Ctx& c) {
    return shifted_causal_mask(c, "the causal mask is off by one: query i was not given its own key i",
                               [](std::size_t i, std::size_t k) { return k >= i; });
}

std::optional<Wrong> forget_padding_mask(const Ctx& c) {
    if (c.layer == nullptr || c.layer->spec.layer.padding.empty()) return std::nullopt;
    const AttentionLayer& layer = c.layer->spec.layer;
    std::vector<std::size_t> padded;
    for (auto p : layer.padding) padded.push_back(p - 1);
    return layer_wrong(c,
                       fmt::format("the padding mask was forgotten: the padded key position{} {} kept {} weight{}",
                                   padded.size() == 1 ? "" : "s", position_list(padded),
                                   padded.size() == 1 ? "its" : "their", padded.size() == 1 ? "" : "s"),
                       layer_alternative(
                           c, layer.rule, layer.scale,
                           [&layer](std::size_t i, std::size_t k) {
                               return (layer.causal && k > i) || (!layer.mask.empty() && layer.mask[i][k]);
                           },
                           false));
}

// The layer's output computed without one of its last two steps: W_O or the residual + X.
std::optional<Wrong> output_without(const Ctx& c, bool wo, bool residual, std::string explain) {
    Json doc = c.doc.at(Json::json_pointer(pointer_join("/layers", c.layer->spec.name)));
    const LayerTrace& t = c.layer->trace;
    Matrix out = t.concat();
    if (wo && c.layer->spec.layer.wo) out = mat_mul(out, *c.layer->spec.layer.wo);
    if (residual) {
        if (out.empty() || out[0].size() != t.input[0].size()) return std::nullopt;  // X does not fit: no such sum
        out = mat_add(out, t.input);
    }
    doc["output"] = matrix_json(out);
    return layer_wrong(c, std::move(explain), doc);
}

std::optional<Wrong> forget_residual(const Ctx& c) {
    if (c.layer == nullptr || !c.layer->spec.layer.residual) return std::nullopt;
    return output_without(c, true, false, "the residual was forgotten: the input X was not added to the output");
}

std::optional<Wrong> forget_wo(const Ctx& c) {
    if (c.layer == nullptr || !c.layer->spec.layer.wo) return std::nullopt;
    return output_without(c, false, c.layer->spec.layer.residual,
                          "the output projection W_O was forgotten: the heads' concatenation was used as the output");
}

std::optional<Wrong> wrong_axis(const Ctx& c) {
    if (c.layer == nullptr) return std::nullopt;
    const AttentionLayer& layer = c.layer->spec.layer;
    return layer_wrong(c,
                       "normalised over the wrong axis: each key's column (over the queries) was made to sum "
                       "to 1 instead of each query's row (over the keys)",
                       layer_alternative(c, layer.rule, layer.scale, layer_same_mask(*c.layer), true));
}

// The rows of head `head`'s quantity at c.layer_sub as reads, located once for all the mistakes
// (c.rows): located again for each, a 150-row matrix took four times as long to judge.
const RowContexts& row_contexts(const Ctx& c, std::size_t head) {
    RowContexts& r = *c.rows;
    if (r.made) return r;
    const std::string whole = pointer_join("/layers", c.layer->spec.name) + c.layer_sub;
    const std::size_t n = c.layer->trace.heads.at(head).rows.size();
    r.exact.reserve(n);  // the contexts below refer to these elements: no reallocation after
    for (std::size_t i = 0; i < n; ++i) {
        const std::string row = pointer_join(whole, i);
        r.exact.push_back(report_quantity(c.rep, row, c.where, c.doc));
    }
    r.rows.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        r.rows.push_back(context_at(c.rep, c.doc, r.exact[i], pointer_join(whole, i), c.where));
    r.made = true;
    return r;
}

// A read mistake on a whole head quantity of a layer (/layers/<l>/heads/<h>/weights, outputs or
// denominators): every row is a read, so the mistake is made row by row, and a row where it does
// not apply keeps its right values. None when it applies to no row.
using Recompute = std::optional<Wrong> (*)(const Ctx&);

std::optional<Wrong> per_row(const Ctx& c, Recompute f) {
    const RowContexts* found = head_rows(c);
    if (found == nullptr) return std::nullopt;
    const RowContexts& rows = *found;
    std::optional<Wrong> out;
    Wrong w;
    for (std::size_t i = 0; i < rows.rows.size(); ++i) {
        const Ctx& rc = rows.rows[i];
        const Flat& exact = rows.exact[i];
        auto wrong = rc.s ? f(rc) : std::nullopt;
        if (wrong && !out)
            out = Wrong{fmt::format("row by row: {} (the numbers of row {})", wrong->explain, i + 1), {}};
        if (wrong && wrong->values.size() == exact.values.size()) {
            for (auto& v : wrong->values) w.values.push_back(std::move(v));
        } else {
            for (const auto& v : exact.values) w.values.push_back(v ? std::optional<Real>(Real::of(*v)) : std::nullopt);
        }
    }
    if (out) out->values = std::move(w.values);
    return out;
}

// A Chapter 14 read mistake: on the target's read, or row by row on a layer's whole quantity.
template <Recompute F>
std::optional<Wrong> on_reads(const Ctx& c) {
    if (c.s) return F(c);
    if (c.layer != nullptr) return per_row(c, F);
    return std::nullopt;
}

}  // namespace

const RowContexts* head_rows(const Ctx& c) {
    if (c.layer == nullptr) return nullptr;
    const auto parts = pointer_parts(c.layer_sub).value_or(std::vector<std::string>{});
    if (parts.size() != 3 || parts[0] != "heads" ||
        (parts[2] != "weights" && parts[2] != "outputs" && parts[2] != "denominators")) {
        return nullptr;
    }
    return &row_contexts(c, std::stoul(parts[1]));
}

const std::vector<Mistake>& registry() {
    static const std::vector<Mistake> table = {
        {"divide-by-count", false, on_reads<divide_by_count>},
        {"forget-exp", false, on_reads<forget_exp>},
        {"e-instead-of-2", false, on_reads<e_instead_of_2>},
        {"equal-weights", false, on_reads<equal_weights>},
        {"unnormalized-exponentials", false, on_reads<unnormalized_exponentials>},
        {"forget-renormalize", false, on_reads<forget_renormalize>},
        {"remaining-weights", true, remaining_weights},
        {"zero-score-for-removal", false, on_reads<zero_score_for_removal>},
        {"delete-without-reencoding", false, delete_without_reencoding},
        {"embeddings-instead-of-states", false, embeddings_instead_of_states},
        {"drop-a", false, drop_a},
        {"forget-scale", false, forget_scale},
        {"no-causal-mask", false, no_causal_mask},
        {"mask-off-by-one-late", false, mask_off_by_one_late},
        {"mask-off-by-one-early", false, mask_off_by_one_early},
        {"wrong-axis", false, wrong_axis},
        {"forget-padding-mask", false, forget_padding_mask},
        {"forget-residual", false, forget_residual},
        {"forget-wo", false, forget_wo},
    };
    return table;
}

MistakenAnswers mistaken_answers(const Report& rep, const Json& doc, const std::string& target,
                                 const std::vector<std::string>& ids, const Location& where) {
    const Flat exact = report_quantity(rep, target, where, doc);
    const Ctx c = context_at(rep, doc, exact, target, where);
    MistakenAnswers out;
    out.right = exact.values;
    for (const Mistake& m : registry()) {
        if (std::find(ids.begin(), ids.end(), m.id) == ids.end()) continue;
        auto wrong = m.recompute(c);
        if (!wrong || wrong->values.empty()) continue;
        out.by_id.emplace_back(m.id, std::move(wrong->values));
        out.explain.push_back(std::move(wrong->explain));
    }
    return out;
}

}  // namespace exactattn::detail

namespace exactattn {

std::vector<std::string> mistake_ids() {
    std::vector<std::string> out;
    for (const auto& m : detail::registry()) out.emplace_back(m.id);
    return out;
}

std::vector<std::string> wrong_method_ids() {
    std::vector<std::string> out;
    for (const auto& m : detail::registry()) {
        if (!m.acceptable) out.emplace_back(m.id);
    }
    return out;
}

}  // namespace exactattn
