// SPDX-License-Identifier: MIT
// The gradients of a batch of heads in the library and on the command line (docs/oracle.md,
// "Gradients of a batch of heads"), on a multi-query problem worked by hand.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "app.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle_grad_batch.hpp"
#include "support/support.hpp"

using namespace exactattn;
using namespace exactattn::oracle;

namespace {

Tensor tensor4(std::vector<std::int64_t> shape, std::vector<double> v, FloatFormat f = FloatFormat::Float64) {
    return Tensor{std::move(shape), std::move(v), f};
}

// Two query heads on one kv head (B = 1, H_q = 2, H_kv = 1), (B, H, N, D): K = 0, so every score
// is 0 and P = 1/3 exactly; no scale. By hand: O = the mean of V's rows = (1, 4/3); dV_j is
// (1/3) Σ over both heads' rows of dO = (1/3)(3, 5) = (1, 5/3) for every key j; dK_00 =
// Σ_i dS_i0 Q_i0 over both heads = (−4/9)(1) + (−4/3)(3) + (4/9)(−2) + (−8/9)(1) = −56/9, with
// dS_i0 = (1/3)(dO_i·V_0 − dO_i·O).
struct HandProblem {
    Batch batch;
    Tensor d_out;
    explicit HandProblem(FloatFormat f) {
        ProblemOptions o;
        o.scale = "none";
        batch.options = problem_options(o);
        batch.q = tensor4({1, 2, 2, 2}, {1, 2, 3, -1, -2, 5, 1, 1}, f);
        batch.k = tensor4({1, 1, 3, 2}, {0, 0, 0, 0, 0, 0}, f);
        batch.v = tensor4({1, 1, 3, 2}, {1, 0, 2, -3, 0, 7}, f);
        d_out = tensor4({1, 2, 2, 2}, {1, 1, -2, 3, 4, -1, 0, 2}, f);
    }
};

}  // namespace

TEST(OracleGradBatch, AFloat64GroupSumIsTheCorrectlyRoundedExactSum) {
    const HandProblem h(FloatFormat::Float64);
    const GradBatch g = grad_batch(h.batch, h.d_out, FloatFormat::Float64, {}, GradSpec{}, 1);
    const GradField& dk = g.field("dk");
    const GradField& dv = g.field("dv");
    ASSERT_EQ(dk.shape, (std::vector<std::int64_t>{1, 1, 3, 2}));
    // IEEE division is correctly rounded: −56.0/9.0 and 5.0/3.0 are the nearest doubles.
    EXPECT_EQ(dk.val[0], -56.0 / 9.0);
    for (std::size_t j = 0; j < 3; ++j) {
        EXPECT_EQ(dv.val[2 * j], 1.0);
        EXPECT_EQ(dv.val[2 * j + 1], 5.0 / 3.0);
        EXPECT_EQ(dv.exact[2 * j], 1);
    }
    const auto rounded = [&](const char* name) {
        for (std::size_t y = 0; y < g.fields.size(); ++y)
            if (g.fields[y].name == name) return g.rounded[y];
        return std::vector<std::uint8_t>{};
    };
    for (const char* name : {"dk", "dv"}) {
        const auto r = rounded(name);
        EXPECT_TRUE(std::all_of(r.begin(), r.end(), [](std::uint8_t x) { return x == 1; })) << name;
    }
    // dV_j0 = −1/3 + 4/3 = 1 from the two heads: their enclosures summed straddle 1 in float64
    EXPECT_GT(g.straddled, 0);
    EXPECT_EQ(g.refined, g.straddled);
}

