// SPDX-License-Identifier: MIT
// 8-bit floats in the oracle (docs/oracle.md, "8-bit floats"): OCP E4M3 (no infinities, 448) and
// E5M2 (57344) decoded from their bit layouts and rounded to, with the values worked by hand;
// P cast to E4M3 with a descale in the online emulation, P-collapse and saturation named where
// they happen, and the judge's bound holding every correct emulation found by a search.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "exactattn/oracle.hpp"
#include "tools/oracle/bounds.hpp"

using namespace exactattn;
using namespace exactattn::oracle;

namespace {
constexpr FloatFormat kE4 = FloatFormat::Float8E4M3FN, kE5 = FloatFormat::Float8E5M2;
constexpr double kInf = std::numeric_limits<double>::infinity();
double p2(int e) { return std::ldexp(1.0, e); }

Tensor matrix(std::int64_t r, std::int64_t c, std::vector<double> v, FloatFormat f) {
    return Tensor{{r, c}, std::move(v), f};
}
}  // namespace

TEST(OracleFp8, E4m3fnBitPatternsFollowTheOcpLayout) {
    // S.EEEE.MMM, bias 7: 0.0111.000 = 1, 0.0111.001 = 1.125, 0.1111.110 = 1.75·2^8 = 448,
    // 0.0000.001 = 2^-9 (the least subnormal), 0.0001.000 = 2^-6 (the least normal).
    EXPECT_EQ(decode_bits(0x38, kE4), 1.0);
    EXPECT_EQ(decode_bits(0x39, kE4), 1.125);
    EXPECT_EQ(decode_bits(0x7E, kE4), 448.0);
    EXPECT_EQ(decode_bits(0xFE, kE4), -448.0);
    EXPECT_EQ(decode_bits(0x78, kE4), 256.0);  // exponent 15 holds numbers: no infinity
    EXPECT_EQ(decode_bits(0x01, kE4), p2(-9));
    EXPECT_EQ(decode_bits(0x08, kE4), p2(-6));
    EXPECT_EQ(decode_bits(0x07, kE4), 7 * p2(-9));  // the largest subnormal
    EXPECT_TRUE(std::isnan(decode_bits(0x7F, kE4)));
    EXPECT_TRUE(std::isnan(decode_bits(0xFF, kE4)));
    int nans = 0;
    for (std::uint64_t b = 0; b < 256; ++b) {
        const double x = decode_bits(b, kE4);
        nans += std::isnan(x);
        EXPECT_FALSE(std::isinf(x)) << b;
        if (!std::isnan(x)) {
            EXPECT_EQ(encode_bits(x, kE4), b) << b;
        }
    }
    EXPECT_EQ(nans, 2);  // S.1111.111 only
    EXPECT_EQ(max_finite(kE4), 448.0);
    EXPECT_EQ(least_subnormal(kE4), p2(-9));
    EXPECT_EQ(unit_roundoff(kE4), p2(-4));
}

TEST(OracleFp8, E5m2BitPatternsFollowTheOcpLayout) {
    // S.EEEEE.MM, bias 15: 0.01111.00 = 1, 0.11110.11 = 1.75·2^15 = 57344, 0.00000.01 = 2^-16.
    EXPECT_EQ(decode_bits(0x3C, kE5), 1.0);
    EXPECT_EQ(decode_bits(0x3D, kE5), 1.25);
    EXPECT_EQ(decode_bits(0x7B, kE5), 57344.0);
    EXPECT_EQ(decode_bits(0x01, kE5), p2(-16));
    EXPECT_EQ(decode_bits(0x7C, kE5), kInf);
    EXPECT_EQ(decode_bits(0xFC, kE5), -kInf);
    EXPECT_TRUE(std::isnan(decode_bits(0x7D, kE5)));
    for (std::uint64_t b = 0; b < 256; ++b) {
        const double x = decode_bits(b, kE5);
        if (!std::isnan(x)) {
            EXPECT_EQ(encode_bits(x, kE5), b) << b;
        }
    }
    EXPECT_EQ(max_finite(kE5), 57344.0);
    EXPECT_EQ(least_subnormal(kE5), p2(-16));
}

