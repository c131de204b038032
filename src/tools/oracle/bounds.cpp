// SPDX-License-Identifier: MIT
// exactattn oracle: the bounds a kernel's output, weights and lse are judged against
// (docs/oracle.md, "Bounds"): each algorithm's a-priori bound, the running bounds from the actual
// inputs and the probabilistic bounds.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "bounds.hpp"
#include "fp8.hpp"
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

// Unfused attention (docs/oracle.md, "Stored scores and weights"): a score stored in its format
// after the product, the scale and the bias, each rounded there at worst (3 roundings of
// relative u_s and absolute η_s on a score of magnitude ≤ a).
// The error is at most g_s·a + η_s with these two.
double stored_score_relative(const AlgorithmSpec& s) {
    if (!s.stored || s.algorithm == Algorithm::Online) return 0;
    const double us = unit_roundoff(*s.stored);
    return 3 * us * (1 + us) * (1 + us);
}
double stored_score_absolute(const AlgorithmSpec& s) {
    return s.stored && s.algorithm != Algorithm::Online ? 3 * least_subnormal(*s.stored) : 0;
}

// The logit softcap (docs/oracle.md, "The logit softcap"): on a scaled score computed within
// g0·a_j + η0, up to three roundings of tanh's argument (cap rounded to the format, a reciprocal,
// the division or product) and three of the capped score (tanh within 1 ulp, counted as two; the
// product by the rounded cap), each a factor 1 + δ or 1/(1 + δ) within u' = u_a/(1 − u_a), and
// for an unfused kernel x/cap, tanh and the product written to the stored format (three factors
// 1 + δ_s): with F = (1 + u')^7 (1 + u_s)^3 the capped score errs by at most F(a_j + g0·a_j + η0)
// − a_j (tanh is 1-Lipschitz, |cap·tanh(x/cap)| ≤ |x|), plus (2·cap + 1)(η_a + η_s)·F where the
// division, tanh and the product fall into the subnormals (tanh's argument's η scaled by cap).
// Without a softcap g0 and η0 as they are.
struct ScoreError {
    double g = 0, eta = 0;  // the score's error: g·a_j + eta
    double fm1 = 0;         // F − 1 (0 without a softcap)
};
ScoreError capped(const Reference& ref, const AlgorithmSpec& s, double g0, double eta0) {
    if (!(ref.softcap > 0)) return {g0, eta0, 0};
    const double ua = unit_roundoff(s.accumulate), ea = least_subnormal(s.accumulate);
    const bool st = s.stored && s.algorithm != Algorithm::Online;
    const double us = st ? unit_roundoff(*s.stored) : 0, es = st ? least_subnormal(*s.stored) : 0;
    const double fm1 = std::expm1(7 * std::log1p(ua / (1 - ua)) + 3 * std::log1p(us)) * (1 + 0x1p-30);
    return {g0 + (1 + g0) * fm1, (1 + fm1) * (eta0 + (2 * ref.softcap + 1) * (ea + es)) * (1 + 0x1p-30), fm1};
}
// The cap's slope (docs/oracle.md, "The logit softcap", "The slope"): tanh's argument C·ŷ is
// within δ_j ≤ A·a_j + b of x_j (A = g0 + θ3(1 + g0), b = (1 + θ3)(η0 + C(η_a + η_s)), θ3 the
// three (four stored) factors before tanh), so by the mean value theorem C·tanh(ŷ) is within
// sech²(ξ/C)·δ_j of the capped score, |ξ − x_j| ≤ δ_j, and sech²(ξ/C) ≤ e^(2δ_j/C)·h_j (cosh(t + e)
// ≤ e^|e| cosh t). After tanh θ4 (four factors, six stored) on |C·tanh| ≤ min(C, a_j) and the
// absolute terms; a bias added after the cap rounds once more (β: u_a, and u_s stored).
// Per key: (1 + β)((1 + θ4)(σ_j A a_j + b) + θ4 min(C, a_j) + (1 + θ4)(C + 1)(η_a + η_s)) + β a_j,
// σ_j ≤ min(1, K h_j) with K = e^(2δ_max/C). Every quantity rounded up (the factor 1 + 2^−30).
struct CapSlope {
    double a = 0, th3 = 0, th4 = 0, eta = 0, beta = 0, k = 1, cap = 0;
    // Σ_j w_j dev_j (the capped score's error), given S1 = Σ w dev a_j, S2 = Σ w dev and
    // H1 = Σ w dev h_j a_j; for the row's largest error, S1 = a_max, S2 = 1, H1 = max h_j a_j.
    double sum(double s1, double s2, double h1) const {
        constexpr double up = 1 + 0x1p-30;
        const double slope = (1 + th4) * a * std::min(s1, k * h1) * up;
        return ((1 + beta) * (slope + th4 * std::min(cap * s2, s1) + eta * s2) * up + beta * s1) * up;
    }
    // The same with the scaled score's error e_j bounded key by key by the caller (the declared
    // order's): x ≥ Σ_j w_j dev_j σ_j e_j, δ_j ≤ (1 + θ3)e_j + θ3 a_j + b.
    double sum_given(double x, double s1, double s2, double h1) const {
        constexpr double up = 1 + 0x1p-30;
        const double slope = (1 + th4) * ((1 + th3) * x + th3 * std::min(s1, k * h1)) * up;
        return ((1 + beta) * (slope + th4 * std::min(cap * s2, s1) + eta * s2) * up + beta * s1) * up;
    }
};
CapSlope cap_slope(const Reference& ref, const AlgorithmSpec& s, double g0, double eta0, const RowFacts& f) {
    constexpr double up = 1 + 0x1p-30;
    const double ua = unit_roundoff(s.accumulate), ea = least_subnormal(s.accumulate), c = ref.softcap;
    const bool st = s.stored && s.algorithm != Algorithm::Online;
    const double us = st ? unit_roundoff(*s.stored) : 0, es = st ? least_subnormal(*s.stored) : 0;
    const double l1 = std::log1p(ua / (1 - ua)), ls = std::log1p(us);
    const double th3 = std::expm1(3 * l1 + ls) * up, th4 = std::expm1(4 * l1 + 2 * ls) * up;
    CapSlope r;
    r.cap = c;
    r.th3 = th3;
    r.th4 = th4;
    r.a = (g0 + th3 * (1 + g0)) * up;
    const double b = (1 + th3) * (eta0 + c * (ea + es)) * up;
    r.eta = (1 + th4) * (b + (c + 1) * (ea + es)) * up;
    r.beta = ref.biased ? (ua + us + ua * us) * up : 0;
    r.k = std::exp(2 * (r.a * f.abs_score_max + b) * up / c) * up;
    return r;
}
// ... and a weight stored: relative u_s besides the accumulator's.
double stored_weight_roundoff(const AlgorithmSpec& s) {
    return s.stored && s.algorithm != Algorithm::Online ? unit_roundoff(*s.stored) : 0;
}

