// SPDX-License-Identifier: MIT
// exactattn: an independent double path, its a-priori error bounds, and its comparison with the
// exact results. The bounds are derived in docs/crosscheck.md; the formulas below cite
// its sections.
#include "exactattn/crosscheck.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/interval.hpp"
#include "exactattn/print.hpp"
#include "scenario/json.hpp"

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

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = 0x1p-53;          // unit roundoff u of binary64, round to nearest
constexpr double kEta = 0x1p-1074;      // ≥ the error (≤ 2^-1075) of a product or quotient that underflows
constexpr double kExpU = 0x1p-52;       // libm's exp within 1 ulp: relative 2u (docs §2)
constexpr double kExpEta = 0x1p-1074;   // 1 ulp in the subnormal range
constexpr double kSlack = 1 + 0x1p-20;  // covers the rounding of a bound's own evaluation (docs §2)

// A bound evaluated in double, made an upper bound of the real formula; NaN (0·inf) is inf.
double up(double x) { return std::isnan(x) ? kInf : x * kSlack; }

// γ_n = nu/(1 − nu).
double gamma(std::size_t n) {
    const double nu = static_cast<double>(n) * kU;
    return nu >= 0.5 ? kInf : nu / (1 - nu);
}

// A double the path computes, v, with e ≥ |v − exact|, where "exact" is the mathematical value
// the double path approximates (docs §3).
struct D {
    double v = 0;
    double e = 0;
};
using DVec = std::vector<D>;
using DMat = std::vector<DVec>;

bool is_exact_factor(double x) { return x == 0 || std::fabs(x) == 1; }

// fl(x·y): the operands' errors propagated, plus one rounding (none when a factor is 0 or ±1).
D mul(D x, D y) {
    const double v = x.v * y.v;
    const double round = is_exact_factor(x.v) || is_exact_factor(y.v) ? 0 : kU * std::fabs(v) + kEta;
    return {v, up(std::fabs(x.v) * y.e + std::fabs(y.v) * x.e + x.e * y.e + round)};
}

// fl(x + y): sums never underflow inexactly; adding 0 is exact.
D add(D x, D y) {
    const double v = x.v + y.v;
    const double round = x.v == 0 || y.v == 0 ? 0 : kU * std::fabs(v);
    return {v, up(x.e + y.e + round)};
}

// fl(x − c) for a double c taken as exact (the max subtraction, docs §4).
D sub_exact(D x, double c) {
    const double v = x.v - c;
    const double round = x.v == c || c == 0 ? 0 : kU * std::fabs(v);
    return {v, up(x.e + round)};
}

// fl(x / y): |x̂/ŷ − x/y| ≤ (|x̂/ŷ|·e_y + e_x) / (|ŷ| − e_y), plus one rounding.
D div(D x, D y) {
    const double v = x.v / y.v;
    if (!(std::fabs(y.v) > y.e)) return {v, kInf};
    const double round = x.v == 0 || std::fabs(y.v) == 1 ? 0 : kU * std::fabs(v) + kEta;
    return {v, up((std::fabs(v) * y.e + x.e) / (std::fabs(y.v) - y.e) + round)};
}

// exp(x̂) with libm's error: |v − exp(x)| ≤ exp(x̂)(2u + expm1(e_x)) + η, exp(x̂) ≤ (v + η)/(1 − 2u).
D exp_of(D x) {
    const double v = std::exp(x.v);
    if (x.v == 0 && x.e == 0) return {v, 0};  // exp(±0) = 1 exactly (C Annex F)
    if (!std::isfinite(x.e)) return {v, kInf};
    return {v, up((v + kExpEta) / (1 - kExpU) * (kExpU + std::expm1(x.e)) + kExpEta)};
}

