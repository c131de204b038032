// SPDX-License-Identifier: MIT
// exactattn: `check` — two known mistakes made one after the other (docs/check.md, "Two-step
// mistakes"): a read set up the wrong way (the scale left out, a removal zero-scored) and then
// normalised the wrong way (divided by the count, …) — on a layer head's whole quantity, row by
// row —, or any mistake's answer with the factor a dropped. Each step is the registry's own entry,
// so a two-step mistake is named in the words of its two steps.
#include <fmt/format.h>

#include <algorithm>

#include "exactattn/print.hpp"
#include "tools/check/mistakes.hpp"

namespace exactattn::detail {

namespace {

// A read set up the wrong way: the request changed, and the words for it.
struct Setup {
    const char* id;
    std::string explain;
    ReadRequest request;
};

// The setup mistakes of the registry that change only the read's request: forget-scale (the
// plain dot product) and zero-score-for-removal (a removal zero-scored, or the reverse).
std::vector<Setup> setups(const Ctx& c) {
    std::vector<Setup> out;
    const ReadRequest& r = c.s->request;
    if (r.rule == ScoreRule::ScaledDot || r.rule == ScoreRule::Scaled) {
        ReadRequest plain = r;
        plain.rule = ScoreRule::Dot;
        plain.scale = Value(1);
        const char* d = c.layer != nullptr ? "d_k" : "d";
        out.push_back({"forget-scale",
                       r.rule == ScoreRule::ScaledDot
                           ? fmt::format("the scores were not divided by √{0} = √{1} (the scale 1/√{0} was left out)",
                                         d, r.query.size())
                           : fmt::format("the declared scale {} was not applied to the scores",
                                         to_display(r.scale, Notation::Unicode)),
                       std::move(plain)});
    }
    const bool removed = std::any_of(r.marks.begin(), r.marks.end(), [](Mark m) { return m == Mark::Removed; });
    const bool zeroed = std::any_of(r.marks.begin(), r.marks.end(), [](Mark m) { return m == Mark::Zeroed; });
    if (removed || zeroed) {
        ReadRequest swapped = r;
        for (auto& m : swapped.marks) m = m == Mark::Removed ? Mark::Zeroed : m == Mark::Zeroed ? Mark::Removed : m;
        out.push_back({"zero-score-for-removal",
                       c.layer != nullptr ? "the masked key's score was set to zero instead of masking the key"
                       : removed          ? "the position's score was set to zero instead of removing it"
                                          : "the position was removed instead of setting its score to zero",
                       std::move(swapped)});
    }
    return out;
}

bool same_values(const std::vector<std::optional<Real>>& x, const std::vector<std::optional<Real>>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (x[i].has_value() != y[i].has_value()) return false;
        if (!x[i]) continue;
        if (!x[i]->exact || !y[i]->exact || *x[i]->exact != *y[i]->exact) return false;
    }
    return true;
}

// The values with the factor a dropped (Σ F_k a^k read as Σ F_k); none when an entry is not
// exact (e^k) or when no entry has an a.
std::optional<std::vector<std::optional<Real>>> dropped_a(const std::vector<std::optional<Real>>& values) {
    std::vector<std::optional<Real>> out;
    bool changed = false;
    for (const auto& v : values) {
        if (!v) {
            out.emplace_back(std::nullopt);
            continue;
        }
        if (!v->exact) return std::nullopt;
        Value d;
        for (const auto& term : v->exact->terms()) d += Value(term);
        changed = changed || d != *v->exact;
        out.emplace_back(Real::of(d));
    }
    if (!changed) return std::nullopt;
    return out;
}

// The two-step mistakes of each row of a head's quantity, gathered per id into the whole
// quantity's values: the rows where a composition applies take its values, the others their
// right ones; named by the first row it applies to, as a single mistake row by row is.
std::vector<TwoStep> row_by_row(const RowContexts& rows) {
    std::vector<TwoStep> out;
    std::vector<std::vector<const TwoStep*>> at_row;  // [composition][row]
    std::vector<std::vector<TwoStep>> per_row(rows.rows.size());
    for (std::size_t i = 0; i < rows.rows.size(); ++i) {
        if (rows.rows[i].s) per_row[i] = two_step_mistakes(rows.rows[i]);
    }
    for (std::size_t i = 0; i < per_row.size(); ++i) {
        for (const TwoStep& t : per_row[i]) {
            if (t.values.size() != rows.exact[i].values.size()) continue;
            const auto known = std::find_if(out.begin(), out.end(), [&t](const TwoStep& o) { return o.id == t.id; });
            std::size_t k = static_cast<std::size_t>(known - out.begin());
            if (known == out.end()) {
                out.push_back({t.id, fmt::format("row by row: {} (the numbers of row {})", t.explain, i + 1), {}});
                at_row.emplace_back(rows.rows.size(), nullptr);
            }
            at_row[k][i] = &t;
        }
    }
    for (std::size_t k = 0; k < out.size(); ++k) {
        for (std::size_t i = 0; i < rows.rows.size(); ++i) {
            if (at_row[k][i] != nullptr) {
                out[k].values.insert(out[k].values.end(), at_row[k][i]->values.begin(), at_row[k][i]->values.end());
                continue;
            }
            for (const auto& v : rows.exact[i].values)
                out[k].values.push_back(v ? std::optional<Real>(Real::of(*v)) : std::nullopt);
        }
    }
    return out;
}

}  // namespace

