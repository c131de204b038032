// SPDX-License-Identifier: MIT
// exactattn: exercise variants (docs/variants.md).
#include "exactattn/variants.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "exactattn/answer_entry.hpp"
#include "exactattn/answer_key.hpp"
#include "exactattn/check.hpp"
#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/print.hpp"
#include "tools/check/tokens.hpp"
#include "tools/check/mistakes.hpp"
#include "tools/lms_html.hpp"
#include "tools/variant_values.hpp"
#include "core/names.hpp"
#include "report/report_json.hpp"
#include "scenario/pointer.hpp"

namespace exactattn {

namespace {

using detail::Json;

/// Where the exercise's variation is declared, for errors.
struct Context {
    const Scenario* base = nullptr;
    Exercise exercise;
    std::size_t index = 0;  ///< position in /exercises
    Json base_json;         ///< the base scenario as written

    [[nodiscard]] Location at(const std::string& rest) const {
        Location l;
        l.file = base->file;
        l.pointer = fmt::format("/exercises/{}/variation{}", index, rest);
        return l;
    }
    [[nodiscard]] const Variation& variation() const { return *exercise.variation; }
};

/// Every scalar of a report quantity, row by row (null where the report has none).
void flatten_values(const Json& j, std::vector<std::optional<Value>>& out, const Location& where) {
    if (j.is_array()) {
        for (const auto& x : j) flatten_values(x, out, where);
    } else if (j.is_null()) {
        out.emplace_back();
    } else {
        out.emplace_back(detail::json_value(j, where));
    }
}

/// A quantity's exact values in canonical ascii, shaped as in the report: equal strings are
/// equal quantities.
std::string canonical(const Json& j, const Location& where) {
    if (j.is_array()) {
        std::string s = "[";
        for (std::size_t i = 0; i < j.size(); ++i) s += (i ? ", " : "") + canonical(j[i], where);
        return s + "]";
    }
    if (j.is_null()) return "—";
    return to_ascii(detail::json_value(j, where));
}

}  // namespace

namespace detail {

/// A report quantity as a formula: a value, a row, or rows (states).
Formula quantity_formula(const Json& j, const Location& where) {
    Formula f;
    if (!j.is_array()) {
        std::vector<std::optional<Value>> v;
        flatten_values(j, v, where);
        return v.front() ? Formula(*v.front()) : f.column(v);
    }
    if (!j.empty() && j.front().is_array()) {
        f.op(Formula::Op::Open);
        for (std::size_t i = 0; i < j.size(); ++i) {
            if (i > 0) f.op(Formula::Op::Comma);
            std::vector<std::optional<Value>> row;
            flatten_values(j[i], row, where);
            f.column(row);
        }
        return f.op(Formula::Op::Close);
    }
    std::vector<std::optional<Value>> row;
    flatten_values(j, row, where);
    return f.column(row);
}

/// A terminating decimal (the loader checks the tolerance is one) written exactly.
std::string exact_decimal(const Value& v) {
    int places = 0;
    mpq_class q = v.rational();
    while (q.get_den() != 1) {
        q *= 10;
        ++places;
    }
    return to_fixed(v, places);
}

}  // namespace detail

namespace {

using detail::exact_decimal;
using detail::quantity_formula;

/// The quantity as author math: `$…$` LaTeX in the Markdown of a prompt.
std::string quantity_markdown(const Json& j, const Location& where) {
    return "$" + quantity_formula(j, where).render(MathForm::Latex) + "$";
}

const Json& report_at(const Json& doc, const std::string& pointer, const Location& where) {
    return detail::resolve_pointer(doc, pointer, where);
}

/// Tokens in a prompt: a Markdown code span (`blue`, `[a, blue, key, .]`), so that no token
/// (`<s>`, `*`) is read as Markdown.
std::string tokens_markdown(const std::string& pointer, const Json& doc, const Location& where) {
    const auto t = detail::tokens_at(doc, pointer, where);
    const std::string text = detail::tokens_text(t.tokens, t.scalar);
    if (text.find('`') != std::string::npos) {
        throw shape_error(fmt::format("{} holds a token with a backtick, which a prompt cannot quote", pointer), where);
    }
    return "`" + text + "`";
}

// ---- constraints ----------------------------------------------------------------------------

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

/// Whether `other` lies within the declared absolute `tolerance` of the exact `value`, certified by
/// judge_entry (exact arithmetic in the domain, enclosures outside it; `decided` false when they
/// cannot tell).
EntryVerdict within_tolerance(const Value& value, const Real& other, const Value& tolerance) {
    const Tolerance tol{Tolerance::Kind::Absolute, tolerance.rational(), 0};
    const AnswerEntry as_decimal{to_ascii(value), AnswerEntry::Form::Decimal, Real::of(value)};
    return judge_entry(as_decimal, other, tol);
}

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

// ---- drawing --------------------------------------------------------------------------------

/// Replaces every number under `target` (a value, a row or rows) with a draw of `e`; a choice
/// replaces the whole target.
void draw_into(Json& target, const VaryEntry& e, SplitMix64& rng) {
    if (!e.integers) {
        target = Json::parse(e.choices[rng.below(e.choices.size())]);
        return;
    }
    if (target.is_array()) {
        for (auto& x : target) draw_into(x, e, rng);
        return;
    }
    const std::int64_t k = rng.between(e.low, e.high);
    if (e.multiple_of_a) {
        target = to_ascii(Value::ln2() * Value(static_cast<long>(k)));
    } else {
        target = k;
    }
}

/// Fills `{{/pointer}}` placeholders with the report's quantities.
std::string fill_prompt(const Context& c, const Json& doc) {
    const std::string& text = c.variation().prompt.empty() ? c.exercise.prompt : c.variation().prompt;
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t open = text.find("{{", i);
        if (open == std::string::npos) break;
        const std::size_t close = text.find("}}", open + 2);
        if (close == std::string::npos) {
            throw shape_error("a \"{{\" placeholder is not closed by \"}}\"", c.at("/prompt"));
        }
        out += text.substr(i, open - i);
        Location where = c.at("/prompt");
        where.context = "placeholder";
        const std::string pointer = text.substr(open + 2, close - open - 2);
        out += names_tokens(pointer) ? tokens_markdown(pointer, doc, where)
                                     : quantity_markdown(report_at(doc, pointer, where), where);
        i = close + 2;
    }
    return out + text.substr(i);
}

/// The scenario of a drawn file `doc` as a variant runs it: the exercise alone, no learner
/// answers or expect entries (they belong to the base).
Scenario variant_scenario(const Context& c, const Json& doc) {
    Scenario s = parse_scenario(doc.dump(), c.base->file);
    s.learner_answers.clear();
    s.expect.clear();
    Exercise ex = c.exercise;
    ex.learner_answers.clear();
    s.exercises = {ex};
    return s;
}

/// The part of a drawn scenario that the exercise needs: its reads, interventions, costs and
/// rollouts, and whatever its parts, answer and prompt point into (`/layers/l/…`). A draw runs
/// only that, so a layer or an intervention table the exercise never reads is not recomputed
/// for every draw (issue 27: 20 variants beside an unrelated 100-row layer ran past 30 s). The
/// variant's file still holds the whole scenario.
Scenario needed_only(const Context& c, Scenario s) {
    std::vector<std::string> pointers;
    const Variation& v = c.variation();
    for (const auto& part : v.parts) pointers.push_back(part.at);
    pointers.push_back(v.answer);
    const std::string& prompt = v.prompt.empty() ? c.exercise.prompt : v.prompt;
    for (std::size_t open = prompt.find("{{"); open != std::string::npos; open = prompt.find("{{", open + 2)) {
        const std::size_t close = prompt.find("}}", open + 2);
        if (close == std::string::npos) break;
        pointers.push_back(prompt.substr(open + 2, close - open - 2));
    }
    for (const auto& r : c.exercise.reads) pointers.push_back(detail::pointer_join("/reads", r));
    for (const auto& r : c.exercise.interventions) {
        pointers.push_back(detail::pointer_join("/interventions", r.substr(0, r.find('/'))));
    }
    for (const auto& r : c.exercise.costs) pointers.push_back(detail::pointer_join("/costs", r));
    // A rollout is named with its regime and step (`r/generation/3`): the rollout is r.
    for (const auto& r : c.exercise.rollouts) {
        pointers.push_back(detail::pointer_join("/rollouts", r.substr(0, r.find('/'))));
    }
    for (const auto& r : c.exercise.layers)
        pointers.push_back(detail::pointer_join("/layers", r.substr(0, r.find('/'))));
    return only_what_pointers_need(std::move(s), pointers);
}

/// What the run report computes of what the exercise needs (needed_only): the report without
/// what it only echoes of the file (the title, the assumptions, the vocabulary as declared).
/// Probing whether an entry varies runs this once per probe, so a layer the exercise never
/// reads is not recomputed for each (issue 27).
Json computed_quantities(const Context& c, const Scenario& s) {
    Json doc = detail::report_to_json(run_scenario(needed_only(c, s)));
    for (const char* echoed : {"title", "assumptions", "vocabulary"}) doc.erase(echoed);
    return doc;
}

enum class Varies { Yes, No, OnlyItsValue, Undecided };

/// Whether `vary` entry i, set alone to other values its range allows, changes what the base
/// scenario computes (`base`). A value the scenario refuses (a score outside the domain) is
/// passed over for the next; the probes are fixed, so every run decides alike.
Varies entry_varies(const Context& c, std::size_t i, const Json& base) {
    const VaryEntry& e = c.variation().vary[i];
    const Json::json_pointer at(e.at);
    const Json& original = c.base_json.at(at);
    SplitMix64 rng(0x9E3779B97F4A7C15ULL + i);
    bool other_value = false;
    for (int probe = 0; probe < 16; ++probe) {
        Json doc = c.base_json;
        draw_into(doc.at(at), e, rng);
        if (doc.at(at) == original) continue;
        other_value = true;
        try {
            return computed_quantities(c, variant_scenario(c, doc)) != base ? Varies::Yes : Varies::No;
        } catch (const Error&) {
            continue;  // this value makes no valid run; the draws report it if every value does
        }
    }
    return other_value ? Varies::Undecided : Varies::OnlyItsValue;
}

/// Every `vary` entry must change some computed quantity: one that does not (a named matrix
/// the layers hold their own copy of, an embedding no source or sequence uses) would make every
/// variant the same, silently. ReferenceError at the entry.
void check_entries_vary(const Context& c) {
    const Variation& v = c.variation();
    Json base;
    try {
        base = computed_quantities(c, variant_scenario(c, c.base_json));
    } catch (const Error&) {
        return;  // the base itself does not run as a variant: the draws say why
    }
    for (std::size_t i = 0; i < v.vary.size(); ++i) {
        const Varies r = entry_varies(c, i, base);
        if (r == Varies::No) {
            throw reference_error(fmt::format("{} changes no computed quantity, so every variant would be the "
                                              "same: vary the entry the computation reads (a layer holds its own "
                                              "copy of a named matrix: /layers/NAME/heads/H/wk/I/J; docs/variants.md)",
                                              v.vary[i].at),
                                  c.at(fmt::format("/vary/{}/at", i)));
        }
        if (r == Varies::OnlyItsValue) {
            throw reference_error(fmt::format("{}: the range allows only the value the scenario has, so every "
                                              "variant would be the same",
                                              v.vary[i].at),
                                  c.at(fmt::format("/vary/{}", i)));
        }
    }
}

struct Drawn {
    Variant variant;
    std::string values;  ///< the drawn entries, to tell equal variants apart
    Json answer;         ///< the report's quantity at the variation's `answer`
};

Drawn draw_one(const Context& c, std::uint64_t seed, std::size_t number) {
    const Variation& v = c.variation();
    SplitMix64 rng(seed);
    std::map<std::string, std::int64_t> failures;
    std::vector<std::string> order;  // constraint names in the order they first failed
    const std::int64_t max_draws = limits().max_variant_draws;
    for (std::int64_t draw = 1; draw <= max_draws; ++draw) {
        Json doc = c.base_json;
        std::string values;
        for (const auto& e : v.vary) {
            Json& target = doc.at(Json::json_pointer(e.at));
            draw_into(target, e, rng);
            values += target.dump() + ";";
        }
        Scenario s;
        try {
            s = variant_scenario(c, doc);
        } catch (const Error& e) {
            // A drawn value the scenario cannot hold (a choice of the wrong width, a number where
            // a name belongs) is the declaration's fault: say so at `vary`.
            throw Error(e.kind(), c.at("/vary"),
                        fmt::format("variant {} (seed {}) drew {}, which makes no valid scenario: {}", number, seed,
                                    values.substr(0, values.size() - 1), e.what()));
        }
        s.title = fmt::format("{} — exercise {}, variant seed {}", c.base->title.empty() ? c.base->file : c.base->title,
                              c.exercise.id, seed);
        Report rep;
        std::string failed;
        try {
            rep = run_scenario(needed_only(c, s));
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::Domain) throw;
            failed = "scores_in_domain";
        }
        Json report_doc;
        if (failed.empty()) {
            report_doc = detail::report_to_json(rep);
            failed = failed_constraint(c, rep, report_doc);
        }
        if (!failed.empty()) {
            if (failures[failed]++ == 0) order.push_back(failed);
            continue;
        }
        // The variant: its prompt filled in, and the parts and answer as expect entries, so that
        // `verify` checks the file against its own key.
        s.exercises.front().prompt = fill_prompt(c, report_doc);
        // The seed in the variation, where `check --variants` finds it (not only in the title,
        // which a teacher may change).
        s.exercises.front().variation->seed = seed;
        std::vector<std::string> pointers;
        for (const auto& p : v.parts) pointers.push_back(p.at);
        pointers.push_back(v.answer);
        for (const auto& p : pointers) {
            const bool known =
                std::any_of(s.expect.begin(), s.expect.end(), [&](const auto& e) { return e.first == p; });
            if (!known) s.expect.emplace_back(p, report_at(report_doc, p, c.at("")).dump());
        }
        rep.scenario = s;
        Drawn d;
        d.variant.number = number;
        d.variant.seed = seed;
        d.variant.draws = static_cast<std::size_t>(draw);
        d.variant.file_text = write_scenario(s);
        d.variant.report = std::move(rep);
        d.values = values;
        d.answer = report_at(report_doc, v.answer, c.at("/answer"));
        return d;
    }
    std::string most = order.front();
    for (const auto& name : order) most = failures[name] > failures[most] ? name : most;
    std::string all;
    for (const auto& name : order) all += fmt::format("{}{} {}", all.empty() ? "" : ", ", name, failures[name]);
    throw over_limit(
        Limit::max_variant_draws,
        fmt::format("variant {} (seed {}): no draw met the constraints in {} draws", number, seed, max_draws),
        c.at("/constraints"),
        fmt::format("{} failed most ({} of {} draws; failures: {})", most, failures[most], max_draws, all));
}