// fl(Σ_i x_i y_i), summed from 0 in index order exactly as a loop `s += x[i] * y[i]` does, with
// γ_k Σ|x̂_i ŷ_i| + kη + Σ(|x̂_i| e_y + |ŷ_i| e_x + e_x e_y) over the k nonzero products
// (γ_{k−1} and no η when every product is exact) (docs §3).
template <class X, class Y>
D dot(std::size_t n, X xat, Y yat) {
    double s = 0;
    double magnitude = 0;
    double propagated = 0;
    std::size_t k = 0;
    bool products_exact = true;
    for (std::size_t i = 0; i < n; ++i) {
        const D x = xat(i);
        const D y = yat(i);
        const double p = x.v * y.v;
        s += p;
        propagated += std::fabs(x.v) * y.e + std::fabs(y.v) * x.e + x.e * y.e;
        if (p != 0 || !(is_exact_factor(x.v) || is_exact_factor(y.v))) {
            ++k;
            magnitude += std::fabs(p);
            products_exact = products_exact && (is_exact_factor(x.v) || is_exact_factor(y.v));
        }
    }
    if (k == 0) return {s, up(propagated)};
    const std::size_t roundings = products_exact ? k - 1 : k;
    const double underflow = products_exact ? 0 : static_cast<double>(k) * kEta;
    return {s, up(gamma(roundings) * magnitude + underflow + propagated)};
}

// The double path's a, and |log(2.0) − ln 2| measured once at 200 bits, rounded up (docs §2).
const double kA = std::log(2.0);
double a_error() {
    static const double e = [] {
        const mpq_class diff = abs(exact_of_double(kA) - detail::approximate(Value::ln2().terms(), 200));
        return std::nextafter(mpq_class(diff + mpq_class(mpz_class(1), mpz_class(1) << 190)).get_d(), kInf);
    }();
    return e;
}

// The rounding of one coefficient by to_double (correctly rounded): 0 when it is exact.
double coefficient_error(const Value& f, double c) {
    if (!std::isfinite(c)) return kInf;
    if (f.is_rational() && exact_of_double(c) == f.rational()) return 0;
    return kU * std::fabs(c) + kEta;
}

// An input value as a floating-point program would form it: Σ_k double(F_k) · a^k.
D input_double(const Value& v) {
    D s;
    D apow{1, 0};
    const D a{kA, a_error()};
    for (const auto& f : v.terms()) {
        if (!f.is_zero()) {
            const Value coefficient(f);
            const double c = to_double(coefficient);
            s = add(s, mul({c, coefficient_error(coefficient, c)}, apow));
        }
        apow = mul(apow, a);
    }
    return s;
}

DVec input_vector(const Vector& v) {
    DVec out;
    for (const auto& x : v) out.push_back(input_double(x));
    return out;
}

DMat input_matrix(const Matrix& m) {
    DMat out;
    for (const auto& r : m) out.push_back(input_vector(r));
    return out;
}

// row · M, column by column.
DVec times(const DVec& row, const DMat& m) {
    DVec out;
    const std::size_t width = m.empty() ? 0 : m[0].size();
    for (std::size_t j = 0; j < width; ++j) {
        out.push_back(dot(
            row.size(), [&](std::size_t i) { return row[i]; }, [&](std::size_t i) { return m[i][j]; }));
    }
    return out;
}

// The encoder in double: h_t = φ(fl(h W_h + fl(x W_x + b))); ReLU is 1-Lipschitz, so it keeps
// the error bound.
DMat encode_double(const Scenario& s, const std::vector<std::string>& tokens) {
    const Encoder& e = *s.encoder;
    const DMat wh = input_matrix(e.recurrent);
    const DMat wx = input_matrix(e.input);
    const DVec b = input_vector(e.bias);
    DVec h = input_vector(e.initial);
    DMat states;
    for (const auto& t : tokens) {
        DVec pre = times(h, wh);
        const DVec x = times(input_vector(s.embedding(t)), wx);
        for (std::size_t j = 0; j < pre.size(); ++j) {
            pre[j] = add(pre[j], add(x[j], b[j]));
            if (e.activation == Activation::Relu && pre[j].v < 0) pre[j].v = 0;
        }
        h = pre;
        states.push_back(pre);
    }
    return states;
}

DMat source_double(const Scenario& s, const Source& src) {
    if (src.tokens) return encode_double(s, *src.tokens);
    return input_matrix(src.states.matrix());
}

struct DRead {
    DVec scores;   // NaN where removed
    DVec weights;  // 0 where removed
    DVec context;
    std::optional<D> readout;
    double max_score = 0;
};