Terms row_terms(const Reference& ref, const AlgorithmSpec& s, const RowFacts& f, std::int64_t i) {
    Terms t;
    const double ua = unit_roundoff(s.accumulate), n = static_cast<double>(f.keys);
    const double a = f.abs_score_max;
    // dot, scale, product; and the absolute η_a/2 of each product q_x k_x, the scale's product
    // and the subtraction that may fall into the subnormals (docs/oracle.md, "Underflow").
    const double ea = least_subnormal(s.accumulate);
    const double g0 = gamma(static_cast<double>(ref.d), ua) + 6 * ua + stored_score_relative(s);
    const double eta0 = (static_cast<double>(ref.d) + 2) * ea + stored_score_absolute(s);
    const ScoreError se = capped(ref, s, g0, eta0);
    double eps = se.g * a + se.eta;
    if (ref.softcap > 0) eps = std::min(eps, cap_slope(ref, s, g0, eta0, f).sum(a, 1, f.slope_abs_max));
    // log_b of the largest finite value: where b^s (and Σ b^s, whose log_b is the lse) overflows.
    const double lmax =
        (ref.base == ExpBase::E ? std::log(max_finite(s.accumulate)) : std::log2(max_finite(s.accumulate))) *
        (1 - 0x1p-30);
    t.eta = least_subnormal(s.accumulate);
    // One case an algorithm, no default: a new Algorithm does not compile without its terms.
    switch (s.algorithm) {
        case Algorithm::Naive: {
            // The computed sum may exceed the exact one by the factor (1 + 2u)e^ε(1 + γ_n): its
            // log_b by at most 2(γ_n + 2u + ε) (log1p(x) ≤ x, and 1/ln 2 < 2).
            const double slack = 2 * (gamma(n, ua) + 2 * ua + eps);
            if (f.score_max + eps >= lmax || ref.lse_hi[i] + slack >= lmax)
                t.why =
                    fmt::format("row {}: the largest score {:.6g} overflows exp (or the sum) in {} (log max = {:.4g})",
                                i, f.score_max, info(s.accumulate).name, lmax);
            t.d_lo = std::exp(ref.lse_lo[i]) * (1 - 0x1p-30);
            t.phi = gamma(n - 1, ua);
            t.theta = (1 + ua) * (1 + stored_weight_roundoff(s)) * (1 + gamma(n, ua)) - 1;
            break;
        }
        case Algorithm::Safe:
            eps += ua * f.score_range;  // s_j − m rounded
            t.phi = gamma(n - 1, ua);
            t.theta = (1 + ua) * (1 + stored_weight_roundoff(s)) * (1 + gamma(n, ua)) - 1;
            break;
        case Algorithm::Online: {
            eps += ua * f.score_range;  // s_j − m rounded
            const double b = static_cast<double>(std::max<std::int64_t>(1, std::min<std::int64_t>(s.block, f.keys)));
            const double blocks = std::ceil(n / b);
            const double up = s.p_format == s.accumulate ? 0 : unit_roundoff(s.p_format);
            const PCastTerms pc = p_cast_terms(s);  // P's descale (docs/oracle.md, "8-bit floats")
            t.phi = gamma(b + 2 * blocks, ua);
            t.theta = (1 + up) * (1 + pc.relative) * (1 + gamma(b + 2 * blocks, ua)) * (1 + ua) - 1;
            t.eta += pc.absolute;
            t.why = pc.why.empty() ? "" : fmt::format("row {}: {}", i, pc.why);
            break;
        }
    }
    t.eps = eps;
    t.r = (1 + 2 * ua) * std::exp(eps) - 1;
    const double dot_up = f.abs_dot_max * (1 + gamma(static_cast<double>(ref.d), ua));
    if (std::max(dot_up, a + eps) >= max_finite(s.accumulate))
        t.why = fmt::format("row {}: a dot product q·k up to {:.4g} may overflow {} (max {:.4g})", i,
                            std::max(f.abs_dot_max, a), info(s.accumulate).name, max_finite(s.accumulate));
    else if (t.phi >= 1)
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

// The absolute errors of the operations after the exponentials that may underflow
// (docs/oracle.md, "Underflow"): each rounds to within η_a/2 absolutely besides its relative u_a.
// Naive and safe: the weight ŵ_j = fl(Ê_j/D̂) (moves the output by |v_jc| η_a/2) and the
// product fl(ŵ_j v_jc) (η_a/2), summed over n keys with factor 1 + θ: (V1 + n)η_a(1 + θ)/2.
// Online: the n products fl(P_j v_jc) and T rescalings fl(α O) enter O, T rescalings fl(α ℓ)
// enter ℓ, both divided by ℓ̂ ≥ D'; the final division adds η_a/2. v1 ≥ Σ_j |v_jc|, o ≥ |ô|.
double ops_underflow(const AlgorithmSpec& s, const Terms& t, const RowFacts& f, double v1, double o) {
    const double ea = least_subnormal(s.accumulate), n = static_cast<double>(f.keys);
    switch (s.algorithm) {
        case Algorithm::Naive:
        case Algorithm::Safe:  // a stored weight that underflows: η_s of |v| more
            return (v1 + n) * ea * (1 + t.theta) + (s.stored ? v1 * least_subnormal(*s.stored) * (1 + t.theta) : 0);
        case Algorithm::Online:
            break;
    }
    const double b = static_cast<double>(std::max<std::int64_t>(1, std::min<std::int64_t>(s.block, f.keys)));
    const double blocks = std::ceil(n / b);
    const double d_prime = t.d_lo * (1 - t.r) * (1 - t.phi);
    return ((n + blocks) * ea * (1 + t.theta) + blocks * ea * o) / d_prime + ea;
}

}  // namespace