TEST(OracleFp8, RoundingToE4m3fnIsToNearestEven) {
    EXPECT_EQ(round_to(1.0625, kE4), 1.0);              // midway 1 | 1.125: 1.000 is even
    EXPECT_EQ(round_to(1.1875, kE4), 1.25);             // midway 1.125 | 1.25: 1.010 is even
    EXPECT_EQ(round_to(1.0625 + p2(-30), kE4), 1.125);  // past the midpoint
    EXPECT_EQ(round_to(464, kE4), 448.0);               // midway 448 | (480): 1.110·2^8 is even
    EXPECT_EQ(round_to(464 + p2(-20), kE4), kInf);      // out of range (no value there)
    EXPECT_EQ(round_to(p2(-10), kE4), 0.0);             // half the least subnormal: to 0 (even)
    EXPECT_EQ(round_to(3 * p2(-10), kE4), p2(-8));      // midway 2^-9 | 2·2^-9: 2·2^-9 is even
    EXPECT_EQ(round_to(p2(-10) + p2(-40), kE4), p2(-9));
    EXPECT_EQ(round_exact(mpq_class(17, 16), kE4), 1.0);   // 1.0625 exactly
    EXPECT_EQ(round_exact(mpq_class(19, 16), kE4), 1.25);  // 1.1875
    EXPECT_EQ(round_exact(mpq_class(464), kE4), 448.0);
    EXPECT_EQ(round_exact(mpq_class(465), kE4), kInf);
    EXPECT_EQ(ulp(448, kE4), 32.0);
    EXPECT_TRUE(representable(448, kE4));
    EXPECT_FALSE(representable(480, kE4));  // S.1111.111 is NaN, not 480
    // The casts past the range: E4M3's NaN (no infinity) or ±448 saturated; E5M2's ±inf or ±57344.
    EXPECT_TRUE(std::isnan(cast_fp8(500, kE4, Fp8Overflow::Error)));
    EXPECT_EQ(cast_fp8(-500, kE4, Fp8Overflow::Saturate), -448.0);
    EXPECT_EQ(cast_fp8(460, kE4, Fp8Overflow::Error), 448.0);   // rounds to 448: in range
    EXPECT_EQ(cast_fp8(61440, kE5, Fp8Overflow::Error), kInf);  // midway 57344 | 2^16: 2^16 is even
    EXPECT_EQ(cast_fp8(61439, kE5, Fp8Overflow::Error), 57344.0);
    EXPECT_EQ(cast_fp8(1e9, kE5, Fp8Overflow::Saturate), 57344.0);
    EXPECT_EQ(round_to(3 * p2(-17), kE5), 2 * p2(-16));  // midway 2^-16 | 2^-15: even
}

TEST(OracleFp8, ExactRoundingAgreesWithDoubleRoundingOnEveryFloat16) {
    for (std::uint64_t b = 0; b < 0x10000; ++b) {
        const double x = decode_bits(b, FloatFormat::Float16);
        if (!std::isfinite(x)) continue;
        for (FloatFormat f : {kE4, kE5}) {
            const double r = round_to(x, f), q = round_exact(mpq_class(x), f);
            EXPECT_TRUE(r == q) << b << " " << info(f).name;
        }
    }
}

TEST(OracleFp8, ParsingNamesTheFormatsAndOptions) {
    EXPECT_EQ(parse_format("float8_e4m3fn"), kE4);
    EXPECT_EQ(parse_format("e5m2"), kE5);
    EXPECT_THROW(parse_format("float8_e4m3fnuz"), Error);
    EXPECT_EQ(parse_fp8_overflow("saturate"), Fp8Overflow::Saturate);
    EXPECT_THROW(parse_fp8_overflow("clamp"), Error);
    EXPECT_EQ(parse_p_descale("256").value, 256.0);
    EXPECT_TRUE(parse_p_descale("block").per_block);
    EXPECT_THROW(parse_p_descale("0"), Error);
    EXPECT_THROW(parse_p_descale("inf"), Error);
}

namespace {
// Base 2, no scale: q = [[1]], keys k_j, so the scores are the k_j; v one column.
Problem two_key_problem(double k1, double v0, double v1) {
    Problem p;
    p.q = matrix(1, 1, {1}, FloatFormat::Float32);
    p.k = matrix(2, 1, {0, k1}, FloatFormat::Float32);
    p.v = matrix(2, 1, {v0, v1}, FloatFormat::Float32);
    p.scale.kind = ScaleKind::None;
    p.base = ExpBase::Two;
    return p;
}
EmulationSpec fp8_online(PDescale d, Fp8Overflow o = Fp8Overflow::Error) {
    EmulationSpec s;
    s.algorithm = Algorithm::Online;
    s.format = FloatFormat::Float32;
    s.p_format = kE4;
    s.output = FloatFormat::Float32;
    s.p_descale = d;
    s.fp8_overflow = o;
    return s;
}
AlgorithmSpec claim_of(const EmulationSpec& e) {
    AlgorithmSpec a;
    a.algorithm = e.algorithm;
    a.accumulate = e.format;
    a.p_format = e.p_format;
    a.block = e.block;
    a.p_descale = e.p_descale;
    a.fp8_overflow = e.fp8_overflow;
    return a;
}
}  // namespace

