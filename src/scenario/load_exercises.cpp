// SPDX-License-Identifier: MIT
// exactattn internal: the scenario loader's learner answers, exercises and variations (docs/check.md,
// docs/variants.md).
#include "scenario/load.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "core/names.hpp"
#include "scenario/json.hpp"
#include "scenario/vocabulary.hpp"

namespace exactattn::detail {

void Loader::learner_answers(Scenario& s) {
    const auto allowed = {"target", "proposed", "note", "tolerance", "accept"};
    r_.each_object(
        root_, "learner_answers", allowed, [&](const std::string& name, const Json& v, const std::string& ptr) {
            LearnerAnswer la;
            la.name = name;
            if (!v.contains("target") || !v.contains("proposed")) {
                throw shape_error("a learner answer needs \"target\" and \"proposed\"", r_.at(ptr));
            }
            la.target = r_.string(v["target"], ptr + "/target");
            if (la.target.empty() || la.target[0] != '/') {
                throw shape_error(
                    "\"target\" must be a JSON pointer into the run report, e.g. "
                    "/reads/example-14.1/weights",
                    r_.at(ptr + "/target"));
            }
            const std::string pp = ptr + "/proposed";
            if (names_tokens(la.target)) {
                token_answer(la, v["proposed"], pp);
            } else if (v["proposed"].is_array() && !v["proposed"].empty() && v["proposed"][0].is_array()) {
                const auto& rows = v["proposed"];  // row by row, like --proposed
                la.columns = rows[0].size();
                for (std::size_t r = 0; r < rows.size(); ++r) {
                    const auto& row = r_.array(rows[r], pointer_join(pp, r));
                    if (row.size() != la.columns || row.empty()) {
                        throw shape_error(
                            fmt::format("row {} has {} entries, row 1 has {}", r + 1, row.size(), la.columns),
                            r_.at(pp));
                    }
                    for (std::size_t c = 0; c < row.size(); ++c) {
                        answer_entry(la, row[c], pointer_join(pointer_join(pp, r), c));
                    }
                }
            } else if (v["proposed"].is_array()) {
                const auto& items = v["proposed"];
                if (items.empty()) throw shape_error("an empty list proposes nothing", r_.at(pp));
                for (std::size_t i = 0; i < items.size(); ++i) answer_entry(la, items[i], pointer_join(pp, i));
            } else {
                answer_entry(la, v["proposed"], pp);
                la.scalar = true;
            }
            if (v.contains("tolerance")) la.tolerance = tolerance(v["tolerance"], ptr + "/tolerance");
            if (v.contains("accept")) la.accept = accepted(v["accept"], ptr + "/accept");
            if (v.contains("note")) la.note = r_.string(v["note"], ptr + "/note");
            s.learner_answers.push_back(std::move(la));
        });
}

void Loader::token_answer(LearnerAnswer& la, const Json& j, const std::string& ptr) {
    auto one = [&](const Json& x, const std::string& at) {
        if (x.is_null() && j.is_array()) {  // the place of a step whose tie the rule refused
            la.entries.push_back(no_token_entry());
            la.proposed.emplace_back();
            return;
        }
        if (!x.is_string()) {
            throw shape_error(
                fmt::format("{} holds tokens: expected a token (a string), found {}", la.target, detail::json_type(x)),
                r_.at(at));
        }
        la.entries.push_back(token_entry(x.get<std::string>()));
        la.proposed.emplace_back();
    };
    if (!j.is_array()) {
        one(j, ptr);
        la.scalar = true;
        return;
    }
    if (j.empty()) throw shape_error("an empty list proposes nothing", r_.at(ptr));
    for (std::size_t i = 0; i < j.size(); ++i) one(j[i], pointer_join(ptr, i));
}

void Loader::answer_entry(LearnerAnswer& la, const Json& j, const std::string& ptr) {
    std::string text;
    if (j.is_string())
        text = j.get<std::string>();
    else if (const auto t = detail::exact_number_text(j))
        text = *t;
    else if (j.is_number_integer())
        text = j.dump();
    else
        throw shape_error(fmt::format("expected a number or a string, found {}", detail::json_type(j)), r_.at(ptr));
    la.entries.push_back(
        placed([&] { return r_.at(ptr); }, [&] { return parse_answer_entry(text); }, KeepPlace::Nothing));
    const auto& value = la.entries.back().value;
    la.proposed.push_back(value.exact ? *value.exact : Value());
}

Tolerance Loader::tolerance(const Json& j, const std::string& ptr) {
    r_.object(j, ptr);
    r_.only_keys(j, ptr, {"absolute", "relative", "decimal_places", "significant_figures"});
    if (j.size() != 1) {
        throw shape_error("a tolerance has one of absolute, relative, decimal_places or significant_figures",
                          r_.at(ptr));
    }
    const auto first = j.begin();
    const std::string key = first.key();
    const Json& val = first.value();
    std::string amount;
    if (val.is_string())
        amount = val.get<std::string>();
    else if (const auto t = detail::exact_number_text(val))
        amount = *t;
    else if (val.is_number_integer())
        amount = val.dump();
    else
        throw shape_error(fmt::format("expected a number, found {}", detail::json_type(val)), r_.at(ptr + "/" + key));
    std::string kind = key;
    std::replace(kind.begin(), kind.end(), '_', '-');
    return parse_tolerance(kind + ":" + amount, r_.at(ptr + "/" + key));
}

std::vector<std::string> Loader::accepted(const Json& j, const std::string& ptr) {
    std::vector<std::string> out;
    const auto& a = r_.array(j, ptr);
    for (std::size_t i = 0; i < a.size(); ++i) {
        out.push_back(r_.string(a[i], pointer_join(ptr, i)));
        if (out.back() != "remaining-weights") {
            throw reference_error(fmt::format("\"{}\" cannot be accepted as right; the one mistake an exercise "
                                              "may accept is remaining-weights",
                                              out.back()),
                                  r_.at(pointer_join(ptr, i)));
        }
    }
    return out;
}

std::vector<std::string> Loader::names(const Json& ex, const char* key, const std::string& ptr,
                                       const std::set<std::string>& known, const char* what) {
    return ref_list(ex, key, ptr, [&](const std::string& ref, const std::string& pi) {
        if (known.count(ref) == 0) throw reference_error(fmt::format("unknown {} \"{}\"", what, ref), r_.at(pi));
    });
}

std::optional<std::size_t> Loader::numbered(const std::string& rest, const std::string& prefix) {
    if (rest.rfind(prefix, 0) != 0 || rest.size() == prefix.size() || rest.size() > prefix.size() + 6) {
        return std::nullopt;
    }
    const bool digits = std::all_of(rest.begin() + static_cast<std::ptrdiff_t>(prefix.size()), rest.end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || (rest.size() > prefix.size() + 1 && rest[prefix.size()] == '0')) return std::nullopt;
    return std::stoul(rest.substr(prefix.size()));
}

std::vector<std::string> Loader::intervention_refs(const Scenario& s, const Json& ex, const std::string& ptr) {
    return ref_list(ex, "interventions", ptr, [&](const std::string& ref, const std::string& pi) {
        const std::string name = ref.substr(0, ref.find('/'));
        const InterventionSpec* spec = nullptr;
        for (const auto& is : s.interventions) spec = is.name == name ? &is : spec;
        if (spec == nullptr) throw reference_error(fmt::format("unknown intervention \"{}\"", name), r_.at(pi));
        if (name.size() == ref.size()) return;
        const auto k = numbered(ref.substr(name.size()), "/rows/");
        if (!k) {
            throw reference_error(fmt::format("\"{}\" names no row: write \"{}/rows/<k>\", row k as in the "
                                              "report's /interventions/{}/rows/<k> (0 is the row without "
                                              "intervention, k the k-th listed position)",
                                              ref, name, name),
                                  r_.at(pi));
        }
        const std::size_t rows = spec->positions.size() + 1;
        if (*k >= rows) {
            throw reference_error(fmt::format("\"{}\" names no row: \"{}\" has rows 0 to {}", ref, name, rows - 1),
                                  r_.at(pi));
        }
    });
}

std::vector<std::string> Loader::rollout_refs(const Scenario& s, const Json& ex, const std::string& ptr) {
    return ref_list(ex, "rollouts", ptr, [&](const std::string& ref, const std::string& pi) {
        const std::string name = ref.substr(0, ref.find('/'));
        const RolloutSpec* spec = nullptr;
        for (const auto& rs : s.rollouts) spec = rs.name == name ? &rs : spec;
        if (spec == nullptr) throw reference_error(fmt::format("unknown rollout \"{}\"", name), r_.at(pi));
        if (name.size() == ref.size()) return;
        const std::size_t steps = spec->steps > 0 ? spec->steps : spec->reference.size();
        const std::string rest = ref.substr(name.size());
        // Teacher forcing exists only with a reference.
        auto k = spec->reference.empty() ? std::nullopt : numbered(rest, "/teacher-forcing/steps/");
        if (!k) k = numbered(rest, "/generation/steps/");
        if (!k || *k < 1 || *k > steps) {
            throw reference_error(fmt::format("\"{}\" names no step: write \"{}/<regime>/steps/<k>\" with "
                                              "<regime> teacher-forcing (with a reference) or generation and "
                                              "k from 1 to {}, as in the report's /rollouts/{}/<regime>/steps/<k>",
                                              ref, name, steps, name),
                                  r_.at(pi));
        }
    });
}

std::vector<std::string> Loader::layer_refs(const Scenario& s, const Json& ex, const std::string& ptr) {
    return ref_list(ex, "layers", ptr, [&](const std::string& ref, const std::string& pi) {
        const std::string name = ref.substr(0, ref.find('/'));
        const LayerSpec* spec = nullptr;
        for (const auto& ls : s.layers) spec = ls.name == name ? &ls : spec;
        if (spec == nullptr) throw reference_error(fmt::format("unknown layer \"{}\"", name), r_.at(pi));
        std::vector<std::string> seg;
        for (std::size_t at = name.size(); at < ref.size();) {
            const std::size_t next = std::min(ref.find('/', at + 1), ref.size());
            seg.push_back(ref.substr(at + 1, next - at - 1));
            at = next;
        }
        const AttentionLayer& l = spec->layer;
        const std::size_t n_q = s.sequence(spec->sequence).rows.size();
        const std::size_t n_k = spec->memory.empty() ? n_q : s.sequence(spec->memory).rows.size();
        const std::size_t d_model = n_q == 0 ? 0 : s.sequence(spec->sequence).rows[0].size();
        const auto width = [](const Matrix& m) { return m.empty() ? std::size_t{0} : m[0].size(); };
        std::size_t concat = 0;
        for (const auto& h : l.heads) concat += width(h.wv);
        // Rows and columns of each quantity, as the report holds it (columns 0: a vector).
        std::size_t rows = 0;
        std::size_t cols = 0;
        bool known = true;
        std::size_t k = 0;  // the first index segment
        if (!seg.empty() && seg[0] == "heads") {
            const auto h = seg.size() > 1 ? numbered("/" + seg[1], "/") : std::nullopt;
            if (!h || *h >= l.heads.size()) {
                throw reference_error(fmt::format("\"{}\" names no head: layer \"{}\" has heads 0 to {} (as in the "
                                                  "report's /layers/{}/heads/<h>)",
                                                  ref, name, l.heads.size() - 1, name),
                                      r_.at(pi));
            }
            const AttentionHead& head = l.heads[*h];
            const std::string q = seg.size() > 2 ? seg[2] : "";
            k = 3;
            if (q == "queries") {
                rows = n_q, cols = width(head.wq);
            } else if (q == "keys") {
                rows = n_k, cols = width(head.wk);
            } else if (q == "values") {
                rows = n_k, cols = width(head.wv);
            } else if (q == "scores" || q == "weights") {
                rows = n_q, cols = n_k;
            } else if (q == "denominators") {
                rows = n_q;
            } else if (q == "outputs") {
                rows = n_q, cols = width(head.wv);
            } else {
                known = seg.size() == 2;
            }
        } else if (!seg.empty()) {
            const std::string& q = seg[0];
            k = 1;
            rows = n_q;
            if (q == "input") {
                cols = d_model;
            } else if (q == "masked") {
                cols = n_k;
            } else if (q == "concat") {
                cols = concat;
            } else if (q == "output") {
                cols = l.wo ? width(*l.wo) : concat;
            } else {
                known = false;
            }
        }
        if (!known) {
            throw reference_error(fmt::format("\"{}\" names nothing of layer \"{}\": write \"{}\", \"{}/heads/<h>\", "
                                              "\"{}/heads/<h>/<quantity>\" (queries, keys, values, scores, "
                                              "denominators, weights, outputs) or \"{}/<input|masked|concat|output>\", "
                                              "each optionally with /<row> and /<column>, as in the report's "
                                              "/layers/{}/…",
                                              ref, name, name, name, name, name, name),
                                  r_.at(pi));
        }
        const std::size_t extents[2] = {rows, cols};
        for (std::size_t i = k; i < seg.size(); ++i) {
            const auto idx = numbered("/" + seg[i], "/");
            const std::size_t limit = i - k < 2 ? extents[i - k] : 0;
            if (!idx || *idx >= limit) {
                throw reference_error(limit == 0 ? fmt::format("\"{}\" names no entry: \"{}\" has no further index",
                                                               ref, ref.substr(0, ref.size() - seg[i].size() - 1))
                                                 : fmt::format("\"{}\" names no entry: {} indices run from 0 to {}",
                                                               ref, i == k ? "its row" : "its column", limit - 1),
                                      r_.at(pi));
            }
        }
    });
}

void Loader::exercises(Scenario& s) {
    if (!root_.contains("exercises")) return;
    const auto& a = r_.array(root_["exercises"], "/exercises");
    std::set<std::string> reads, costs, learners, ids;
    for (const auto& r : s.reads) reads.insert(r.name);
    for (const auto& r : s.costs) costs.insert(r.name);
    for (const auto& r : s.learner_answers) learners.insert(r.name);
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string ptr = pointer_join("/exercises", i);
        const Json& ex = r_.object(a[i], ptr);
        r_.only_keys(ex, ptr,
                     {"id", "title", "prompt", "reads", "interventions", "costs", "learner_answers", "rollouts",
                      "layers", "explanation", "tolerance", "accept", "variation"});
        Exercise e;
        if (!ex.contains("id") || !ex.contains("prompt")) {
            throw shape_error("an exercise needs \"id\" and \"prompt\"", r_.at(ptr));
        }
        e.id = r_.string(ex["id"], ptr + "/id");
        if (!ids.insert(e.id).second) {
            throw shape_error(fmt::format("exercise id \"{}\" is used twice", e.id), r_.at(ptr + "/id"));
        }
        if (ex.contains("title")) e.title = r_.string(ex["title"], ptr + "/title");
        e.prompt = r_.string(ex["prompt"], ptr + "/prompt");
        e.reads = names(ex, "reads", ptr, reads, "read");
        e.interventions = intervention_refs(s, ex, ptr);
        e.costs = names(ex, "costs", ptr, costs, "cost case");
        e.learner_answers = names(ex, "learner_answers", ptr, learners, "learner answer");
        e.rollouts = rollout_refs(s, ex, ptr);
        e.layers = layer_refs(s, ex, ptr);
        if (ex.contains("explanation")) e.explanation = r_.string(ex["explanation"], ptr + "/explanation");
        if (ex.contains("tolerance")) e.tolerance = tolerance(ex["tolerance"], ptr + "/tolerance");
        if (ex.contains("accept")) e.accept = accepted(ex["accept"], ptr + "/accept");
        // The exercise's rules hold for its learner answers that declare none of their own.
        for (auto& la : s.learner_answers) {
            if (std::find(e.learner_answers.begin(), e.learner_answers.end(), la.name) == e.learner_answers.end()) {
                continue;
            }
            if (!la.tolerance) la.tolerance = e.tolerance;
            if (la.accept.empty()) la.accept = e.accept;
        }
        if (ex.contains("variation")) e.variation = variation(ex["variation"], ptr + "/variation");
        // Every exercise has an answer key: something its derivation is made from.
        if (e.reads.empty() && e.interventions.empty() && e.costs.empty() && e.learner_answers.empty() &&
            e.rollouts.empty() && e.layers.empty() && e.explanation.empty() && !e.variation) {
            throw shape_error(fmt::format("exercise \"{}\" names nothing its answer key can be derived from: list "
                                          "reads, interventions, costs, layers, rollouts or learner_answers, or "
                                          "give a variation or an explanation",
                                          e.id),
                              r_.at(ptr));
        }
        s.exercises.push_back(std::move(e));
    }
}

