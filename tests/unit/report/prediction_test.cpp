// SPDX-License-Identifier: MIT
// Predictions that refuse work up front are honest (docs/limits.md, "Predictions that refuse"):
// on a corpus of scenarios (data/, the test fixtures, small forms of the benchmarks' workloads
// and of the bomb suite's inputs, and seeded random scenarios), each prediction that may refuse
// is compared with what the report then actually holds or is charged, and must lie within a
// factor 4 of it, never more than 4× above nor more than 4× below. A prediction that cannot be
// that close refuses nothing: the report's work predicted from the declarations (its certain
// part, a character a value, is far below what the report is charged, its bound far above) is
// measured here, and the running budget stops the work instead.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "exactattn/attention.hpp"
#include "exactattn/document.hpp"
#include "exactattn/error.hpp"
#include "exactattn/figures.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "report/estimate.hpp"
#include "support/support.hpp"

namespace {

using exactattn::Format;

// The report's JSON as `run --format json` writes it.
nlohmann::json report_json(const exactattn::Report& rep) {
    std::ostringstream out;
    exactattn::json_report_writer(rep)(out);
    return nlohmann::json::parse(out.str());
}

// The exact values (and labels) a JSON document holds: its scalar leaves.
double json_values(const nlohmann::json& j) {
    if (j.is_object() || j.is_array()) {
        double n = 0;
        for (const auto& x : j) n += json_values(x);
        return n;
    }
    return j.is_null() ? 0 : 1;
}

// The values (and labels) of the tables of a document, read from its CSV files: a nonempty
// field is one value, a vector field `[x, y, z]` one per entry; header rows are not counted.
double csv_values(const exactattn::Document& doc) {
    double n = 0;
    for (const auto& file : exactattn::csv_files(doc)) {
        if (file.name == "index.csv") continue;
        std::vector<std::string> fields;
        std::string field;
        bool quoted = false;
        bool header = true;
        const auto end_field = [&] {
            if (!header && !field.empty()) {
                n += field.front() == '[' ? 1 + static_cast<double>(std::count(field.begin(), field.end(), ',')) : 1.0;
            }
            field.clear();
        };
        const std::string& t = file.text;
        for (std::size_t i = 0; i < t.size(); ++i) {
            const char c = t[i];
            if (quoted) {
                if (c == '"' && i + 1 < t.size() && t[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field += c;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                end_field();
            } else if (c == '\n') {
                end_field();
                header = false;
            } else if (c != '\r') {
                field += c;
            }
        }
        end_field();
    }
    return n;
}

// The smallest and largest ratio predicted/actual of one prediction over the corpus.
struct Ratios {
    double min = std::numeric_limits<double>::infinity();
    double max = 0;
    std::string min_at;
    std::string max_at;
    int count = 0;
    void add(double predicted, double actual, const std::string& at) {
        if (actual <= 0) return;
        const double r = predicted / actual;
        if (r < min) {
            min = r;
            min_at = at;
        }
        if (r > max) {
            max = r;
            max_at = at;
        }
        ++count;
    }
};

std::string scenario_of_rows(const std::vector<std::vector<std::string>>& rows, const std::string& rest) {
    std::string memory;
    for (std::size_t j = 0; j < rows.size(); ++j) {
        memory += j == 0 ? "[" : ",[";
        for (std::size_t i = 0; i < rows[j].size(); ++i) memory += fmt::format("{}\"{}\"", i ? "," : "", rows[j][i]);
        memory += "]";
    }
    return R"({"sources": {"w": {"memory": [)" + memory + "]}}, " + rest + "}";
}

// Small forms of the benchmarks' workloads and the bomb suite's inputs, and seeded random
// scenarios, as scenario files.
std::vector<std::string> generated_corpus(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    std::vector<std::pair<std::string, std::string>> files;
    // W10: a memory source of k·a rows (d = 4 here) read by an integer query.
    std::vector<std::vector<std::string>> w10;
    for (int j = 0; j < 40; ++j) {
        w10.emplace_back();
        for (int i = 0; i < 4; ++i) w10.back().push_back(fmt::format("{}a", (j * 7 + i * 3) % 17 - 8));
    }
    files.emplace_back("w10.json", scenario_of_rows(w10, R"("queries": {"q": [3, -4, 1, 2]},
      "reads": {"r": {"source": "w", "query": "q"}})"));
    // W3: scores spread to ±88000·a over 64 rows.
    std::vector<std::vector<std::string>> w3;
    for (int j = 0; j < 64; ++j) w3.push_back({fmt::format("{}a", (j * 2750) - 88000), "1"});
    files.emplace_back("w3.json", scenario_of_rows(w3, R"("queries": {"q": [1, 0]},
      "reads": {"r": {"source": "w", "query": "q"}})"));
    // W6: a causal layer, 2 heads, W_K in multiples of a, scale 1/√d_k = 1/2.
    files.emplace_back("w6.json",
                       R"({"sequences": {"s": {"rows": [[1,0,-1],[0,1,1],[1,1,0],[-1,0,1],[0,-1,1],[1,0,0]]}},
      "matrices": {"Q": [[1,-2],[0,1],[2,1]], "K": [["a","-a"],["0","a"],["a","a"]], "V": [[1,2],[-2,0],[1,1]]},
      "layers": {"l": {"sequence": "s", "causal": true, "heads": [{"wq": "Q", "wk": "K", "wv": "V"}, {"wq": "V", "wk": "K", "wv": "Q"}]}}})");
    // A 3 × 3 layer with d_k = 8: scale 1/√8, outside Q.
    files.emplace_back("layer_dk8.json", R"({"sequences": {"s": {"rows": [[1,0,2],[0,1,1],[2,1,0]]}},
      "matrices": {"Q": [[1,0,-1,2,0,1,1,-2],[0,1,1,0,-1,2,0,1],[2,-1,0,1,1,0,-2,0]],
                   "K": [["a","0","-a","a","0","a","-a","0"],["0","a","a","0","-a","0","a","a"],["a","a","0","-a","a","0","0","a"]],
                   "V": [[1,2,0,-1,1,0,2,1],[0,1,-1,2,0,1,1,0],[1,0,1,1,-2,1,0,1]]},
      "layers": {"l": {"sequence": "s", "heads": [{"wq": "Q", "wk": "K", "wv": "V"}]}}})");
    // The bomb suite's rollout (60 target tokens there, 6 here) and delete-token table.
    std::string vocab;
    std::string out;
    for (int k = 0; k < 6; ++k) {
        vocab += fmt::format("\"t{}\": [1], ", k);
        out += fmt::format("\"{}a/64\", ", k + 1);
    }
    files.emplace_back("rollout.json", R"({"sources": {"memory": {"memory": [["a"]]}},
      "decoder": {"activation": "identity", "recurrent": [[0]], "input": [[1]], "context": [[0]], "bias": [0],
                  "initial": [1], "output_reads": "state", "output": [[)" +
                                           out + R"("0"]],
                  "output_bias": ["0", "0", "0", "0", "0", "0", "0"], "vocabulary": {)" +
                                           vocab + R"("<s>": [1]},
                  "start": "<s>", "end": "t0", "ties": "first"},
      "rollouts": {"r": {"source": "memory", "steps": 5}}})");
    files.emplace_back("delete_token.json", R"({"vocabulary": {"x": ["a", "0"], "y": ["-a", "a"]},
      "encoder": {"activation": "relu", "recurrent": [[1, 0], [0, 1]], "input": [[1, 0], [0, 1]], "bias": [0, 0], "initial": [0, 0]},
      "sources": {"s": ["x", "y", "x", "y", "x", "y", "x", "y"]}, "queries": {"q": [1, 0]}, "readouts": {"r": [1, 2]},
      "interventions": {"t": {"kind": "delete-token", "source": "s", "query": "q", "readout": "r"},
                        "z": {"kind": "zero-score", "source": "s", "query": "q", "readout": "r"}}})");
    // Seeded random scenarios: a memory of n rows of width d (multiples of a, fractions,
    // 2^(1/4)), a read over it, and a layer (causal or not, 1 or 2 heads) over n rows.
    std::mt19937 rng(20261206);
    const auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const std::vector<std::string> units = {"a", "a/3", "a/4", "a/6"};
    for (int t = 0; t < 12; ++t) {
        const int n = pick(1, 24);
        const int d = pick(1, 4);
        std::vector<std::vector<std::string>> rows(static_cast<std::size_t>(n));
        std::string query;
        std::string seq;
        std::string wq;
        std::string wk;
        for (int j = 0; j < n; ++j) {
            seq += j ? ",[" : "[";
            for (int i = 0; i < d; ++i) {
                const std::string& u = units[static_cast<std::size_t>(pick(0, t % 4))];
                const int c = pick(-9, 9);
                rows[static_cast<std::size_t>(j)].push_back(fmt::format("{}*{}", c, u));
                seq += fmt::format("{}{}", i ? "," : "", pick(-3, 3));
            }
            seq += "]";
        }
        for (int i = 0; i < d; ++i) {
            query += fmt::format("{}{}", i ? "," : "", pick(-4, 4));
            wq += i ? ",[" : "[";
            wk += i ? ",[" : "[";
            for (int k = 0; k < 2; ++k) {
                wq += fmt::format("{}{}", k ? "," : "", pick(-2, 2));
                wk += fmt::format("{}\"{}a\"", k ? "," : "", pick(-2, 2));
            }
            wq += "]";
            wk += "]";
        }
        const int heads = pick(1, 2);
        std::string hs;
        for (int h = 0; h < heads; ++h)
            hs += fmt::format("{}{{\"wq\": \"Q\", \"wk\": \"K\", \"wv\": \"Q\"}}", h ? "," : "");
        files.emplace_back(fmt::format("random-{}.json", t),
                           scenario_of_rows(rows, fmt::format(R"("queries": {{"q": [{}]}},
      "reads": {{"r": {{"source": "w", "query": "q"}}}},
      "sequences": {{"s": {{"rows": [{}]}}}}, "matrices": {{"Q": [{}], "K": [{}]}},
      "layers": {{"l": {{"sequence": "s", "causal": {}, "heads": [{}]}}}})",
                                                              query, seq, wq, wk, pick(0, 1) ? "true" : "false", hs)));
    }
    std::vector<std::string> paths;
    for (const auto& [name, text] : files) {
        std::ofstream((dir / name).string()) << text;
        paths.push_back((dir / name).string());
    }
    return paths;
}

// Every scenario of the corpus that loads and whose report runs within the default limits.
std::vector<std::string> corpus(const std::filesystem::path& dir) {
    std::vector<std::string> files;
    for (const char* sub : {"data", "tests/render/fixtures", "tests/bad/scenario"}) {
        for (const auto& entry : std::filesystem::recursive_directory_iterator(exactattn::test::source_path(sub))) {
            if (entry.path().extension() == ".json") files.push_back(entry.path().string());
        }
    }
    for (const auto& f : generated_corpus(dir)) files.push_back(f);
    return files;
}

// One scenario's predictions and what its report then holds and is charged, as
// (prediction, predicted, actual) triples.
using Measures = std::vector<std::tuple<std::string, double, double>>;

Measures measure(exactattn::Scenario s) {
    Measures m;
    // A rollout is counted once its steps are known (rollout_cells), and held to
    // max_report_cells then: the count against what its tables and its JSON print.
    if (!s.rollouts.empty()) {
        const exactattn::Report tables = exactattn::run_scenario(s, exactattn::ReportUse::Tables);
        const nlohmann::json j = report_json(exactattn::run_scenario(s, exactattn::ReportUse::Values));
        for (const auto& r : tables.rollouts) {
            const exactattn::Memory& states = s.source(r.spec.source).states;
            const auto n = static_cast<std::int64_t>(states.rows());
            const auto d = static_cast<std::int64_t>(states.width());
            m.emplace_back("rollout cells, tables",
                           static_cast<double>(exactattn::detail::rollout_cells(r, n, d, true)),
                           csv_values(exactattn::rollout_document(tables, r)));
            m.emplace_back("rollout cells, json", static_cast<double>(exactattn::detail::rollout_cells(r, n, d, false)),
                           json_values(j["rollouts"][r.spec.name]));
        }
    }
    // The predictions made before anything runs, without the rollouts (counted above).
    s.rollouts.clear();
    s.figures.clear();
    double computing = 0;
    exactattn::Report tables;
    {
        const exactattn::WorkBudget job;
        tables = exactattn::run_scenario(s, exactattn::ReportUse::Tables);
        computing = job.spent();
    }
    const exactattn::Report values = exactattn::run_scenario(s, exactattn::ReportUse::Values);
    // max_report_cells, tables: the values of the report's tables.
    double predicted = 0;
    for (const auto& p : exactattn::detail::report_cells(s, true)) predicted += static_cast<double>(p.cells);
    m.emplace_back("report cells, tables", predicted, csv_values(exactattn::run_document(tables)));
    // max_report_cells, JSON: the values of the JSON report's computed parts (its title,
    // assumptions and the scenario's own names are not predicted).
    predicted = 0;
    for (const auto& p : exactattn::detail::report_cells(s, false)) predicted += static_cast<double>(p.cells);
    const nlohmann::json j = report_json(values);
    double actual = 0;
    for (const char* key : {"reads", "interventions", "layers"}) {
        if (j.contains(key)) actual += json_values(j[key]);
    }
    m.emplace_back("report cells, json", predicted, actual);
    // A layer's trace printed whole (attend): check_layer_trace_size's count.
    for (const auto& ls : s.layers) {
        const auto nq = s.sequence(ls.sequence).rows.size();
        const auto nk = ls.memory.empty() ? nq : s.sequence(ls.memory).rows.size();
        m.emplace_back("layer trace cells", static_cast<double>(exactattn::layer_trace_cells(ls.layer, nq, nk)),
                       json_values(j["layers"][ls.name]));
    }
    // The report's work, measured only: it refuses nothing.
    exactattn::detail::Estimate total;
    for (const auto& part : exactattn::detail::predict_report(s, true)) total.add(part.estimate);
    for (const Format format : {Format::Text, Format::Html}) {
        const exactattn::WorkBudget job;
        (void)exactattn::render(exactattn::run_document(tables), format);
        const double charged = computing + job.spent();
        const double certain = exactattn::detail::certain_work(total, format);
        EXPECT_LE(certain, charged) << s.file;
        m.emplace_back("work, certain (refuses nothing)", certain, charged);
        m.emplace_back("work, bound (refuses nothing)", total.work + exactattn::detail::printing_work(total, format),
                       charged);
    }
    return m;
}

}  // namespace

