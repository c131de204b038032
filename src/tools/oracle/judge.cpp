// SPDX-License-Identifier: MIT
// exactattn oracle: the a-priori bound of each algorithm (docs/oracle.md, "Bounds") and the
// judgement of a kernel's output against the certified reference.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>

#include "arith.hpp"
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
// The error is at most g_s·a + η_s' with these two.
double stored_score_relative(const AlgorithmSpec& s) {
    if (!s.stored || s.algorithm == Algorithm::Online) return 0;
    const double us = unit_roundoff(*s.stored);
    return 3 * us * (1 + us) * (1 + us);
}
double stored_score_absolute(const AlgorithmSpec& s) {
    return s.stored && s.algorithm != Algorithm::Online ? 3 * least_subnormal(*s.stored) : 0;
}
double stored_score_error(const AlgorithmSpec& s, double a) {
    return stored_score_relative(s) * a + stored_score_absolute(s);
}

// The logit softcap (docs/oracle.md, "The logit softcap"): on a scaled score computed within
// g·a_j, up to three roundings of tanh's argument (cap rounded to the format, a reciprocal, the
// division or product) and three of the capped score (tanh within 1 ulp, counted as two; the
// product by the rounded cap) add at most (1 + g)((1 + u')^7 − 1)·a_j, u' = u_a/(1 − u_a) (each
// factor 1 + δ or 1/(1 + δ); tanh is 1-Lipschitz and |tanh| ≤ 1), and (2·cap + 1)η_a where they
// fall into the subnormals. 0 without a softcap.
double softcap_relative(const Reference& ref, double g, double ua) {
    return ref.softcap > 0 ? (1 + g) * std::expm1(7 * std::log1p(ua / (1 - ua))) * (1 + 0x1p-30) : 0;
}
double softcap_absolute(const Reference& ref, double ea) { return ref.softcap > 0 ? (2 * ref.softcap + 1) * ea : 0; }
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
    double eps = gamma(static_cast<double>(ref.d), ua) * a + 6 * ua * a + (static_cast<double>(ref.d) + 2) * ea +
                 stored_score_error(s, a);
    if (ref.softcap > 0)
        eps +=
            softcap_relative(ref, gamma(static_cast<double>(ref.d), ua) + 6 * ua, ua) * a + softcap_absolute(ref, ea);
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

BoundKind parse_bound(std::string_view name, const Location& where) {
    if (name == "running") return BoundKind::Running;
    if (name == "a-priori" || name == "apriori") return BoundKind::APriori;
    if (name == "probabilistic") return BoundKind::Probabilistic;
    if (name == "probabilistic-ordered") return BoundKind::ProbabilisticOrdered;
    if (name == "running-ordered") return BoundKind::RunningOrdered;
    throw usage_error(
        fmt::format("unknown bound '{}' (running, running-ordered, a-priori, probabilistic, probabilistic-ordered)",
                    escape_controls(name)),
        where);
}

const char* bound_name(BoundKind b) {
    switch (b) {
        case BoundKind::Running:
            return "running";
        case BoundKind::APriori:
            return "a-priori";
        case BoundKind::Probabilistic:
            return "probabilistic";
        case BoundKind::ProbabilisticOrdered:
            return "probabilistic-ordered";
        case BoundKind::RunningOrdered:
            return "running-ordered";
    }
    return "?";
}

double sign_test_p(std::int64_t k, std::int64_t n) {
    if (n <= 0) return 1;
    // 2 P(X ≥ max(k, n − k)) for X ~ Bin(n, 1/2), summed in logs from the far tail inward.
    const std::int64_t m = std::max(k, n - k);
    const double nn = static_cast<double>(n), log_half = nn * std::log(0.5);
    double tail = 0;
    for (std::int64_t x = n; x >= m; --x) {
        const double xx = static_cast<double>(x);
        tail += std::exp(std::lgamma(nn + 1) - std::lgamma(xx + 1) - std::lgamma(nn - xx + 1) + log_half);
    }
    return std::min(1.0, 2 * tail);
}

void systematic_verdict(Judgement::Systematic& s) {
    s.p_rounding = sign_test_p(s.toward_zero, s.rows);
    s.p_temperature = sign_test_p(s.along, s.signed_rows);
    s.temperature = s.gg > 0 ? s.eg / s.gg : 0;
    s.verdict.clear();
    const double each = kSystematicAlpha / 2;  // Bonferroni over the two tests
    if (s.p_rounding < each) {
        const bool toward = 2 * s.toward_zero > s.rows;
        s.verdict = fmt::format(
            "{} of {} rows round most inexact entries {} zero (p = {:.2g} < 5e-7 against half): a rounding bias ({})",
            toward ? s.toward_zero : s.rows - s.toward_zero, s.rows, toward ? "toward" : "away from", s.p_rounding,
            toward ? "truncation instead of round to nearest" : "away from zero");
    }
    if (s.p_temperature < each && std::fabs(s.temperature) > s.floor) {
        // The majority's count and direction: along a larger scale (e·g > 0) or a smaller one.
        const bool larger = 2 * s.along > s.signed_rows;
        s.verdict += fmt::format(
            "{}{} of {} rows err along a {} scale (p = {:.2g} < 5e-7): the output fits a scale (temperature) off "
            "by {:+.3g}%",
            s.verdict.empty() ? "" : "; ", larger ? s.along : s.signed_rows - s.along, s.signed_rows,
            larger ? "larger" : "smaller", s.p_temperature, 100 * s.temperature);
    }
}

