// SPDX-License-Identifier: MIT
// exactattn: `crosscheck` — the exact results compared with the independent double path
// (double_path.cpp), quantity by quantity: signed ULP, relative and absolute error, each
// against its a-priori bound and the declared tolerance.
#include "exactattn/crosscheck.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/interval.hpp"
#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "scenario/pointer.hpp"
#include "tools/crosscheck/double_path.hpp"

namespace exactattn {

mpq_class exact_of_double(double x) {
    if (!std::isfinite(x)) {
        throw domain_error(fmt::format("the double {} has no exact value (only finite doubles convert)",
                                       std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf")));
    }
    return mpq_class(x);
}

const char* naive_outcome_name(NaiveOutcome o) {
    switch (o) {
        case NaiveOutcome::Finite:
            return "finite";
        case NaiveOutcome::ExpOverflow:
            return "exp-overflow";
        case NaiveOutcome::SumOverflow:
            return "sum-overflow";
        case NaiveOutcome::Underflow:
            return "underflow";
        case NaiveOutcome::ScoreNotFinite:
            return "score-not-finite";
    }
    return "?";
}

namespace {

using detail::fp::D;
using detail::fp::DMat;
using detail::fp::DRead;
using detail::fp::DStep;
using detail::fp::DVec;
using detail::fp::kInf;

double ulp_of(double x) {
    if (x == 0 || !std::isfinite(x)) return std::numeric_limits<double>::denorm_min();
    const int e = std::ilogb(x);
    return std::ldexp(1.0, std::max(e - 52, -1074));
}

// The exact value for measuring: itself when rational, else 160 correct bits.
mpq_class high_precision(const Value& exact) {
    return exact.is_rational() ? exact.rational() : detail::approximate(exact.terms(), 160);
}

struct Measured {
    double abs = 0;
    double rel = 0;
    double ulp = 0;  // signed
};

// The error of `computed` against `exact`; a non-finite computed value is infinitely wrong and
// never reaches the exact conversion.
Measured measure(const Value& exact, double computed, double rounded) {
    if (!std::isfinite(computed)) {
        const double sign = std::isnan(computed) ? 1 : std::copysign(1.0, computed);
        return {kInf, kInf, sign * kInf};
    }
    const mpq_class x = high_precision(exact);
    const mpq_class diff = exact_of_double(computed) - x;
    Measured m;
    m.abs = std::fabs(diff.get_d());
    m.ulp = mpq_class(diff / exact_of_double(ulp_of(rounded))).get_d();
    m.rel = sgn(x) == 0 ? (computed == 0 ? 0.0 : kInf) : std::fabs(mpq_class(diff / x).get_d());
    return m;
}

bool representable(const Value& exact, double rounded) {
    return exact.is_rational() && std::isfinite(rounded) && exact_of_double(rounded) == exact.rational();
}

class Comparer {
  public:
    Comparer(CrosscheckResult& out, const CrosscheckOptions& options) : out_(out), options_(options) {}

    // A refusal while a quantity is compared (the work budget's) names it: `file: /pointer`.
    void compare(const std::string& quantity, const Value& exact, D computed) {
        Location where;
        where.file = out_.file;
        where.pointer = quantity;
        placed(where, [&] { compare_here(quantity, exact, computed); });
    }

    void compare_here(const std::string& quantity, const Value& exact, D computed) {
        CrossRow row;
        row.quantity = quantity;
        row.exact = to_ascii(exact);
        row.rounded = to_double(exact);
        row.computed = options_.perturb ? options_.perturb(quantity, computed.v) : computed.v;
        row.dyadic = representable(exact, row.rounded);
        const Measured m = measure(exact, row.computed, row.rounded);
        row.abs_error = m.abs;
        row.rel_error = m.rel;
        row.ulp_error = m.ulp;
        row.bound = std::isnan(computed.e) ? kInf : computed.e;
        row.bound_ulps = row.bound / ulp_of(row.rounded);
        row.passed =
            !(row.abs_error > row.bound) && !(out_.tolerance_ulps && std::fabs(row.ulp_error) > *out_.tolerance_ulps);
        out_.rows.push_back(row);
    }

    void vector(const std::string& base, const Vector& exact, const DVec& computed) {
        for (std::size_t i = 0; i < exact.size(); ++i) compare(detail::pointer_join(base, i), exact[i], computed[i]);
    }

    void trace(const std::string& base, const ReadTrace& t, const DRead& r) {
        for (std::size_t j = 0; j < t.marks.size(); ++j) {
            if (t.marks[j] == Mark::Removed) continue;
            compare(detail::pointer_join(base + "/scores", j), *t.scores.at(j), r.scores[j]);
        }
        for (std::size_t j = 0; j < t.marks.size(); ++j) {
            compare(detail::pointer_join(base + "/weights", j), t.weights.at(j).value_or(Value()), r.weights[j]);
        }
        vector(base + "/context", t.context, r.context);
        if (t.readout) compare(base + "/readout", *t.readout, *r.readout);
        NaiveRow nr = detail::fp::naive_softmax(r, t.marks);
        nr.read = base;
        for (std::size_t j = 0; j < t.marks.size(); ++j) {
            const Value w = t.weights.at(j).value_or(Value());
            Location where;
            where.file = out_.file;
            where.pointer = detail::pointer_join(base + "/weights", j);
            const double u = placed(where, [&] { return std::fabs(measure(w, nr.weights[j], to_double(w)).ulp); });
            nr.max_ulp_error = std::isinf(u) ? std::numeric_limits<double>::quiet_NaN() : std::max(nr.max_ulp_error, u);
            if (std::isnan(nr.max_ulp_error)) break;
        }
        out_.naive.push_back(nr);
    }

  private:
    CrosscheckResult& out_;
    const CrosscheckOptions& options_;
};

std::vector<std::string> tail_tokens(const std::vector<std::string>& v, std::size_t from) {
    return {v.begin() + static_cast<std::ptrdiff_t>(std::min(from, v.size())), v.end()};
}

// Compares one regime step by step while the two paths had the same inputs, and records every
// step where the double argmax is not the exact choice.
void compare_regime(Comparer& cmp, CrosscheckResult& res, const Decoder& dec, const RolloutResult& rr,
                    const RegimeTrace& exact, const std::vector<DStep>& dbl) {
    const std::string base =
        detail::pointer_join("/rollouts", rr.spec.name) + "/" + regime_name(exact.regime) + "/steps";
    std::vector<std::string> dtokens;
    for (const auto& d : dbl) dtokens.push_back(dec.vocabulary[d.argmax].first);
    const std::vector<std::string> etokens = exact.tokens();
    for (std::size_t i = 0; i < std::min(exact.steps.size(), dbl.size()); ++i) {
        const DecoderStep& e = exact.steps[i];
        const DStep& d = dbl[i];
        const std::string at = detail::pointer_join(base, i + 1);
        cmp.trace(at, e.read, d.read);
        cmp.vector(at + "/state", e.state, d.state);
        cmp.vector(at + "/output_scores", e.scores, d.scores);
        if (!e.chosen || *e.chosen != d.argmax) {
            RolloutSplit sp;
            sp.rollout = rr.spec.name;
            sp.regime = regime_name(exact.regime);
            sp.step = i + 1;
            for (auto k : e.argmax) sp.exact_argmax.push_back(dec.vocabulary[k].first);
            sp.exact_choice = e.chosen_token;
            sp.double_choice = dtokens[i];
            sp.double_margin = d.scores[d.argmax].v - d.scores[e.chosen.value_or(e.argmax.front())].v;
            sp.exact_tokens = tail_tokens(etokens, i);
            sp.double_tokens = tail_tokens(dtokens, i);
            res.splits.push_back(std::move(sp));
            // Generation's next inputs now differ: later steps are different computations.
            if (exact.regime == Regime::Generation) break;
        }
    }
}

}  // namespace

CrosscheckResult crosscheck(const Report& rep, const CrosscheckOptions& options) {
    const Scenario& s = rep.scenario;
    CrosscheckResult res;
    res.file = s.file;
    res.tolerance_ulps = s.crosscheck.tolerance_ulps;
    res.rationale = s.crosscheck.rationale;
    Comparer cmp(res, options);
    // A refusal while a declaration's double path is computed names the declaration.
    const auto at = [&](const std::string& pointer, auto&& f) {
        Location where;
        where.file = s.file;
        where.pointer = pointer;
        return placed(where, f);
    };
    for (const auto& src : s.sources) {
        const DMat states =
            at(detail::pointer_join("/sources", src.name), [&] { return detail::fp::source_double(s, src); });
        for (std::size_t j = 0; j < src.states.rows(); ++j) {
            cmp.vector(detail::pointer_join(detail::pointer_join("/sources", src.name) + "/states", j),
                       src.states.row(j), states[j]);
        }
    }
    for (const auto& rr : rep.reads) {
        const Source& src = s.source(rr.spec.source);
        const DRead r = at(detail::pointer_join("/reads", rr.spec.name), [&] {
            return detail::fp::read_double(detail::fp::source_double(s, src),
                                           detail::fp::input_vector(rr.spec.query.values), rr.trace.marks,
                                           detail::fp::readout_double(rr.spec.readout), s.rule);
        });
        cmp.trace(detail::pointer_join("/reads", rr.spec.name), rr.trace, r);
    }
    for (const auto& ir : rep.interventions) {
        const Source& src = s.source(ir.spec.source);
        const std::string base = detail::pointer_join("/interventions", ir.spec.name) + "/rows";
        for (std::size_t k = 0; k < ir.rows.size(); ++k) {
            const auto& row = ir.rows[k];
            const DRead r = at(detail::pointer_join(base, k), [&] {
                const DMat mem = ir.spec.kind == InterventionKind::DeleteToken && row.position > 0
                                     ? detail::fp::encode_double(s, *row.tokens)
                                     : detail::fp::source_double(s, src);
                return detail::fp::read_double(mem, detail::fp::input_vector(ir.spec.query.values), row.trace.marks,
                                               detail::fp::readout_double(ir.spec.readout), s.rule);
            });
            cmp.trace(detail::pointer_join(base, k), row.trace, r);
        }
    }
    for (const auto& rr : rep.rollouts) {
        const std::size_t steps = rr.spec.steps > 0 ? rr.spec.steps : rr.spec.reference.size();
        const std::string pointer = detail::pointer_join("/rollouts", rr.spec.name);
        if (rr.teacher_forcing) {
            compare_regime(cmp, res, *s.decoder, rr, *rr.teacher_forcing, at(pointer, [&] {
                               return detail::fp::rollout_double(s, rr.spec, Regime::TeacherForcing, steps);
                           }));
        }
        compare_regime(cmp, res, *s.decoder, rr, rr.generation,
                       at(pointer, [&] { return detail::fp::rollout_double(s, rr.spec, Regime::Generation, steps); }));
    }
    for (const auto& lr : rep.layers) res.not_compared.push_back(detail::pointer_join("/layers", lr.spec.name));
    double total = 0;
    for (std::size_t i = 0; i < res.rows.size(); ++i) {
        const CrossRow& row = res.rows[i];
        const double u = std::fabs(row.ulp_error);
        total += u;
        if (u > res.max_abs_ulp) {
            res.max_abs_ulp = u;
            res.worst = i;
        }
        if (std::isfinite(row.bound) && row.bound > 0 && row.abs_error / row.bound > res.worst_ratio) {
            res.worst_ratio = row.abs_error / row.bound;
            res.worst_ratio_row = i;
        }
        res.failed += row.passed ? 0 : 1;
        res.unbounded += std::isinf(row.bound) ? 1 : 0;
        if (row.dyadic) {
            ++res.dyadic_count;
            if (row.computed == row.rounded) ++res.dyadic_exact;
        }
    }
    res.mean_abs_ulp = res.rows.empty() ? 0 : total / static_cast<double>(res.rows.size());
    return res;
}

}  // namespace exactattn