double probabilistic_failure() { return 0x1p-40; }
double probabilistic_lambda() { return std::sqrt(2 * std::log(2 / probabilistic_failure())); }

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
    const double b_ops = ops_underflow(spec, t, f, static_cast<double>(f.keys) * ref.v_abs_max[c], o + b0);
    const double uo = unit_roundoff(ref.format);
    const double b = (b0 + b_eta + b_ops + uo * (o + b0 + b_eta + b_ops) + least_subnormal(ref.format)) * (1 + 0x1p-20);
    if (std::isnan(b) || std::isinf(b)) {
        if (why != nullptr) *why = fmt::format("row {}: the bound overflows", i);
        return kInf;
    }
    return b;
}

double running_output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c,
                            std::string* why, bool ordered) {
    // Masked rows (0) and rows without a guarantee (+inf, the reason in `why`) as a priori.
    const double pri = output_bound(ref, spec, i, c, why);
    const std::size_t at = static_cast<std::size_t>(i * ref.d_v + c);
    if (!std::isfinite(pri) || pri == 0 || ref.run_s1.size() <= at) return pri;
    const RowFacts& f = ref.rows[i];
    const Terms t = row_terms(ref, spec, f, i);
    const double ua = unit_roundoff(spec.accumulate), n = static_cast<double>(f.keys);
    const double ea = least_subnormal(spec.accumulate);
    // Per key the exponential's argument errs by τ_j ≤ g a_j + η_s + u_a (max s − s_j) + 2u_a ε_max
    // (the scores, and the subtraction of the kernel's own max, which is off by at most ε_max).
    const double g0 = gamma(static_cast<double>(ref.d), ua) + 6 * ua + stored_score_relative(spec);
    const double eta0 = (static_cast<double>(ref.d) + 2) * ea + stored_score_absolute(spec);
    const ScoreError se = capped(ref, spec, g0, eta0);
    const double g = se.g, eta_s = se.eta;
    // Under a softcap the cap's slope may take less (CapSlope): per key and for the row's largest.
    const bool slope = ref.softcap > 0 && ref.run_h1.size() > at;
    const CapSlope cs = slope ? cap_slope(ref, spec, g0, eta0, f) : CapSlope{};
    const double eps_max = slope ? std::min(g * f.abs_score_max + eta_s, cs.sum(f.abs_score_max, 1, f.slope_abs_max))
                                 : g * f.abs_score_max + eta_s;
    const bool shifted = spec.algorithm != Algorithm::Naive;
    const double tau_max = shifted ? eps_max * (1 + 2 * ua) + ua * f.score_range : eps_max;
    const double kappa = (1 + 2 * ua) * std::exp(tau_max), r_max = kappa - 1;
    if (r_max >= 1) return kInf;  // bounded_terms said so already
    // Σ_j w_j r_j |v_jc − o_c| with r_j ≤ 2u_a + κ τ_j (the mean value theorem on (1 + 2u_a)e^τ − 1).
    const double score_sum = g * ref.run_s1[at] + eta_s * ref.run_s2[at];
    const double p =
        2 * ua * ref.run_s2[at] +
        kappa * ((slope ? std::min(score_sum, cs.sum(ref.run_s1[at], ref.run_s2[at], ref.run_h1[at])) : score_sum) +
                 (shifted ? ua * ref.run_s3[at] + 2 * ua * eps_max * ref.run_s2[at] : 0));
    const double o = std::max(std::fabs(ref.out_lo[at]), std::fabs(ref.out_hi[at]));
    const double den = (1 - r_max) * (1 - t.phi);
    // The exponentials' errors move o by Σ w_j ρ_j (v_j − o) and the denominator's by o·Σ w_j(1+ρ_j)φ_j;
    // the numerator's roundings (θ per term) by θ Σ_j ŵ_j |v_jc|.
    const double e1 = (p + o * t.phi * kappa) / den;
    const double n1 = t.theta * ref.out_abs[at] * kappa / den;
    double b0 = e1 + n1;
    // An unfused kernel (stored scores and weights) keeps the any-order bound: the declared order's
    // terms below do not hold its stores.
    if (ordered && spec.algorithm != Algorithm::Online && !spec.stored && ref.run_s1o.size() > at) {
        // The declared order (docs/oracle.md, "The running bound for the declared order"):
        // Higham's running error bound, u Σ |partial sums| (computed partials within (1 + γ) of
        // the exact ones), for the dot products in index order and the sums in key order; under a
        // softcap the scaled score's error through the cap: F times it, plus (F − 1)a_j; a bias adds
        // one rounding of the score, u_a·a_j a key.
        const double a = ref.out_abs[at], ga = 1 + gamma(2 * static_cast<double>(ref.d) + 2, ua);
        const bool c_exact = ref.scale_exact && representable(ref.scale, spec.accumulate);
        const double score_o = (1 + se.fm1) * (ua * ga * ref.run_s1o[at] + (c_exact ? 0 : 3 * ua) * ref.run_s1[at]) +
                               (ref.biased ? ua * ga * ref.run_s1[at] : 0) + se.fm1 * ref.run_s1[at] +
                               eta_s * ref.run_s2[at];
        // Under a softcap the cap's slope on e_x key by key (CapSlope::sum_given): σ_j e_x,j ≤
        // K h_j e_x,j, summed from H1° = Σ w dev h_j σ°_j and H1 (the scale's 3u_a a_j).
        const double k = cs.k, s1 = ref.run_s1[at];
        const double score =
            slope && ref.run_h1o.size() > at
                ? std::min(score_o, cs.sum_given(ua * ga * std::min(ref.run_s1o[at], k * ref.run_h1o[at]) +
                                                     (c_exact ? 0 : 3 * ua) * std::min(s1, k * ref.run_h1[at]),
                                                 s1, ref.run_s2[at], ref.run_h1[at]))
                : score_o;
        const double po = 2 * ua * ref.run_s2[at] +
                          kappa * (score + (shifted ? ua * ref.run_s3[at] + 2 * ua * eps_max * ref.run_s2[at] : 0));
        const double gn = gamma(n, ua);
        const double phi_o = std::min(t.phi, ua * (1 + gn) * kappa * ref.run_pd1[i] / (1 - r_max));
        const double den_o = (1 - r_max) * (1 - phi_o);
        // Each term fl(fl(Ê_j/D̂) v_jc) within the factor (1 + 2u + u²) of (Ê_j/D̂) v_jc, itself
        // within ρ_y of w_j v_jc; the sum's computed partials within γ_n Σ|terms| of their own.
        const double rho_y = (1 + r_max) * (1 + 2 * ua + ua * ua) / den_o - 1;
        const double n1_o = (2 * ua + ua * ua) * kappa * a / den_o +
                            ua * (ref.run_pv1[at] + n * (rho_y + gn * kappa * (1 + 2 * ua) / den_o) * a);
        b0 = std::min(b0, (po + o * phi_o * kappa) / den_o + n1_o);
    }
    const double n_eta = n * t.eta, d_prime = t.d_lo * den;
    const double b_eta = d_prime > n_eta ? t.eta * (ref.run_v1[at] + n * (o + b0)) / (d_prime - n_eta) : kInf;
    const double b_ops = ops_underflow(spec, t, f, ref.run_v1[at], o + b0);
    double b = b0 + b_eta + b_ops;
    // The output's own rounding, unless the output format holds every accumulator value.
    if (unit_roundoff(ref.format) > ua || least_subnormal(ref.format) > ea)
        b += unit_roundoff(ref.format) * (o + b) + least_subnormal(ref.format);
    b *= 1 + 0x1p-20;
    if (std::isnan(b) || std::isinf(b)) {
        if (why != nullptr) *why = fmt::format("row {}: the bound overflows", i);
        return kInf;
    }
    return std::min(b, pri);
}

