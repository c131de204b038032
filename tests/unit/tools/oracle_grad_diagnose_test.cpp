// SPDX-License-Identifier: MIT
// Diagnoses of the backward (docs/oracle.md, "Diagnoses of the backward") name nothing by
// default: correct emulations of both backwards pass with no name, and 1000 random
// perturbations of them (entries pushed past their bound, noise over whole tensors, tensors
// scaled by a random factor, entries swapped, rows zeroed) fail with no name; a mistake given
// exactly (the scale missing from dS: dQ and dK times 1/c) is named. The planted kernel bugs are
// in python/tests/test_oracle_grad_diagnoses.py.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <random>

#include "exactattn/oracle_grad.hpp"

using namespace exactattn;
using namespace exactattn::oracle;

namespace {

Tensor normal(std::mt19937_64& rng, std::int64_t r, std::int64_t c, FloatFormat f) {
    std::normal_distribution<double> n(0, 1);
    Tensor t{{r, c}, {}, f};
    for (std::int64_t x = 0; x < r * c; ++x) t.data.push_back(round_to(n(rng), f));
    return t;
}

struct Judging {
    Problem p;
    Tensor d_out;
    GradSpec spec;
    FloatFormat f = FloatFormat::Float32;
    std::optional<GradReference> g;
    std::optional<GradBounds> b;
    std::array<Tensor, 3> correct;  // the claim's emulation: dq, dk, dv
};

Judging make(std::uint64_t seed, bool causal, GradSpec spec, FloatFormat f) {
    std::mt19937_64 rng(seed);
    Judging s;
    const std::int64_t nq = 7, nk = 10, d = 8, dv = 5;
    s.p.q = normal(rng, nq, d, f), s.p.k = normal(rng, nk, d, f), s.p.v = normal(rng, nk, dv, f);
    s.d_out = normal(rng, nq, dv, f);
    if (causal) s.p.causal = true, s.p.align = Align::BottomRight;
    s.spec = spec;
    s.f = f;
    s.g = grad_reference(s.p, s.d_out, f);
    s.b = grad_bounds(s.p, s.d_out, *s.g, spec);
    const GradEmulation e = grad_emulate(s.p, s.d_out, spec, f, false);
    s.correct = {e.dq, e.dk, e.dv};
    return s;
}

const char* kNames[3] = {"dq", "dk", "dv"};

// The judgement of three gradients and its diagnosis.
std::pair<bool, std::string> verdict(const Judging& s, const std::array<Tensor, 3>& t) {
    std::vector<std::pair<std::string, Tensor>> actual;
    std::vector<GradComparison> compared;
    for (int x = 0; x < 3; ++x) {
        actual.emplace_back(kNames[x], t[x]);
        compared.push_back(judge_grad(*s.g, *s.b, kNames[x], t[x]));
    }
    return {grads_passed(compared), diagnose_grads(s.p, s.d_out, *s.g, *s.b, s.spec, actual, compared)};
}

const std::vector<double>& bounds(const Judging& s, int x) { return x == 0 ? s.b->dq : x == 1 ? s.b->dk : s.b->dv; }

std::vector<Judging> setups() {
    std::vector<Judging> out;
    const GradSpec claims[] = {
        {GradAlgorithm::Standard, FloatFormat::Float32, FloatFormat::Float32, std::nullopt, 4, {}, {}, {}, {}, {}},
        {GradAlgorithm::Standard, FloatFormat::Float32, FloatFormat::BFloat16, std::nullopt, 4, {}, {}, {}, {}, {}},
        {GradAlgorithm::Flash2, FloatFormat::Float32, FloatFormat::Float32, std::nullopt, 4, {}, {}, {}, {}, {}},
        {GradAlgorithm::Flash2, FloatFormat::Float32, FloatFormat::Float16, std::nullopt, 4, {}, {}, {}, {}, {}},
        {GradAlgorithm::Flash2, FloatFormat::Float64, FloatFormat::Float64, std::nullopt, 4, {}, {}, {}, {}, {}},
    };
    std::uint64_t seed = 1;
    for (const GradSpec& c : claims)
        for (bool causal : {false, true})
            out.push_back(make(seed++ * 7919, causal, c, *c.storage));  // gradients in the storage format
    return out;
}

}  // namespace

