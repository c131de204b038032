// SPDX-License-Identifier: MIT
// exactattn oracle: the a-priori bound of each algorithm (docs/oracle.md, "Bounds") and the
// judgement of a kernel's output against the certified reference.
#include <fmt/format.h>

#include <cmath>
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
    double d_lo = 1;   // a lower bound on Σ_j exp(s_j − shift)
    std::string why;   // nonempty: no guarantee
};

Terms row_terms(const Reference& ref, const AlgorithmSpec& s, const RowFacts& f, std::int64_t i) {
    Terms t;
    const double ua = unit_roundoff(s.accumulate), n = static_cast<double>(f.keys);
    const double a = f.abs_score_max;
    double eps = gamma(static_cast<double>(ref.d), ua) * a + 6 * ua * a;  // dot, scale, product
    // log_b of the largest finite value: where b^s (and Σ b^s, whose log_b is the lse) overflows.
    const double lmax = (ref.base == ExpBase::E ? std::log(max_finite(s.accumulate)) : std::log2(max_finite(s.accumulate))) *
                        (1 - 0x1p-30);
    t.eta = least_subnormal(s.accumulate);
    if (s.algorithm == Algorithm::Naive) {
        // The computed sum may exceed the exact one by the factor (1 + 2u)e^ε(1 + γ_n): its log_b
        // by at most 2(γ_n + 2u + ε) (log1p(x) ≤ x, and 1/ln 2 < 2).
        const double slack = 2 * (gamma(n, ua) + 2 * ua + eps);
        if (f.score_max + eps >= lmax || ref.lse_hi[i] + slack >= lmax)
            t.why = fmt::format("row {}: the largest score {:.6g} overflows exp (or the sum) in {} (log max = {:.4g})", i,
                                f.score_max, info(s.accumulate).name, lmax);
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
    t.r = (1 + 2 * ua) * std::exp(eps) - 1;
    if (t.phi >= 1)
        t.why = fmt::format("row {}: {} keys summed in {}: n·u ≥ 1, no guarantee", i, f.keys, info(s.accumulate).name);
    else if (t.r >= 1)
        t.why = fmt::format("row {}: scores up to {:.4g} rounded in {} make exp's relative error ≥ 1, no guarantee", i,
                            f.abs_score_max, info(s.accumulate).name);
    return t;
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
    case Algorithm::Naive: return "naive";
    case Algorithm::Safe: return "safe";
    case Algorithm::Online: return "online";
    }
    return "?";
}

double output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c, std::string* why) {
    const RowFacts& f = ref.rows[i];
    if (f.masked) return 0;
    const Terms t = row_terms(ref, spec, f, i);
    if (!t.why.empty()) {
        if (why != nullptr) *why = t.why;
        return kInf;
    }
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
    const double e = std::max(up(std::fabs(value - lo)), up(std::fabs(value - hi)));
    return up(e) <= bound;
}

Judged judge_entry(const Reference& ref, double value, std::size_t at, double bound) {
    Judged j;
    j.value = value;
    j.rounded = ref.out[at];
    j.lo = ref.out_lo[at];
    j.hi = ref.out_hi[at];
    j.exact = ref.out_exact[at] != 0;
    j.bound = bound;
    if (std::isnan(j.rounded)) {  // a fully masked row under NaN semantics
        j.within = std::isnan(value);
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
    j.ulp_error = static_cast<double>(err / ulp(j.rounded, ref.format));
    j.abs_error = static_cast<double>(std::fabs(err));
    j.rel_error = mid != 0 ? static_cast<double>(std::fabs(err / mid)) : (err == 0 ? 0 : kInf);
    j.within = certainly_within(value, j.lo, j.hi, bound);
    return j;
}

}  // namespace

Judgement judge_output(const Reference& ref, const Tensor& output, const AlgorithmSpec& spec,
                       std::optional<double> tolerance_ulps) {
    const std::int64_t n = static_cast<std::int64_t>(output.data.size());
    if (output.shape.size() != 2 || output.rows() != ref.n_q || output.cols() != ref.d_v)
        throw shape_error(fmt::format("the output must be {} × {} (n_q × d_v), not {}", ref.n_q, ref.d_v,
                                      output.shape.size() == 2 ? fmt::format("{} × {}", output.rows(), output.cols())
                                                               : fmt::format("of rank {}", output.shape.size())));
    Judgement jd;
    jd.tensor = "out";
    jd.count = n;
    jd.entries.reserve(static_cast<std::size_t>(n));
    for (std::int64_t x = 0; x < n; ++x) {
        const std::int64_t i = x / ref.d_v, c = x % ref.d_v;
        std::string why;
        const double b = output_bound(ref, spec, i, c, &why);
        Judged j = judge_entry(ref, output.data[x], static_cast<std::size_t>(x), b);
        j.row = i;
        j.col = c;
        if (tolerance_ulps && !(std::fabs(j.ulp_error) <= *tolerance_ulps)) j.within = false;
        if (std::isinf(b)) {
            ++jd.unbounded;
            if (jd.unbounded_reason.empty()) jd.unbounded_reason = why;
        }
        if (!j.within) {
            ++jd.over;
            if (jd.first_over < 0) jd.first_over = x;
        }
        jd.exact_count += j.exact ? 1 : 0;
        const double a = std::fabs(j.ulp_error);
        if (jd.worst < 0 || a > jd.max_abs_ulp || (std::isnan(a) && !std::isnan(jd.max_abs_ulp))) {
            jd.worst = x;
            jd.max_abs_ulp = a;
        }
        jd.entries.push_back(j);
    }
    return jd;
}

}  // namespace exactattn::oracle
