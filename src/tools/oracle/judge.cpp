// SPDX-License-Identifier: MIT
// exactattn oracle: the a-priori bound of each algorithm (docs/oracle.md, "Bounds") and the
// judgement of a kernel's output against the certified reference.
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <limits>

#include "arith.hpp"
#include "exactattn/oracle.hpp"

namespace exactattn::oracle {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// γ_n = nu/(1 − nu) (Higham §3.1); +inf when nu ≥ 1 (no guarantee).
double gamma(double n, double u) { return n * u < 1 ? n * u / (1 - n * u) : kInf; }

// The relative error terms of one row (docs/oracle.md, "Bounds", steps 1 to 4).
struct Terms {
    double r = 0;      // per exponential: its rounding and its argument's error
    double phi = 0;    // per term of the denominator
    double theta = 0;  // per term of the numerator (and the division)
    double eta = 0;    // absolute error of an exponential that underflows
    double eps = 0;    // absolute error of an exponential's argument
    double d_lo = 1;   // a lower bound on Σ_j exp(s_j − shift)
    std::string why;   // nonempty: no guarantee
};

Terms row_terms(const Reference& ref, const AlgorithmSpec& s, const RowFacts& f, std::int64_t i) {
    Terms t;
    const double ua = unit_roundoff(s.accumulate), n = static_cast<double>(f.keys);
    const double a = f.abs_score_max;
    double eps = gamma(static_cast<double>(ref.d), ua) * a + 6 * ua * a;  // dot, scale, product
    // log_b of the largest finite value: where b^s (and Σ b^s, whose log_b is the lse) overflows.
    const double lmax =
        (ref.base == ExpBase::E ? std::log(max_finite(s.accumulate)) : std::log2(max_finite(s.accumulate))) *
        (1 - 0x1p-30);
    t.eta = least_subnormal(s.accumulate);
    if (s.algorithm == Algorithm::Naive) {
        // The computed sum may exceed the exact one by the factor (1 + 2u)e^ε(1 + γ_n): its log_b
        // by at most 2(γ_n + 2u + ε) (log1p(x) ≤ x, and 1/ln 2 < 2).
        const double slack = 2 * (gamma(n, ua) + 2 * ua + eps);
        if (f.score_max + eps >= lmax || ref.lse_hi[i] + slack >= lmax)
            t.why = fmt::format("row {}: the largest score {:.6g} overflows exp (or the sum) in {} (log max = {:.4g})",
                                i, f.score_max, info(s.accumulate).name, lmax);
        t.d_lo = std::exp(ref.lse_lo[i]) * (1 - 0x1p-30);
        t.phi = gamma(n - 1, ua);
        t.theta = (1 + ua) * (1 + gamma(n, ua)) - 1;
    } else {
        eps += ua * f.score_range;  // s_j − m rounded
        if (s.algorithm == Algorithm::Safe) {
            t.phi = gamma(n - 1, ua);
            t.theta = (1 + ua) * (1 + gamma(n, ua)) - 1;
        } else {
            const double b = static_cast<double>(std::max<std::int64_t>(1, std::min<std::int64_t>(s.block, f.keys)));
            const double blocks = std::ceil(n / b);
            const double up = s.p_format == s.accumulate ? 0 : unit_roundoff(s.p_format);
            t.phi = gamma(b + 2 * blocks, ua);
            t.theta = (1 + up) * (1 + gamma(b + 2 * blocks, ua)) * (1 + ua) - 1;
            t.eta += least_subnormal(s.p_format);
        }
    }
    t.eps = eps;
    t.r = (1 + 2 * ua) * std::exp(eps) - 1;
    if (t.phi >= 1)
        t.why = fmt::format("row {}: {} keys summed in {}: n·u ≥ 1, no guarantee", i, f.keys, info(s.accumulate).name);
    else if (t.r >= 1)
        t.why = fmt::format("row {}: scores up to {:.4g} rounded in {} make exp's relative error ≥ 1, no guarantee", i,
                            f.abs_score_max, info(s.accumulate).name);
    return t;
}

// The row's terms, or nothing (with the reason in `why`) when the algorithm guarantees nothing.
std::optional<Terms> bounded_terms(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::string* why) {
    Terms t = row_terms(ref, spec, ref.rows[i], i);
    if (t.why.empty()) return t;
    if (why != nullptr) *why = t.why;
    return std::nullopt;
}

}  // namespace

