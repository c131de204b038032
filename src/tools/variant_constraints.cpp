// SPDX-License-Identifier: MIT
// exactattn: the constraints a variant must meet (docs/variants.md#constraints): on the weights
// and scores of the exercise's reads, its parts, and the mistakes its answer tells apart.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "exactattn/check.hpp"
#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "tools/check/mistakes.hpp"
#include "tools/check/tokens.hpp"
#include "tools/variant_values.hpp"
#include "tools/variants_detail.hpp"
#include "scenario/pointer.hpp"

namespace exactattn::detail::variants {

namespace {

/// A decimal index segment, or none.
std::optional<std::size_t> index_of(const std::vector<std::string>& seg, std::size_t i) {
    if (i >= seg.size() || seg[i].empty() || seg[i].size() > 9) return std::nullopt;
    if (!std::all_of(seg[i].begin(), seg[i].end(), [](char ch) { return ch >= '0' && ch <= '9'; })) return std::nullopt;
    return static_cast<std::size_t>(std::stoul(seg[i]));
}

/// The reads of one regime's steps (1-based k; 0: every step), each step's read and its output
/// distribution.
void add_steps(const RegimeTrace& regime, std::size_t k, std::vector<const ReadTrace*>& out) {
    for (const auto& step : regime.steps) {
        if (k != 0 && step.step != k) continue;
        out.push_back(&step.read);
        if (step.distribution) out.push_back(&*step.distribution);
    }
}

/// The reads a run-report pointer reaches: a read's trace; an intervention's rows (or the one
/// row named); a layer's rows (those of one head, or the one query row that `scores`,
/// `denominators`, `weights`, `outputs`, `concat` or `output` names; a head's queries, keys and
/// values are projections, not reads); a rollout's steps (or the one step named).
void add_traces_at(const Report& rep, const std::string& pointer, std::vector<const ReadTrace*>& out) {
    const auto seg = detail::pointer_parts(pointer).value_or(std::vector<std::string>{});
    if (seg.size() < 2) return;
    if (seg[0] == "reads") {
        for (const auto& r : rep.reads) {
            if (r.spec.name == seg[1]) out.push_back(&r.trace);
        }
    } else if (seg[0] == "interventions") {
        for (const auto& ir : rep.interventions) {
            if (ir.spec.name != seg[1]) continue;
            const auto row = seg.size() > 3 && seg[2] == "rows" ? index_of(seg, 3) : std::nullopt;
            for (std::size_t i = 0; i < ir.rows.size(); ++i) {
                if (!row || *row == i) out.push_back(&ir.rows[i].trace);
            }
        }
    } else if (seg[0] == "layers") {
        for (const auto& l : rep.layers) {
            if (l.spec.name != seg[1]) continue;
            std::optional<std::size_t> head;
            std::optional<std::size_t> row;
            if (seg.size() > 3 && seg[2] == "heads") {
                head = index_of(seg, 3);
                if (seg.size() > 4 && (seg[4] == "queries" || seg[4] == "keys" || seg[4] == "values")) return;
                if (seg.size() > 5) row = index_of(seg, 5);
            } else if (seg.size() > 2 && (seg[2] == "input" || seg[2] == "masked")) {
                return;
            } else if (seg.size() > 3 && (seg[2] == "concat" || seg[2] == "output")) {
                row = index_of(seg, 3);
            }
            for (std::size_t h = 0; h < l.trace.heads.size(); ++h) {
                if (head && *head != h) continue;
                const auto& rows = l.trace.heads[h].rows;
                for (std::size_t i = 0; i < rows.size(); ++i) {
                    if (!row || *row == i) out.push_back(&rows[i]);
                }
            }
        }
    } else if (seg[0] == "rollouts") {
        for (const auto& r : rep.rollouts) {
            if (r.spec.name != seg[1]) continue;
            const std::size_t k = seg.size() > 4 && seg[3] == "steps" ? index_of(seg, 4).value_or(0) : 0;
            if (seg.size() > 4 && seg[3] == "steps" && k == 0) return;  // step 0: s_0, no read
            if ((seg.size() < 3 || seg[2] == "teacher-forcing") && r.teacher_forcing) {
                add_steps(*r.teacher_forcing, k, out);
            }
            if (seg.size() < 3 || seg[2] == "generation") add_steps(r.generation, k, out);
        }
    }
}

/// The traces an exercise reads (docs/variants.md#constraints): its reads, the rows of its
/// intervention references, its rollouts' steps, and the reads its parts and answer point into.
/// Each trace once, in that order.
std::vector<const ReadTrace*> exercise_traces(const Report& rep, const Exercise& e) {
    std::vector<const ReadTrace*> found;
    for (const auto& name : e.reads) add_traces_at(rep, "/reads/" + name, found);
    for (const auto& ref : e.interventions) {
        const std::string name = ref.substr(0, ref.find('/'));
        add_traces_at(rep, "/interventions/" + name + ref.substr(name.size()), found);
    }
    for (const auto& ref : e.rollouts) add_traces_at(rep, "/rollouts/" + ref, found);
    for (const auto& ref : e.layers) {
        const std::string name = ref.substr(0, ref.find('/'));
        add_traces_at(rep, detail::pointer_join("/layers", name) + ref.substr(name.size()), found);
    }
    if (e.variation) {
        for (const auto& p : e.variation->parts) add_traces_at(rep, p.at, found);
        add_traces_at(rep, e.variation->answer, found);
    }
    std::vector<const ReadTrace*> out;
    for (const auto* t : found) {
        if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
    return out;
}

}  // namespace

/// Whether `other` lies within the declared absolute `tolerance` of the exact `value`, certified by
/// judge_entry (exact arithmetic in the domain, enclosures outside it; `decided` false when they
/// cannot tell).
EntryVerdict within_tolerance(const Value& value, const Real& other, const Value& tolerance) {
    const Tolerance tol{Tolerance::Kind::Absolute, tolerance.rational(), 0};
    const AnswerEntry as_decimal{to_ascii(value), AnswerEntry::Form::Decimal, Real::of(value)};
    return judge_entry(as_decimal, other, tol);
}

namespace {

/// Whether a mistake's recomputed answer differs from the right one (docs/variants.md#constraints):
/// an exact value by exact value, one outside the domain (e-instead-of-2's decimals) by more
/// than the declared tolerance, certified by enclosures (undecided: not shown to differ).
bool differs(const std::vector<std::optional<Real>>& wrong, const std::vector<std::optional<Value>>& right,
             const Value& tolerance) {
    if (wrong.size() != right.size()) return true;
    for (std::size_t i = 0; i < right.size(); ++i) {
        if (wrong[i].has_value() != right[i].has_value()) return true;
        if (!right[i]) continue;
        if (wrong[i]->exact) {
            if (*wrong[i]->exact != *right[i]) return true;
            continue;
        }
        const EntryVerdict within = within_tolerance(*right[i], *wrong[i], tolerance);
        if (within.decided && !within.match) return true;
    }
    return false;
}

}  // namespace

/// The first declared constraint the variant fails, or "" when it meets them all.
std::string failed_constraint(const Context& c, const Report& rep, const Json& doc) {
    const Variation& v = c.variation();
    const auto traces = exercise_traces(rep, c.exercise);
    if (traces.empty()) {
        // A constraint on the weights or scores of an exercise that reads nothing would hold
        // vacuously: every variant would pass it. Refused, so that it is never silently void.
        const char* on_traces = v.max_denominator > 0 ? "max_denominator"
                                : v.unique_maximum    ? "unique_maximum"
                                : v.scores_in_domain  ? "scores_in_domain"
                                                      : nullptr;
        if (on_traces != nullptr) {
            throw reference_error(
                fmt::format("{} constrains the weights or scores of the exercise's reads, and the exercise reads "
                            "none: list reads, interventions or rollouts, or point its parts or answer at a "
                            "read, an intervention row, a layer's weights or a rollout step (docs/variants.md)",
                            on_traces),
                c.at("/constraints/" + std::string(on_traces)));
        }
    }
    if (v.max_denominator > 0) {
        for (const auto* t : traces) {
            for (const auto& w : t->weights.all()) {
                if (w && (!w->is_rational() || w->rational().get_den() > v.max_denominator)) return "max_denominator";
            }
        }
    }
    if (v.unique_maximum) {
        for (const auto* t : traces) {
            std::optional<Value> top;
            std::size_t count = 0;
            for (const auto& w : t->weights.all()) {
                if (!w) continue;
                const int cmp = top ? compare(*w, *top) : 1;
                if (cmp > 0) {
                    top = w;
                    count = 1;
                } else if (cmp == 0) {
                    ++count;
                }
            }
            if (count > 1) return "unique_maximum";
        }
    }
    if (v.scores_in_domain) {
        for (const auto* t : traces) {
            mpq_class r;
            for (const auto& s : t->scores.all()) {
                if (s && !s->as_rational_multiple_of_a(r)) return "scores_in_domain";
            }
        }
    }
    if (v.distinct_parts) {
        std::vector<std::string> seen;
        for (std::size_t i = 0; i < v.parts.size(); ++i) {
            const Json& part = report_at(doc, v.parts[i].at, c.at(fmt::format("/parts/{}/at", i)));
            const std::string q = names_tokens(v.parts[i].at) ? part.dump() : canonical(part, {});
            if (std::find(seen.begin(), seen.end(), q) != seen.end()) return "distinct_parts";
            seen.push_back(q);
        }
    }
    if (!v.mistakes.empty()) {
        const auto wrong = detail::mistaken_answers(rep, doc, v.answer, v.mistakes, c.at("/answer"));
        for (const auto& m : v.mistakes) {
            for (const auto& [id, values] : wrong.by_id) {
                if (id == m && !differs(values, wrong.right, v.tolerance)) return "mistakes_differ (" + m + ")";
            }
        }
    }
    return "";
}

}  // namespace exactattn::detail::variants
