// SPDX-License-Identifier: MIT
// The oracle's predictions that refuse work up front are honest (docs/limits.md, "Predictions
// that refuse"; docs/oracle.md, "Vectors and budget"): on a corpus of seeded problems (every
// format, several n and d, causal, windowed, masked and biased problems, exp2 kernels, with and
// without the weights, each emulated algorithm), the work a reference or an emulation is
// actually charged as it runs (row by row, and each step of rising precision before it runs) is
// measured with a WorkBudget, and the prediction made before anything ran must be at least it
// and at most 4× it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"
#include "support/support.hpp"

using namespace exactattn;
using namespace exactattn::oracle;

namespace {

struct Case {
    std::string name;
    Problem p;
};

Tensor fill(std::mt19937& rng, FloatFormat f, std::int64_t r, std::int64_t c, float spread) {
    std::normal_distribution<float> g(0, spread);
    Tensor t{{r, c}, {}, f};
    for (std::int64_t x = 0; x < r * c; ++x) t.data.push_back(round_to(g(rng), f));
    return t;
}

std::vector<Case> corpus() {
    std::vector<Case> cases;
    const FloatFormat formats[] = {FloatFormat::Float16, FloatFormat::BFloat16, FloatFormat::Float32,
                                   FloatFormat::Float64};
    const std::int64_t sizes[][3] = {{1, 1, 1}, {4, 8, 4}, {16, 16, 8}, {33, 65, 16}, {96, 96, 32}, {32, 300, 16}};
    unsigned seed = 1;
    for (const FloatFormat f : formats)
        for (const auto& s : sizes)
            for (int kind = 0; kind < 6; ++kind) {
                std::mt19937 rng(seed++);
                const std::int64_t nq = s[0], nk = s[1], d = s[2];
                Problem p;
                p.q = fill(rng, f, nq, d, 1);
                p.k = fill(rng, f, nk, d, 1);
                p.v = fill(rng, f, nk, d, 1);
                p.masked_rows = MaskedRows::Zeros;
                std::string what = "plain";
                if (kind == 1) p.causal = true, what = "causal";
                if (kind == 2) p.window_left = 3, p.window_right = 1, what = "window (3, 1)";
                if (kind == 3)
                    p.causal = true, p.align = Align::BottomRight, p.window_left = 7,
                    what = "causal, bottom-right, window 7";
                if (kind == 4) {
                    std::bernoulli_distribution m(0.7);
                    for (std::int64_t x = 0; x < nq * nk; ++x) p.mask.push_back(m(rng) ? 1 : 0);
                    what = "mask (70% masked)";
                }
                if (kind == 5) {
                    p.base = ExpBase::Two;
                    std::bernoulli_distribution m(0.5);
                    for (std::int64_t x = 0; x < nq * nk; ++x)
                        p.bias.push_back(m(rng) ? -std::numeric_limits<double>::infinity() : 0.25);
                    what = "exp2, −inf bias on half";
                }
                cases.push_back({fmt::format("{} {}×{} d={} {}", info(f).name, nq, nk, d, what), std::move(p)});
            }
    return cases;
}

struct Ratios {
    double min = std::numeric_limits<double>::infinity(), max = 0;
    std::string min_at, max_at;
    int count = 0;
    void add(double predicted, double actual, const std::string& at) {
        const double r = predicted / actual;
        if (r < min) min = r, min_at = at;
        if (r > max) max = r, max_at = at;
        ++count;
    }
};

// The work a step is charged when it runs in a job of its own.
template <class F>
double charged(F&& step) {
    const WorkBudget job;
    step();
    return job.spent();
}

}  // namespace

TEST(OraclePrediction, EveryRefusingPredictionIsAtLeastTheActualAndWithinFourTimesOfIt) {
    // Work units are what the sanitizers do not change; the corpus is 14-20 s in the release
    // build and 63 s under ASan, the longest test there: measured in the release build only.
    if (exactattn::test::kUnderSanitizer)
        GTEST_SKIP() << "measured in the release build: work units do not change under the sanitizers";
    std::map<std::string, Ratios> ratios;
    for (const Case& c : corpus()) {
        for (const bool weights : {false, true}) {
            const double predicted = reference_work(c.p, c.p.q.format, weights);
            const double actual = charged([&] { (void)reference(c.p, c.p.q.format, weights); });
            ratios[fmt::format("reference{}, {}", weights ? " with weights" : "", info(c.p.q.format).name)].add(
                predicted, actual, c.name);
        }
        for (const Algorithm a : {Algorithm::Naive, Algorithm::Safe, Algorithm::Online}) {
            EmulationSpec s{a, c.p.q.format, c.p.q.format, c.p.q.format, 16};
            const double predicted = emulation_work(c.p);
            const double actual = charged([&] { (void)emulate(c.p, s, false); });
            ratios["emulation"].add(predicted, actual, c.name);
        }
    }
    for (const auto& [what, r] : ratios) {
        std::cout << fmt::format("prediction/actual, {}: {:.3g} ({}) to {:.3g} ({}) over {} cases\n", what, r.min,
                                 r.min_at, r.max, r.max_at, r.count);
        EXPECT_GE(r.min, 1.0) << what << " at " << r.min_at;
        EXPECT_LE(r.max, 4.0) << what << " at " << r.max_at;
        EXPECT_GE(r.count, 36) << what;
    }
}

TEST(OraclePrediction, VisibleKeyCountIsTheCountOfTheVisibleKeys) {
    // Every window, alignment and causal flag on a 7 × 11 and an 11 × 7 problem.
    for (const auto& [nq, nk] : {std::pair<std::int64_t, std::int64_t>{7, 11}, {11, 7}})
        for (const bool causal : {false, true})
            for (const Align align : {Align::TopLeft, Align::BottomRight})
                for (std::int64_t left = -1; left <= 12; ++left)
                    for (std::int64_t right = -1; right <= 12; ++right) {
                        Problem p;
                        p.q = Tensor{{nq, 2}, std::vector<double>(static_cast<std::size_t>(nq * 2), 0.0)};
                        p.k = Tensor{{nk, 2}, std::vector<double>(static_cast<std::size_t>(nk * 2), 0.0)};
                        p.v = p.k;
                        p.causal = causal, p.align = align, p.window_left = left, p.window_right = right;
                        for (std::int64_t i = 0; i < nq; ++i) {
                            const auto keep = visible_keys(p, i);
                            ASSERT_EQ(visible_key_count(p, i), std::count(keep.begin(), keep.end(), std::uint8_t{1}))
                                << nq << "×" << nk << " causal " << causal << " left " << left << " right " << right
                                << " row " << i;
                        }
                    }
}

TEST(OraclePrediction, AWindowedProblemIsPredictedOverTheKeysItSees) {
    // 4 queries over 1000 keys, each seeing 3 (the diagonal and 2 before it): by hand,
    // 4 rows × (3 keys × (2 + 2 + 30) + 2) × 500 = 208000 units, not 4 × 1000 keys' worth.
    Problem p;
    p.q = Tensor{{4, 2}, std::vector<double>(8, 0.5)};
    p.k = Tensor{{1000, 2}, std::vector<double>(2000, 0.25)};
    p.v = p.k;
    p.window_left = 2, p.window_right = 0, p.align = Align::BottomRight;
    EXPECT_EQ(reference_work(p, FloatFormat::Float32, false), 208000.0);
    // Emulated: 4 × (3 × (2·4 + 6) + 2) × 3000.
    EXPECT_EQ(emulation_work(p), 4.0 * (3 * 14 + 2) * 3000);
}
