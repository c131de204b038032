// SPDX-License-Identifier: MIT
// exactattn: binding the numbers of an unmarked manuscript to the quantities their context states
// (docs/manuscript.md, "How audit binds a number"). Three steps: the numbers are read (math
// statements and chains, table cells, prose vectors and numbers, number words, units), the cues
// around each are gathered (entity: the example, table, exercise, section, caption, source and
// query named; field: the word naming the quantity, a column header, a unit, a formula's name;
// index: a position's label, a coordinate, a table row, the place in a list), and every quantity
// of the report is scored against the cues. The best is judged exactly.
#include "tools/manuscript/bind.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "exactattn/limits.hpp"
#include "exactattn/pointers.hpp"
#include "exactattn/print.hpp"
#include "tools/manuscript/binder.hpp"
#include "tools/manuscript/candidates.hpp"
#include "tools/manuscript/claims.hpp"
#include "tools/manuscript/markup.hpp"

namespace exactattn::manuscript::binding {

namespace {

constexpr double kWorkPerNumber = 2e5;

// The numbers inside the markup that is no claim (a URL, a cross-reference, a TeX argument),
// each with its reason; a heading's words stay for the cues, its number is judged as prose.
void add_blanked_numbers(const Source& src, const std::vector<Blanked>& blanked, std::vector<BoundNumber>& out) {
    for (const auto& bl : blanked) {
        if (bl.why == "a heading") continue;
        for (std::size_t k = bl.b; k < bl.e; ++k) {
            if (digit(src.scan[k]) && (k == bl.b || !digit(src.scan[k - 1]))) {
                std::size_t e = k;
                while (e < bl.e && (digit(src.scan[e]) || src.scan[e] == '.')) ++e;
                BoundNumber n;
                n.begin = k;
                n.end = e;
                const Location where = src.at(k);
                n.finding.line = where.line;
                n.finding.column = where.column;
                n.finding.text = src.text.substr(k, e - k);
                n.finding.verdict = AuditVerdict::NotAClaim;
                n.finding.reason = bl.why;
                out.push_back(std::move(n));
                k = e;
            }
        }
    }
}

// A candidate's place and text, its verdict not yet given.
BoundNumber number_of(const Source& src, const Candidate& c, const Location& where) {
    BoundNumber n;
    n.begin = c.b;
    n.end = c.e;
    n.markable = c.markable;
    n.finding.line = where.line;
    n.finding.column = where.column;
    n.finding.text = src.text.substr(c.b, c.e - c.b);
    for (auto& ch : n.finding.text) {
        if (ch == '\n') ch = ' ';
    }
    return n;
}

// The quantity a number is bound to, as the audit shows it.
AuditQuantity quantity_of(const Report& report, const Item& it) {
    AuditQuantity aq;
    aq.pointer = it.pointer;
    aq.value = quantity_text(*it.value);
    aq.description = describe_pointer(report, it.pointer);
    return aq;
}

// The words that bound a number: the field's and the index's reasons.
std::string reasons(const Scores& sc) {
    std::string r;
    for (const auto& part : {sc.reason_field, sc.reason_index}) {
        if (!part.empty()) r += (r.empty() ? "" : ", ") + part;
    }
    return r;
}

// A chain that contradicts itself (1 + 2 + 1 = 5) is wrong whatever it is said of. A quantity
// that verifies or refutes it says more, so its own arithmetic is the verdict only where no
// quantity decides (unbound, ambiguous), and never in a negated or hypothetical sentence.
void settle(BoundNumber& b, const Scores& sc, const std::string& written, std::vector<BoundNumber>& out) {
    AuditFinding& g = b.finding;
    if ((g.verdict == AuditVerdict::Unbound || g.verdict == AuditVerdict::Ambiguous) && !sc.hypothetical) {
        std::optional<std::string> own;
        try {
            own = chain_contradiction(written);
        } catch (const Error& e) {
            if (work_refusal(e)) throw;
        }
        if (own) {
            g.verdict = AuditVerdict::Wrong;
            g.reason = "its own arithmetic";
            g.detail = *own;
            g.bound.clear();  // what its context fitted (weakly, or several) is not what it is wrong against
        }
    }
    out.push_back(std::move(b));
}

// The terms of a sum's first side ("2/5+1/5+2/5" of "2/5+1/5+2/5=1"), split at its top-level `+`;
// none when it is no chain.
std::vector<std::string> sum_terms(const std::string& written) {
    const auto links = chain_elements(plain_notation(written));
    std::vector<std::string> terms;
    if (links.size() >= 2) {
        const std::string& first = links[0].second;
        int depth = 0;
        std::size_t from = 0;
        for (std::size_t k = 0; k <= first.size(); ++k) {
            if (k < first.size() && (first[k] == '(' || first[k] == '[' || first[k] == '{')) ++depth;
            if (k < first.size() && (first[k] == ')' || first[k] == ']' || first[k] == '}')) --depth;
            if (k == first.size() || (depth == 0 && first[k] == '+')) {
                terms.push_back(trim(first.substr(from, k - from)));
                from = k + 1;
            }
        }
    }
    return terms;
}

// A row of a layer's weights written as its sum ("2/5+1/5+2/5=1"): its terms are a row of
// weights and the sum is 1; no one pointer holds the sum, so it is not marked.
// Whether c is such a sum that its context binds to a row of weights (then n is judged).
bool judge_weight_row_sum(const Candidate& c, const Scores& sc, const Binder& binder, const Report& report,
                          const std::string& written, BoundNumber& n) {
    if (!binder.catalogue().has_layers || c.shape.entries >= 0 || !sc.field.contains("weights") || !sc.foreign.empty())
        return false;
    AuditFinding& f = n.finding;
    const std::vector<std::string> terms = sum_terms(written);
    std::vector<std::pair<double, const Item*>> rows;
    for (const auto& it : binder.catalogue().items) {
        if (terms.size() < 2 || it.field != "weights" || it.matrix || it.qrow == 0 ||
            it.entries != static_cast<int>(terms.size()))
            continue;
        const double v = binder.score(sc, it);
        if (v > 0) rows.emplace_back(v, &it);
    }
    if (rows.empty()) return false;
    std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::string vec = "[";
    for (std::size_t i = 0; i < terms.size(); ++i) vec += (i ? ", " : "") + terms[i];
    vec += "]";
    ClaimJudgement total;
    const Item* row = nullptr;
    try {
        total = judge_claim(written, detail::Json("1"));
        for (const auto& [v, it] : rows) {
            if (v < rows[0].first - 2) break;
            if (judge_claim(vec, *it->value).passed) {
                row = it;
                break;
            }
        }
    } catch (const Error& e) {
        if (work_refusal(e)) throw;
    }
    n.markable = false;
    const Item& shown = row != nullptr ? *row : *rows[0].second;
    f.bound.push_back(quantity_of(report, shown));
    f.reason = "the sum of a row of weights";
    if (total.passed && row != nullptr) {
        f.verdict = AuditVerdict::Verified;
    } else if (sc.hypothetical) {
        f.verdict = AuditVerdict::Unbound;
        f.reason = "in a negated or hypothetical sentence; its context fits the sum of a row of weights";
    } else {
        f.verdict = AuditVerdict::Wrong;
        f.detail = !total.passed ? fmt::format("a row of weights sums to 1: {}", total.detail)
                                 : "its terms are no row of the weights its context fits";
    }
    return true;
}

// The quantities whose fit to the cues is positive and whose shape is c's, best first.
std::vector<std::pair<double, const Item*>> ranked_items(const Candidate& c, const Scores& sc, const Binder& binder) {
    std::vector<std::pair<double, const Item*>> ranked;
    for (const auto& it : binder.catalogue().items) {
        if (sc.field.empty()) break;
        if (it.entries != c.shape.entries || it.matrix != c.shape.matrix) continue;
        const double v = binder.score(sc, it);
        if (v > 0) ranked.emplace_back(v, &it);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    return ranked;
}

// The first of the quantities that fit nearly best (within 2) that the number equals: verified.
bool verify_ranked(const std::vector<std::pair<double, const Item*>>& ranked, const Scores& sc, const Report& report,
                   const std::string& written, AuditFinding& f) {
    const double best = ranked[0].first;
    for (const auto& [v, it] : ranked) {
        if (v < best - 2) break;
        bool equal = false;
        try {
            equal = judge_claim(written, *it->value).passed;
        } catch (const Error& e) {
            if (work_refusal(e)) throw;
        }
        if (equal) {
            f.verdict = AuditVerdict::Verified;
            f.bound.push_back(quantity_of(report, *it));
            f.reason = reasons(sc);
            return true;
        }
    }
    return false;
}

// "the exponentials sum to 4": a sum of the exponentials its context fits is their read's (or
// intervention row's) denominator, verified when equal to it (unequal, it stays unbound, as
// every sum does).
bool sum_of_exponentials(const Item& fit, const Scores& sc, const Binder& binder, const Report& report,
                         const std::string& written, AuditFinding& f) {
    if (sc.operand.ends_with(" by") || fit.field != "exponentials") return false;
    const std::size_t cut = fit.pointer.rfind("/exponentials");
    if (cut == std::string::npos) return false;
    const std::string denominator = fit.pointer.substr(0, cut) + "/denominator";
    const auto& items = binder.catalogue().items;
    const auto it = std::find_if(items.begin(), items.end(), [&](const Item& i) { return i.pointer == denominator; });
    if (it == items.end()) return false;
    try {
        if (!judge_claim(written, *it->value).passed) return false;
    } catch (const Error& e) {
        if (work_refusal(e)) throw;
        return false;
    }
    f.verdict = AuditVerdict::Verified;
    f.bound.push_back(quantity_of(report, *it));
    f.reason = fmt::format("a sum of the exponentials (after \"{}\"): the denominator", sc.operand);
    return true;
}

// The verdict of a number equal to none of the quantities that fit best: unbound (said in a
// negated or hypothetical sentence, a factor, a weak fit), wrong, or ambiguous.
void judge_unverified(const std::vector<std::pair<double, const Item*>>& ranked, const Scores& sc, const Binder& binder,
                      const Report& report, const std::string& written, AuditFinding& f) {
    auto quantity = [&report](const Item& it) { return quantity_of(report, it); };
    const double best = ranked[0].first;
    std::vector<const Item*> top;
    for (const auto& [v, it] : ranked) {
        if (v >= best - 0.01) top.push_back(it);
    }
    std::set<std::string> values;
    for (const auto* it : top) values.insert(it->value->dump());
    if (sc.hypothetical) {
        f.verdict = AuditVerdict::Unbound;
        f.reason = fmt::format("in a negated or hypothetical sentence; its context fits {}", top[0]->pointer);
        for (const auto* it : top) f.bound.push_back(quantity(*it));
    } else if (!sc.operand.empty() && sum_of_exponentials(*top[0], sc, binder, report, written, f)) {
        return;
    } else if (!sc.operand.empty()) {
        f.verdict = AuditVerdict::Unbound;
        f.reason = fmt::format("a {} (after \"{}\"), not the quantity its context names; it fits {}",
                               sc.operand.ends_with(" by") ? "factor" : "sum", sc.operand, top[0]->pointer);
        f.bound.push_back(quantity(*top[0]));
    } else if (best < 10 || [&] {
                   const auto fw = sc.field.find(top[0]->field);
                   return fw == sc.field.end() || fw->second < 5;
               }()) {
        f.verdict = AuditVerdict::Unbound;
        f.reason = fmt::format("its context fits {} only weakly", top[0]->pointer);
        f.bound.push_back(quantity(*top[0]));
    } else if (values.size() == 1) {
        f.verdict = AuditVerdict::Wrong;
        f.bound.push_back(quantity(*top[0]));
        f.reason = reasons(sc);
        try {
            f.detail = judge_claim(written, *top[0]->value).detail;
        } catch (const Error& e) {
            if (work_refusal(e)) throw;
            f.detail = e.reason();
        }
    } else {
        // Several quantities fit as well (16 and 48 bytes; the key's weight in Example 14.1
        // and in the row of an intervention) and it equals none of them, nor any quantity
        // scored within 2 of them: wrong, with them listed. Ambiguous when its unit is
        // qualified ("two zero scores" counts a part of what the unit names).
        const bool none_of = !sc.qualified;
        f.verdict = none_of ? AuditVerdict::Wrong : AuditVerdict::Ambiguous;
        for (const auto* it : top) {
            if (f.bound.size() < 4) f.bound.push_back(quantity(*it));
        }
        f.reason = reasons(sc);
        if (f.verdict == AuditVerdict::Wrong) f.detail = "it equals none of the quantities its context fits";
    }
}

// The verdict of a claim c with its cues sc.
void judge(const Candidate& c, const Scores& sc, const Binder& binder, const Report& report, const std::string& written,
           AuditFinding& f) {
    const auto ranked = ranked_items(c, sc, binder);
    if (!sc.foreign.empty()) {
        f.verdict = AuditVerdict::Unbound;
        f.reason = fmt::format("it is said of {}, which the scenario does not compute", sc.foreign);
        return;
    }
    if (!sc.lone_unit.empty()) {
        f.verdict = AuditVerdict::Unbound;
        f.reason =
            fmt::format("only the unit \"{}\" after it names a quantity, and its context names nothing of the scenario",
                        sc.lone_unit);
        return;
    }
    if (ranked.empty()) {
        f.verdict = AuditVerdict::Unbound;
        f.reason = "no quantity of the scenario fits its context";
        return;
    }
    if (!verify_ranked(ranked, sc, report, written, f)) judge_unverified(ranked, sc, binder, report, written, f);
}

}  // namespace

}  // namespace exactattn::manuscript::binding

namespace exactattn::manuscript {

std::vector<BoundNumber> bind_numbers(const Source& src, const std::vector<Mark>& marks, Quantities& q,
                                      const AuditOptions& options) {
    using namespace binding;
    std::string s = src.scan;
    for (const auto& m : marks) blank(s, m.begin, m.end);
    for (const auto& [b, e] : noclaim_spans(src)) blank(s, b, e);
    const std::vector<Blanked> blanked = markup(s, src.format);
    Binder binder(src, s, q);
    const std::vector<Candidate> cands = find_candidates(src, s, binder, options);

    // Judge each.
    std::vector<BoundNumber> out;
    add_blanked_numbers(src, blanked, out);
    const Report& report = q.report();
    for (const auto& c : cands) {
        const Location where = src.at(c.b);
        BoundNumber n = number_of(src, c, where);
        if (!c.not_claim.empty()) {
            n.finding.verdict = AuditVerdict::NotAClaim;
            n.finding.reason = c.not_claim;
            out.push_back(std::move(n));
            continue;
        }
        placed(where, [&] {
            if (!charge_work(kWorkPerNumber)) throw over_work(kWorkPerNumber, "auditing a number of the prose");
        });
        AuditFinding& f = n.finding;
        const std::string written = c.kind == Kind::Word ? f.text : f.text;
        if (!c.shape.numeric) {
            f.verdict = AuditVerdict::Unbound;
            f.reason = "it cannot be read as a value";
            out.push_back(std::move(n));
            continue;
        }
        const Scores sc = binder.cues_for(c);
        if (judge_weight_row_sum(c, sc, binder, report, written, n)) {
            settle(n, sc, written, out);
            continue;
        }
        judge(c, sc, binder, report, written, f);
        settle(n, sc, written, out);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const BoundNumber& x, const BoundNumber& y) { return x.begin < y.begin; });
    return out;
}

}  // namespace exactattn::manuscript