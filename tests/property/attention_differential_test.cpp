// SPDX-License-Identifier: MIT
// Randomized differential test (fixed seeds): exact attention layers (attend_layer: random
// projections, score rules, causal/padding/explicit masks, heads, W_O, residual, positions,
// self- and cross-attention) against an independent 60-digit MPFR evaluation of the same
// inputs, which projects, scores and applies the softmax exp(e_j) / Σ exp(e_k) directly.
// Every score, weight, head output and layer output must agree to 10^-45 relative to its scale.
#include <gtest/gtest.h>

#include <algorithm>

#include "exactattn/attention.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "support/mpfr_eval.hpp"
#include "support/support.hpp"

using namespace exactattn;
using exactattn::test::F;
using exactattn::test::FVector;
using exactattn::test::to_f;

namespace {

using FMatrix = std::vector<FVector>;

int pick(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

FMatrix to_fm(const Matrix& m) {
    FMatrix out;
    for (const auto& r : m) out.push_back(to_f(r));
    return out;
}

FMatrix fmul(const FMatrix& a, const FMatrix& b) {
    FMatrix out(a.size(), FVector(b.empty() ? 0 : b[0].size(), F(0)));
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t k = 0; k < b.size(); ++k) {
            for (std::size_t j = 0; j < out[i].size(); ++j) out[i][j] += a[i][k] * b[k][j];
        }
    }
    return out;
}

// The layer in floating point from its inputs: weights and outputs per head, the output.
struct FloatLayer {
    std::vector<FMatrix> scores;   // per head, n_q × n_k (masked entries unused)
    std::vector<FMatrix> weights;  // per head (masked 0)
    std::vector<FMatrix> outputs;  // per head
    FMatrix output;
};

FloatLayer float_layer(const AttentionLayer& l, const Matrix& x_in, const Matrix* mem_in,
                       const std::vector<std::vector<bool>>& masked) {
    FMatrix x = to_fm(x_in);
    if (l.positional == Positional::Table) {
        const FMatrix p = to_fm(l.positions);
        for (std::size_t i = 0; i < x.size(); ++i) {
            for (std::size_t j = 0; j < x[i].size(); ++j) x[i][j] += p[i][j];
        }
    }
    const FMatrix mem = mem_in ? to_fm(*mem_in) : x;
    FloatLayer out;
    FMatrix concat(x.size());
    for (const auto& h : l.heads) {
        const FMatrix q = fmul(x, to_fm(h.wq));
        const FMatrix k = fmul(mem, to_fm(h.wk));
        const FMatrix v = fmul(mem, to_fm(h.wv));
        const std::size_t dk = q[0].size();
        F scale = 1;
        if (l.rule == ScoreRule::ScaledDot) scale = 1 / sqrt(F(static_cast<long>(dk)));
        if (l.rule == ScoreRule::Scaled) scale = to_f(l.scale);
        FMatrix s(x.size(), FVector(mem.size(), F(0)));
        FMatrix w = s;
        FMatrix o(x.size(), FVector(v[0].size(), F(0)));
        for (std::size_t i = 0; i < x.size(); ++i) {
            F total = 0;
            for (std::size_t j = 0; j < mem.size(); ++j) {
                if (masked[i][j]) continue;
                for (std::size_t c = 0; c < dk; ++c) s[i][j] += q[i][c] * k[j][c];
                s[i][j] *= scale;
                w[i][j] = exp(s[i][j]);
                total += w[i][j];
            }
            for (std::size_t j = 0; j < mem.size(); ++j) {
                w[i][j] /= total;
                for (std::size_t c = 0; c < o[i].size(); ++c) o[i][c] += w[i][j] * v[j][c];
            }
            concat[i].insert(concat[i].end(), o[i].begin(), o[i].end());
        }
        out.scores.push_back(s);
        out.weights.push_back(w);
        out.outputs.push_back(o);
    }
    out.output = l.wo ? fmul(concat, to_fm(*l.wo)) : concat;
    if (l.residual) {
        for (std::size_t i = 0; i < x.size(); ++i) {
            for (std::size_t j = 0; j < x[i].size(); ++j) out.output[i][j] += x[i][j];
        }
    }
    return out;
}

// |exact − float| ≤ 10^-45 · (1 + |float|): every quantity here is a few units in size.
int close(const Value& exact, const F& fl, const std::string& what) {
    static const F tol = pow(F(10), -45);
    const F diff = abs(to_f(exact) - fl);
    if (diff <= tol * (1 + abs(fl))) return 0;
    ADD_FAILURE() << what << ": exact " << to_ascii(exact) << ", floating " << fl.str(30);
    return 1;
}

Matrix random_matrix(std::mt19937_64& rng, std::size_t r, std::size_t c, const Value& unit, int lo, int hi) {
    Matrix m(r, Vector(c));
    for (auto& row : m) {
        for (auto& v : row) v = Value(pick(rng, lo, hi)) * unit;
    }
    return m;
}

}  // namespace

