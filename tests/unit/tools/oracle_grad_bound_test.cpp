// SPDX-License-Identifier: MIT
// The backward's running bound (docs/oracle.md, "Bounds for the backward") held by search:
// correct emulations of the standard backward and FlashAttention-2's, in float32 with float32,
// bfloat16 and float16 storage and in float64, on random and adversarial inputs (near-cancelling
// dP − D, large scores, causal and fully masked rows, a bias), hill-climbed towards the bound,
// must never exceed it; wrong gradients and unbounded entries must fail.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "exactattn/oracle_grad.hpp"

using namespace exactattn;
using namespace exactattn::oracle;

namespace {

struct Claim {
    GradAlgorithm algorithm;
    FloatFormat accumulate, storage;
    std::optional<DeltaFrom> delta = std::nullopt;
};

const Claim kClaims[] = {
    {GradAlgorithm::Standard, FloatFormat::Float32, FloatFormat::Float32},
    {GradAlgorithm::Standard, FloatFormat::Float32, FloatFormat::BFloat16},
    {GradAlgorithm::Standard, FloatFormat::Float32, FloatFormat::Float16},
    {GradAlgorithm::Standard, FloatFormat::Float64, FloatFormat::Float64},
    {GradAlgorithm::Standard, FloatFormat::Float32, FloatFormat::BFloat16, DeltaFrom::Out},
    {GradAlgorithm::Flash2, FloatFormat::Float32, FloatFormat::Float32},
    {GradAlgorithm::Flash2, FloatFormat::Float32, FloatFormat::BFloat16},
    {GradAlgorithm::Flash2, FloatFormat::Float32, FloatFormat::Float16},
    {GradAlgorithm::Flash2, FloatFormat::Float64, FloatFormat::Float64},
};

enum class Shape { Normal, LargeScores, NearCancel, Masked };
const Shape kShapes[] = {Shape::Normal, Shape::LargeScores, Shape::NearCancel, Shape::Masked};

struct Case {
    Problem p;
    Tensor d_out;
};

Tensor normal(std::mt19937_64& rng, std::int64_t r, std::int64_t c, double sigma, FloatFormat f) {
    std::normal_distribution<double> n(0, sigma);
    Tensor t{{r, c}, {}, f};
    for (std::int64_t x = 0; x < r * c; ++x) t.data.push_back(round_to(n(rng), f));
    return t;
}

Case make_case(Shape shape, FloatFormat f, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::int64_t nq = 6, nk = 9, d = 8, dv = 5;
    Case c;
    c.p.masked_rows = MaskedRows::Zeros;
    c.p.q = normal(rng, nq, d, shape == Shape::LargeScores ? 5 : 1, f);
    c.p.k = normal(rng, nk, d, shape == Shape::LargeScores ? 3 : 1, f);
    c.p.v = normal(rng, nk, dv, 1, f);
    c.d_out = normal(rng, nq, dv, 1, f);
    if (shape == Shape::NearCancel) {
        // Every value row close to one row: dP_ij = dO_i·v_j is nearly D_i = Σ_j P_ij dP_ij, so
        // dS = P∘(dP − D) is a small difference of large terms.
        std::normal_distribution<double> n(0, 1);
        for (std::int64_t j = 0; j < nk; ++j)
            for (std::int64_t x = 0; x < dv; ++x)
                c.p.v.data[j * dv + x] = round_to(c.p.v.data[x] * 8 + 0x1p-6 * n(rng), f);
    }
    if (shape == Shape::Masked) {
        c.p.causal = true;
        c.p.align = Align::BottomRight;
        c.p.mask.assign(static_cast<std::size_t>(nq * nk), 0);
        for (std::int64_t j = 0; j < nk; ++j) c.p.mask[2 * nk + j] = 1;  // row 2 sees no key
        c.p.bias.assign(static_cast<std::size_t>(nq * nk), 0);
        for (std::int64_t x = 0; x < nq * nk; ++x) c.p.bias[x] = round_to(-0.25 * static_cast<double>(x % nk), f);
    }
    return c;
}

GradSpec spec_of(const Claim& cl) {
    return GradSpec{cl.algorithm, cl.accumulate, cl.storage, cl.delta, 4, {}, {}, {}, {}, {}};
}

// The largest share of its bound any gradient entry of the claim's emulation uses; every entry
// must be within (a failure names the tensor and entry). −1, and nothing judged, when the claim
// guarantees nothing somewhere and `skip_unbounded` (a climb that left the claim's domain).
double worst_share(const Case& c, const Claim& cl, const std::string& what, bool skip_unbounded = false) {
    const GradSpec s = spec_of(cl);
    const GradReference g = grad_reference(c.p, c.d_out, cl.storage);
    const GradBounds b = grad_bounds(c.p, c.d_out, g, s);
    const auto inf = [](const std::vector<double>& x) {
        return std::any_of(x.begin(), x.end(), [](double y) { return std::isinf(y); });
    };
    if (skip_unbounded && (inf(b.dq) || inf(b.dk) || inf(b.dv))) return -1;
    const GradEmulation e = grad_emulate(c.p, c.d_out, s, cl.storage, false);
    double worst = 0;
    for (const auto& [name, t] : {std::pair{"dq", &e.dq}, {"dk", &e.dk}, {"dv", &e.dv}}) {
        const GradComparison j = judge_grad(g, b, name, *t);
        EXPECT_EQ(j.over, 0) << what << ": " << name << " entry " << j.first_over << " over its bound ("
                             << grad_spec_text(s, cl.storage) << "), " << j.unbounded << " unbounded "
                             << j.unbounded_reason;
        worst = std::max(worst, j.max_fraction);
    }
    return worst;
}

std::string claim_name(const Claim& cl) {
    GradSpec s = spec_of(cl);
    return grad_spec_text(s, cl.storage);
}

}  // namespace

