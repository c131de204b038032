// SPDX-License-Identifier: MIT
// exactattn: running a scenario — every read, intervention and cost case, exactly — and the
// checks that need the computed report (learner-answer targets resolve to a quantity).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/report.hpp"
#include "scenario/json.hpp"
#include "core/names.hpp"
#include "report/estimate.hpp"
#include "report/report_json.hpp"
#include "report/targets.hpp"

namespace exactattn {

namespace {

using detail::Json;

Location decl(const Scenario& s, const std::string& pointer) { return detail::key_place(s.file, pointer); }

template <class F>
auto at_declaration(const Scenario& s, const std::string& pointer, F&& f) {
    return placed(decl(s, pointer), std::forward<F>(f));
}

ReadRequest request_for(const Scenario& s, const NamedVector& q, const std::optional<NamedVector>& r) {
    ReadRequest req;
    req.query = q.values;
    if (r) req.readout = r->values;
    req.rule = s.rule;
    return req;
}

// `total` plus `cells`, held at 2^62 instead of overflowing.
std::int64_t add_cells(std::int64_t total, std::int64_t cells) {
    constexpr std::int64_t kHugeCells = std::int64_t{1} << 62;
    return cells > kHugeCells - total ? kHugeCells : total + cells;
}

// The cells the report's parts known before running will hold, charged against the limit
// before any is computed: each part's count is exact or within a factor 2 of what the report
// prints (docs/limits.md, "Predictions that refuse"). Returns the total.
std::int64_t charge_report_cells(const Scenario& s, bool tables) {
    std::int64_t total = 0;
    for (const auto& part : detail::report_cells(s, tables)) {
        total = add_cells(total, part.cells);
        if (total > limits().max_report_cells) {
            throw over_limit(Limit::max_report_cells,
                             fmt::format("the {} would hold about {} exact values",
                                         tables ? "report's tables" : "run report", total),
                             decl(s, part.pointer), part.why);
        }
    }
    return total;
}

ReadResult run_read(const Scenario& s, const ReadSpec& rs) {
    ReadResult rr;
    rr.spec = rs;
    rr.trace = at_declaration(s, detail::pointer_join("/reads", rs.name), [&] {
        const Source& src = s.source(rs.source);
        ReadRequest req = request_for(s, rs.query, rs.readout);
        req.marks.assign(src.states.rows(), Mark::Included);
        for (auto p : rs.zero) req.marks[p - 1] = Mark::Zeroed;
        for (auto p : rs.remove) req.marks[p - 1] = Mark::Removed;
        return attend(src.states, req);
    });
    return rr;
}

// The source's memory with token p (1-based) deleted, and the tokens left, into `row`.
// h_1..h_{p-1} do not depend on token p: they are the source's own, and the encoding goes on
// from h_{p-1} (h_0 when p = 1) over the tokens after p.
void delete_token(const Scenario& s, const Source& src, std::size_t p, InterventionRow& row) {
    std::vector<std::string> rest = *src.tokens;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(p - 1));
    if (rest.empty()) {
        throw reference_error(
            fmt::format("deleting token {} leaves no tokens: a read needs at least one "
                        "position",
                        p));
    }
    const std::size_t kept = p - 1;
    Matrix states;
    states.reserve(rest.size());
    for (std::size_t j = 0; j < kept; ++j) states.push_back(src.states.row(j));
    const std::vector<std::string> after(rest.begin() + static_cast<std::ptrdiff_t>(kept), rest.end());
    Matrix tail = s.encode_tokens(after, nullptr, kept > 0 ? &states.back() : nullptr);
    for (auto& h : tail) states.push_back(std::move(h));
    row.states = Memory(std::move(states));
    row.tokens = std::move(rest);
}

// The read without intervention, then one row for each intervened position.
InterventionResult run_intervention(const Scenario& s, const InterventionSpec& is) {
    InterventionResult ir;
    ir.spec = is;
    at_declaration(s, detail::pointer_join("/interventions", is.name), [&] {
        const Source& src = s.source(is.source);
        const ReadRequest base = request_for(s, is.query, is.readout);
        InterventionRow none;
        none.states = src.states;
        none.tokens = src.tokens;
        none.trace = attend(src.states, base);
        ir.rows.push_back(std::move(none));
        for (auto p : is.positions) {
            InterventionRow row;
            row.position = p;
            ReadRequest req = base;
            switch (is.kind) {
                case InterventionKind::RemoveState:
                case InterventionKind::ZeroScore:
                    req.marks.assign(src.states.rows(), Mark::Included);
                    req.marks[p - 1] = is.kind == InterventionKind::RemoveState ? Mark::Removed : Mark::Zeroed;
                    row.states = src.states;
                    break;
                case InterventionKind::DeleteToken:
                    delete_token(s, src, p, row);
                    break;
            }
            row.trace = attend(row.states, req);
            ir.rows.push_back(std::move(row));
        }
        return 0;
    });
    return ir;
}

// A rollout's steps are not known before it runs (generation may stop at its first step):
// what it prints is counted once it has run, exactly, and held to the same limit (`total`: the
// cells charged so far) before anything is printed.
void run_rollouts(const Scenario& s, bool tables, std::int64_t total, Report& rep) {
    for (const auto& ro : s.rollouts) {
        const std::string ptr = detail::pointer_join("/rollouts", ro.name);
        const Memory& states = s.source(ro.source).states;
        rep.rollouts.push_back(
            at_declaration(s, ptr, [&] { return run_rollout(*s.decoder, ro, states, s.decoder_initial(ro.source)); }));
        const std::int64_t cells = detail::rollout_cells(rep.rollouts.back(), static_cast<std::int64_t>(states.rows()),
                                                         static_cast<std::int64_t>(states.width()), tables);
        total = add_cells(total, cells);
        if (total > limits().max_report_cells) {
            const auto& r = rep.rollouts.back();
            const std::size_t steps =
                r.generation.steps.size() + (r.teacher_forcing ? r.teacher_forcing->steps.size() : 0);
            throw over_limit(
                Limit::max_report_cells,
                fmt::format("the {} would hold about {} exact values", tables ? "report's tables" : "run report",
                            total),
                decl(s, ptr),
                fmt::format("rollout \"{}\" ran {} step{}, each with a read over {} source "
                            "position{}; fewer \"steps\" print fewer",
                            ro.name, steps, steps == 1 ? "" : "s", states.rows(), states.rows() == 1 ? "" : "s"));
        }
    }
}

// An exercise's rollout step must exist: generation that chose the end token early has fewer
// steps than declared.
void check_exercise_steps(const Scenario& s, const Report& rep) {
    for (std::size_t i = 0; i < s.exercises.size(); ++i) {
        for (std::size_t j = 0; j < s.exercises[i].rollouts.size(); ++j) {
            const std::string& ref = s.exercises[i].rollouts[j];
            const auto slash = ref.find('/');
            if (slash == std::string::npos) continue;
            const RolloutResult& rr = rep.rollout(ref.substr(0, slash));
            const bool tf = ref.compare(slash, 17, "/teacher-forcing/") == 0;
            const std::size_t k = std::stoul(ref.substr(ref.rfind('/') + 1));
            const std::size_t have = tf ? rr.teacher_forcing->steps.size() : rr.generation.steps.size();
            if (k > have) {
                throw reference_error(
                    fmt::format("\"{}\" names no step: {} stopped after step {} ({})", ref,
                                tf ? "teacher forcing" : "generation", have,
                                tf ? rr.teacher_forcing->stopped : rr.generation.stopped),
                    decl(s, detail::pointer_join(detail::pointer_join("/exercises", i) + "/rollouts", j)));
            }
        }
    }
}

}  // namespace

