// SPDX-License-Identifier: MIT
// exactattn oracle: designed test vectors, the cases kernels rarely meet but must survive,
// written as .npy files with a JSON manifest of their certified answers and bounds. The same
// seed gives the same bytes: the library's SplitMix64, and draws from its integers only.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "bounds.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"
#include "exactattn/random.hpp"

namespace exactattn::oracle {

namespace {

// The library's SplitMix64 (docs/variants.md), and a float in [lo, hi) from 53 of its bits.
struct Rng {
    SplitMix64 g;
    std::uint64_t next() { return g.next(); }
    double uniform(double lo, double hi) { return lo + (hi - lo) * std::ldexp(static_cast<double>(next() >> 11), -53); }
};

Tensor random_matrix(Rng& g, std::int64_t r, std::int64_t c, FloatFormat f, double lo = -1, double hi = 1) {
    Tensor t{{r, c}, {}, f};
    for (std::int64_t x = 0; x < r * c; ++x) t.data.push_back(round_to(g.uniform(lo, hi), f));
    return t;
}

// Ties and near-ties: key 1 repeats key 0 (an exact tie), key 2 differs from it by one ulp in
// one coordinate (a tie below any kernel's error, flagged).
VectorCase ties(Rng& g, FloatFormat f) {
    VectorCase c{"ties", "an exact tie (keys 0 and 1) and a near-tie one ulp away (key 2) among 6 keys", {}};
    c.problem.q = random_matrix(g, 2, 4, f, 0.5, 1);
    c.problem.k = random_matrix(g, 6, 4, f);
    for (int x = 0; x < 4; ++x) c.problem.k.data[4 + x] = c.problem.k.data[8 + x] = round_to(0.75 + 0.0625 * x, f);
    for (int x = 0; x < 4; ++x) c.problem.k.data[x] = c.problem.k.data[4 + x];
    const double k0 = c.problem.k.data[8];
    c.problem.k.data[8] = k0 + ulp(k0, f);
    c.problem.v = random_matrix(g, 6, 3, f);
    return c;
}

// Scores at the format's exp overflow threshold ln(max): below, just above, far above.
VectorCase overflow(FloatFormat f) {
    const double t = std::log(max_finite(f));
    VectorCase c{"overflow-threshold",
                 fmt::format("largest scores {:.6g}, {:.6g} and 2·{:.4g} around ln(max {}) = {:.6g}: a softmax "
                             "without max subtraction overflows on rows 1 and 2",
                             round_to(t * 0.99, f), round_to(t * 1.01, f), t, info(f).name, t),
                 {}};
    c.problem.q = {{3, 1}, {round_to(t * 0.99, f), round_to(t * 1.01, f), round_to(2 * t, f)}, f};
    c.problem.k = {{2, 1}, {1, 0}, f};
    c.problem.v = {{2, 1}, {1, -1}, f};
    c.problem.scale = {ScaleKind::None, 1};
    return c;
}

VectorCase masked(Rng& g, FloatFormat f) {
    VectorCase c{"masked-rows", "row 0 has every key masked (semantics: zeros), row 1 a single key", {}};
    c.problem.q = random_matrix(g, 3, 2, f);
    c.problem.k = random_matrix(g, 3, 2, f);
    c.problem.v = random_matrix(g, 3, 2, f);
    c.problem.mask = {1, 1, 1, 0, 1, 1, 0, 0, 0};
    c.problem.masked_rows = MaskedRows::Zeros;
    return c;
}

VectorCase long_row(Rng& g, FloatFormat f, std::int64_t n) {
    VectorCase c{"long-row", fmt::format("{} keys, one dominant (score 16, the rest in [-1, 1])", n), {}};
    c.problem.q = {{1, 1}, {1}, f};
    c.problem.k = random_matrix(g, n, 1, f);
    c.problem.k.data[n / 3] = 16;
    c.problem.v = random_matrix(g, n, 2, f);
    c.problem.scale = {ScaleKind::None, 1};
    return c;
}

// An exp2 kernel's exact domain: integer scores, base 2, so every output is rational.
VectorCase exp2_exact(Rng& g, FloatFormat f) {
    VectorCase c{
        "exp2-exact", "integer scores in [-8, 8] under exp2: weights 2^t/Σ2^t and outputs are exact rationals", {}};
    c.problem.q = {{2, 1}, {1, -1}, f};
    c.problem.k = {{8, 1}, {}, f};
    for (int j = 0; j < 8; ++j) c.problem.k.data.push_back(static_cast<double>(static_cast<int>(g.next() % 17) - 8));
    c.problem.v = {{8, 2}, {}, f};
    for (int j = 0; j < 16; ++j) c.problem.v.data.push_back(static_cast<double>(static_cast<int>(g.next() % 9) - 4));
    c.problem.scale = {ScaleKind::None, 1};
    c.problem.base = ExpBase::Two;
    return c;
}

}  // namespace

std::vector<VectorCase> designed_cases(std::uint64_t seed, FloatFormat f, std::int64_t long_keys) {
    Rng g{SplitMix64(seed)};
    std::vector<VectorCase> cases;
    cases.push_back(ties(g, f));
    cases.push_back(overflow(f));
    cases.push_back(masked(g, f));
    cases.push_back(long_row(g, f, long_keys));
    cases.push_back(exp2_exact(g, f));
    return cases;
}

namespace {

// Per row, the keys whose score is within twice the score's error bound in `f` of the largest:
// a kernel may order them either way, so greedy decoding on them may flip.
nlohmann::json near_ties(const Reference& r, const Problem& p, FloatFormat f) {
    nlohmann::json out = nlohmann::json::array();
    const std::int64_t nk = p.k.rows(), d = p.q.cols();
    const double u = unit_roundoff(f);
    for (std::int64_t i = 0; i < p.q.rows(); ++i) {
        const double eps = (d * u / (1 - d * u) + 6 * u) * r.rows[i].abs_score_max;
        std::vector<mpq_class> s(static_cast<std::size_t>(nk));
        for (std::int64_t j = 0; j < nk; ++j)
            for (std::int64_t c = 0; c < d; ++c)
                s[j] += mpq_class(p.q.data[i * d + c]) * mpq_class(p.k.data[j * d + c]);
        const mpq_class top = *std::max_element(s.begin(), s.end());
        nlohmann::json keys = nlohmann::json::array(), margins = nlohmann::json::array();
        bool exact = false;
        for (std::int64_t j = 0; j < nk; ++j) {
            const double margin = mpq_class(top - s[j]).get_d();  // of q·k, before the scale
            if (margin >= 2 * eps) continue;
            for (std::int64_t x : keys) exact = exact || s[x] == s[j];
            keys.push_back(j);
            margins.push_back(margin);
        }
        if (keys.size() >= 2)
            out.push_back({{"row", i},
                           {"keys", keys},
                           {"margins_qk", margins},
                           {"exact_tie", exact},
                           {"score_error_bound", eps}});
    }
    return out;
}

nlohmann::json problem_json(const VectorCase& c) {
    const Problem& p = c.problem;
    return {{"scale", p.scale.kind == ScaleKind::None     ? nlohmann::json("none")
                      : p.scale.kind == ScaleKind::SqrtDk ? nlohmann::json("sqrt-dk")
                                                          : nlohmann::json(p.scale.value)},
            {"base", p.base == ExpBase::Two ? "2" : "e"},
            {"causal", p.causal},
            {"masked_rows", p.masked_rows == MaskedRows::Zeros ? "zeros"
                            : p.masked_rows == MaskedRows::NaN ? "nan"
                                                               : "error"}};
}

// The work units of one key of the long row, measured: 10^7 keys took 17.6 s.
constexpr double kWorkPerLongKey = 150000;

}  // namespace

std::vector<std::pair<std::string, std::string>> write_vectors(std::uint64_t seed, FloatFormat f,
                                                               std::int64_t long_keys) {
    // Predicted from the request before anything is generated (docs/limits.md, "The work budget"):
    // per key of the long row its draws, reference, exact near-tie test, bounds and files. The
    // references charge themselves as they go; the rest of the prediction is charged after them,
    // so that the job is charged the prediction once (it was charged the references on top, and
    // a request the prediction admitted was refused half way).
    const double units = (static_cast<double>(long_keys) + 1000) * kWorkPerLongKey;
    const std::string what = fmt::format("designed test vectors with a long row of {} keys", long_keys);
    if (!work_fits(units)) throw over_work(units, what);
    std::vector<double> referenced;  // the steps the references charged
    std::vector<std::pair<std::string, std::string>> files;
    nlohmann::ordered_json manifest;
    manifest["generator"] = "exactattn oracle vectors";
    manifest["seed"] = std::to_string(seed);
    manifest["dtype"] = info(f).name;
    manifest["cases"] = nlohmann::json::array();
    for (const VectorCase& c : designed_cases(seed, f, long_keys)) {
        const Reference r = [&] {
            const WorkRecorder recorder(referenced);
            return reference(c.problem, f, false);
        }();
        nlohmann::ordered_json m;
        m["name"] = c.name;
        m["description"] = c.description;
        m["problem"] = problem_json(c);
        auto add = [&](const std::string& key, const Tensor& t) {
            files.emplace_back(c.name + "-" + key + ".npy", write_npy(t));
            m["files"][key] = c.name + "-" + key + ".npy";
        };
        add("q", c.problem.q);
        add("k", c.problem.k);
        add("v", c.problem.v);
        if (!c.problem.mask.empty()) {
            Tensor mk{{c.problem.q.rows(), c.problem.k.rows()}, {}, FloatFormat::Float16};
            for (auto b : c.problem.mask) mk.data.push_back(b);
            add("mask", mk);
        }
        add("out", Tensor{{r.n_q, r.d_v}, r.out, f});
        m["out_kind"] = nlohmann::json::array();
        for (auto e : r.out_exact) m["out_kind"].push_back(e ? "exact" : "certified");
        if (!r.out_exact_text.empty()) m["out_exact"] = r.out_exact_text;
        for (Algorithm a : algorithms()) {
            const AlgorithmSpec s{a, f, f, 64};  // every operation in the format itself
            Tensor b{{r.n_q, r.d_v}, {}, FloatFormat::Float64};
            for (std::int64_t x = 0; x < r.n_q * r.d_v; ++x) b.data.push_back(output_bound(r, s, x / r.d_v, x % r.d_v));
            add(std::string("bound-") + algorithm_name(a), b);
        }
        m["bounds_accumulate"] = info(f).name;
        m["near_ties"] = near_ties(r, c.problem, f);
        manifest["cases"].push_back(m);
    }
    double by_references = 0;
    for (const double u : referenced) by_references += u;
    if (units > by_references && !charge_work(units - by_references)) throw over_work(units - by_references, what);
    files.emplace_back("manifest.json", manifest.dump(2) + "\n");
    return files;
}

}  // namespace exactattn::oracle
