// SPDX-License-Identifier: MIT
// exactattn: running a scenario — every read, intervention and cost case, exactly — and the
// checks that need the computed report (learner-answer targets resolve to a quantity).
#include <fmt/format.h>

#include "exactattn/error.hpp"
#include "exactattn/report.hpp"
#include "json_io.hpp"
#include "report_json.hpp"

namespace exactattn {

namespace {

using detail::Json;

Location decl(const Scenario& s, const std::string& pointer) {
    Location l;
    l.file = s.file;
    l.pointer = pointer;
    return l;
}

template <class F>
auto at_declaration(const Scenario& s, const std::string& pointer, F&& f) {
    try {
        return f();
    } catch (const Error& e) {
        if (e.where().file.empty() && e.where().pointer.empty()) throw e.located(decl(s, pointer));
        throw;
    }
}

ReadRequest request_for(const Scenario& s, const NamedVector& q, const std::optional<NamedVector>& r) {
    ReadRequest req;
    req.query = q.values;
    if (r) req.readout = r->values;
    req.rule = s.rule;
    return req;
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

const CostResult& Report::cost(const std::string& name) const {
    for (const auto& r : costs) {
        if (r.spec.name == name) return r;
    }
    throw reference_error(fmt::format("unknown cost case \"{}\"", name));
}

Report run_scenario(const Scenario& s) {
    Report rep;
    rep.scenario = s;
    for (const auto& rs : s.reads) {
        const std::string ptr = detail::pointer_join("/reads", rs.name);
        ReadResult rr;
        rr.spec = rs;
        rr.trace = at_declaration(s, ptr, [&] {
            const Source& src = s.source(rs.source);
            ReadRequest req = request_for(s, rs.query, rs.readout);
            req.marks.assign(src.states.rows(), Mark::Included);
            for (auto p : rs.zero) req.marks[p - 1] = Mark::Zeroed;
            for (auto p : rs.remove) req.marks[p - 1] = Mark::Removed;
            return attend(src.states, req);
        });
        rep.reads.push_back(std::move(rr));
    }
    for (const auto& is : s.interventions) {
        const std::string ptr = detail::pointer_join("/interventions", is.name);
        InterventionResult ir;
        ir.spec = is;
        at_declaration(s, ptr, [&] {
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
                        req.marks[p - 1] = is.kind == InterventionKind::RemoveState ? Mark::Removed
                                                                                    : Mark::Zeroed;
                        row.states = src.states;
                        break;
                    case InterventionKind::DeleteToken: {
                        std::vector<std::string> rest = *src.tokens;
                        rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(p - 1));
                        if (rest.empty()) {
                            throw reference_error(fmt::format(
                                "deleting token {} leaves no tokens: a read needs at least one "
                                "position",
                                p));
                        }
                        row.states = Memory(s.encode_tokens(rest));
                        row.tokens = std::move(rest);
                        break;
                    }
                }
                row.trace = attend(row.states, req);
                ir.rows.push_back(std::move(row));
            }
            return 0;
        });
        rep.interventions.push_back(std::move(ir));
    }
    for (const auto& cs : s.costs) {
        rep.costs.push_back(CostResult{cs, count_costs(cs.input)});
    }
    // A learner answer's target must name a quantity of this report: checked here, when the
    // file is loaded and run, so `verify` and `run` report a dangling target too, not only
    // `check`.
    if (!s.learner_answers.empty()) {
        const detail::Json doc = detail::report_to_json(rep);
        for (const auto& la : s.learner_answers) {
            detail::check_answer_target(doc, s, la, decl(s, detail::pointer_join("/learner_answers", la.name) + "/target"));
        }
    }
    return rep;
}

}  // namespace exactattn