DRead read_double(const DMat& mem, const DVec& q, const std::vector<Mark>& marks, const std::optional<DVec>& readout,
                  ScoreRule rule) {
    const std::size_t n = mem.size();
    const std::size_t d = q.size();
    DRead r;
    r.scores.assign(n, D{std::numeric_limits<double>::quiet_NaN(), 0});
    r.weights.assign(n, D{});
    std::vector<std::size_t> included;
    double m = -kInf;
    for (std::size_t j = 0; j < n; ++j) {
        if (marks[j] == Mark::Removed) continue;
        included.push_back(j);
        D s;
        if (marks[j] == Mark::Included) {
            s = dot(
                d, [&](std::size_t i) { return q[i]; }, [&](std::size_t i) { return mem[j][i]; });
            if (rule == ScoreRule::ScaledDot) {
                const double root = std::sqrt(static_cast<double>(d));  // correctly rounded (IEEE 754)
                s = div(s, {root, root * root == static_cast<double>(d) ? 0 : kU * root});
            }
        }
        r.scores[j] = s;
        m = std::max(m, s.v);
    }
    r.max_score = m;
    // Softmax is shift-invariant: w_j = exp(s_j − m̂) / Σ_k exp(s_k − m̂) for the double m̂
    // itself, so the max subtraction adds only its rounding (docs §4).
    double sum = 0;
    double magnitude = 0;
    double propagated = 0;
    std::size_t nonzero = 0;
    for (const std::size_t j : included) {
        r.weights[j] = exp_of(sub_exact(r.scores[j], m));
        sum += r.weights[j].v;
        magnitude += r.weights[j].v;
        propagated += r.weights[j].e;
        nonzero += r.weights[j].v != 0 ? 1 : 0;
    }
    const D total{sum, up(gamma(nonzero > 0 ? nonzero - 1 : 0) * magnitude + propagated)};
    for (const std::size_t j : included) r.weights[j] = div(r.weights[j], total);
    for (std::size_t i = 0; i < d; ++i) {
        r.context.push_back(dot(
            included.size(), [&](std::size_t k) { return r.weights[included[k]]; },
            [&](std::size_t k) { return mem[included[k]][i]; }));
    }
    if (readout) {
        r.readout = dot(
            d, [&](std::size_t i) { return (*readout)[i]; }, [&](std::size_t i) { return r.context[i]; });
    }
    return r;
}

// The naive softmax, exp(s_j) / Σ_k exp(s_k) without max subtraction, for contrast (docs §6).
NaiveRow naive_softmax(const DRead& r, const std::vector<Mark>& marks) {
    NaiveRow nr;
    nr.max_score = r.max_score;
    nr.weights.assign(marks.size(), 0.0);
    bool scores_finite = true;
    bool exp_overflow = false;
    for (std::size_t j = 0; j < marks.size(); ++j) {
        if (marks[j] == Mark::Removed) continue;
        scores_finite = scores_finite && std::isfinite(r.scores[j].v);
        nr.weights[j] = std::exp(r.scores[j].v);
        exp_overflow = exp_overflow || std::isinf(nr.weights[j]);
        nr.underflowed += nr.weights[j] == 0 ? 1 : 0;
        nr.sum += nr.weights[j];
    }
    for (std::size_t j = 0; j < marks.size(); ++j) {
        if (marks[j] != Mark::Removed) nr.weights[j] /= nr.sum;
    }
    if (!scores_finite) {
        nr.outcome = NaiveOutcome::ScoreNotFinite;
    } else if (exp_overflow) {
        nr.outcome = NaiveOutcome::ExpOverflow;
    } else if (std::isinf(nr.sum)) {
        nr.outcome = NaiveOutcome::SumOverflow;
    } else if (nr.sum == 0) {
        nr.outcome = NaiveOutcome::Underflow;
    }
    return nr;
}

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

    void compare(const std::string& quantity, const Value& exact, D computed) {
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
        NaiveRow nr = naive_softmax(r, t.marks);
        nr.read = base;
        for (std::size_t j = 0; j < t.marks.size(); ++j) {
            const Value w = t.weights.at(j).value_or(Value());
            const double u = std::fabs(measure(w, nr.weights[j], to_double(w)).ulp);
            nr.max_ulp_error = std::isinf(u) ? std::numeric_limits<double>::quiet_NaN() : std::max(nr.max_ulp_error, u);
            if (std::isnan(nr.max_ulp_error)) break;
        }
        out_.naive.push_back(nr);
    }

  private:
    CrosscheckResult& out_;
    const CrosscheckOptions& options_;
};

std::optional<DVec> readout_double(const std::optional<NamedVector>& r) {
    if (!r) return std::nullopt;
    return input_vector(r->values);
}

// One decoder step in double: the read, the state, the output scores and the first largest
// score's index (what a floating-point argmax picks).
struct DStep {
    DRead read;
    DVec state;
    DVec scores;
    std::size_t argmax = 0;
};