const ReadResult& Report::read(const std::string& name) const {
    for (const auto& r : reads) {
        if (r.spec.name == name) return r;
    }
    throw reference_error(fmt::format("unknown read \"{}\"", name));
}

const InterventionResult& Report::intervention(const std::string& name) const {
    for (const auto& r : interventions) {
        if (r.spec.name == name) return r;
    }
    throw reference_error(fmt::format("unknown intervention \"{}\"", name));
}

const RolloutResult& Report::rollout(const std::string& name) const {
    for (const auto& r : rollouts) {
        if (r.spec.name == name) return r;
    }
    const auto name_of = [](const RolloutResult& r) -> const std::string& { return r.spec.name; };
    throw reference_error(
        fmt::format("unknown rollout \"{}\" (rollouts: {})", name, detail::name_list(rollouts, name_of)));
}

const CostResult& Report::cost(const std::string& name) const {
    for (const auto& r : costs) {
        if (r.spec.name == name) return r;
    }
    throw reference_error(fmt::format("unknown cost case \"{}\"", name));
}

Scenario only_what_pointers_need(Scenario s, const std::vector<std::string>& pointers) {
    std::set<std::pair<std::string, std::string>> named;  // (section, name)
    for (const std::string& pointer : pointers) {
        std::vector<std::string> parts;
        for (std::size_t i = 1; i <= pointer.size() && parts.size() < 2;) {
            const std::size_t end = std::min(pointer.find('/', i), pointer.size());
            std::string token = pointer.substr(i, end - i);
            for (std::size_t k = 0; (k = token.find('~', k)) != std::string::npos; ++k) {
                if (k + 1 < token.size()) token.replace(k, 2, token[k + 1] == '1' ? "/" : "~");
            }
            parts.push_back(token);
            i = end + 1;
        }
        if (parts.size() == 2) named.emplace(parts[0], parts[1]);
    }
    // A pointer to a declaration that does not exist leaves the scenario whole, so that the
    // error that follows lists every declaration of its section, not the kept ones.
    bool unknown = false;
    const auto exists = [&named, &unknown](const auto& list, const char* section) {
        for (const auto& entry : named) {
            // Not a structured binding: Clang 14 (the fuzz build) cannot capture one in a lambda.
            const auto& name = entry.second;
            if (entry.first != section) continue;
            unknown = unknown || std::none_of(list.begin(), list.end(), [&](const auto& x) { return x.name == name; });
        }
    };
    exists(s.reads, "reads");
    exists(s.interventions, "interventions");
    exists(s.costs, "costs");
    exists(s.layers, "layers");
    exists(s.rollouts, "rollouts");
    if (unknown) return s;
    const auto keep = [&named](auto& list, const char* section) {
        std::erase_if(list, [&](const auto& x) { return named.count({section, x.name}) == 0; });
    };
    keep(s.reads, "reads");
    keep(s.interventions, "interventions");
    keep(s.costs, "costs");
    keep(s.layers, "layers");
    keep(s.rollouts, "rollouts");
    keep(s.figures, "figures");
    return s;
}