/// Whether two variants' answers are too close for `distinct_answers` (docs/variants.md#constraints):
/// one number each, within the tolerance of each other (certified; a distance the enclosures
/// cannot decide counts as too close); anything else, equal as exact values.
bool answers_too_close(const Json& x, const Json& y, const Value& tolerance, const Location& where) {
    if (x.is_array() || y.is_array() || x.is_null() || y.is_null()) return canonical(x, where) == canonical(y, where);
    const EntryVerdict within =
        within_tolerance(detail::json_value(x, where), Real::of(detail::json_value(y, where)), tolerance);
    return !within.decided || within.match;
}

std::size_t find_exercise(const Scenario& s, const std::string& id) {
    for (std::size_t i = 0; i < s.exercises.size(); ++i) {
        if (s.exercises[i].id == id) return i;
    }
    for (std::size_t i = 0; i < s.exercises.size(); ++i) {
        if ("exercise-" + s.exercises[i].id == id) return i;
    }
    Location where;
    where.context = "--exercise";
    const auto id_of = [](const Exercise& e) -> const std::string& { return e.id; };
    throw usage_error(
        fmt::format("unknown exercise \"{}\" (exercises of {}: {})", id, s.file, detail::name_list(s.exercises, id_of)),
        where);
}

}  // namespace

