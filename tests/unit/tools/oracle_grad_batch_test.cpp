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

// A (1, 2, 4, 8) batch (B, H, N, D), two kv heads, base 2 and no scale, every input in E4M3
// (`in`): Q = 0 but Q[0, 1, 0, 0] = 1, K = 0 but K[0, 1, 1, 0] = −20 (1.01b·2^4, an E4M3 value),
// V[·, ·, j, 0] = j, dO = 1. By hand: every row sees scores (0, 0, 0, 0) and P = 1/4 (P·256 = 64,
// an E4M3 value), but head 1's query 0, whose scores are (0, −20, 0, 0): the backward's P_1 =
// 2^−20/(3 + 2^−20) < 2^−20/3 and the forward's unnormalised P_1 = 2^−20 (the row's maximum is 0),
// so P_1·256 ≤ 2^−12 is less than half E4M3's least subnormal 2^−9 and the cast flushes it to 0:
// exactly one collapse, at (b=0, h=1), query 0, key 1. Its neighbours (P·256 ≈ 85.3 or 256) stay
// in range (E4M3's largest is 448).
struct CollapseBatch {
    Batch batch;
    Tensor d_out;
    explicit CollapseBatch(FloatFormat in) {
        ProblemOptions o;
        o.scale = "none";
        o.base = "2";
        batch.options = problem_options(o);
        const std::vector<std::int64_t> shape{1, 2, 4, 8};
        std::vector<double> q(64, 0.0), k(64, 0.0), v(64, 0.0);
        q[32] = 1;        // (0, 1, 0, 0)
        k[32 + 8] = -20;  // (0, 1, 1, 0)
        for (std::int64_t h = 0; h < 2; ++h)
            for (std::int64_t j = 0; j < 4; ++j) v[static_cast<std::size_t>((h * 4 + j) * 8)] = static_cast<double>(j);
        batch.q = tensor4(shape, q, in);
        batch.k = tensor4(shape, k, in);
        batch.v = tensor4(shape, v, in);
        d_out = tensor4(shape, std::vector<double>(64, 1.0), in);
    }
};

GradSpec e4m3_p_claim() {
    GradSpec s;
    s.p_format = FloatFormat::Float8E4M3FN;
    s.p_descale = PDescale{256, false};
    return s;
}

}  // namespace

TEST(OracleGradBatch, TheHeadsPCollapseIsCountedAndNamedWithItsHead) {
    const CollapseBatch c(FloatFormat::Float8E4M3FN);
    const GradBatch ref = grad_batch(c.batch, c.d_out, FloatFormat::Float32, {}, GradSpec{}, 1);
    EXPECT_FALSE(ref.fp8.any());  // nothing judged: no claim's emulation, no events
    const std::vector<std::pair<std::string, Tensor>> given{
        {"dv", Tensor{{1, 2, 4, 8}, ref.field("dv").val, FloatFormat::Float32}}};
    for (const int threads : {1, 2}) {
        const GradBatch g = grad_batch(c.batch, c.d_out, FloatFormat::Float32, given, e4m3_p_claim(), threads);
        EXPECT_EQ(g.fp8.collapsed, 1);
        EXPECT_EQ(g.fp8.collapsed_batch, 0);
        EXPECT_EQ(g.fp8.collapsed_head, 1);
        EXPECT_EQ(g.fp8.collapsed_row, 0);
        EXPECT_EQ(g.fp8.collapsed_key, 1);
        // the lost P as the kernel had it: 2^−20/(3 + 2^−20) (3 + 2^−20 is a float32) within
        // float32's rounding of the division, below 2^−20/3
        EXPECT_LT(g.fp8.collapsed_max, std::ldexp(1.0, -20) / 3);
        EXPECT_GT(g.fp8.collapsed_max, std::ldexp(1.0, -20) / 3 * (1 - std::ldexp(1.0, -16)));
        EXPECT_EQ(g.fp8.saturated + g.fp8.overflowed, 0);
        const std::string text = grad_batch_text(g, &g.fp8), json = grad_batch_json(g, &g.fp8);
        EXPECT_NE(text.find("fp8: P-collapse: 1 probabilities flushed to zero by the 8-bit cast of P (the largest "
                            "lost: P = "),
                  std::string::npos)
            << text;
        EXPECT_NE(text.find("at head (b=0, h=1), query 0, key 1)"), std::string::npos) << text;
        EXPECT_NE(json.find("\"batch\":0,\"head\":1"), std::string::npos) << json;
        EXPECT_NE(json.find("\"p_dtype\":\"float8_e4m3fn\""), std::string::npos) << json;
    }
}