std::vector<TwoStep> two_step_mistakes(const Ctx& c) {
    std::vector<TwoStep> out;
    const auto& reg = registry();
    const auto find = [&reg](const std::string& id) {
        return std::find_if(reg.begin(), reg.end(), [&id](const Mistake& m) { return id == m.id; });
    };
    // The single mistakes' values: a composition equal to one of them is that mistake, not two.
    std::vector<std::optional<Real>> right;
    for (const auto& v : c.exact.values) right.push_back(v ? std::optional<Real>(Real::of(*v)) : std::nullopt);
    std::vector<std::pair<const Mistake*, Wrong>> singles;
    for (const Mistake& m : reg) {
        if (m.acceptable) continue;
        auto w = m.recompute(c);
        if (w && !w->values.empty()) singles.emplace_back(&m, std::move(*w));
    }
    const auto add_joined = [&](std::string id, std::string explain, std::vector<std::optional<Real>> values) {
        if (same_values(values, right)) return;  // a wrong way that gives the right answer
        for (const auto& [m, w] : singles) {
            if (same_values(values, w.values)) return;
        }
        for (const auto& t : out) {
            if (same_values(values, t.values)) return;
        }
        out.push_back({std::move(id), std::move(explain), std::move(values)});
    };
    const auto add = [&](const std::string& first, const std::string& second, std::string explain,
                         std::vector<std::optional<Real>> values) {
        // The id names the two steps in registry order, whatever order they were made in.
        const bool in_order = find(first) <= find(second);
        add_joined(fmt::format("{}+{}", in_order ? first : second, in_order ? second : first), std::move(explain),
                   std::move(values));
    };
    // A read set up the wrong way, then normalised the wrong way.
    if (c.s) {
        for (Setup& setup : setups(c)) {
            ReadTrace alt;
            try {
                alt = attend(c.s->memory, c.s->values, setup.request);
            } catch (const Error&) {  // the wrong set-up has no exact trace: nothing to compare
                continue;
            }
            Situation s2 = *c.s;
            s2.trace = &alt;
            s2.request = setup.request;
            Ctx c2{c.rep, c.doc, c.exact, s2, {}, {}, c.layer, c.layer_sub, c.where, std::make_shared<RowContexts>()};
            for (std::size_t p = 0; p < alt.marks.size(); ++p) {
                (alt.marks[p] == Mark::Removed ? c2.removed : c2.incl).push_back(p);
            }
            for (const char* second : {"divide-by-count", "forget-exp", "e-instead-of-2", "unnormalized-exponentials",
                                       "forget-renormalize"}) {
                if (setup.id == std::string("zero-score-for-removal") && second == std::string("forget-renormalize")) {
                    continue;  // both are about the removal: one of them, not two
                }
                auto w = find(second)->recompute(c2);
                if (!w || w->values.empty()) continue;
                add(setup.id, second, fmt::format("{}, then {}", setup.explain, w->explain), std::move(w->values));
            }
        }
    }
    // A layer head's whole quantity: each two-step mistake made row by row, as a single mistake is
    // (a row it does not apply to keeps its right values).
    if (const RowContexts* rows = c.s ? nullptr : head_rows(c)) {
        for (const auto& whole : row_by_row(*rows)) add_joined(whole.id, whole.explain, whole.values);
    }
    // Any mistake's answer with the factor a dropped as well.
    for (const auto& [m, w] : singles) {
        if (m->id == std::string("drop-a")) continue;
        auto d = dropped_a(w.values);
        if (!d) continue;
        add(m->id, "drop-a", fmt::format("{}, and the factor a (= ln 2) was dropped from the answer", w.explain),
            std::move(*d));
    }
    return out;
}

}  // namespace exactattn::detail
