// SPDX-License-Identifier: MIT
// Issue 36 (Scale III) items 1-2, issue 32 item 6: a report is refused before the work only on
// what it certainly costs. Every printed value is charged at least one character
// (kWorkPerPrintedCharacter), so the certain work of a report printed as tables is at most what
// printing it is then charged; the bound of the same prediction (its arithmetic and its
// characters from the inputs' sizes) is at least that, and several times more for honest
// reports, which is why it refuses nothing (docs/limits.md, "The report predicted from the
// declarations"). Checked on a corpus: the scenarios of data/ and of the render fixtures, and
// small forms of the benchmarks' and bomb suite's inputs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "exactattn/document.hpp"
#include "exactattn/figures.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "report/estimate.hpp"
#include "support/support.hpp"

namespace {

using exactattn::Format;

// What printing the scenario's report in `format` is charged, as `run` prints it.
double charged(const exactattn::Scenario& s, Format format) {
    const exactattn::WorkBudget job;
    if (format == Format::Json) {
        const auto rep = exactattn::run_scenario(s, exactattn::ReportUse::Values, format);
        std::ostringstream out;
        exactattn::json_report_writer(rep)(out);
    } else {
        const auto rep = exactattn::run_scenario(s, exactattn::ReportUse::Tables, format);
        (void)exactattn::render(exactattn::run_document(rep), format);
    }
    return job.spent();
}

// Small forms of the benchmarks' workloads and the bomb suite's inputs, as scenario files.
std::vector<std::string> generated_corpus(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    std::vector<std::pair<std::string, std::string>> files;
    // W10: a memory source of k·a rows (d = 4 here) read by an integer query.
    std::string rows;
    for (int j = 0; j < 40; ++j) {
        rows += j == 0 ? "[" : ",[";
        for (int i = 0; i < 4; ++i) rows += fmt::format("{}\"{}a\"", i ? "," : "", (j * 7 + i * 3) % 17 - 8);
        rows += "]";
    }
    files.emplace_back("w10.json",
                       R"({"sources": {"w": {"memory": [)" + rows +
                           R"(]}}, "queries": {"q": [3, -4, 1, 2]}, "reads": {"r": {"source": "w", "query": "q"}}})");
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
    std::vector<std::string> paths;
    for (const auto& [name, text] : files) {
        std::ofstream((dir / name).string()) << text;
        paths.push_back((dir / name).string());
    }
    return paths;
}

}  // namespace

TEST(ReportPrediction, RefusesOnlyWhatTheReportCertainlyCosts) {
    exactattn::Limits l = exactattn::limits();
    l.max_work = std::int64_t{1} << 60;  // measure, do not refuse
    const exactattn::ScopedLimits wide(l);
    std::vector<std::string> files;
    for (const char* dir : {"data", "tests/render/fixtures"}) {
        for (const auto& entry : std::filesystem::recursive_directory_iterator(exactattn::test::source_path(dir))) {
            if (entry.path().extension() == ".json") files.push_back(entry.path().string());
        }
    }
    const auto dir = std::filesystem::temp_directory_path() / "exactattn-prediction-corpus";
    for (const auto& f : generated_corpus(dir)) files.push_back(f);
    int checked = 0;
    for (const auto& file : files) {
        const exactattn::Scenario s = exactattn::load_scenario(file);
        for (const Format format : {Format::Text, Format::Html, Format::Csv, Format::Json}) {
            exactattn::detail::Estimate total;
            for (const auto& part : exactattn::detail::predict_report(s, format != Format::Json)) {
                total.add(part.estimate);
            }
            const double actual = charged(s, format);
            const double certain = exactattn::detail::certain_work(total, format);
            const double bound = total.work + exactattn::detail::printing_work(total, format);
            EXPECT_LE(certain, actual) << file << " format " << static_cast<int>(format);
            EXPECT_LE(certain, bound) << file;
            ++checked;
        }
    }
    EXPECT_GE(checked, 4 * 20);
    std::filesystem::remove_all(dir);
}