// The rollout recomputed in double from the declarations: generation feeds the double path's
// own choices, so after a split its inputs are its own.
std::vector<DStep> rollout_double(const Scenario& s, const RolloutSpec& spec, Regime regime, std::size_t steps) {
    const Decoder& dec = *s.decoder;
    const Source& src = s.source(spec.source);
    const DMat mem = source_double(s, src);
    const DMat u = input_matrix(dec.recurrent);
    const DMat e = input_matrix(dec.input);
    const DMat c = input_matrix(dec.context);
    const DVec b = input_vector(dec.bias);
    const DMat wo = input_matrix(dec.output);
    DVec state = dec.initial ? input_vector(*dec.initial) : mem.back();
    std::string y = dec.start;
    std::vector<DStep> out;
    for (std::size_t t = 1; t <= steps; ++t) {
        DStep st;
        const DVec q = dec.query ? times(state, input_matrix(*dec.query)) : state;
        st.read = read_double(mem, q, std::vector<Mark>(mem.size(), Mark::Included), std::nullopt, ScoreRule::Dot);
        DVec pre = times(state, u);
        const DVec x = times(input_vector(dec.vocabulary[dec.index(y)].second), e);
        const DVec cc = times(st.read.context, c);
        for (std::size_t j = 0; j < pre.size(); ++j) {
            pre[j] = add(pre[j], add(add(x[j], cc[j]), b[j]));
            if (dec.activation == Activation::Relu && pre[j].v < 0) pre[j].v = 0;
        }
        state = pre;
        st.state = pre;
        DVec in = state;
        if (dec.output_context) in.insert(in.end(), st.read.context.begin(), st.read.context.end());
        st.scores = times(in, wo);
        if (dec.output_bias) {
            const DVec bo = input_vector(*dec.output_bias);
            for (std::size_t k = 0; k < st.scores.size(); ++k) st.scores[k] = add(st.scores[k], bo[k]);
        }
        for (std::size_t k = 1; k < st.scores.size(); ++k) {
            if (st.scores[k].v > st.scores[st.argmax].v) st.argmax = k;
        }
        const std::string chosen = dec.vocabulary[st.argmax].first;
        out.push_back(std::move(st));
        if (regime == Regime::TeacherForcing) {
            y = spec.reference[t - 1];
        } else {
            y = chosen;
            if (dec.end && chosen == *dec.end) break;
        }
    }
    return out;
}

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
    for (const auto& src : s.sources) {
        const DMat states = source_double(s, src);
        for (std::size_t j = 0; j < src.states.rows(); ++j) {
            cmp.vector(detail::pointer_join(detail::pointer_join("/sources", src.name) + "/states", j),
                       src.states.row(j), states[j]);
        }
    }
    for (const auto& rr : rep.reads) {
        const Source& src = s.source(rr.spec.source);
        const DRead r = read_double(source_double(s, src), input_vector(rr.spec.query.values), rr.trace.marks,
                                    readout_double(rr.spec.readout), s.rule);
        cmp.trace(detail::pointer_join("/reads", rr.spec.name), rr.trace, r);
    }
    for (const auto& ir : rep.interventions) {
        const Source& src = s.source(ir.spec.source);
        const std::string base = detail::pointer_join("/interventions", ir.spec.name) + "/rows";
        for (std::size_t k = 0; k < ir.rows.size(); ++k) {
            const auto& row = ir.rows[k];
            const DMat mem = ir.spec.kind == InterventionKind::DeleteToken && row.position > 0
                                 ? encode_double(s, *row.tokens)
                                 : source_double(s, src);
            const DRead r = read_double(mem, input_vector(ir.spec.query.values), row.trace.marks,
                                        readout_double(ir.spec.readout), s.rule);
            cmp.trace(detail::pointer_join(base, k), row.trace, r);
        }
    }
    for (const auto& rr : rep.rollouts) {
        const std::size_t steps = rr.spec.steps > 0 ? rr.spec.steps : rr.spec.reference.size();
        if (rr.teacher_forcing) {
            compare_regime(cmp, res, *s.decoder, rr, *rr.teacher_forcing,
                           rollout_double(s, rr.spec, Regime::TeacherForcing, steps));
        }
        compare_regime(cmp, res, *s.decoder, rr, rr.generation, rollout_double(s, rr.spec, Regime::Generation, steps));
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

namespace {

std::string num(double x) {
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    if (std::isnan(x)) return "nan";
    return fmt::format("{:.17g}", x);
}
std::string hex(double x) {
    if (!std::isfinite(x)) return num(x);
    return fmt::format("{:a}", x);
}
std::string err(double x) {
    if (std::isinf(x)) return "inf";
    if (std::isnan(x)) return "—";
    return fmt::format("{:.3g}", x);
}

// At most eight naive weights, then the count.
std::string weight_list(const std::vector<double>& w) {
    std::string s = "[";
    for (std::size_t j = 0; j < w.size() && j < 8; ++j) s += (j > 0 ? ", " : "") + num(w[j]);
    if (w.size() > 8) s += fmt::format(", … ({} in all)", w.size());
    return s + "]";
}

std::string naive_text(const NaiveRow& n) {
    switch (n.outcome) {
        case NaiveOutcome::Finite:
            return n.underflowed == 0
                       ? "finite"
                       : fmt::format("finite ({} exponential(s) underflow to 0, weight 0)", n.underflowed);
        case NaiveOutcome::ExpOverflow:
            return "an exponential overflows: inf/inf = NaN, finite/inf = 0";
        case NaiveOutcome::SumOverflow:
            return "every exponential finite, their sum overflows: finite/inf = 0";
        case NaiveOutcome::Underflow:
            return "every exponential underflows to 0: 0/0 = NaN";
        case NaiveOutcome::ScoreNotFinite:
            return "a score is not finite in double";
    }
    return "?";
}

// The limit a row is held to, in words.
std::string tolerance_text(const CrosscheckResult& r) {
    if (!r.tolerance_ulps) return "none declared: each quantity is held to its a-priori error bound";
    return fmt::format(
        "{} ULP declared ({}): each quantity is held to the smaller of its a-priori error bound "
        "and this tolerance",
        num(*r.tolerance_ulps), r.rationale.empty() ? "no rationale given" : r.rationale);
}

}  // namespace

namespace {

// What the rows cover, counted by section, and what the scenario declares that no row covers:
// a result says what its PASS is about.
Inline compared_line(const CrosscheckResult& r) {
    std::size_t sources = 0;
    std::size_t reads = 0;
    std::size_t interventions = 0;
    std::size_t rollouts = 0;
    for (const auto& row : r.rows) {
        const std::string& q = row.quantity;
        if (q.rfind("/sources/", 0) == 0)
            ++sources;
        else if (q.rfind("/reads/", 0) == 0)
            ++reads;
        else if (q.rfind("/interventions/", 0) == 0)
            ++interventions;
        else if (q.rfind("/rollouts/", 0) == 0)
            ++rollouts;
    }
    Inline line(
        fmt::format("Compared: {} quantities ({} of sources, {} of reads, {} of interventions, {} of "
                    "rollouts).",
                    r.rows.size(), sources, reads, interventions, rollouts));
    if (!r.not_compared.empty()) {
        line.text(" Not compared (no double path yet: docs/crosscheck.md): ");
        for (std::size_t i = 0; i < r.not_compared.size(); ++i) {
            if (i > 0) line.text(", ");
            line.code(r.not_compared[i]);
        }
        line.text(".");
    }
    return line;
}

}  // namespace

Document crosscheck_document(const std::vector<CrosscheckResult>& results) {
    Document doc;
    doc.title = "Cross-check";
    std::size_t failed = 0;
    std::size_t nothing = 0;
    for (const auto& r : results) {
        doc.add(Heading{1, Inline("Cross-check: ").code(r.file)});
        doc.add(Paragraph{Inline(fmt::format(
            "Double path: a = log(2.0), max-subtracted softmax, computed from the scenario (never from the exact "
            "results). Each exact value is evaluated at 160 bits, not rounded to double first. Each quantity's "
            "error bound is derived a priori from the double operations that compute it (docs/crosscheck.md). "
            "Tolerance: {}.",
            tolerance_text(r)))});
        TableBlock tab;
        tab.caption = Inline("Every quantity of ").code(r.file).text(" against the double path");
        tab.headers = {Inline("quantity"),       Inline("exact"),          Inline("correctly rounded"),
                       Inline("double path"),    Inline("ULP error"),      Inline("bound (ULP)"),
                       Inline("relative error"), Inline("absolute error"), Inline("bound (absolute)"),
                       Inline("within")};
        for (const auto& row : r.rows) {
            const bool over_bound = row.abs_error > row.bound;
            Inline within = row.passed ? Inline("yes")
                                       : Inline().strong("no").text(over_bound ? " (over bound)" : " (over tolerance)");
            tab.add_row({Inline().code(row.quantity), Inline().code(row.exact),
                         Inline(fmt::format("{} ({})", num(row.rounded), hex(row.rounded))),
                         Inline(fmt::format("{} ({})", num(row.computed), hex(row.computed))),
                         Inline(err(row.ulp_error)), Inline(err(row.bound_ulps)), Inline(err(row.rel_error)),
                         Inline(err(row.abs_error)), Inline(err(row.bound)), within});
        }
        doc.add(std::move(tab));
        Lines summary;
        if (!r.rows.empty()) {
            summary.lines.push_back(
                Inline(fmt::format("Summary: {} quantities; max |ULP| = {} at ", r.rows.size(), err(r.max_abs_ulp)))
                    .code(r.rows[r.worst].quantity)
                    .text(fmt::format("; mean |ULP| = {}; largest error/bound = {} at ", err(r.mean_abs_ulp),
                                      err(r.worst_ratio)))
                    .code(r.rows[r.worst_ratio_row].quantity)
                    .text(fmt::format("; {} over their limit.", r.failed)));
        }
        summary.lines.push_back(Inline(fmt::format(
            "Dyadic values (exact values that are doubles, e.g. 1/2, 1/4, 2; information only): {}, {} of them "
            "computed exactly by the double path.",
            r.dyadic_count, r.dyadic_exact)));
        summary.lines.push_back(compared_line(r));
        if (r.compared_nothing()) {
            ++nothing;
            summary.lines.push_back(Inline("Result: ")
                                        .strong("NOTHING COMPARED")
                                        .text(" (a warning, not a pass: the scenario declares no source, read, "
                                              "intervention or rollout that the double path recomputes)."));
        } else if (r.passed()) {
            summary.lines.push_back(Inline(
                r.unbounded == 0 ? std::string("Result: PASS (every quantity within its bound).")
                                 : fmt::format("Result: PASS (every quantity within its bound; {} of them unchecked: "
                                               "their bound is inf because the double path overflows).",
                                               r.unbounded)));
        } else {
            const auto first = std::find_if(r.rows.begin(), r.rows.end(), [](const CrossRow& x) { return !x.passed; });
            summary.lines.push_back(
                Inline("Result: ")
                    .strong("FAIL")
                    .text(fmt::format(" ({} quantities over their bound or the declared tolerance, first ", r.failed))
                    .code(first->quantity)
                    .text(": the double path or the exact engine has a bug)."));
        }
        doc.add(std::move(summary));
        TableBlock naive;
        naive.caption = Inline("Naive softmax without max subtraction (for contrast; not checked)");
        naive.headers = {Inline("read"), Inline("largest score"), Inline("naive softmax"), Inline("naive weights"),
                         Inline("naive max |ULP|")};
        for (const auto& n : r.naive) {
            naive.add_row({Inline().code(n.read), Inline(num(n.max_score)), Inline(naive_text(n)),
                           Inline(weight_list(n.weights)), Inline(err(n.max_ulp_error))});
        }
        doc.add(std::move(naive));
        if (!r.splits.empty()) {
            TableBlock splits;
            splits.caption = Inline(
                "Rollout steps where the double argmax is not the exact choice (information; "
                "the sequences are given from that step on)");
            splits.headers = {Inline("rollout"),       Inline("regime"),         Inline("step"),
                              Inline("exact argmax"),  Inline("exact choice"),   Inline("double choice"),
                              Inline("double margin"), Inline("exact sequence"), Inline("double sequence")};
            auto list = [](const std::vector<std::string>& v) {
                std::string out;
                for (const auto& t : v) out += (out.empty() ? "" : " ") + (t.empty() ? std::string("—") : t);
                return Inline().token(out);
            };
            for (const auto& sp : r.splits) {
                splits.add_row(
                    {Inline().code(sp.rollout), Inline(sp.regime), Inline(std::to_string(sp.step)),
                     Inline(sp.exact_tie() ? "tie: " : "").append(list(sp.exact_argmax)),
                     sp.exact_choice.empty() ? Inline("refused (tie rule)") : Inline().token(sp.exact_choice),
                     Inline().token(sp.double_choice), Inline(num(sp.double_margin)), list(sp.exact_tokens),
                     list(sp.double_tokens)});
            }
            doc.add(std::move(splits));
        }
        if (!r.passed()) ++failed;
    }
    // A file that compared nothing is neither passed nor failed; it is counted only when there is one, so
    // that the line of every other run stays as it was.
    doc.add(Paragraph{Inline(fmt::format("crosscheck: {} passed, {} failed{}", results.size() - failed - nothing,
                                         failed, nothing > 0 ? fmt::format(", {} compared nothing", nothing) : ""))});
    return doc;
}

std::string render_crosscheck(const std::vector<CrosscheckResult>& results, Format format,
                              const RenderOptions& options) {
    if (format == Format::Json) return crosscheck_json(results);
    return render(crosscheck_document(results), format, options);
}

std::string crosscheck_markdown(const std::vector<CrosscheckResult>& results) {
    return render(crosscheck_document(results), Format::Markdown);
}

std::string crosscheck_json(const std::vector<CrosscheckResult>& results) {
    using detail::Json;
    auto number = [](double x) -> Json {
        if (std::isfinite(x)) return x;
        return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
    };
    Json all = Json::array();
    for (const auto& r : results) {
        Json j;
        j["file"] = r.file;
        j["tolerance_ulps"] = r.tolerance_ulps ? number(*r.tolerance_ulps) : Json(nullptr);
        j["rationale"] = r.rationale;
        Json rows = Json::array();
        for (const auto& row : r.rows) {
            rows.push_back({{"quantity", row.quantity},
                            {"exact", row.exact},
                            {"rounded", number(row.rounded)},
                            {"rounded_hex", hex(row.rounded)},
                            {"computed", number(row.computed)},
                            {"computed_hex", hex(row.computed)},
                            {"ulp_error", number(row.ulp_error)},
                            {"rel_error", number(row.rel_error)},
                            {"abs_error", number(row.abs_error)},
                            {"bound", number(row.bound)},
                            {"bound_ulps", number(row.bound_ulps)},
                            {"dyadic", row.dyadic},
                            {"passed", row.passed}});
        }
        j["rows"] = rows;
        j["summary"] = {
            {"count", r.rows.size()},
            {"max_abs_ulp", number(r.max_abs_ulp)},
            {"mean_abs_ulp", number(r.mean_abs_ulp)},
            {"worst", r.rows.empty() ? Json(nullptr) : Json(r.rows[r.worst].quantity)},
            {"worst_error_over_bound", number(r.worst_ratio)},
            {"worst_error_over_bound_at", r.rows.empty() ? Json(nullptr) : Json(r.rows[r.worst_ratio_row].quantity)},
            {"failed", r.failed},
            {"unbounded", r.unbounded},
            {"dyadic", r.dyadic_count},
            {"dyadic_exact", r.dyadic_exact},
            {"not_compared", r.not_compared},
            {"compared_nothing", r.compared_nothing()},
            {"passed", r.passed()}};
        Json naive = Json::array();
        for (const auto& n : r.naive) {
            Json weights = Json::array();
            for (const double w : n.weights) weights.push_back(number(w));
            naive.push_back({{"read", n.read},
                             {"max_score", number(n.max_score)},
                             {"outcome", naive_outcome_name(n.outcome)},
                             {"underflowed", n.underflowed},
                             {"sum", number(n.sum)},
                             {"weights", weights},
                             {"max_ulp_error", std::isnan(n.max_ulp_error) ? Json(nullptr) : number(n.max_ulp_error)}});
        }
        j["naive_softmax"] = naive;
        Json splits = Json::array();
        for (const auto& sp : r.splits) {
            splits.push_back({{"rollout", sp.rollout},
                              {"regime", sp.regime},
                              {"step", sp.step},
                              {"exact_argmax", sp.exact_argmax},
                              {"exact_tie", sp.exact_tie()},
                              {"exact_choice", sp.exact_choice.empty() ? Json(nullptr) : Json(sp.exact_choice)},
                              {"double_choice", sp.double_choice},
                              {"double_margin", number(sp.double_margin)},
                              {"exact_tokens", sp.exact_tokens},
                              {"double_tokens", sp.double_tokens}});
        }
        j["rollout_splits"] = splits;
        all.push_back(j);
    }
    return all.dump(2) + "\n";
}

}  // namespace exactattn