namespace {

// Which partial sums the probabilistic bound takes: any order's, the declared order's, or the
// declared order's with each rounding at most half an ulp of its result (docs/oracle.md, "The
// half-ulp bound").
enum class Sums { AnyOrder, Ordered, HalfUlp };

double probabilistic_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c, Sums sums,
                           std::string* why) {
    const bool ordered = sums != Sums::AnyOrder;
    const double run = running_output_bound(ref, spec, i, c, why, ordered);
    const std::size_t at = static_cast<std::size_t>(i * ref.d_v + c);
    if (!std::isfinite(run) || run == 0 || ref.run_qa.size() <= at) return run;
    const RowFacts& f = ref.rows[i];
    const Terms t = row_terms(ref, spec, f, i);
    const double ua = unit_roundoff(spec.accumulate), n = static_cast<double>(f.keys);
    const double ea = least_subnormal(spec.accumulate), d = static_cast<double>(ref.d);
    const double o = std::max(std::fabs(ref.out_lo[at]), std::fabs(ref.out_hi[at])), a = ref.out_abs[at];
    const bool shifted = spec.algorithm != Algorithm::Naive, online = spec.algorithm == Algorithm::Online;
    // Σ_k c_k² over the rounding errors δ_k (|δ_k| ≤ u_a) of the first-order error of o_c:
    // the scores (d products, d − 1 additions, the scale's product), the subtraction of the max,
    // the exponentials (|ρ| ≤ 2u_a), the denominator's and the numerator's additions, the
    // division(s) and the products w_j v_jc (docs/oracle.md, "The probabilistic bound").
    double q = (ordered ? ref.run_qd[at] : (d + 1) * ref.run_qa[at]) + (shifted ? ref.run_q3[at] : 0) +
               4 * ref.run_q2[at] + ref.run_qv[at];
    // Under a softcap (docs/oracle.md, "The logit softcap"), per key the division (or the product
    // by the reciprocal), tanh (|δ| ≤ 2u_a: 4) and the product by cap, each of coefficient at
    // most w_j dev_j a_j (the dot product's coefficients shrink by sech² ≤ 1): 6 Σ w_j² dev_j² a_j².
    const bool cap = ref.softcap > 0;
    if (cap) q += 6 * ref.run_qa[at];
    // The bias's addition, one rounding per key of coefficient w_j dev_j (s_j + b_j), |s_j + b_j| ≤
    // a_j: the any-order sum counts it among its d + 1, the declared order's squares do not.
    if (ordered && ref.biased) q += ref.run_qa[at];
    // An unfused kernel: its stores of S (3, and 3 more under a softcap) and of P (1) round by
    // u_s, (u_s/u_a)² times their coefficients in units of u_a.
    if (spec.stored && !online) {
        const double ratio = unit_roundoff(*spec.stored) / ua;
        q += ratio * ratio * ((cap ? 6 : 3) * ref.run_qa[at] + ref.run_qv[at]);
    }
    // The half-ulp sums hold a kernel whose results deviate from the exact ones by at most a
    // quarter of their allowance (the scores' and exponentials' errors, both sums', the
    // division's); a fused naive or safe kernel without a softcap. Else the declared order's.
    const double needed = 2 * t.eps + t.r + t.phi + t.theta + gamma(2 * d + 2, ua) + 4 * ua;
    if (sums == Sums::HalfUlp && !online && !spec.stored && !cap && ref.run_hd.size() > at &&
        needed <= kHalfUlpAllowance / 4) {
        q = ref.run_hd[at] + (shifted ? ref.run_h3[at] + 4 * ref.run_h2[at] : 4 * ref.run_q2[at]) + ref.run_hv[at] +
            o * o * (shifted ? ref.run_hpd[i] : ref.run_pd[i]) + ref.run_hp[at] + (ref.biased ? ref.run_qa[at] : 0);
    } else if (online) {
        const double b = static_cast<double>(std::max<std::int64_t>(1, std::min<std::int64_t>(spec.block, f.keys)));
        const double blocks = std::ceil(n / b), up = unit_roundoff(spec.p_format);
        q += o * o + (n - 1 + 2 * blocks) * (a * a + o * o) + (up > ua ? up * up / (ua * ua) : 0) * ref.run_qv[at];
    } else if (ordered) {
        q += ref.run_qv[at] + o * o * ref.run_pd[i] + ref.run_pv[at];
    } else {
        q += ref.run_qv[at] + (n - 1) * (o * o + a * a);
    }
    const double r_max = (1 + 2 * ua) * std::exp(t.eps) - 1;  // as a priori: exp's factor
    const double den = (1 - r_max) * (1 - t.phi), kappa = 1 + r_max;
    const double first = probabilistic_lambda() * ua * std::sqrt(q) * kappa / den;
    // The products of two or more errors: each path's factor Π(1 + δ) is 1 + Σδ within (Σ|δ|)²
    // (Σ|δ| ≤ 1/2), and the ratio's expansion within ρ², ρ the a-priori relative factor.
    const double rho = (1 + t.r) * (1 + t.theta) / ((1 - t.r) * (1 - t.phi)) - 1;
    const double second = 2 * a * rho * rho;
    // A scale c that is not a value of the accumulator: the kernel's c within 1 ulp (2u_a) is a
    // temperature error common to every key, |∂o/∂ log c| · 2u_a (not random).
    const bool c_exact = ref.scale_exact && representable(ref.scale, spec.accumulate);
    double scale_err = c_exact ? 0 : 2 * ua * ref.run_gabs[at];
    // The cap rounded to the format, and its reciprocal unless a power of two: errors common to
    // every key, not random. ∂(C·tanh(x/C))/∂C = tanh y − y·sech² y, at most |y| = |x|/C, so each
    // moves a score by at most u'(1 + u')|x_j| ≤ u'(1 + u')a_j: worst case, κ S1/((1 − r)(1 − Φ)).
    if (cap) {
        int e2 = 0;
        const bool pow2 = std::frexp(ref.softcap, &e2) == 0.5;
        const double common = (representable(ref.softcap, spec.accumulate) ? 0 : 1) + (pow2 ? 0 : 1);
        const double up1 = ua / (1 - ua);
        scale_err += common * up1 * (1 + up1) * (1 + up1) * ref.run_s1[at] * kappa / den;
    }
    const double b_eta_ops = [&] {
        const double n_eta = n * t.eta, d_prime = t.d_lo * den;
        const double b0 = first + second;
        const double be = d_prime > n_eta ? t.eta * (ref.run_v1[at] + n * (o + b0)) / (d_prime - n_eta) : kInf;
        return be + ops_underflow(spec, t, f, ref.run_v1[at], o + b0);
    }();
    double b = first + second + scale_err + b_eta_ops;
    if (unit_roundoff(ref.format) > ua || least_subnormal(ref.format) > ea)
        b += unit_roundoff(ref.format) * (o + b) + least_subnormal(ref.format);
    b *= 1 + 0x1p-20;
    return std::isfinite(b) ? std::min(b, run) : run;
}

}  // namespace

double probabilistic_output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c,
                                  bool ordered, std::string* why) {
    return probabilistic_bound(ref, spec, i, c, ordered ? Sums::Ordered : Sums::AnyOrder, why);
}

double half_ulp_output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c,
                             std::string* why) {
    return probabilistic_bound(ref, spec, i, c, Sums::HalfUlp, why);
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
    // the exponentials' underflow, and the division's own (η_a/2: the weight may be subnormal)
    const double b_eta =
        (d_prime > n_eta ? n_eta * (1 + w + b0) / (d_prime - n_eta) : kInf) + least_subnormal(spec.accumulate);
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

}  // namespace exactattn::oracle