TEST(AttentionDifferential, RandomLayersAgreeWithMpfrSoftmax) {
    auto rng = exactattn::test::rng_for("AttentionDifferential.RandomLayersAgreeWithMpfrSoftmax");
    int layers = 0;
    int refused_rows = 0;
    for (int it = 0; it < 300 * exactattn::test::multiplier(); ++it) {
        const std::size_t n = static_cast<std::size_t>(pick(rng, 1, 5));
        const bool cross = pick(rng, 0, 3) == 0;
        const std::size_t nk = cross ? static_cast<std::size_t>(pick(rng, 1, 5)) : n;
        const std::size_t dm = static_cast<std::size_t>(pick(rng, 1, 4));
        const std::size_t heads = static_cast<std::size_t>(pick(rng, 1, 3));
        const std::size_t dk = pick(rng, 0, 1) == 0 ? 4 : static_cast<std::size_t>(pick(rng, 1, 3));
        const std::size_t dv = static_cast<std::size_t>(pick(rng, 1, 3));
        AttentionLayer l;
        // Scores are q·k·scale with q integers and k multiples of a/2 (or a/3 for a declared
        // scale), so they stay rational multiples of a and weights lie in Q(2^(1/m)).
        const int rule = pick(rng, 0, 2);
        l.rule = rule == 0 ? ScoreRule::Dot : rule == 1 && dk == 4 ? ScoreRule::ScaledDot : ScoreRule::Scaled;
        static const char* scales[] = {"1/2", "-1/3", "2", "1/4"};
        l.scale = parse_value(scales[pick(rng, 0, 3)]);
        const Value kunit = parse_value(pick(rng, 0, 1) == 0 ? "a/2" : "a/3");
        for (std::size_t h = 0; h < heads; ++h) {
            l.heads.push_back(
                AttentionHead{random_matrix(rng, dm, dk, Value(1), -2, 2), random_matrix(rng, dm, dk, kunit, -3, 3),
                              random_matrix(rng, dm, dv, parse_value(pick(rng, 0, 1) ? "1" : "1/3"), -4, 4)});
        }
        if (pick(rng, 0, 1) == 0) l.wo = random_matrix(rng, heads * dv, dm, Value(1), -2, 2);
        l.residual = l.wo.has_value() && pick(rng, 0, 1) == 0;
        l.causal = pick(rng, 0, 1) == 0;
        if (pick(rng, 0, 3) == 0) l.padding.push_back(static_cast<std::size_t>(pick(rng, 1, static_cast<int>(nk))));
        if (pick(rng, 0, 3) == 0) {
            l.mask.assign(n, std::vector<bool>(nk));
            for (auto& row : l.mask) {
                for (std::size_t j = 0; j < nk; ++j) row[j] = pick(rng, 0, 3) == 0;
            }
        }
        if (!cross && pick(rng, 0, 3) == 0) {
            l.positional = Positional::Table;
            l.positions = random_matrix(rng, n, dm, Value(1), -1, 1);
        }
        const Matrix x = random_matrix(rng, n, dm, Value(1), -2, 2);
        const Matrix mem = random_matrix(rng, nk, dm, Value(1), -2, 2);
        // The mask by its definition, to know when a row must be refused.
        std::vector<std::vector<bool>> masked(n, std::vector<bool>(nk));
        bool some_row_empty = false;
        for (std::size_t i = 0; i < n; ++i) {
            bool all = true;
            for (std::size_t j = 0; j < nk; ++j) {
                masked[i][j] = (l.causal && j > i) || (!l.mask.empty() && l.mask[i][j]) ||
                               std::find(l.padding.begin(), l.padding.end(), j + 1) != l.padding.end();
                all = all && masked[i][j];
            }
            some_row_empty = some_row_empty || all;
        }
        SCOPED_TRACE(testing::Message() << "iteration " << it << " n=" << n << " nk=" << nk << " d_model=" << dm
                                        << " heads=" << heads << " d_k=" << dk << " d_v=" << dv);
        if (some_row_empty) {
            EXPECT_ERROR_HAS(cross ? attend_layer(l, x, mem) : attend_layer(l, x), ErrorKind::Reference, "is masked");
            ++refused_rows;
            continue;
        }
        const LayerTrace t = cross ? attend_layer(l, x, mem) : attend_layer(l, x);
        EXPECT_EQ(t.masked, masked);
        const FloatLayer f = float_layer(l, x, cross ? &mem : nullptr, masked);
        int bad = 0;
        for (std::size_t h = 0; h < heads; ++h) {
            for (std::size_t i = 0; i < n; ++i) {
                const ReadTrace& r = t.heads[h].rows[i];
                for (std::size_t j = 0; j < nk; ++j) {
                    const std::string at = "head " + std::to_string(h + 1) + " (" + std::to_string(i + 1) + ", " +
                                           std::to_string(j + 1) + ")";
                    const auto s = r.scores.at(j);
                    if (masked[i][j] == s.has_value()) {
                        ADD_FAILURE() << at << ": masked on one side only";
                        ++bad;
                        continue;
                    }
                    if (s) bad += close(*s, f.scores[h][i][j], at + " score");
                    bad += close(r.weights.at(j).value_or(Value()), f.weights[h][i][j], at + " weight");
                }
                for (std::size_t c = 0; c < dv; ++c) {
                    bad += close(t.heads[h].rows[i].context[c], f.outputs[h][i][c], "head output");
                }
            }
        }
        const Matrix output = t.output();
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t c = 0; c < output[i].size(); ++c) bad += close(output[i][c], f.output[i][c], "output");
        }
        ASSERT_EQ(bad, 0);
        ++layers;
    }
    EXPECT_GT(layers, 150);
    EXPECT_GT(refused_rows, 0);
}