TEST(ReportPrediction, EveryRefusingPredictionIsWithinFourTimesOfTheActual) {
    // The corpus runs every report to its end (about a minute in the release build, past the
    // 5-minute test timeout under ASan at -O1): it measures work units, which the sanitizers
    // do not change, so it runs in the main suite only.
    if (exactattn::test::kUnderSanitizer)
        GTEST_SKIP() << "measured in the release build: the whole corpus exceeds the timeout under ASan";
    // A corpus input whose report takes more than 10^10 work units (a bomb run to its bound)
    // is left out.
    exactattn::Limits l = exactattn::limits();
    l.max_work = 10'000'000'000;
    std::vector<std::string> skipped;
    const exactattn::ScopedLimits small(l);
    const auto dir = std::filesystem::temp_directory_path() / "exactattn-prediction-corpus";
    std::map<std::string, Ratios> ratios;
    int scenarios = 0;
    for (const auto& file : corpus(dir)) {
        Measures m;
        try {
            m = measure(exactattn::load_scenario(file));
        } catch (const exactattn::Error&) {
            skipped.push_back(std::filesystem::path(file).filename().string());
            continue;  // a bad input of the corpus, refused at load or by a limit
        }
        ++scenarios;
        const auto name = std::filesystem::path(file).filename().string();
        for (const auto& [what, predicted, actual] : m) ratios[what].add(predicted, actual, name);
    }
    for (const auto& [what, r] : ratios) {
        std::cout << fmt::format("prediction/actual, {}: {:.3g} ({}) to {:.3g} ({}) over {} cases\n", what, r.min,
                                 r.min_at, r.max, r.max_at, r.count);
        if (what.find("refuses nothing") != std::string::npos) continue;
        EXPECT_GE(r.min, 0.25) << what << " at " << r.min_at;
        EXPECT_LE(r.max, 4.0) << what << " at " << r.max_at;
    }
    std::cout << fmt::format("left out (refused): {}\n", fmt::join(skipped, " "));
    EXPECT_GE(ratios["layer trace cells"].count, 15);
    EXPECT_GE(ratios["rollout cells, tables"].count, 3);
    EXPECT_GE(scenarios, 30);
    std::filesystem::remove_all(dir);
}
