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
#include "tools/variants_detail.hpp"
#include "core/names.hpp"
#include "report/report_json.hpp"
#include "scenario/pointer.hpp"

namespace exactattn {

namespace {

using detail::canonical;
using detail::exact_decimal;
using detail::Json;
using detail::quantity_formula;
using detail::report_at;
using detail::variants::Context;
using detail::variants::failed_constraint;
using detail::variants::within_tolerance;

/// The quantity as author math: `$…$` LaTeX in the Markdown of a prompt.
std::string quantity_markdown(const Json& j, const Location& where) {
    return "$" + quantity_formula(j, where).render(MathForm::Latex) + "$";
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

/// The exercise the request names, checked before anything is drawn: that it declares a
/// variation, the count asked for, and every `vary` entry naming a value, a row or a matrix of the
/// scenario that its ranges change.
Context variation_context(const Scenario& base, const VariantRequest& request) {
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
    return c;
}

// Variant k's seed is the k-th output of SplitMix64(seed); a variant equal to an earlier one
// (or, under distinct_answers, whose answer is within the tolerance of an earlier one's) is
// skipped for the next seed, so every variant is re-created by its own seed alone.
void draw_distinct(const Context& c, const VariantRequest& request, VariantSet& set) {
    const Variation& v = c.variation();
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
}

}  // namespace

VariantSet draw_variants(const Scenario& base, const VariantRequest& request) {
    const Context c = variation_context(base, request);
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
    draw_distinct(c, request, set);
    return set;
}

}  // namespace exactattn