TEST(OracleFp8, PCollapseFlushesASmallProbabilityAndIsNamed) {
    // Scores 0 and −18 (base 2): P = (1, 2^-18). With σ = 256, P·σ = (256, 2^-10); 2^-10 is half
    // the least subnormal 2^-9 of E4M3, a tie, to 0 (even): the key is lost. O = 0·1/256 / ℓ = 0,
    // where the exact output is 2^-18/(1 + 2^-18).
    const Problem p = two_key_problem(-18, 0, 1);
    const EmulationSpec s = fp8_online({256, false});
    const Emulation e = emulate(p, s, true);
    EXPECT_EQ(e.out.data.at(0), 0.0);
    EXPECT_EQ(e.fp8.collapsed, 1);
    EXPECT_EQ(e.fp8.collapsed_max, p2(-18));
    EXPECT_EQ(e.fp8.collapsed_row, 0);
    EXPECT_EQ(e.fp8.collapsed_key, 1);
    EXPECT_EQ(e.fp8.saturated, 0);
    const std::string text = emulation_text(e, s);
    EXPECT_NE(text.find("P-collapse: 1 probabilities flushed to zero"), std::string::npos) << text;
    EXPECT_NE(emulation_json(e, s).find("\"p_collapse\":{\"count\":1"), std::string::npos);
    // The judge's bound takes the lost weight (η_p/σ = 2^-17 a key): the emulation passes.
    const JudgeReport rep = judge_problem(p, FloatFormat::Float32, e.out, nullptr, nullptr, claim_of(s), std::nullopt);
    EXPECT_EQ(rep.tensors.at(0).over, 0) << judge_text(rep);
    // The judge names the failure mode from the claim's own emulation (it does not fail the judgement).
    ASSERT_TRUE(rep.fp8.has_value());
    EXPECT_EQ(rep.fp8->collapsed, 1);
    EXPECT_NE(judge_text(rep).find("fp8: P-collapse: 1 probabilities"), std::string::npos) << judge_text(rep);
    EXPECT_NE(judge_json(rep).find("\"p_collapse\":{\"count\":1"), std::string::npos);
    // One binade up (score −17): P·σ = 2^-9, the least subnormal, kept exactly: no collapse, and
    // O = fl(fl(2^-9 / 256) / fl(1 + 2^-17)) = 2^-17/(1 + 2^-17) rounded to float32.
    const Emulation kept = emulate(two_key_problem(-17, 0, 1), s, false);
    EXPECT_EQ(kept.fp8.collapsed, 0);
    EXPECT_EQ(kept.out.data.at(0), static_cast<double>(static_cast<float>(p2(-17) / (1 + p2(-17)))));
}

TEST(OracleFp8, ADescaleAbove448SaturatesOrOverflowsAndIsNamed) {
    // σ = 512: P·σ = 512 for the key of score 0, past 448. Saturated to 448 (O = 448·v/512 = 0.875v)
    // or, under error, E4M3's NaN.
    const Problem p = two_key_problem(-30, 1, 0);
    const Emulation sat = emulate(p, fp8_online({512, false}, Fp8Overflow::Saturate), false);
    EXPECT_EQ(sat.fp8.saturated, 1);
    EXPECT_EQ(sat.fp8.saturated_first, "P[0, 0]");
    // O = 448/512 = 0.875, divided by ℓ = fl(1 + 2^-30) = 1 in float32.
    EXPECT_EQ(sat.out.data.at(0), 0.875);
    const Emulation err = emulate(p, fp8_online({512, false}, Fp8Overflow::Error), false);
    EXPECT_EQ(err.fp8.overflowed, 1);
    EXPECT_TRUE(std::isnan(err.out.data.at(0)));
    // The judge guarantees nothing for such a claim, and says why.
    std::string why;
    const Reference ref = reference(p, FloatFormat::Float32, false);
    EXPECT_EQ(output_bound(ref, claim_of(fp8_online({512, false})), 0, 0, &why), kInf);
    EXPECT_NE(why.find("leaves float8_e4m3fn's range"), std::string::npos) << why;
}