Report run_scenario(const Scenario& s, ReportUse use) {
    Report rep;
    rep.scenario = s;
    // Tables hold every source's states and every read's trace with its memory as cells; the
    // values alone (JSON, verify) are the reads' columns: the sources are loaded already.
    const bool tables = use == ReportUse::Tables;
    const std::int64_t total = charge_report_cells(s, tables);
    for (const auto& rs : s.reads) rep.reads.push_back(run_read(s, rs));
    for (const auto& ls : s.layers) {
        LayerResult lr{ls, at_declaration(s, detail::pointer_join("/layers", ls.name), [&] {
                           const Matrix& x = s.sequence(ls.sequence).rows;
                           return ls.memory.empty() ? attend_layer(ls.layer, x)
                                                    : attend_layer(ls.layer, x, s.sequence(ls.memory).rows);
                       })};
        rep.layers.push_back(std::move(lr));
    }
    for (const auto& is : s.interventions) rep.interventions.push_back(run_intervention(s, is));
    run_rollouts(s, tables, total, rep);
    for (const auto& cs : s.costs) {
        rep.costs.push_back(CostResult{cs, count_costs(cs.input)});
    }
    check_exercise_steps(s, rep);
    // A learner answer's target must name a quantity of this report: checked here, when the
    // file is loaded and run, so `verify` and `run` report a dangling target too, not only
    // `check`.
    if (!s.learner_answers.empty()) {
        const detail::Json doc = detail::report_to_json(rep);
        for (const auto& la : s.learner_answers) {
            detail::check_answer_target(rep, la, decl(s, detail::pointer_join("/learner_answers", la.name) + "/target"),
                                        doc);
        }
    }
    return rep;
}

}  // namespace exactattn