Algorithm parse_algorithm(std::string_view name, const Location& where) {
    if (name == "naive") return Algorithm::Naive;
    if (name == "safe") return Algorithm::Safe;
    if (name == "online" || name == "flash" || name == "tiled") return Algorithm::Online;
    throw usage_error(fmt::format("unknown algorithm '{}' (naive, safe, online)", escape_controls(name)), where);
}

const char* algorithm_name(Algorithm a) {
    switch (a) {
        case Algorithm::Naive:
            return "naive";
        case Algorithm::Safe:
            return "safe";
        case Algorithm::Online:
            return "online";
    }
    return "?";
}

double output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c, std::string* why) {
    const RowFacts& f = ref.rows[i];
    if (f.masked) return 0;
    const auto terms = bounded_terms(ref, spec, i, why);
    if (!terms) return kInf;
    const Terms& t = *terms;
    const std::size_t at = static_cast<std::size_t>(i * ref.d_v + c);
    const double a = ref.out_abs[at], o = std::max(std::fabs(ref.out_lo[at]), std::fabs(ref.out_hi[at]));
    const double b0 = a * ((1 + t.r) * (1 + t.theta) / ((1 - t.r) * (1 - t.phi)) - 1);
    const double n_eta = static_cast<double>(f.keys) * t.eta;
    const double d_prime = t.d_lo * (1 - t.r) * (1 - t.phi);
    const double b_eta = d_prime > n_eta ? n_eta * (ref.v_abs_max[c] + o + b0) / (d_prime - n_eta) : kInf;
    const double uo = unit_roundoff(ref.format);
    const double b = (b0 + b_eta + uo * (o + b0 + b_eta) + least_subnormal(ref.format)) * (1 + 0x1p-20);
    if (std::isnan(b) || std::isinf(b)) {
        if (why != nullptr) *why = fmt::format("row {}: the bound overflows", i);
        return kInf;
    }
    return b;
}