TEST(OracleGradBound, CorrectEmulationsOfBothBackwardsNeverExceedTheirBound) {
    for (const Claim& cl : kClaims) {
        double worst = 0;
        for (const Shape shape : kShapes)
            for (std::uint64_t seed = 1; seed <= 3; ++seed) {
                const Case c = make_case(shape, cl.storage, seed * 7919 + static_cast<std::uint64_t>(shape));
                // Large scores stored in bfloat16 (the standard backward) err by up to 3·2^−8·|s|: past
                // ln 2 the claim guarantees nothing, and those problems are left out.
                worst = std::max(
                    worst, worst_share(
                               c, cl, fmt::format("{} shape {} seed {}", claim_name(cl), static_cast<int>(shape), seed),
                               shape == Shape::LargeScores));
            }
        // Not vacuous: a correct kernel uses a visible share of the bound (measured 2–40%).
        EXPECT_GT(worst, 0.005) << claim_name(cl);
        RecordProperty(claim_name(cl), fmt::format("{:.4f}", worst));
        std::printf("%s: largest share of the bound %.4f\n", claim_name(cl).c_str(), worst);
    }
}

TEST(OracleGradBound, AHillClimbTowardsTheBoundNeverCrossesIt) {
    // From each start, change one input entry at a time (doubling, halving, negating it, or moving
    // it towards another row's) and keep the change when the emulation uses more of its bound.
    for (const Claim& cl : kClaims) {
        for (const Shape shape : {Shape::NearCancel, Shape::LargeScores}) {
            std::mt19937_64 rng(42 + static_cast<std::uint64_t>(shape));
            Case best = make_case(shape, cl.storage, 101 + static_cast<std::uint64_t>(shape));
            double share = worst_share(best, cl, "start");
            for (int step = 0; step < 12; ++step) {
                Case next = best;
                Tensor* ts[] = {&next.p.q, &next.p.k, &next.p.v, &next.d_out};
                Tensor& t = *ts[rng() % 4];
                const std::size_t at = rng() % t.data.size();
                const int how = static_cast<int>(rng() % 4);
                const double other = t.data[rng() % t.data.size()];
                const double x = how == 0 ? t.data[at] * 2 : how == 1 ? t.data[at] / 2 : how == 2 ? -t.data[at] : other;
                t.data[at] = round_to(x, cl.storage);
                const double s = worst_share(next, cl, fmt::format("{} climb step {}", claim_name(cl), step), true);
                if (s > share) share = s, best = next;
            }
            EXPECT_LE(share, 1.0) << claim_name(cl);
            std::printf("%s, shape %d: climbed to %.4f of the bound\n", claim_name(cl).c_str(), static_cast<int>(shape),
                        share);
        }
    }
}

TEST(OracleGradBound, PlantedBackwardBugsFail) {
    const Case c = make_case(Shape::Normal, FloatFormat::Float32, 5);
    const Claim cl{GradAlgorithm::Flash2, FloatFormat::Float32, FloatFormat::Float32};
    const GradSpec s = spec_of(cl);
    const GradReference g = grad_reference(c.p, c.d_out, FloatFormat::Float32);
    const GradBounds b = grad_bounds(c.p, c.d_out, g, s);
    GradEmulation e = grad_emulate(c.p, c.d_out, s, FloatFormat::Float32, false);
    // The softmax scale missing from dS: dQ and dK larger by √d = √8.
    Tensor dq = e.dq;
    for (double& x : dq.data) x = round_to(x * std::sqrt(8.0), FloatFormat::Float32);
    GradComparison j = judge_grad(g, b, "dq", dq);
    EXPECT_GT(j.over, 0);
    EXPECT_GT(j.max_fraction, 1.0);
    // One entry of dV off by twice its bound.
    Tensor dv = e.dv;
    dv.data[7] = round_to(dv.data[7] + 2 * b.dv[7] + std::fabs(dv.data[7]) * 0x1p-22, FloatFormat::Float32);
    j = judge_grad(g, b, "dv", dv);
    EXPECT_EQ(j.over, 1);
    EXPECT_EQ(j.first_over, 7);
    // A NaN is over.
    Tensor dk = e.dk;
    dk.data[0] = std::nan("");
    EXPECT_EQ(judge_grad(g, b, "dk", dk).over, 1);
}

