// SPDX-License-Identifier: MIT
// exactattn: `check` — judging an answer exactly against the run report, the findings on its
// shape and sums, the known mistake that reproduces a wrong one, and the answers a request names.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "exactattn/answer_entry.hpp"
#include "exactattn/check.hpp"
#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "report/report_json.hpp"
#include "report/targets.hpp"
#include "scenario/json.hpp"
#include "scenario/pointer.hpp"
#include "tools/check/locate.hpp"
#include "tools/check/mistakes.hpp"
#include "tools/check/tokens.hpp"

namespace exactattn {

namespace {

using detail::Ctx;
using detail::Flat;
using detail::Json;
using detail::Mistake;
using detail::position_list;

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

// The right value at the target: the report's entries, enclosed, and which positions have one.
struct Right {
    Flat exact;
    std::vector<std::optional<Real>> values;
    std::vector<std::size_t> present_at;
    std::vector<std::size_t> missing;
    bool gaps = false;
};

Right right_at(const Report& rep, const Json& doc, const std::string& target, const Location& where) {
    Right r;
    r.exact = detail::report_quantity(rep, target, where, doc);
    for (std::size_t i = 0; i < r.exact.values.size(); ++i) {
        const auto& v = r.exact.values[i];
        r.values.push_back(v ? std::optional<Real>(Real::of(*v)) : std::nullopt);
        (v ? r.present_at : r.missing).push_back(i);
    }
    r.gaps = r.present_at.size() != r.exact.values.size();
    return r;
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

// The answer of the right shape compared with the right value; true when it matches.
bool judged_right(const LearnerAnswer& answer, const Right& r, const Tolerance& tol, Judgement& j) {
    const Match m = match_entries(answer.entries, r.values, tol, false);
    j.rule = join(m.rules, "; ");
    if (m.ok) {
        j.correct = true;
        if (r.gaps) {
            const auto& missing = r.missing;
            j.findings.push_back(
                fmt::format("listed for the included positions {}; position{} {} {} removed and "
                            "{} none",
                            position_list(r.present_at), missing.size() == 1 ? "" : "s", position_list(missing),
                            missing.size() == 1 ? "was" : "were", missing.size() == 1 ? "has" : "have"));
        }
        j.feedback = fmt::format("Right ({}).", j.rule);
        return true;
    }
    if (m.undecided) {
        j.findings.push_back(
            "an expression in e, outside the exact domain, that enclosures to 4096 bits cannot "
            "tell from the exact value: judged not equal");
    }
    return false;
}

// How the answer's shape differs from the right value's.
// More entries than asked for, all whole numbers, that read as the asked number of entries when
// some adjacent pairs (a whole number, then digits) are decimals written with a comma
// ([0,6667, 0, 0,3333] read as 0, 6667, 0, 0, 3333: two decimals and a 0 between them). The
// first such pair as meant ("0.6667"), taking the earliest pair any such reading has, and its
// two entries; empty when no reading fits.
struct CommaPair {
    std::string meant;
    std::size_t at = 0;
};

std::optional<CommaPair> decimal_comma_pair(const LearnerAnswer& answer, std::size_t wanted) {
    const auto& e = answer.entries;
    if (wanted == 0 || answer.columns != 0 || e.size() <= wanted || e.size() > 2 * wanted) return std::nullopt;
    auto digits = [](const std::string& t, bool sign) {
        std::size_t i = sign && !t.empty() && t[0] == '-' ? 1 : 0;
        return i < t.size() && t.find_first_not_of("0123456789", i) == std::string::npos;
    };
    for (const auto& x : e) {
        if (!digits(x.text, true)) return std::nullopt;
    }
    // fits[i][g]: entries i.. read as g entries, each a whole number or a pair (whole, digits).
    const std::size_t n = e.size();
    std::vector<std::vector<char>> fits(n + 2, std::vector<char>(wanted + 1, 0));
    fits[n][0] = 1;
    for (std::size_t i = n; i-- > 0;) {
        for (std::size_t g = 1; g <= wanted; ++g) {
            fits[i][g] = fits[i + 1][g - 1] || (i + 1 < n && digits(e[i + 1].text, false) && fits[i + 2][g - 1]);
        }
    }
    // The earliest pair: entries before it single, the pair, then any reading of the rest.
    for (std::size_t i = 0; i + 1 < n && i < wanted; ++i) {
        if (digits(e[i + 1].text, false) && fits[i + 2][wanted - i - 1]) {
            return CommaPair{e[i].text + "." + e[i + 1].text, i};
        }
    }
    return std::nullopt;
}

void shape_findings(const LearnerAnswer& answer, const Right& r, Judgement& j) {
    const Flat& exact = r.exact;
    const auto& missing = r.missing;
    if (answer.columns != exact.columns) {
        j.findings.push_back(exact.columns > 0 ? fmt::format("the answer is a matrix with {} columns", exact.columns)
                                               : std::string("the answer is not a matrix"));
    } else if (answer.entries.size() != exact.values.size() && answer.entries.size() != r.present_at.size()) {
        const std::size_t wanted = r.gaps ? r.present_at.size() : exact.values.size();
        j.findings.push_back(fmt::format("{} values proposed where the answer has {}", answer.entries.size(), wanted));
        if (const auto pair = decimal_comma_pair(answer, wanted)) {
            j.findings.push_back(
                fmt::format("decimals written with a comma? {},{} reads as two entries; a decimal is "
                            "written with a point, {}",
                            answer.entries[pair->at].text, answer.entries[pair->at + 1].text, pair->meant));
        }
    } else if (r.gaps && answer.entries.size() == exact.values.size()) {
        j.findings.push_back(fmt::format(
            "position{} {} {} removed, so {} no entry here", missing.size() == 1 ? "" : "s", position_list(missing),
            missing.size() == 1 ? "was" : "were", missing.size() == 1 ? "it has" : "they have"));
    }
}

// The rows of the proposed weights of a layer (a matrix, or one row) that do not sum to 1.
void layer_weight_findings(const LearnerAnswer& answer, const std::vector<std::string>& tokens, Judgement& j) {
    if (tokens.size() < 5 || tokens[4] != "weights" || tokens.size() > 6 || answer.scalar) return;
    const std::size_t cols = answer.columns > 0 ? answer.columns : answer.proposed.size();
    if (cols == 0) return;
    for (std::size_t r = 0; r * cols < answer.proposed.size(); ++r) {
        Value sum;
        for (std::size_t c = 0; c < cols && r * cols + c < answer.proposed.size(); ++c)
            sum += answer.proposed[r * cols + c];
        if (sum != Value(1)) {
            j.findings.push_back(answer.columns > 0 ? fmt::format("row {} of the proposed weights sums to {}, not 1",
                                                                  r + 1, to_display(sum, Notation::Unicode))
                                                    : fmt::format("the proposed weights sum to {}, not 1",
                                                                  to_display(sum, Notation::Unicode)));
            return;
        }
    }
}

// Proposed weights of a read that are not a distribution, or give a zero score weight 0.
void read_weight_findings(const Ctx& c, const LearnerAnswer& answer, Judgement& j) {
    const std::size_t n = c.s->trace->marks.size();
    if (answer.proposed.size() != n && answer.proposed.size() != c.incl.size()) return;
    Value sum;
    for (const auto& w : answer.proposed) sum += w;
    if (sum != Value(1)) {
        j.findings.push_back(fmt::format("the proposed weights sum to {}, not 1, so they are not a distribution",
                                         to_display(sum, Notation::Unicode)));
    }
    if (answer.proposed.size() != n) return;
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

// The first registry mistake whose recomputation (differing from the right value) the answer
// matches; an accepted one makes the answer right. False when none does.
bool named_mistake(const Ctx& c, const LearnerAnswer& answer, const Right& r, const Tolerance& tol,
                   std::size_t shape_findings_end, Judgement& j) {
    for (const Mistake& mistake : detail::registry()) {
        const auto wrong = mistake.recompute(c);
        if (!wrong || wrong->values.empty()) continue;
        // A recomputation that gives the right values cannot be told from the right method.
        bool same = wrong->values.size() == r.values.size();
        for (std::size_t i = 0; same && i < r.values.size(); ++i) {
            same = wrong->values[i].has_value() == r.values[i].has_value() &&
                   (!r.values[i] || (wrong->values[i]->exact && *wrong->values[i]->exact == *r.values[i]->exact));
        }
        if (same) continue;
        if (r.exact.scalar != answer.scalar || answer.columns != r.exact.columns) continue;
        const Match m = match_entries(answer.entries, wrong->values, tol, true);
        if (!m.ok) continue;
        j.mistake = wrong->explain;
        j.mistake_id = mistake.id;
        // A padded key's score is 0 when the pad token's key row is 0, so zero-scoring it and
        // forgetting the padding mask give one answer: on a layer with padding that is the
        // padding forgotten, the mistake the layer teaches.
        if (mistake.id == std::string("zero-score-for-removal") && c.layer != nullptr &&
            !c.layer->spec.layer.padding.empty()) {
            for (const Mistake& padding : detail::registry()) {
                if (padding.id != std::string("forget-padding-mask")) continue;
                const auto w = padding.recompute(c);
                if (w && match_entries(answer.entries, w->values, tol, true).ok) {
                    j.mistake = w->explain;
                    j.mistake_id = padding.id;
                }
            }
        }
        if (mistake.acceptable &&
            std::find(answer.accept.begin(), answer.accept.end(), mistake.id) != answer.accept.end()) {
            j.correct = true;
            j.rule = join(m.rules, "; ");
            j.findings.resize(std::min(j.findings.size(), shape_findings_end));
            j.findings.push_back(fmt::format("accepted: {} (the exercise allows {})", wrong->explain, mistake.id));
            j.feedback = fmt::format("Right ({}); note: {}.", j.rule, wrong->explain);
            return true;
        }
        j.feedback = fmt::format("Wrong: {}.", j.mistake);
        return true;
    }
    return false;
}

// No single mistake: two of them made one after the other (docs/check.md, "Two-step mistakes").
bool named_two_step(const Ctx& c, const LearnerAnswer& answer, const Right& r, const Tolerance& tol, Judgement& j) {
    if (r.exact.scalar != answer.scalar || answer.columns != r.exact.columns) return false;
    for (const auto& two : detail::two_step_mistakes(c)) {
        if (!match_entries(answer.entries, two.values, tol, true).ok) continue;
        j.mistake = "two mistakes: " + two.explain;
        j.mistake_id = two.id;
        j.feedback = fmt::format("Wrong: {}.", j.mistake);
        return true;
    }
    return false;
}

// A removal's weights listed for the remaining positions only, the way a wrong method gives
// them (the chapter's listing of a removal). False when no mistake does.
bool named_listed_mistake(const Ctx& c, const LearnerAnswer& answer, const Tolerance& tol, Judgement& j) {
    if (!c.s || c.s->quantity != "weights" || c.s->element || c.removed.empty() ||
        answer.entries.size() != c.incl.size()) {
        return false;
    }
    for (const Mistake& mistake : detail::registry()) {
        if (mistake.acceptable) continue;
        const auto wrong = mistake.recompute(c);
        if (!wrong || wrong->values.size() != c.s->trace->marks.size()) continue;
        std::vector<std::optional<Real>> listed;
        for (auto p : c.incl) listed.push_back(wrong->values[p]);
        if (!match_entries(answer.entries, listed, tol, true).ok) continue;
        j.mistake = wrong->explain;
        j.mistake_id = mistake.id;
        j.feedback = fmt::format("Wrong: {}.", wrong->explain);
        return true;
    }
    return false;
}

// No known mistake: say how far the answer is, entry by entry.
// Why a decimal's form alone fails a declared rule, for the learner (#24): "written with 3
// decimal places where 4 were asked" ("entry 2 was written …" in a list); empty when none does.
std::string form_mismatch(const LearnerAnswer& answer, const Right& r, const Tolerance& tol) {
    if (answer.entries.size() != r.present_at.size()) return {};
    for (std::size_t i = 0; i < answer.entries.size(); ++i) {
        const AnswerEntry& e = answer.entries[i];
        if (e.form != AnswerEntry::Form::Decimal && e.form != AnswerEntry::Form::Percent) continue;
        const EntryVerdict v = judge_entry(e, *r.values[r.present_at[i]], tol);
        if (v.form_mismatch.empty()) continue;
        return answer.entries.size() == 1 ? v.form_mismatch : fmt::format("entry {} was {}", i + 1, v.form_mismatch);
    }
    return {};
}

void distance_feedback(const LearnerAnswer& answer, const Right& r, bool shape_ok, const std::string& form,
                       Judgement& j) {
    if (!shape_ok || answer.entries.size() != r.present_at.size()) {
        j.feedback = "Wrong: no known mistake reproduces it; " +
                     (j.findings.empty() ? std::string("its shape differs from the answer's") : j.findings.back()) +
                     ".";
        return;
    }
    // The largest distance, compared by 96-bit enclosures' midpoints (exact rationals; the
    // distance is feedback, and two entries this close print alike anyway).
    std::optional<Real> largest;
    mpq_class largest_mid;
    std::size_t at = 0;
    for (std::size_t i = 0; i < answer.entries.size(); ++i) {
        Real d = distance(answer.entries[i], *r.values[r.present_at[i]]);
        const RationalInterval iv = d.at(96);
        const mpq_class mid = (iv.lo + iv.hi) / 2;
        if (!largest || mid > largest_mid) {
            largest = std::move(d);
            largest_mid = mid;
            at = i;
        }
    }
    const std::string far = distance_text(*largest);
    j.distance = far;
    if (!form.empty()) {  // the reason the learner must read first: the places asked for
        j.feedback = answer.entries.size() == 1
                         ? fmt::format("Wrong: it is {} (it is {} from the exact value).", form, far)
                         : fmt::format("Wrong: {} (it is up to {} from the exact value, entry {}).", form, far, at + 1);
        return;
    }
    j.feedback = answer.entries.size() == 1
                     ? fmt::format("Wrong: no known mistake reproduces it; it is {} from the exact value.", far)
                     : fmt::format(
                           "Wrong: no known mistake reproduces it; it is up to {} from the exact value "
                           "(entry {}).",
                           far, at + 1);
}

// A caller that gives only values (the Python binding's numbers) proposes exact forms.
LearnerAnswer with_exact_entries(const LearnerAnswer& given) {
    LearnerAnswer filled = given;
    filled.entries.clear();
    for (const auto& v : given.proposed)
        filled.entries.push_back(AnswerEntry{to_ascii(v), AnswerEntry::Form::Exact, Real::of(v)});
    return filled;
}

Judgement judge_values(const Report& rep, const Json& doc, const LearnerAnswer& answer, const Location& where) {
    Judgement j = detail::judgement_of(answer);
    j.proposed = answer.proposed;
    const Right r = right_at(rep, doc, answer.target, where);
    j.exact = r.exact.values;
    j.columns = r.exact.columns;
    if (token_answer_to_value(answer, j)) return j;
    const Tolerance tol = answer.tolerance.value_or(Tolerance{});
    const bool shape_ok = answer.columns == r.exact.columns && answer.scalar == r.exact.scalar;
    if (shape_ok && judged_right(answer, r, tol, j)) return j;
    const std::size_t shape_findings_end = j.findings.size();  // an accepted listing drops its shape finding
    shape_findings(answer, r, j);
    const std::string form = shape_ok ? form_mismatch(answer, r, tol) : std::string();
    if (!form.empty()) j.findings.push_back(answer.entries.size() == 1 ? "it was " + form : form);
    const bool all_exact = std::all_of(answer.entries.begin(), answer.entries.end(),
                                       [](const AnswerEntry& e) { return e.form == AnswerEntry::Form::Exact; });
    const Ctx c = detail::context_at(rep, doc, r.exact, answer.target, where);
    const auto tokens = detail::target_tokens(answer.target);
    // A row of a head is a read: its findings are the read's (below), not said twice.
    if (c.layer != nullptr && !c.s && tokens[2] == "heads" && all_exact) layer_weight_findings(answer, tokens, j);
    if (c.s && all_exact && c.s->quantity == "weights" && !c.s->element) read_weight_findings(c, answer, j);
    if (named_mistake(c, answer, r, tol, shape_findings_end, j)) return j;
    if (named_listed_mistake(c, answer, tol, j)) return j;
    if (named_two_step(c, answer, r, tol, j)) return j;
    distance_feedback(answer, r, shape_ok, form, j);
    return j;
}

Judgement judge_at(const Report& rep, const Json& doc, const LearnerAnswer& given) {
    Location where;
    where.file = rep.scenario.file;
    where.pointer = "/learner_answers/" + given.name + "/target";
    if (given.entries.size() != given.proposed.size()) {
        const LearnerAnswer filled = with_exact_entries(given);
        if (names_tokens(filled.target)) return detail::judge_tokens(rep, doc, filled, where);
        return judge_values(rep, doc, filled, where);
    }
    if (names_tokens(given.target)) return detail::judge_tokens(rep, doc, given, where);
    return judge_values(rep, doc, given, where);
}

// An ad-hoc target takes `tolerance` and `accept` from the first exercise (in file order) that
// lists it: its read, its intervention, or that intervention's row, or whose variation's
// `answer` it is (then with the variation's absolute tolerance).
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
        // The numerical answer of a variation is judged as its Moodle question grades it: within
        // the declared absolute tolerance, inclusive (docs/variants.md#moodle-xml).
        const bool graded_answer = e.variation && e.variation->answer == la.target;
        if (!lists && !graded_answer) continue;
        if (!la.tolerance && graded_answer) {
            la.tolerance = Tolerance{Tolerance::Kind::Absolute, e.variation->tolerance.rational(), 0};
        }
        if (!la.tolerance) la.tolerance = e.tolerance;
        if (la.accept.empty()) la.accept = e.accept;
        return;
    }
}

}  // namespace

Judgement judge(const Report& rep, const LearnerAnswer& answer) {
    return judge_at(rep, detail::report_to_json(rep), answer);
}

std::vector<Judgement> judge_all(const Report& rep, const std::vector<LearnerAnswer>& answers) {
    const Json doc = detail::report_to_json(rep);
    std::vector<Judgement> out;
    out.reserve(answers.size());
    for (const auto& a : answers) out.push_back(judge_at(rep, doc, a));
    return out;
}

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

}  // namespace exactattn