// A variant's seed: a string of decimal digits from 0 to 2^64 − 1 (a JSON number that large
// loses its last digits in most readers).
std::uint64_t Loader::seed(const Json& j, const std::string& ptr) {
    const std::string text = r_.string(j, ptr);
    const bool digits = !text.empty() && text.size() <= 20 &&
                        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || mpz_class(text) > mpz_class(std::to_string(UINT64_MAX))) {
        throw shape_error(fmt::format("a seed is a string of decimal digits from 0 to {}, not \"{}\"", UINT64_MAX,
                                      escape_controls(text)),
                          r_.at(ptr));
    }
    std::uint64_t out = 0;
    for (const char c : text) out = out * 10 + static_cast<std::uint64_t>(c - '0');
    return out;
}

Variation Loader::variation(const Json& v, const std::string& ptr) {
    r_.object(v, ptr);
    r_.only_keys(v, ptr, {"vary", "prompt", "parts", "answer", "tolerance", "constraints", "seed"});
    for (const char* k : {"vary", "parts", "answer", "tolerance"}) {
        if (!v.contains(k)) throw shape_error(fmt::format("a variation needs \"{}\"", k), r_.at(ptr));
    }
    Variation out;
    const std::string vp = ptr + "/vary";
    const auto& vary = r_.array(v["vary"], vp);
    if (vary.empty()) throw shape_error("nothing varies: give at least one entry", r_.at(vp));
    for (std::size_t i = 0; i < vary.size(); ++i) {
        const std::string p = pointer_join(vp, i);
        const Json& x = r_.object(vary[i], p);
        r_.only_keys(x, p, {"at", "integers", "choices", "multiple_of_a"});
        if (!x.contains("at")) throw shape_error("missing \"at\"", r_.at(p));
        if (x.contains("integers") == x.contains("choices")) {
            throw shape_error("a varied entry gives exactly one of \"integers\" or \"choices\"", r_.at(p));
        }
        VaryEntry e;
        e.at = pointer(x["at"], p + "/at");
        if (x.contains("integers")) {
            const std::string ip = p + "/integers";
            const auto& range = r_.array(x["integers"], ip);
            if (range.size() != 2) {
                throw shape_error(fmt::format("expected [low, high], found {} entries", range.size()), r_.at(ip));
            }
            const std::int64_t big = std::int64_t{1} << 31;
            e.integers = true;
            e.low = r_.integer(range[0], ip + "/0", -big, big);
            e.high = r_.integer(range[1], ip + "/1", e.low, big);
        } else {
            const std::string cp = p + "/choices";
            const auto& choices = r_.array(x["choices"], cp);
            if (choices.empty()) throw shape_error("no choices given", r_.at(cp));
            for (const auto& c : choices) e.choices.push_back(detail::plain_json(c).dump());
        }
        if (x.contains("multiple_of_a")) {
            e.multiple_of_a = flag(x["multiple_of_a"], p + "/multiple_of_a");
            if (e.multiple_of_a && !e.integers) {
                throw shape_error("\"multiple_of_a\" applies to \"integers\" (write choices as multiples of a)",
                                  r_.at(p + "/multiple_of_a"));
            }
        }
        out.vary.push_back(std::move(e));
    }
    if (v.contains("prompt")) out.prompt = r_.string(v["prompt"], ptr + "/prompt");
    const std::string pp = ptr + "/parts";
    const auto& parts = r_.array(v["parts"], pp);
    if (parts.empty()) throw shape_error("a variation needs at least one part", r_.at(pp));
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string p = pointer_join(pp, i);
        const Json& x = r_.object(parts[i], p);
        r_.only_keys(x, p, {"label", "at"});
        if (!x.contains("label") || !x.contains("at")) {
            throw shape_error("a part needs \"label\" and \"at\"", r_.at(p));
        }
        out.parts.push_back(VariationPart{r_.string(x["label"], p + "/label"), pointer(x["at"], p + "/at")});
    }
    out.answer = pointer(v["answer"], ptr + "/answer");
    if (names_tokens(out.answer)) {
        throw shape_error(fmt::format("{} names tokens; the answer is one number (the Moodle export asks a "
                                      "numerical question): list tokens as a part instead",
                                      out.answer),
                          r_.at(ptr + "/answer"));
    }
    out.tolerance = r_.value(v["tolerance"], ptr + "/tolerance");
    mpz_class den = out.tolerance.is_rational() ? mpz_class(out.tolerance.rational().get_den()) : mpz_class(3);
    for (const unsigned long p : {2UL, 5UL}) {
        while (mpz_divisible_ui_p(den.get_mpz_t(), p) != 0) den /= p;
    }
    if (!out.tolerance.is_rational() || out.tolerance.sign() <= 0 || den != 1) {
        throw shape_error(
            "the tolerance must be a positive decimal number, such as 0.001 (an absolute error, "
            "written exactly in the Moodle export)",
            r_.at(ptr + "/tolerance"));
    }
    if (v.contains("seed")) out.seed = seed(v["seed"], ptr + "/seed");
    if (v.contains("constraints")) {
        const std::string cp = ptr + "/constraints";
        const Json& c = r_.object(v["constraints"], cp);
        r_.only_keys(c, cp,
                     {"max_denominator", "unique_maximum", "distinct_parts", "distinct_answers", "scores_in_domain",
                      "mistakes_differ"});
        if (c.contains("max_denominator")) {
            out.max_denominator = r_.integer(c["max_denominator"], cp + "/max_denominator", 1, std::int64_t{1} << 31);
        }
        if (c.contains("unique_maximum")) out.unique_maximum = flag(c["unique_maximum"], cp + "/unique_maximum");
        if (c.contains("distinct_parts")) out.distinct_parts = flag(c["distinct_parts"], cp + "/distinct_parts");
        if (c.contains("distinct_answers")) {
            out.distinct_answers = flag(c["distinct_answers"], cp + "/distinct_answers");
        }
        if (c.contains("scores_in_domain")) {
            out.scores_in_domain = flag(c["scores_in_domain"], cp + "/scores_in_domain");
        }
        if (c.contains("mistakes_differ")) {
            const std::string mp = cp + "/mistakes_differ";
            const auto& m = r_.array(c["mistakes_differ"], mp);
            for (std::size_t i = 0; i < m.size(); ++i) {
                const std::string name = r_.string(m[i], pointer_join(mp, i));
                const auto& known = detail::variation_mistake_ids();
                if (std::find(known.begin(), known.end(), name) == known.end()) {
                    throw reference_error(
                        fmt::format("unknown mistake \"{}\"; expected one of {}", name, fmt::join(known, ", ")),
                        r_.at(pointer_join(mp, i)));
                }
                out.mistakes.push_back(name);
            }
        }
    }
    return out;
}

}  // namespace exactattn::detail