TEST(OracleFp8, OutOfRangeInputsAreRefusedUnlessSaturationIsDeclared) {
    Problem p = two_key_problem(0, 1, 500);
    p.v.format = kE4;
    p.v.data = {1, 500};
    try {
        validate(p);
        FAIL() << "500 accepted as float8_e4m3fn";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("v[1, 0]: 500 is out of float8_e4m3fn's range"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(saturate_inputs(p, Fp8Overflow::Error).saturated, 0);
    const Fp8Events ev = saturate_inputs(p, Fp8Overflow::Saturate);
    EXPECT_EQ(ev.saturated, 1);
    EXPECT_EQ(ev.saturated_first, "v[1, 0]");
    EXPECT_EQ(p.v.data.at(1), 448.0);
    EXPECT_NO_THROW(validate(p));
    p.v.data.at(1) = 450;  // in range, between 448 and (480): not a value, saturation or not
    EXPECT_THROW(validate(p), Error);
}

TEST(OracleFp8, NpyBitPatternsNeedADeclaredFormat) {
    // '|u1' (torch's t.view(torch.uint8).numpy()) with 0x38 = 1 and 0x7E = 448 in E4M3.
    std::string h = "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }";
    h.append(128 - 10 - h.size() - 1, ' ');  // the header padded to 128 bytes
    h += '\n';
    std::string bytes("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(h.size());
    bytes += '\0';
    bytes += h;
    bytes += "\x38\x7E";
    const Tensor t = parse_npy(bytes, "p.npy", kE4);
    EXPECT_EQ(t.data, (std::vector<double>{1, 448}));
    EXPECT_EQ(t.format, kE4);
    // The same bytes read as E5M2: 0.01110.00 = 2^-1, 0.11111.10 a NaN (which validate refuses).
    const Tensor e5 = parse_npy(bytes, "p.npy", kE5);
    EXPECT_EQ(e5.data.at(0), 0.5);
    EXPECT_TRUE(std::isnan(e5.data.at(1)));
    // Undeclared, '|u1' is a mask's integers, never floats.
    EXPECT_EQ(parse_npy(bytes, "p.npy", std::nullopt).data, (std::vector<double>{0x38, 0x7E}));
}

TEST(OracleFp8, TheBoundHoldsEveryCorrectEmulationASearchFinds) {
    // Problems whose probabilities spread over many binades (base-2 scores in [−24, 0]), so that
    // many P·σ fall into E4M3's subnormals or below: each emulation judged with its own claim.
    double worst = 0;
    int judged = 0;
    for (unsigned seed = 0; seed < 48; ++seed) {
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> score(-24 * 4, 0), val(-40, 40);
        const std::int64_t nq = 3, nk = 24 + seed % 17;
        Problem p;
        p.q = matrix(nq, 1, {}, FloatFormat::Float32);
        for (std::int64_t i = 0; i < nq; ++i) p.q.data.push_back(1);
        p.k = matrix(nk, 1, {}, FloatFormat::Float32);
        for (std::int64_t j = 0; j < nk; ++j) p.k.data.push_back(score(rng) / 4.0);
        p.v = matrix(nk, 2, {}, FloatFormat::Float32);
        for (std::int64_t j = 0; j < 2 * nk; ++j) p.v.data.push_back(round_to(val(rng) / 8.0, kE4));
        p.scale.kind = ScaleKind::None;
        p.base = seed % 2 ? ExpBase::Two : ExpBase::E;
        const PDescale d = seed % 3 == 0   ? PDescale{256, false}
                           : seed % 3 == 1 ? PDescale{1, true}
                                           : PDescale{1, false};
        EmulationSpec s = fp8_online(d);
        s.block = 4 + seed % 9;
        s.output = seed % 4 == 3 ? FloatFormat::BFloat16 : FloatFormat::Float32;
        const Emulation e = emulate(p, s, false);
        const JudgeReport rep = judge_problem(p, s.output, e.out, nullptr, nullptr, claim_of(s), std::nullopt);
        for (const Judged& j : rep.tensors.at(0).entries) {
            ASSERT_TRUE(j.within) << "seed " << seed << " entry " << j.row << "," << j.col << ": " << j.abs_error
                                  << " > " << j.bound;
            if (j.bound > 0 && std::isfinite(j.bound)) worst = std::max(worst, j.abs_error / j.bound);
        }
        ++judged;
    }
    EXPECT_EQ(judged, 48);
    // The search comes close: a correct emulation uses a fair part of its bound (measured: 0.286).
    EXPECT_GT(worst, 0.05) << worst;
    std::printf("fp8 bound search: the largest |error|/bound of a correct emulation is %.3f\n", worst);
}