TEST(OracleGradBatch, TheForwardBatchCountsItsHeadsPCollapseAndNamesTheHead) {
    // The online forward with P cast to E4M3 after the descale 256 (issue 35): P_1 = 2^−20 exactly
    // (the row's maximum 0 is its first key's), 2^−20·256 = 2^−12 is flushed; the lost P 2^−20.
    const CollapseBatch c(FloatFormat::Float8E4M3FN);
    const std::vector<Reference> refs = reference_batch(c.batch, FloatFormat::Float32, false, 1);
    const BatchShape s = batch_shape(c.batch);
    const Tensor out = batch_output(refs, s, c.batch.layout, FloatFormat::Float32);
    AlgorithmSpec spec;
    spec.algorithm = Algorithm::Online;
    spec.p_format = FloatFormat::Float8E4M3FN;
    spec.p_descale = PDescale{256, false};
    for (const int threads : {1, 2}) {
        const JudgeReport rep = judge_batch(c.batch, FloatFormat::Float32, out, nullptr, spec, std::nullopt, threads);
        ASSERT_TRUE(rep.fp8.has_value());
        EXPECT_EQ(rep.fp8->collapsed, 1);
        EXPECT_EQ(rep.fp8->collapsed_max, std::ldexp(1.0, -20));
        EXPECT_EQ(rep.fp8->collapsed_batch, 0);
        EXPECT_EQ(rep.fp8->collapsed_head, 1);
        EXPECT_EQ(rep.fp8->collapsed_row, 0);
        EXPECT_EQ(rep.fp8->collapsed_key, 1);
        EXPECT_EQ(rep.fp8->saturated + rep.fp8->overflowed, 0);
    }
    spec.p_format = FloatFormat::Float32;  // a claim that casts nothing has no events to report
    EXPECT_FALSE(judge_batch(c.batch, FloatFormat::Float32, out, nullptr, spec, std::nullopt, 1).fp8.has_value());
}

TEST(OracleGradBatch, A4dE4m3DoPastTheRangeIsRefusedNamingTheEntryOrSaturatedWhenDeclared) {
    CollapseBatch c(FloatFormat::Float8E4M3FN);
    c.d_out.data[static_cast<std::size_t>(((0 * 2 + 1) * 4 + 2) * 8 + 3)] = 500;  // (b=0, h=1, i=2, j=3)
    try {
        (void)grad_batch(c.batch, c.d_out, FloatFormat::Float32, {}, GradSpec{}, 1);
        ADD_FAILURE() << "a dO of 500 in E4M3 was taken";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("head (b=0, h=1): do[2, 3]: 500 is out of float8_e4m3fn's range"),
                  std::string::npos)
            << e.what();
    }
    Fp8Events events;
    saturate_tensor(c.d_out, "do", Fp8Overflow::Error, events);  // the default: nothing clamped
    EXPECT_EQ(events.saturated, 0);
    saturate_tensor(c.d_out, "do", Fp8Overflow::Saturate, events);
    EXPECT_EQ(events.saturated, 1);
    EXPECT_EQ(events.saturated_first, "do[0, 1, 2, 3]");
    EXPECT_EQ(c.d_out.data[static_cast<std::size_t>(((0 * 2 + 1) * 4 + 2) * 8 + 3)], 448.0);
    // the saturated dO is an E4M3 tensor: the batch's gradients are certified
    EXPECT_NO_THROW((void)grad_batch(c.batch, c.d_out, FloatFormat::Float32, {}, GradSpec{}, 1));
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
