// SPDX-License-Identifier: MIT
// Randomized differential test (fixed seeds): exact reads, encoder runs and interventions
// against an independent 60-digit floating evaluation of the same inputs in MPFR
// (Boost.Multiprecision), which computes the softmax directly: exp(e_j) / Σ exp(e_k).
//
// The exact side goes through the library's own entry points (attend on both of its paths,
// encode, and run_scenario for intervention tables); the floating side only sees the inputs.
// Every score, exponential, denominator, weight, context coordinate and readout must agree to
// 10^-45 relative to its scale (60 digits leave 10^-58 of rounding even after a few thousand
// operations), and the exact values are evaluated for the comparison by summing their
// coefficients in MPFR, never through the library's certified rounding.
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "exactattn/encoder.hpp"
#include "exactattn/print.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "support/mpfr_eval.hpp"
#include "support/support.hpp"

using namespace exactattn;
using exactattn::test::F;
using exactattn::test::FVector;
using exactattn::test::ln2;
using exactattn::test::to_f;

namespace {

// The read of docs/model.md in floating point, from the inputs only.
struct FloatRead {
    std::vector<std::optional<F>> scores;
    std::vector<std::optional<F>> exps;
    std::vector<F> weights;
    F denominator = 0;
    FVector context;
    std::optional<F> readout;
    FVector magnitude;  // Σ_j w_j |h_ji|: the scale of context_i's rounding
};

FloatRead float_read(const std::vector<FVector>& h, const FVector& q, const std::vector<Mark>& marks,
                     const std::optional<FVector>& r) {
    FloatRead out;
    const std::size_t n = h.size();
    const std::size_t d = q.size();
    out.scores.resize(n);
    out.exps.resize(n);
    out.weights.assign(n, F(0));
    for (std::size_t j = 0; j < n; ++j) {
        if (marks[j] == Mark::Removed) continue;
        F s = 0;
        if (marks[j] == Mark::Included) {
            for (std::size_t i = 0; i < d; ++i) s += q[i] * h[j][i];
        }
        out.scores[j] = s;
        out.exps[j] = exp(s);
        out.denominator += *out.exps[j];
    }
    out.context.assign(d, F(0));
    out.magnitude.assign(d, F(0));
    for (std::size_t j = 0; j < n; ++j) {
        if (!out.exps[j]) continue;
        out.weights[j] = *out.exps[j] / out.denominator;
        for (std::size_t i = 0; i < d; ++i) {
            out.context[i] += out.weights[j] * h[j][i];
            out.magnitude[i] += out.weights[j] * abs(h[j][i]);
        }
    }
    if (r) {
        F total = 0;
        F mag = 0;
        for (std::size_t i = 0; i < d; ++i) {
            total += (*r)[i] * out.context[i];
            mag += abs((*r)[i]) * out.magnitude[i];
        }
        out.readout = total;
        out.magnitude.push_back(mag);
    }
    return out;
}

const F& tolerance() {
    static const F t = pow(F(10), -45);
    return t;
}

// |exact − float| ≤ 10^-45 · scale. Returns false (and reports) on a disagreement.
bool close(const Value& exact, const F& fl, const F& scale, const std::string& what) {
    const F diff = abs(to_f(exact) - fl);
    if (diff <= tolerance() * scale) return true;
    ADD_FAILURE() << what << ": exact " << to_ascii(exact) << " = " << to_f(exact).str(30) << ", floating "
                  << fl.str(30) << ", difference " << diff.str(5);
    return false;
}

// Compares a whole trace with the floating read of the same inputs.
int compare(const ReadTrace& t, const FloatRead& f, const std::string& what) {
    int bad = 0;
    const std::size_t n = t.marks.size();
    for (std::size_t j = 0; j < n; ++j) {
        const std::string at = what + " position " + std::to_string(j + 1);
        const auto s = t.scores.at(j);
        const auto e = t.exponentials.at(j);
        if (s.has_value() != f.scores[j].has_value() || e.has_value() != f.exps[j].has_value()) {
            ADD_FAILURE() << at << ": removed on one side only";
            ++bad;
            continue;
        }
        if (s) bad += close(*s, *f.scores[j], 1 + abs(*f.scores[j]), at + " score") ? 0 : 1;
        if (e) bad += close(*e, *f.exps[j], *f.exps[j], at + " exponential") ? 0 : 1;
        const Value w = t.weights.at(j).value_or(Value());
        bad += close(w, f.weights[j], f.weights[j] + pow(F(2), -4000), at + " weight") ? 0 : 1;
    }
    bad += close(t.denominator, f.denominator, f.denominator, what + " denominator") ? 0 : 1;
    for (std::size_t i = 0; i < t.context.size(); ++i) {
        bad += close(t.context[i], f.context[i], f.magnitude[i] + pow(F(2), -4000),
                     what + " context " + std::to_string(i + 1))
                   ? 0
                   : 1;
    }
    if (t.readout.has_value() != f.readout.has_value()) {
        ADD_FAILURE() << what << ": readout on one side only";
        return bad + 1;
    }
    if (t.readout) {
        bad += close(*t.readout, *f.readout, f.magnitude.back() + pow(F(2), -4000), what + " readout") ? 0 : 1;
    }
    return bad;
}

int pick(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// k·a/D with D ∈ {1, 2, 3, 6}: scores then have denominators dividing 12, so exponentials and
// weights lie in Q(2^(1/m)) for m | 12. `big` widens k so that scores reach about ±1600a,
// past the double range.
Value memory_entry(std::mt19937_64& rng, bool big) {
    static const long dens[] = {1, 2, 3, 6};
    if (pick(rng, 0, 4) == 0) return Value();
    const long k = big ? pick(rng, -100, 100) : pick(rng, -12, 12);
    return Value(mpq_class(k, dens[pick(rng, 0, 3)])) * Value::ln2();
}

Value query_entry(std::mt19937_64& rng) {
    if (pick(rng, 0, 4) == 0) return Value();
    const int den = pick(rng, 1, 2);  // drawn one at a time: the order is the same for every compiler
    const int num = pick(rng, -4, 4);
    return Value(mpq_class(num, den));
}

std::vector<Mark> random_marks(std::mt19937_64& rng, std::size_t n) {
    std::vector<Mark> marks(n, Mark::Included);
    for (auto& m : marks) {
        const int k = pick(rng, 0, 5);
        if (k == 0) m = Mark::Removed;
        if (k == 1) m = Mark::Zeroed;
    }
    if (std::all_of(marks.begin(), marks.end(), [](Mark m) { return m == Mark::Removed; })) {
        marks[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(n) - 1))] = Mark::Included;
    }
    return marks;
}