double probabilistic_failure() { return 0x1p-40; }
double probabilistic_lambda() { return std::sqrt(2 * std::log(2 / probabilistic_failure())); }

namespace {
// The one table of algorithms' names (docs/contributing.md, "A new oracle algorithm"): the name
// a user writes and prints, and the other names it is known by. Its bound terms are its case in
// row_terms and ops_underflow above, its emulation its case in emulate() (switches without a
// default, so a new Algorithm without them does not compile).
struct AlgorithmRow {
    Algorithm algorithm;
    const char* name;
    std::array<const char*, 2> aliases;
};
constexpr AlgorithmRow kAlgorithms[] = {
    {Algorithm::Naive, "naive", {}},
    {Algorithm::Safe, "safe", {}},
    {Algorithm::Online, "online", {"flash", "tiled"}},
};
constexpr bool one_row_each() {
    for (std::size_t i = 0; i < std::size(kAlgorithms); ++i) {
        if (static_cast<std::size_t>(kAlgorithms[i].algorithm) != i) return false;
    }
    return true;
}
static_assert(one_row_each(), "row i of kAlgorithms is the i-th Algorithm");
}  // namespace

std::span<const Algorithm> algorithms() {
    static const auto order = [] {
        std::array<Algorithm, std::size(kAlgorithms)> a{};
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = kAlgorithms[i].algorithm;
        return a;
    }();
    return order;
}

Algorithm parse_algorithm(std::string_view name, const Location& where) {
    std::string names;
    for (const auto& row : kAlgorithms) {
        if (name == row.name) return row.algorithm;
        for (const char* alias : row.aliases) {
            if (alias != nullptr && name == alias) return row.algorithm;
        }
        names += (names.empty() ? "" : ", ") + std::string(row.name);
    }
    throw usage_error(fmt::format("unknown algorithm '{}' ({})", escape_controls(name), names), where);
}