TEST(OracleGradBound, AFullyMaskedRowMustGiveExactZeros) {
    const Case c = make_case(Shape::Masked, FloatFormat::Float32, 9);
    const GradSpec s = spec_of({GradAlgorithm::Standard, FloatFormat::Float32, FloatFormat::Float32});
    const GradReference g = grad_reference(c.p, c.d_out, FloatFormat::Float32);
    const GradBounds b = grad_bounds(c.p, c.d_out, g, s);
    for (std::int64_t x = 0; x < 8; ++x) EXPECT_EQ(b.dq[2 * 8 + x], 0) << x;  // row 2 sees no key
    Tensor dq = grad_emulate(c.p, c.d_out, s, FloatFormat::Float32, false).dq;
    EXPECT_EQ(judge_grad(g, b, "dq", dq).over, 0);
    dq.data[2 * 8 + 3] = 0x1p-149;
    const GradComparison j = judge_grad(g, b, "dq", dq);
    EXPECT_EQ(j.over, 1);
    EXPECT_EQ(j.first_over, 2 * 8 + 3);
}

TEST(OracleGradBound, AnUnboundedEntryNeverPassesEvenWhenCorrectlyRounded) {
    // float16 accumulation: q·k = 4 · 200 · 200 = 160000 overflows float16's 65504.
    Problem p;
    p.q = Tensor{{1, 4}, {200, 200, 200, 200}, FloatFormat::Float16};
    p.k = Tensor{{2, 4}, {200, 200, 200, 200, 1, 0, 0, 0}, FloatFormat::Float16};
    p.v = Tensor{{2, 1}, {1, 2}, FloatFormat::Float16};
    const Tensor d_out{{1, 1}, {1}, FloatFormat::Float16};
    const GradReference g = grad_reference(p, d_out, FloatFormat::Float16);
    GradSpec s;
    s.accumulate = FloatFormat::Float16;
    const GradBounds b = grad_bounds(p, d_out, g, s);
    EXPECT_TRUE(std::isinf(b.dq[0]));
    const Tensor exact{{1, 4}, g.dq.val, FloatFormat::Float16};
    const GradComparison j = judge_grad(g, b, "dq", exact);
    EXPECT_EQ(j.over, 4);
    EXPECT_EQ(j.unbounded, 4);
    EXPECT_NE(j.unbounded_reason.find("overflow float16"), std::string::npos) << j.unbounded_reason;
    EXPECT_FALSE(grads_passed({j}));
}

TEST(OracleGradBound, Float64StandardEmulationIsTheMachinesOwnDoubleBackward) {
    // With every operation in float64 and no storage rounding, the emulation is the plain double
    // computation in the same order; q = 0 makes every score 0, so every exponential is exp(0) = 1
    // and the platform's exp plays no part.
    Problem p;
    p.scale.kind = ScaleKind::None;
    p.q = Tensor{{2, 2}, {0, 0, 0, 0}, FloatFormat::Float64};
    p.k = Tensor{{3, 2}, {1, 2, 3, 4, 5, 6}, FloatFormat::Float64};
    p.v = Tensor{{3, 2}, {0.1, 0.2, 0.3, 0.7, -1.5, 2.25}, FloatFormat::Float64};
    const Tensor d_out{{2, 2}, {0.5, -1.25, 3, 0.125}, FloatFormat::Float64};
    GradSpec s;
    s.accumulate = FloatFormat::Float64;
    const GradEmulation e = grad_emulate(p, d_out, s, FloatFormat::Float64, false);
    // Each product and sum through a volatile, so the compiler contracts none into a fused multiply-add.
    const auto mul = [](double x, double y) {
        volatile double r = x * y;
        return static_cast<double>(r);
    };
    const auto add = [](double x, double y) {
        volatile double r = x + y;
        return static_cast<double>(r);
    };
    const double w = 1.0 / 3;  // exp(0) = 1 three times, D = 3, P = fl(1/3)
    for (int i = 0; i < 2; ++i) {
        double dp[3], dd = 0;
        for (int j = 0; j < 3; ++j)
            dp[j] = add(mul(d_out.data[i * 2], p.v.data[j * 2]), mul(d_out.data[i * 2 + 1], p.v.data[j * 2 + 1]));
        for (int j = 0; j < 3; ++j) dd = add(dd, mul(w, dp[j]));
        double dq0 = 0, dq1 = 0;
        for (int j = 0; j < 3; ++j) {
            const double ds = mul(w, dp[j] - dd);
            dq0 = add(dq0, mul(ds, p.k.data[j * 2]));
            dq1 = add(dq1, mul(ds, p.k.data[j * 2 + 1]));
        }
        EXPECT_EQ(e.dq.data[i * 2], dq0) << i;
        EXPECT_EQ(e.dq.data[i * 2 + 1], dq1) << i;
    }
    for (int j = 0; j < 3; ++j)
        for (int c = 0; c < 2; ++c)
            EXPECT_EQ(e.dv.data[j * 2 + c], add(mul(w, d_out.data[c]), mul(w, d_out.data[2 + c])));
}
