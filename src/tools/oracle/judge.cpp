// SPDX-License-Identifier: MIT
// exactattn oracle: the judgement of a kernel's output against the certified reference, within
// the bounds of bounds.cpp (docs/oracle.md, "Bounds"), and the table of algorithms.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>

#include "bounds.hpp"
#include "arith.hpp"
#include "exactattn/oracle.hpp"

namespace exactattn::oracle {

BoundKind parse_bound(std::string_view name, const Location& where) {
    if (name == "running") return BoundKind::Running;
    if (name == "a-priori" || name == "apriori") return BoundKind::APriori;
    if (name == "probabilistic") return BoundKind::Probabilistic;
    if (name == "probabilistic-ordered") return BoundKind::ProbabilisticOrdered;
    if (name == "running-ordered") return BoundKind::RunningOrdered;
    if (name == "probabilistic-ulp") return BoundKind::ProbabilisticUlp;
    throw usage_error(
        fmt::format("unknown bound '{}' (running, running-ordered, a-priori, probabilistic, probabilistic-ordered, "
                    "probabilistic-ulp)",
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
        case BoundKind::ProbabilisticUlp:
            return "probabilistic-ulp";
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

namespace {
// The one table of algorithms' names (docs/contributing.md, "A new oracle algorithm"): the name
// a user writes and prints, and the other names it is known by. Its bound terms are its case in
// row_terms and ops_underflow (bounds.cpp), its emulation its case in emulate() (switches without a
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

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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
    if (needs_sharp_sums(spec.bound) &&
        (ref.run_qa.size() != ref.out.size() ||
         (spec.bound == BoundKind::ProbabilisticUlp && ref.run_hd.size() != ref.out.size())))
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
                case BoundKind::ProbabilisticUlp:
                    return half_ulp_output_bound(ref, spec, i, c, why);
                case BoundKind::APriori:
                    break;
            }
            return output_bound(ref, spec, i, c, why);
        },
        tolerance_ulps, [&](std::int64_t i) { return claim_that_bounds(ref, spec, i); });
    j.bound = bound_name(spec.bound);
    if (spec.bound == BoundKind::Probabilistic || spec.bound == BoundKind::ProbabilisticOrdered ||
        spec.bound == BoundKind::ProbabilisticUlp)
        j.failure_probability = probabilistic_failure();
    systematic_tests(ref, spec, j);
    return j;
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