const char* algorithm_name(Algorithm a) { return kAlgorithms[static_cast<std::size_t>(a)].name; }

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
    double g = gamma(static_cast<double>(ref.d), ua) + 6 * ua + stored_score_relative(spec);
    double eta_s = (static_cast<double>(ref.d) + 2) * ea + stored_score_absolute(spec);
    if (ref.softcap > 0) {
        g += softcap_relative(ref, g, ua);
        eta_s += softcap_absolute(ref, ea);
    }
    const double eps_max = g * f.abs_score_max + eta_s;
    const bool shifted = spec.algorithm != Algorithm::Naive;
    const double tau_max = shifted ? eps_max * (1 + 2 * ua) + ua * f.score_range : eps_max;
    const double kappa = (1 + 2 * ua) * std::exp(tau_max), r_max = kappa - 1;
    if (r_max >= 1) return kInf;  // bounded_terms said so already
    // Σ_j w_j r_j |v_jc − o_c| with r_j ≤ 2u_a + κ τ_j (the mean value theorem on (1 + 2u_a)e^τ − 1).
    const double p =
        2 * ua * ref.run_s2[at] + kappa * (g * ref.run_s1[at] + eta_s * ref.run_s2[at] +
                                           (shifted ? ua * ref.run_s3[at] + 2 * ua * eps_max * ref.run_s2[at] : 0));
    const double o = std::max(std::fabs(ref.out_lo[at]), std::fabs(ref.out_hi[at]));
    const double den = (1 - r_max) * (1 - t.phi);
    // The exponentials' errors move o by Σ w_j ρ_j (v_j − o) and the denominator's by o·Σ w_j(1+ρ_j)φ_j;
    // the numerator's roundings (θ per term) by θ Σ_j ŵ_j |v_jc|.
    const double e1 = (p + o * t.phi * kappa) / den;
    const double n1 = t.theta * ref.out_abs[at] * kappa / den;
    double b0 = e1 + n1;
    if (ordered && spec.algorithm != Algorithm::Online && ref.run_s1o.size() > at) {
        // The declared order (docs/oracle.md, "The running bound for the declared order"):
        // Higham's running error bound, u Σ |partial sums| (computed partials within (1 + γ) of
        // the exact ones), for the dot products in index order and the sums in key order.
        const double a = ref.out_abs[at], ga = 1 + gamma(2 * static_cast<double>(ref.d) + 2, ua);
        const bool c_exact = ref.scale_exact && representable(ref.scale, spec.accumulate);
        const double po =
            2 * ua * ref.run_s2[at] +
            kappa * (ua * ga * ref.run_s1o[at] + (c_exact ? 0 : 3 * ua) * ref.run_s1[at] + eta_s * ref.run_s2[at] +
                     (shifted ? ua * ref.run_s3[at] + 2 * ua * eps_max * ref.run_s2[at] : 0));
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

double probabilistic_output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c,
                                  bool ordered, std::string* why) {
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
    if (online) {
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
    const double scale_err = c_exact ? 0 : 2 * ua * ref.run_gabs[at];
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

namespace {

// An upper bound on |a − b|: the difference itself when it is exact (TwoSum's error is 0, as
// always in the subnormal range, where one step outward would double a bound of one η), else
// one step up.
double diff_up(double a, double b) {
    const double d = a - b, z = d - a;
    const double err = (a - (d - z)) + (-b - z);
    return err == 0 ? std::fabs(d) : detail::up(std::fabs(d));
}

// Certified: is |value − x| ≤ bound for every x in [lo, hi]?
bool certainly_within(double value, double lo, double hi, double bound) {
    if (value == lo && value == hi) return !std::isnan(bound);  // the exact value itself: error 0
    if (std::isinf(bound)) return false;                        // no guarantee: never a pass
    return std::max(diff_up(value, lo), diff_up(value, hi)) <= bound;
}

// The expected tensor: the reference's rounded values, enclosures and exactness, row-major.
struct Expected {
    const char* name;
    const std::vector<double>& rounded;
    const std::vector<double>& lo;
    const std::vector<double>& hi;
    const std::vector<std::uint8_t>* exact;
    std::int64_t rows, cols;
    const std::vector<double>* resid = nullptr;
};

Judged judge_entry(const Expected& x, FloatFormat f, double value, std::size_t at, double bound,
                   const std::vector<double>* resid) {
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
    // The error against the exact value: from x − rounded where the reference knows it more finely
    // than its double enclosure (float64), else from the enclosure's midpoint.
    const double r = resid != nullptr && at < resid->size() ? (*resid)[at] : std::numeric_limits<double>::quiet_NaN();
    const long double mid = std::isnan(r) ? (static_cast<long double>(j.lo) + j.hi) / 2
                                          : static_cast<long double>(j.rounded) + static_cast<long double>(r);
    const long double err =
        std::isnan(r) ? value - mid : (static_cast<long double>(value) - j.rounded) - static_cast<long double>(r);
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
        Judged j = judge_entry(x, f, t.data[at], static_cast<std::size_t>(at), b, x.resid);
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
        if (std::isfinite(b) && b > 0 && std::isfinite(j.abs_error)) {
            const double use = j.abs_error / b;
            if (jd.worst_fraction < 0 || use > jd.max_bound_fraction) {
                jd.worst_fraction = at;
                jd.max_bound_fraction = use;
            }
        }
        const double a = std::fabs(j.ulp_error);
        if (jd.worst < 0 || a > jd.max_abs_ulp || (std::isnan(a) && !std::isnan(jd.max_abs_ulp))) {
            jd.worst = at;
            jd.max_abs_ulp = a;
        }
        jd.entries.push_back(j);
    }
    return jd;
}

// The statistical verdict's counts (docs/oracle.md, "Systematic errors"), one sign a query row:
// the row's entries share the rounding of its denominator (every |o_c| moves by the same
// relative δ), so their signs are not independent, where different rows' roundings are. A row's
// rounding sign is the majority of its inexact entries (toward zero or away; a tie gives none);
// its temperature sign that of Σ_c e_c g_c, g_c = ∂o_c/∂(log c), over entries whose g_c has a
// certain sign. Under the model of a correct kernel (each row's errors symmetric about 0 and
// independent of g) each sign is +1 or −1 with probability 1/2, independently across rows.
void systematic_tests(const Reference& ref, const AlgorithmSpec& spec, Judgement& j) {
    auto& s = j.systematic;
    s.floor = 8 * unit_roundoff(spec.accumulate);
    // Underflow errs toward zero (a product w_j v_jc that falls below the least subnormal is
    // lost), by at most n(η_a + η_p) in all: entries where that is 1/64 of an ulp or more are left out.
    const double eta = least_subnormal(spec.accumulate) + least_subnormal(spec.p_format);
    std::int64_t row = -1, tz = 0, aw = 0;
    double eg_row = 0;
    const auto close_row = [&] {
        if (tz != aw) {
            ++s.rows;
            if (tz > aw) ++s.toward_zero;
        }
        if (eg_row != 0) {
            ++s.signed_rows;
            if (eg_row > 0) ++s.along;
        }
        tz = aw = 0;
        eg_row = 0;
    };
    for (const Judged& e : j.entries) {
        if (e.row != row) {
            close_row();
            row = e.row;
        }
        if (e.exact || !std::isfinite(e.ulp_error) || e.ulp_error == 0 || e.rounded == 0) continue;
        if (ulp(e.rounded, ref.format) < 64 * static_cast<double>(ref.rows[e.row].keys) * eta) continue;
        const double x = (e.lo + e.hi) / 2;
        // The rounding test reads only errors within the rounding's reach: |e| ≤ 2B + 1 ulp (a
        // kernel whose every operation, its final cast included, rounds in one direction errs by at
        // most 1 ulp an operation where B allows ½). A larger error is a bug's, whose sign says
        // nothing of the rounding (a temperature off by 0.2% moves |o| away from 0 by thousands of
        // ULPs); the rule reads |e| only, so a correct kernel's signs stay symmetric.
        if (std::fabs(e.abs_error) <= 2 * e.bound + ulp(e.rounded, ref.format))
            ((e.ulp_error < 0) == (x > 0) ? tz : aw) += 1;
        const std::size_t at = static_cast<std::size_t>(e.row * ref.d_v + e.col);
        if (at >= ref.run_g.size()) continue;
        const double g = ref.run_g[at];
        if (std::fabs(g) * 2 <= ref.run_gabs[at]) continue;  // its sign is not certain
        const double err = e.ulp_error * ulp(e.rounded, ref.format);
        eg_row += err * g;
        s.eg += err * g;
        s.gg += g * g;
    }
    close_row();
    systematic_verdict(s);
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
    if (needs_sharp_sums(spec.bound) && ref.run_qa.size() != ref.out.size())
        throw usage_error(
            fmt::format("the {} bound reads sums this reference did not form (compute it for that "
                        "bound, or without naming one)",
                        bound_name(spec.bound)));
    const Expected x{"out", ref.out, ref.out_lo, ref.out_hi, &ref.out_exact, ref.n_q, ref.d_v, &ref.out_resid};
    Judgement j = judge_tensor(
        x, ref.format, output,
        [&](std::int64_t i, std::int64_t c, std::string* why) {
            switch (spec.bound) {
                case BoundKind::Running:
                case BoundKind::RunningOrdered:
                    return running_output_bound(ref, spec, i, c, why, spec.bound == BoundKind::RunningOrdered);
                case BoundKind::Probabilistic:
                case BoundKind::ProbabilisticOrdered:
                    return probabilistic_output_bound(ref, spec, i, c, spec.bound == BoundKind::ProbabilisticOrdered,
                                                      why);
                case BoundKind::APriori:
                    break;
            }
            return output_bound(ref, spec, i, c, why);
        },
        tolerance_ulps, [&](std::int64_t i) { return claim_that_bounds(ref, spec, i); });
    j.bound = bound_name(spec.bound);
    if (spec.bound == BoundKind::Probabilistic || spec.bound == BoundKind::ProbabilisticOrdered)
        j.failure_probability = probabilistic_failure();
    systematic_tests(ref, spec, j);
    return j;
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

Judgement judge_weights(const Reference& ref, const Tensor& weights, const AlgorithmSpec& spec,
                        std::optional<double> tolerance_ulps) {
    if (ref.w.empty()) {
        Location where;
        where.context = "weights";
        throw usage_error("the reference has no weights (compute it with weights)", where);
    }
    const Expected x{"weights", ref.w, ref.w_lo, ref.w_hi, nullptr, ref.n_q, ref.n_k};
    Judgement jw = judge_tensor(
        x, ref.format, weights,
        [&](std::int64_t i, std::int64_t j, std::string* why) { return weight_bound(ref, spec, i, j, why); },
        tolerance_ulps, [&](std::int64_t i) { return claim_that_bounds(ref, spec, i); });
    jw.bound = "a-priori";
    return jw;
}

Judgement judge_lse(const Reference& ref, const Tensor& lse, const AlgorithmSpec& spec,
                    std::optional<double> tolerance_ulps) {
    const Expected x{"lse", ref.lse, ref.lse_lo, ref.lse_hi, nullptr, ref.n_q, 1};
    Judgement jl = judge_tensor(
        x, ref.format, lse,
        [&](std::int64_t i, std::int64_t, std::string* why) { return lse_bound(ref, spec, i, why); }, tolerance_ulps,
        [&](std::int64_t i) { return claim_that_bounds(ref, spec, i); });
    jl.bound = "a-priori";
    return jl;
}

}  // namespace exactattn::oracle