namespace {

// Certified: is |value − x| ≤ bound for every x in [lo, hi]?
bool certainly_within(double value, double lo, double hi, double bound) {
    using detail::up;
    if (value == lo && value == hi) return !std::isnan(bound);  // the exact value itself: error 0
    if (std::isinf(bound)) return false;                        // no guarantee: never a pass
    const double e = std::max(up(std::fabs(value - lo)), up(std::fabs(value - hi)));
    return up(e) <= bound;
}

// The expected tensor: the reference's rounded values, enclosures and exactness, row-major.
struct Expected {
    const char* name;
    const std::vector<double>& rounded;
    const std::vector<double>& lo;
    const std::vector<double>& hi;
    const std::vector<std::uint8_t>* exact;
    std::int64_t rows, cols;
};

Judged judge_entry(const Expected& x, FloatFormat f, double value, std::size_t at, double bound) {
    Judged j;
    j.value = value;
    j.rounded = x.rounded[at];
    j.lo = x.lo[at];
    j.hi = x.hi[at];
    j.exact = x.exact != nullptr && (*x.exact)[at] != 0;
    j.bound = bound;
    if (std::isnan(j.rounded) || std::isinf(j.rounded)) {  // a fully masked row's semantics (lse −inf)
        j.within = std::isnan(j.rounded) ? std::isnan(value) : value == j.rounded;
        j.ulp_error = j.within ? 0 : kInf;
        j.abs_error = j.rel_error = j.ulp_error;
        return j;
    }
    if (!std::isfinite(value)) {
        j.ulp_error = std::isnan(value) ? kInf : std::copysign(kInf, value);
        j.abs_error = j.rel_error = kInf;
        return j;
    }
    const long double mid = (static_cast<long double>(j.lo) + j.hi) / 2;
    const long double err = value - mid;
    j.ulp_error = static_cast<double>(err / ulp(j.rounded, f));
    j.abs_error = static_cast<double>(std::fabs(err));
    j.rel_error = mid != 0 ? static_cast<double>(std::fabs(err / mid)) : (err == 0 ? 0 : kInf);
    j.within = certainly_within(value, j.lo, j.hi, bound);
    return j;
}

using BoundFn = std::function<double(std::int64_t, std::int64_t, std::string*)>;
using ClaimFn = std::function<std::string(std::int64_t)>;

// For an unbounded row: the nearest claim under which the algorithm bounds it, said so.
std::string claim_that_bounds(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i) {
    std::vector<std::pair<AlgorithmSpec, std::string>> tries;
    if (spec.algorithm == Algorithm::Naive) {
        AlgorithmSpec s = spec;
        s.algorithm = Algorithm::Safe;
        tries.emplace_back(s, "the safe algorithm (max subtracted)");
    }
    for (FloatFormat f : {FloatFormat::Float32, FloatFormat::Float64}) {
        if (unit_roundoff(f) >= unit_roundoff(spec.accumulate)) continue;
        AlgorithmSpec s = spec;
        s.accumulate = f;
        tries.emplace_back(s, fmt::format("accumulation in {}", info(f).name));
    }
    for (const auto& [s, what] : tries)
        if (std::isfinite(output_bound(ref, s, i, 0))) return fmt::format("; {} would bound it", what);
    return "";
}

Judgement judge_tensor(const Expected& x, FloatFormat f, const Tensor& t, const BoundFn& bound,
                       std::optional<double> tolerance_ulps, const ClaimFn& bounding_claim) {
    Location where;
    where.context = x.name;
    if (tolerance_ulps) {
        Location tol;
        tol.context = "tolerance_ulps";
        checked_tolerance(*tolerance_ulps, tol);
    }
    const std::int64_t n = static_cast<std::int64_t>(t.data.size());
    if (t.rows() * t.cols() != n || t.rows() != x.rows || t.cols() != x.cols || t.shape.size() > 2)
        throw shape_error(fmt::format("the {} must be {} × {}, not {}", x.name, x.rows, x.cols,
                                      t.shape.size() == 2 ? fmt::format("{} × {}", t.rows(), t.cols())
                                                          : fmt::format("of rank {}", t.shape.size())),
                          where);
    for (std::int64_t at = 0; at < n; ++at)  // a kernel's values are values of its format
        if (std::isfinite(t.data[at]) && !representable(t.data[at], f))
            throw domain_error(fmt::format("{}[{}, {}]: {:.17g} is not a {} value", x.name, at / x.cols, at % x.cols,
                                           t.data[at], info(f).name),
                               where);
    Judgement jd;
    jd.tensor = x.name;
    jd.count = n;
    jd.entries.reserve(static_cast<std::size_t>(n));
    for (std::int64_t at = 0; at < n; ++at) {
        const std::int64_t i = at / x.cols, c = at % x.cols;
        std::string why;
        const double b = bound(i, c, &why);
        Judged j = judge_entry(x, f, t.data[at], static_cast<std::size_t>(at), b);
        j.row = i;
        j.col = c;
        if (tolerance_ulps && !(std::fabs(j.ulp_error) <= *tolerance_ulps)) j.within = false;
        if (std::isinf(b) && !j.within) {
            ++jd.unbounded;
            if (jd.unbounded_reason.empty()) jd.unbounded_reason = why + bounding_claim(i);
        }
        if (!j.within) {
            ++jd.over;
            if (jd.first_over < 0) jd.first_over = at;
        }
        jd.exact_count += j.exact ? 1 : 0;
        const double a = std::fabs(j.ulp_error);
        if (jd.worst < 0 || a > jd.max_abs_ulp || (std::isnan(a) && !std::isnan(jd.max_abs_ulp))) {
            jd.worst = at;
            jd.max_abs_ulp = a;
        }
        jd.entries.push_back(j);
    }
    return jd;
}

}  // namespace

Judgement judge_output(const Reference& ref, const Tensor& output, const AlgorithmSpec& spec,
                       std::optional<double> tolerance_ulps) {
    if (output.shape.size() != 2) {
        Location where;
        where.context = "out";
        throw shape_error(fmt::format("the output must be {} × {} (n_q × d_v), not of rank {}", ref.n_q, ref.d_v,
                                      output.shape.size()),
                          where);
    }
    const Expected x{"out", ref.out, ref.out_lo, ref.out_hi, &ref.out_exact, ref.n_q, ref.d_v};
    return judge_tensor(
        x, ref.format, output,
        [&](std::int64_t i, std::int64_t c, std::string* why) { return output_bound(ref, spec, i, c, why); },
        tolerance_ulps, [&](std::int64_t i) { return claim_that_bounds(ref, spec, i); });
}