TEST(OracleGradDiagnose, NoiseAndRandomPerturbationsGetNoName) {
    const std::vector<Judging> all = setups();
    for (const Judging& s : all) {
        const auto [passed, why] = verdict(s, s.correct);
        EXPECT_TRUE(passed) << grad_spec_text(s.spec, s.f);
        EXPECT_EQ(why, "");
    }
    std::mt19937_64 rng(2026);
    std::uniform_real_distribution<double> unit(0, 1);
    constexpr int kRuns = 1000, kFamilies = 5;
    int failed[kFamilies] = {}, named[kFamilies] = {}, runs[kFamilies] = {};
    for (int run = 0; run < kRuns; ++run) {
        const Judging& s = all[static_cast<std::size_t>(run) % all.size()];
        std::array<Tensor, 3> t = s.correct;
        const int family = static_cast<int>(rng() % kFamilies), which = static_cast<int>(rng() % 3);
        Tensor& x = t[static_cast<std::size_t>(which)];
        const std::vector<double>& bd = bounds(s, which);
        const auto sign = [&] { return rng() % 2 ? 1.0 : -1.0; };
        const std::size_t n = x.data.size();
        switch (family) {
            case 0: {  // 1 to n entries moved by 1.5 to 1000 times their bound
                const std::size_t count = 1 + rng() % n;
                for (std::size_t c = 0; c < count; ++c) {
                    const std::size_t at = rng() % n;
                    x.data[at] += sign() * std::pow(10.0, std::log10(1.5) + unit(rng) * 2.8) * bd[at];
                }
                break;
            }
            case 1: {  // Gaussian noise on every entry, σ from 1 to 100 bounds
                std::normal_distribution<double> g(0, 1);
                const double sigma = std::pow(10.0, 2 * unit(rng));
                for (std::size_t at = 0; at < n; ++at) x.data[at] += sigma * g(rng) * bd[at];
                break;
            }
            case 2: {  // the tensor scaled by 1 ± 10^(−4 … −0.3)
                const double factor = 1 + sign() * std::pow(10.0, -4 + 3.7 * unit(rng));
                for (double& y : x.data) y *= factor;
                break;
            }
            case 3: {  // two entries swapped, a few times
                const std::size_t count = 1 + rng() % 4;
                for (std::size_t c = 0; c < count; ++c) std::swap(x.data[rng() % n], x.data[rng() % n]);
                break;
            }
            default: {  // one row zeroed
                const std::int64_t cols = x.shape[1], row = static_cast<std::int64_t>(rng() % x.shape[0]);
                for (std::int64_t c = 0; c < cols; ++c) x.data[static_cast<std::size_t>(row * cols + c)] = 0;
                break;
            }
        }
        for (double& y : x.data) y = round_to(y, s.f);
        const auto [passed, why] = verdict(s, t);
        ++runs[family];
        failed[family] += passed ? 0 : 1;
        named[family] += why.empty() ? 0 : 1;
        EXPECT_EQ(why, "") << "run " << run << " family " << family << " tensor " << kNames[which] << " under "
                           << grad_spec_text(s.spec, s.f);
    }
    int total_failed = 0;
    for (int f = 0; f < kFamilies; ++f) {
        std::printf("family %d: %d runs, %d fail the judgement, %d named\n", f, runs[f], failed[f], named[f]);
        total_failed += failed[f];
    }
    // Not vacuous: most perturbations fail (a swap of equal entries or a row already 0 may not).
    EXPECT_GT(total_failed, 800);
    EXPECT_GT(failed[0], runs[0] * 9 / 10);
}

TEST(OracleGradDiagnose, TheScaleMissingFromDsIsNamedFromItsEvidenceAlone) {
    // c = 1/√8: dQ and dK √8 times the correct emulation's, dV unchanged.
    const Judging s =
        make(77, false,
             {GradAlgorithm::Flash2, FloatFormat::Float32, FloatFormat::Float32, std::nullopt, 4, {}, {}, {}, {}, {}},
             FloatFormat::Float32);
    std::array<Tensor, 3> t = s.correct;
    for (int x = 0; x < 2; ++x)
        for (double& y : t[static_cast<std::size_t>(x)].data) y = round_to(y * std::sqrt(8.0), FloatFormat::Float32);
    auto [passed, why] = verdict(s, t);
    EXPECT_FALSE(passed);
    EXPECT_EQ(why.rfind("the softmax scale is missing from dS: dQ and dK are 1/c = 2.82843 times", 0), 0u) << why;
    // dV scaled too is not that mistake (nor any other).
    for (double& y : t[2].data) y = round_to(y * std::sqrt(8.0), FloatFormat::Float32);
    std::tie(passed, why) = verdict(s, t);
    EXPECT_FALSE(passed);
    EXPECT_EQ(why, "");
}