VariantSet draw_variants(const Scenario& base, const VariantRequest& request) {
    Context c;
    c.base = &base;
    c.index = find_exercise(base, request.exercise);
    c.exercise = base.exercises[c.index];
    if (!c.exercise.variation) {
        Location where;
        where.context = "--exercise";
        throw usage_error(
            fmt::format("exercise {} of {} declares no \"variation\": nothing may vary (docs/variants.md)",
                        c.exercise.id, base.file),
            where);
    }
    Location count_at;
    count_at.context = "--count";
    if (request.count > limits().max_variants) {
        throw over_limit(Limit::max_variants, fmt::format("{} variants asked for", request.count), count_at);
    }
    if (request.count < 1) {
        throw usage_error(fmt::format("{} variants asked for; give a count of at least 1", request.count), count_at);
    }
    if (request.variant_seed && request.count != 1) {
        throw usage_error("--variant-seed re-creates one variant: leave out --count or give --count 1", count_at);
    }
    c.base_json = Json::parse(write_scenario(base));
    const Variation& v = c.variation();
    for (std::size_t i = 0; i < v.vary.size(); ++i) {
        // Resolves (or names the entry that does not) before anything is drawn.
        const Location where = c.at(fmt::format("/vary/{}/at", i));
        const Json* found = nullptr;
        try {
            found = &c.base_json.at(Json::json_pointer(v.vary[i].at));
        } catch (const nlohmann::json::exception&) {
            throw reference_error(fmt::format("{} names nothing in the scenario (pointers address the file as "
                                              "`variants` writes it: docs/variants.md)",
                                              v.vary[i].at),
                                  where);
        }
        const Json& target = *found;
        if (target.is_object() || target.is_boolean() || target.is_null()) {
            throw shape_error(fmt::format("{} is not a value, a row or a matrix of the scenario", v.vary[i].at), where);
        }
    }
    check_entries_vary(c);
    VariantSet set;
    set.source = base.file;
    set.exercise = c.exercise;
    set.index = c.index;
    set.seed = request.seed;
    set.variant_seed = request.variant_seed;
    if (request.variant_seed) {
        set.variants.push_back(draw_one(c, request.seed, 1).variant);
        return set;
    }
    // Variant k's seed is the k-th output of SplitMix64(seed); a variant equal to an earlier one
    // (or, under distinct_answers, whose answer is within the tolerance of an earlier one's) is
    // skipped for the next seed, so every variant is re-created by its own seed alone.
    SplitMix64 master(request.seed);
    std::vector<std::string> seen;
    std::vector<Json> answers;
    std::int64_t close_answers = 0;
    const std::int64_t max_seeds = request.count + limits().max_variant_draws;
    for (std::int64_t tried = 0; static_cast<std::int64_t>(set.variants.size()) < request.count; ++tried) {
        if (tried == max_seeds) {
            if (close_answers > 0) {
                throw over_limit(
                    Limit::max_variant_draws,
                    fmt::format("only {} variants with distinct answers in {} extra seeds: {} drawn "
                                "variants had an answer within the tolerance {} of an earlier one",
                                set.variants.size(), max_seeds - request.count, close_answers,
                                exact_decimal(v.tolerance)),
                    c.at("/constraints/distinct_answers"),
                    fmt::format("the declared ranges allow too few different answers for {}", request.count));
            }
            throw over_limit(Limit::max_variant_draws,
                             fmt::format("{} different variants need more than {} extra seeds (the ranges gave {} "
                                         "different in {} seeds)",
                                         request.count, max_seeds - request.count, set.variants.size(), max_seeds),
                             c.at("/vary"), "the declared ranges allow too few");
        }
        Drawn d = draw_one(c, master.next(), set.variants.size() + 1);
        if (std::find(seen.begin(), seen.end(), d.values) != seen.end()) continue;
        if (v.distinct_answers) {
            const Location where = c.at("/answer");
            const auto close = [&](const Json& earlier) {
                return answers_too_close(earlier, d.answer, v.tolerance, where);
            };
            if (std::any_of(answers.begin(), answers.end(), close)) {
                ++close_answers;
                continue;
            }
            answers.push_back(d.answer);
        }
        seen.push_back(d.values);
        set.variants.push_back(std::move(d.variant));
    }
    return set;
}

}  // namespace exactattn