double weight_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t j, std::string* why) {
    const RowFacts& f = ref.rows[i];
    const double w = std::fabs(ref.w_hi[i * ref.n_k + j]);
    if (f.masked || w == 0) return 0;  // masked keys and rows: exactly the semantics' value
    const auto terms = bounded_terms(ref, spec, i, why);
    if (!terms) return kInf;
    const Terms& t = *terms;
    // ŵ = Ê(1 + δ)/D̂, δ the division's rounding: the weight's own factor (1+r)(1+u)/((1−r)(1−Φ)).
    const double ua = unit_roundoff(spec.accumulate), n_eta = static_cast<double>(f.keys) * t.eta;
    const double d_prime = t.d_lo * (1 - t.r) * (1 - t.phi);
    const double b0 = w * ((1 + t.r) * (1 + ua) / ((1 - t.r) * (1 - t.phi)) - 1);
    const double b_eta = d_prime > n_eta ? n_eta * (1 + w + b0) / (d_prime - n_eta) : kInf;
    const double b =
        (b0 + b_eta + unit_roundoff(ref.format) * (w + b0 + b_eta) + least_subnormal(ref.format)) * (1 + 0x1p-20);
    return std::isfinite(b) ? b : kInf;
}

double lse_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::string* why) {
    const RowFacts& f = ref.rows[i];
    if (f.masked) return 0;
    const auto terms = bounded_terms(ref, spec, i, why);
    if (!terms) return kInf;
    const Terms& t = *terms;
    // LSE is 1-Lipschitz in the scores (ε); D̂ = D·(1 ± (2u + Φ)) moves log D by −log1p(−(2u + Φ))
    // (times 1/ln 2 < 2 for log2); the kernel's log within 1 ulp and the addition of the max.
    const double ua = unit_roundoff(spec.accumulate), rel = 2 * ua + t.phi;
    const double l = std::max(std::fabs(ref.lse_lo[i]), std::fabs(ref.lse_hi[i]));
    const double dlog = rel < 1 ? -std::log1p(-rel) * 2 : kInf;
    const double n_eta = static_cast<double>(f.keys) * t.eta;
    const double under = t.d_lo > n_eta ? -std::log1p(-n_eta / t.d_lo) * 2 : kInf;
    const double b = (t.eps + dlog + under + 3 * ua * (l + f.score_range + 1) + unit_roundoff(ref.format) * (l + 1) +
                      least_subnormal(ref.format)) *
                     (1 + 0x1p-20);
    return std::isfinite(b) ? b : kInf;
}

Judgement judge_weights(const Reference& ref, const Tensor& weights, const AlgorithmSpec& spec,
                        std::optional<double> tolerance_ulps) {
    if (ref.w.empty()) {
        Location where;
        where.context = "weights";
        throw usage_error("the reference has no weights (compute it with weights)", where);
    }
    const Expected x{"weights", ref.w, ref.w_lo, ref.w_hi, nullptr, ref.n_q, ref.n_k};
    return judge_tensor(
        x, ref.format, weights,
        [&](std::int64_t i, std::int64_t j, std::string* why) { return weight_bound(ref, spec, i, j, why); },
        tolerance_ulps, [&](std::int64_t i) { return claim_that_bounds(ref, spec, i); });
}

Judgement judge_lse(const Reference& ref, const Tensor& lse, const AlgorithmSpec& spec,
                    std::optional<double> tolerance_ulps) {
    const Expected x{"lse", ref.lse, ref.lse_lo, ref.lse_hi, nullptr, ref.n_q, 1};
    return judge_tensor(
        x, ref.format, lse,
        [&](std::int64_t i, std::int64_t, std::string* why) { return lse_bound(ref, spec, i, why); }, tolerance_ulps,
        [&](std::int64_t i) { return claim_that_bounds(ref, spec, i); });
}

}  // namespace exactattn::oracle
