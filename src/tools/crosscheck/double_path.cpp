// SPDX-License-Identifier: MIT
// exactattn: crosscheck's double path and its a-priori error bounds. The bounds are derived in
// docs/crosscheck.md; the formulas below cite its sections.
#include "tools/crosscheck/double_path.hpp"

#include <algorithm>
#include <cmath>

#include "core/interval.hpp"
#include "exactattn/print.hpp"

namespace exactattn::detail::fp {

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

std::optional<DVec> readout_double(const std::optional<NamedVector>& r) {
    if (!r) return std::nullopt;
    return input_vector(r->values);
}

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

}  // namespace exactattn::detail::fp
