// SPDX-License-Identifier: MIT
// The cross-check's a-priori error bounds (docs/crosscheck.md) on random scenarios of the kind
// tests/property/differential_test.cpp draws (fractional scores k·a/D, scores past the double
// range, removed and zeroed positions, readouts, the scaled score rule, encoder runs and
// delete-token rows): a correct double path never exceeds its bound; the bound is tight within
// a factor 100 (the worst measured/bound over the set); an error planted past the bound always
// fails.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "exactattn/crosscheck.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {

int pick(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// k·a/D with D ∈ {1, 2, 3, 6}; `big` reaches scores of about ±1600a, past the double range.
std::string memory_entry(std::mt19937_64& rng, bool big) {
    static const int dens[] = {1, 2, 3, 6};
    const int k = big ? pick(rng, -100, 100) : pick(rng, -12, 12);
    if (pick(rng, 0, 4) == 0 || k == 0) return "\"0\"";
    return fmt::format("\"{}a/{}\"", k, dens[pick(rng, 0, 3)]);
}

std::string query_entry(std::mt19937_64& rng) {
    if (pick(rng, 0, 4) == 0) return "0";
    const int den = pick(rng, 1, 2);  // drawn one at a time: the order is the same for every compiler
    const int num = pick(rng, -4, 4);
    return fmt::format("\"{}/{}\"", num, den);
}

std::string vec(std::size_t n, const std::function<std::string()>& entry) {
    std::string s = "[";
    for (std::size_t i = 0; i < n; ++i) s += (i > 0 ? ", " : "") + entry();
    return s + "]";
}

std::string positions(const std::vector<int>& p) {
    std::string s = "[";
    for (std::size_t i = 0; i < p.size(); ++i) s += (i > 0 ? ", " : "") + std::to_string(p[i]);
    return s + "]";
}

// A memory given directly, one read with random removals and zeroings, and remove-state and
// zero-score tables over every position.
std::string memory_scenario(std::mt19937_64& rng, bool big) {
    const auto n = static_cast<std::size_t>(pick(rng, 1, 9));
    const auto d = static_cast<std::size_t>(pick(rng, 1, 4));
    std::string mem = "[";
    for (std::size_t j = 0; j < n; ++j) mem += (j > 0 ? ", " : "") + vec(d, [&] { return memory_entry(rng, big); });
    mem += "]";
    std::vector<int> removed;
    std::vector<int> zeroed;
    for (int j = 1; j <= static_cast<int>(n); ++j) {
        const int k = pick(rng, 0, 5);
        if (k == 0 && removed.size() + 1 < n) removed.push_back(j);
        if (k == 1) zeroed.push_back(j);
    }
    // q·h/√d stays a rational multiple of a only when √d is rational.
    const bool scaled = (d == 1 || d == 4) && pick(rng, 0, 2) == 0;
    const std::string readout = pick(rng, 0, 1) == 0 ? ", \"readout\": \"r\"" : "";
    // Drawn one at a time (the readout before the query): the same cases for every compiler.
    const std::string readout_values = vec(d, [&] {
        const int den = pick(rng, 1, 3);
        const int num = pick(rng, -5, 5);
        return fmt::format("\"{}/{}\"", num, den);
    });
    const std::string query_values = vec(d, [&] { return query_entry(rng); });
    std::string s = fmt::format(
        R"({{"title": "random", "score": "{}", "sources": {{"m": {{"memory": {}}}}}, "queries": {{"q": {}}},
            "readouts": {{"r": {}}},
            "reads": {{"x": {{"source": "m", "query": "q"{}, "remove": {}, "zero": {}}}}},
            "interventions": {{"z": {{"kind": "zero-score", "source": "m", "query": "q", "readout": "r"}})",
        scaled ? "scaled-dot" : "dot", mem, query_values, readout_values, readout, positions(removed),
        positions(zeroed));
    if (n > 1) s += R"(, "rm": {"kind": "remove-state", "source": "m", "query": "q"})";
    return s + "}}";
}

// A small recurrent encoder with states that are multiples of a/6, and a delete-token table.
std::string encoder_scenario(std::mt19937_64& rng) {
    const auto d = static_cast<std::size_t>(pick(rng, 1, 3));
    const auto e = static_cast<std::size_t>(pick(rng, 1, 3));
    auto small_a = [&](int range) {
        const int k = pick(rng, -range, range);
        return k == 0 ? std::string("0") : fmt::format("\"{}a/{}\"", k, pick(rng, 0, 1) == 0 ? 6 : 2);
    };
    auto weight = [&] {
        static const int w[] = {-1, 0, 0, 0, 1, 1, 2};
        return std::to_string(w[pick(rng, 0, 6)]);
    };
    auto matrix = [&](std::size_t rows, std::size_t cols, const std::function<std::string()>& entry) {
        std::string s = "[";
        for (std::size_t i = 0; i < rows; ++i) s += (i > 0 ? ", " : "") + vec(cols, entry);
        return s + "]";
    };
    const int vocab = pick(rng, 1, 3);
    std::string voc = "{";
    for (int t = 0; t < vocab; ++t)
        voc += fmt::format("{}\"t{}\": {}", t > 0 ? ", " : "", t, vec(e, [&] { return small_a(6); }));
    voc += "}";
    const int len = pick(rng, 2, 5);
    std::string toks = "[";
    for (int t = 0; t < len; ++t) toks += fmt::format("{}\"t{}\"", t > 0 ? ", " : "", pick(rng, 0, vocab - 1));
    toks += "]";
    return fmt::format(
        R"({{"title": "random encoder", "vocabulary": {},
            "encoder": {{"activation": "{}", "recurrent": {}, "input": {}, "bias": {}, "initial": {}}},
            "sources": {{"s": {}}}, "queries": {{"q": {}}}, "readouts": {{"r": {}}},
            "reads": {{"x": {{"source": "s", "query": "q", "readout": "r"}}}},
            "interventions": {{"del": {{"kind": "delete-token", "source": "s", "query": "q", "readout": "r"}}}}}})",
        voc, pick(rng, 0, 1) == 0 ? "relu" : "identity", matrix(d, d, weight), matrix(e, d, weight),
        vec(d, [&] { return pick(rng, 0, 2) == 0 ? small_a(3) : std::string("0"); }),
        vec(d, [&] { return pick(rng, 0, 2) == 0 ? small_a(3) : std::string("0"); }), toks,
        vec(d, [&] { return query_entry(rng); }), vec(d, [&] { return std::to_string(pick(rng, -3, 3)); }));
}