std::string describe(const Matrix& h, const Vector& q) {
    std::string s = "memory [";
    for (std::size_t j = 0; j < h.size(); ++j) s += (j > 0 ? ", " : "") + to_string(h[j]);
    return s + "], query " + to_string(q);
}

int iterations(int base) { return base * test::multiplier(); }

}  // namespace

TEST(Differential, ReadsAgreeWithFloatingSoftmax) {
    auto rng = test::rng_for("Differential.Reads");
    int compared = 0;
    int bad = 0;
    for (int it = 0; it < iterations(1500); ++it) {
        const bool big = it % 10 == 0;
        const std::size_t n = static_cast<std::size_t>(pick(rng, 1, 9));
        const std::size_t d = static_cast<std::size_t>(pick(rng, 1, 4));
        Matrix h(n, Vector(d));
        for (auto& row : h) {
            for (auto& v : row) v = memory_entry(rng, big);
        }
        ReadRequest req;
        for (std::size_t i = 0; i < d; ++i) req.query.push_back(query_entry(rng));
        req.marks = random_marks(rng, n);
        if (pick(rng, 0, 1) == 0) {
            req.readout = Vector(d);
            for (auto& c : *req.readout) {
                const int den = pick(rng, 1, 3);
                const int num = pick(rng, -5, 5);
                c = Value(mpq_class(num, den));
            }
        }
        SCOPED_TRACE(testing::Message() << "seed " << test::seed() << " iteration " << it << ": "
                                        << describe(h, req.query));
        std::vector<FVector> hf;
        for (const auto& row : h) hf.push_back(to_f(row));
        const FloatRead f = float_read(hf, to_f(req.query), req.marks,
                                       req.readout ? std::optional<FVector>(to_f(*req.readout)) : std::nullopt);
        const Memory m(h);
        // attend takes the shifted-integer fast path for these memories; attend_general is the
        // plain value arithmetic. Both must match the floating read.
        bad += compare(attend(m, req), f, "attend");
        bad += compare(attend_general(m, req), f, "attend_general");
        compared += 2;
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(compared, 2 * iterations(1500));
}

namespace {

// A random encoder whose states stay rational multiples of a: integer weights, and bias,
// initial state and embeddings that are multiples of a/6 (or a/2).
struct RandomEncoderScenario {
    Scenario scenario;
    std::vector<std::string> tokens;
};

RandomEncoderScenario random_encoder_scenario_once(std::mt19937_64& rng);

// States stay within ±40a, so that scores stay within a few hundred a: the reads above cover
// large exponents, and the cost of a read grows with the size of its numbers.
RandomEncoderScenario random_encoder_scenario(std::mt19937_64& rng) {
    while (true) {
        RandomEncoderScenario r = random_encoder_scenario_once(rng);
        const Memory& m = r.scenario.sources[0].states;
        bool small = true;
        for (std::size_t j = 0; j < m.rows(); ++j) {
            for (std::size_t i = 0; i < m.width(); ++i) {
                mpq_class c;
                small = small && m.at(j, i).as_rational_multiple_of_a(c) && abs(c) <= 40;
            }
        }
        if (small) return r;
    }
}

RandomEncoderScenario random_encoder_scenario_once(std::mt19937_64& rng) {
    const std::size_t d = static_cast<std::size_t>(pick(rng, 1, 3));
    const std::size_t e = static_cast<std::size_t>(pick(rng, 1, 3));
    auto small_a = [&](int range) {
        const int den = pick(rng, 0, 1) == 0 ? 6 : 2;
        const int num = pick(rng, -range, range);
        return Value(mpq_class(num, den)) * Value::ln2();
    };
    RandomEncoderScenario r;
    Scenario& s = r.scenario;
    s.file = "differential";
    Encoder enc;
    enc.activation = pick(rng, 0, 1) == 0 ? Activation::Relu : Activation::Identity;
    // Mostly sparse weights, so that states grow slowly over six steps.
    auto weight = [&] {
        static const long w[] = {-1, 0, 0, 0, 1, 1, 2};
        return Value(w[pick(rng, 0, 6)]);
    };
    enc.recurrent.assign(d, Vector(d));
    for (auto& row : enc.recurrent) {
        for (auto& v : row) v = weight();
    }
    enc.input.assign(e, Vector(d));
    for (auto& row : enc.input) {
        for (auto& v : row) v = weight();
    }
    for (std::size_t i = 0; i < d; ++i) {
        enc.bias.push_back(pick(rng, 0, 2) == 0 ? small_a(3) : Value());
        enc.initial.push_back(pick(rng, 0, 2) == 0 ? small_a(3) : Value());
    }
    s.encoder = enc;
    const int vocab = pick(rng, 1, 4);
    for (int t = 0; t < vocab; ++t) {
        Vector emb(e);
        for (auto& v : emb) v = small_a(6);
        s.vocabulary.emplace_back("t" + std::to_string(t), emb);
    }
    const int len = pick(rng, 1, 6);
    for (int t = 0; t < len; ++t) r.tokens.push_back("t" + std::to_string(pick(rng, 0, vocab - 1)));
    Source src;
    src.name = "src";
    src.tokens = r.tokens;
    src.states = Memory(s.encode_tokens(r.tokens));
    s.sources.push_back(src);
    NamedVector q{"q", {}};
    for (std::size_t i = 0; i < d; ++i) q.values.push_back(query_entry(rng));
    s.queries.push_back(q);
    NamedVector ro{"r", {}};
    for (std::size_t i = 0; i < d; ++i) ro.values.push_back(Value(static_cast<long>(pick(rng, -3, 3))));
    s.readouts.push_back(ro);
    for (const InterventionKind k :
         {InterventionKind::RemoveState, InterventionKind::ZeroScore, InterventionKind::DeleteToken}) {
        if (len == 1 && k != InterventionKind::ZeroScore) continue;  // no position would be left
        InterventionSpec is;
        is.name = intervention_name(k);
        is.kind = k;
        is.source = "src";
        is.query = q;
        is.readout = ro;
        for (int j = 1; j <= len; ++j) is.positions.push_back(static_cast<std::size_t>(j));
        s.interventions.push_back(is);
    }
    return r;
}

// h_t = φ(h_{t-1} W_h + x_t W_x + b) in floating point.
std::vector<FVector> float_encode(const Scenario& s, const std::vector<std::string>& tokens) {
    const Encoder& enc = *s.encoder;
    const std::size_t d = enc.width();
    FVector h = to_f(enc.initial);
    std::vector<FVector> states;
    for (const auto& tok : tokens) {
        const FVector x = to_f(s.embedding(tok));
        FVector pre = to_f(enc.bias);
        for (std::size_t j = 0; j < d; ++j) {
            for (std::size_t i = 0; i < d; ++i) pre[j] += h[i] * to_f(enc.recurrent[i][j]);
            for (std::size_t i = 0; i < x.size(); ++i) pre[j] += x[i] * to_f(enc.input[i][j]);
            if (enc.activation == Activation::Relu && pre[j] < 0) pre[j] = 0;
        }
        h = pre;
        states.push_back(pre);
    }
    return states;
}

}  // namespace

TEST(Differential, EncoderRunsAndInterventionsAgreeWithFloatingEvaluation) {
    auto rng = test::rng_for("Differential.Interventions");
    int compared = 0;
    int bad = 0;
    for (int it = 0; it < iterations(250); ++it) {
        const RandomEncoderScenario r = random_encoder_scenario(rng);
        const Scenario& s = r.scenario;
        std::string toks;
        for (const auto& t : r.tokens) toks += t + " ";
        SCOPED_TRACE(testing::Message() << "seed " << test::seed() << " iteration " << it << ": tokens " << toks);
        // The encoder's states.
        const std::vector<FVector> hf = float_encode(s, r.tokens);
        const Memory& states = s.sources[0].states;
        for (std::size_t j = 0; j < states.rows(); ++j) {
            for (std::size_t i = 0; i < states.width(); ++i) {
                bad += close(states.at(j, i), hf[j][i], 1 + abs(hf[j][i]), "state") ? 0 : 1;
            }
        }
        // Every intervention row, through the scenario API.
        const Report rep = run_scenario(s);
        const FVector q = to_f(s.queries[0].values);
        const FVector ro = to_f(s.readouts[0].values);
        for (const auto& ir : rep.interventions) {
            for (const auto& row : ir.rows) {
                std::vector<FVector> h = hf;
                std::vector<Mark> marks(h.size(), Mark::Included);
                if (row.position > 0) {
                    const std::size_t p = row.position - 1;
                    switch (ir.spec.kind) {
                        case InterventionKind::RemoveState:
                            marks[p] = Mark::Removed;
                            break;
                        case InterventionKind::ZeroScore:
                            marks[p] = Mark::Zeroed;
                            break;
                        case InterventionKind::DeleteToken: {
                            std::vector<std::string> rest = r.tokens;
                            rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(p));
                            h = float_encode(s, rest);
                            marks.assign(h.size(), Mark::Included);
                            break;
                        }
                    }
                }
                const std::string what =
                    std::string(intervention_name(ir.spec.kind)) + " row " + std::to_string(row.position);
                bad += compare(row.trace, float_read(h, q, marks, ro), what);
                ++compared;
            }
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_GT(compared, 2000);
}