TEST(OracleGradBatch, AGroupProblemOverItsCapLeavesItsSumsNotRoundedAndSaysSo) {
    // Each head's problem is 2 × 3 cells, the group's stacked one 4 × 3: a cap of 8 cells lets the
    // heads be certified but not their group, so the straddling sums stay as enclosed.
    const HandProblem h(FloatFormat::Float64);
    Limits l = limits();
    l.max_cells = 8;
    const ScopedLimits scoped(l);
    const GradBatch g = grad_batch(h.batch, h.d_out, FloatFormat::Float64, {}, GradSpec{}, 1);
    EXPECT_GT(g.straddled, 0);
    EXPECT_EQ(g.refined, 0);
    std::int64_t not_rounded = 0;
    for (std::size_t y = 0; y < g.fields.size(); ++y) {
        const GradField& f = g.fields[y];
        for (std::size_t at = 0; at < f.val.size(); ++at) {
            not_rounded += g.rounded[y][at] == 0 ? 1 : 0;
            if (g.rounded[y][at] == 0) {  // the midpoint rounded: inside the enclosure, an ulp from the sum at most
                EXPECT_LE(f.lo[at], f.val[at]) << f.name;
                EXPECT_LE(f.val[at], f.hi[at]) << f.name;
            }
        }
    }
    EXPECT_EQ(not_rounded, g.straddled);
    // dV_00 = 1 exactly: its midpoint is within an ulp of 1, its flag 0
    const GradField& dv = g.field("dv");
    EXPECT_LE(std::fabs(dv.val[0] - 1.0), 0x1p-52);
    EXPECT_NE(grad_batch_text(g).find("(not rounded: the midpoint of an enclosure that straddles)"), std::string::npos);
}

namespace {

// `exactattn oracle ARGS` run in-process: its exit code, standard output and standard error.
std::tuple<int, std::string, std::string> oracle_cli(std::vector<std::string> args) {
    args.insert(args.begin(), "oracle");
    std::ostringstream out, err;
    const int code = exactattn::cli::run(args, out, err);
    return {code, out.str(), err.str()};
}

}  // namespace

TEST(OracleGradBatchCli, GradReferenceTakesA4dBatchAndJudgesItsKvHeads) {
    const auto dir = std::filesystem::temp_directory_path() / ("oracle_grad_batch_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto npy = [&](const char* name, const Tensor& t) {
        test::write_file((dir / name).string(), write_npy(t));
        return (dir / name).string();
    };
    const HandProblem h(FloatFormat::Float32);
    const std::vector<std::string> in = {"grad-reference",
                                         "--q",
                                         npy("q.npy", h.batch.q),
                                         "--k",
                                         npy("k.npy", h.batch.k),
                                         "--v",
                                         npy("v.npy", h.batch.v),
                                         "--do",
                                         npy("do.npy", h.d_out),
                                         "--scale",
                                         "none",
                                         "--dtype",
                                         "float64"};
    auto [code, out, err] = oracle_cli(in);
    ASSERT_EQ(code, 0) << err;
    EXPECT_NE(out.find("oracle grad-reference: gradients of 1 × 2 heads (1 kv heads)"), std::string::npos) << out;
    // −56/9 and 5/3 rounded to double (the hex digits repeat 8e3 and a, the last rounded up)
    EXPECT_NE(out.find("dk[b=0, h=0, i=0, j=0] = -6.22222222 (-0x1.8e38e38e38e39p+2)  exact"), std::string::npos)
        << out;
    EXPECT_NE(out.find("dv[b=0, h=0, i=2, j=1] = 1.66666667 (0x1.aaaaaaaaaaaabp+0)  exact"), std::string::npos) << out;

    // dV of every key (1, 5/3) given as a kernel's in float32, with one entry wrong: exit 1, named
    auto a = in;
    a.back() = "float32";
    a.insert(a.end(), {"--actual-dv",
                       npy("dv.npy", tensor4({1, 1, 3, 2}, {1, 5.0f / 3, 1, 5.0f / 3, 1, 1.75}, FloatFormat::Float32)),
                       "--format", "json"});
    std::tie(code, out, err) = oracle_cli(a);
    EXPECT_EQ(code, 1) << err;
    EXPECT_NE(out.find("\"verdict\":\"fail\""), std::string::npos) << out;
    EXPECT_NE(out.find("\"over\":1,"), std::string::npos) << out;
    EXPECT_NE(out.find("\"first_over\":[0,0,2,1]"), std::string::npos) << out;

    a = in;  // dO of the wrong shape: one placed line, exit 2
    a[8] = npy("do_bad.npy", tensor4({1, 2, 2, 1}, {1, 2, 3, 4}));
    std::tie(code, out, err) = oracle_cli(a);
    EXPECT_EQ(code, 2);
    EXPECT_EQ(out, "");
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("--do"), std::string::npos) << err;
    std::filesystem::remove_all(dir);
}