// The kind of quantity a pointer names: "scores", "weights", "context", "readout" or "states".
std::string kind_of(const std::string& quantity) {
    for (const char* k : {"/scores/", "/weights/", "/context/", "/states/"}) {
        if (quantity.find(k) != std::string::npos) return std::string(k).substr(1, std::string(k).size() - 2);
    }
    return "readout";
}

struct Scenarios {
    std::vector<std::string> texts;
};

/// The first `n` of the same random scenarios (200 by default).
Scenarios random_scenarios(int n = 200 * test::multiplier()) {
    auto rng = test::rng_for("CrosscheckBound");
    Scenarios s;
    for (int it = 0; it < n; ++it) {
        s.texts.push_back(it % 4 == 3 ? encoder_scenario(rng) : memory_scenario(rng, it % 10 == 0));
    }
    return s;
}

std::optional<Report> run_text(const std::string& text) {
    try {
        return run_scenario(parse_scenario(text, "random"));
    } catch (const Error&) {
        // A random encoder can leave the exact domain or a limit (e.g. a scaled score that is
        // not a rational multiple of a); such a scenario is not a cross-check case.
        return std::nullopt;
    }
}

}  // namespace

TEST(CrosscheckBound, CorrectDoublePathNeverExceedsItsBoundAndTheBoundIsTight) {
    const Scenarios set = random_scenarios();
    std::map<std::string, double> worst;  // kind → largest measured/bound
    std::size_t scenarios = 0;
    std::size_t rows = 0;
    for (std::size_t i = 0; i < set.texts.size(); ++i) {
        SCOPED_TRACE(testing::Message() << "seed " << test::seed() << " scenario " << i << ": " << set.texts[i]);
        const auto report = run_text(set.texts[i]);
        if (!report) continue;
        ++scenarios;
        const CrosscheckResult r = crosscheck(*report);
        for (const auto& row : r.rows) {
            ++rows;
            EXPECT_LE(row.abs_error, row.bound)
                << row.quantity << " exact " << row.exact << " computed " << row.computed;
            if (std::isfinite(row.bound) && row.bound > 0) {
                double& w = worst[kind_of(row.quantity)];
                w = std::max(w, row.abs_error / row.bound);
            }
        }
        EXPECT_TRUE(r.passed());
    }
    EXPECT_GT(scenarios, set.texts.size() * 9 / 10);
    EXPECT_GT(rows, 10000U);
    // Tight within a factor 100, for each kind of computed quantity separately.
    for (const char* k : {"scores", "weights", "context", "readout", "states"}) {
        EXPECT_GE(worst[k], 0.01) << k;
        EXPECT_LE(worst[k], 1.0) << k;
    }
    for (const auto& [k, w] : worst) RecordProperty("worst_" + k, std::to_string(w));
}

TEST(CrosscheckBound, AnErrorPlantedPastTheBoundAlwaysFails) {
    // A quarter of them under the sanitizers (34 s for all 200 there).
    const Scenarios set = test::kUnderSanitizer ? random_scenarios(50 * test::multiplier()) : random_scenarios();
    auto rng = test::rng_for("CrosscheckBound.Planted");
    std::size_t planted = 0;
    for (std::size_t i = 0; i < set.texts.size(); ++i) {
        SCOPED_TRACE(testing::Message() << "seed " << test::seed() << " scenario " << i << ": " << set.texts[i]);
        const auto report = run_text(set.texts[i]);
        if (!report) continue;
        const CrosscheckResult clean = crosscheck(*report);
        const CrossRow& target =
            clean.rows[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(clean.rows.size()) - 1))];
        if (!std::isfinite(target.bound)) continue;
        // |c + δ − x| ≥ δ − |c − x| ≥ δ − bound > bound when δ > 2·bound; 2 ulp more so that the
        // perturbed double differs from the computed one.
        const double delta = 2 * target.bound + 2 * std::nextafter(std::fabs(target.computed), INFINITY) -
                             2 * std::fabs(target.computed) + 0x1p-1070;
        CrosscheckOptions planted_error;
        planted_error.perturb = [&](const std::string& q, double c) { return q == target.quantity ? c + delta : c; };
        const CrosscheckResult r = crosscheck(*report, planted_error);
        EXPECT_EQ(r.failed, 1U) << target.quantity;
        for (const auto& row : r.rows) EXPECT_EQ(row.passed, row.quantity != target.quantity) << row.quantity;
        ++planted;
    }
    EXPECT_GT(planted, set.texts.size() * 8 / 10);
}
