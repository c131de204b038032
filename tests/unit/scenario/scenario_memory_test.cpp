// SPDX-License-Identifier: MIT
// Scenario memory sources read by the memory file reader (issue 17, W10) and the report's JSON
// written without its whole tree: both must give what the document-tree route gives, results
// and errors alike.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/verify.hpp"
#include "scenario/json.hpp"
#include "scenario/load.hpp"
#include "scenario/memory_file.hpp"
#include "report/report_json.hpp"
#include "cli/run_cli.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::vector<std::string> data_texts() {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(test::source_path("data"))) {
        if (e.path().extension() == ".json" && e.path().filename().string().find(".schema.") == std::string::npos) {
            out.push_back(slurp(e.path().string()));
        }
    }
    out.emplace_back(builtin_chapter14());
    return out;
}

// A scenario of n rows of width 4 (entry (j, i) = ((j + i) mod 7 − 3)·a) with one read; `row`
// replaces the text of row `bad` when given.
std::string large_scenario(std::size_t n, std::size_t bad = 0, const std::string& row = "") {
    std::string rows;
    for (std::size_t j = 0; j < n; ++j) {
        if (j > 0) rows += ",\n";
        if (!row.empty() && j == bad) {
            rows += row;
            continue;
        }
        rows += '[';
        for (std::size_t i = 0; i < 4; ++i) {
            const long k = static_cast<long>((j + i) % 7) - 3;
            rows += fmt::format("{}\"{}a\"", i > 0 ? "," : "", k);
        }
        rows += ']';
    }
    return fmt::format(R"({{"title": "large", "sources": {{"w": {{"memory": [{}]}}}},
 "reads": {{"r": {{"source": "w", "query": [1, 0, 0, 0]}}}}}})",
                       rows);
}

// The error text of parsing `text` with `parse` ("" when it parses).
template <class F>
std::string error_of(F&& parse, const std::string& text) {
    try {
        (void)parse(text, "m.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

std::string streamed_error(const std::string& text) { return error_of(parse_scenario, text); }
std::string tree_error_of(const std::string& text) { return error_of(detail::parse_scenario_reference, text); }

}  // namespace

TEST(ScenarioMemory, StreamedLoadEqualsTreeLoad) {
    std::vector<std::string> texts = data_texts();
    // Spellings the structural walk must follow as the tree does: escaped keys, blanks and new
    // lines around the array, two memory sources (one explicit: a surd), numbers, labels.
    texts.push_back(R"J({"sour\u0063es": {"w": {"note": "n", "m\u0065mory" :
        [ ["a", 0.5] , [1e2, "-a/3"] ]
        , "labels": ["x", "y"]}, "v": {"memory": [["2^(1/2)", "a"]]}},
        "reads": {"r": {"source": "w", "query": [1, 1]}, "s": {"source": "v", "query": [1, 0]}}})J");
    texts.push_back(large_scenario(2000));
    for (const auto& text : texts) {
        const Scenario streamed = parse_scenario(text, "m.json");
        const Scenario tree = detail::parse_scenario_reference(text, "m.json");
        EXPECT_TRUE(streamed == tree) << text.substr(0, 200);
        for (const auto& src : streamed.sources) {
            if (!src.tokens) {
                EXPECT_EQ(src.states.matrix(), tree.source(src.name).states.matrix());
            }
        }
    }
    // The memory reader's compact form is what the streamed route keeps (the tree's is explicit).
    EXPECT_TRUE(parse_scenario(large_scenario(10), "m.json").source("w").states.is_compact());
}

TEST(ScenarioMemory, ErrorsDeepInALargeMemoryKeepTheirPlace) {
    // Row 1234 (0-based, the pointer's index) has "2b" as entry 3: the place is the file and
    // the pointer into the memory, exactly as the tree loader gives it.
    const std::string bad_entry = large_scenario(1500, 1234, R"(["a", "0", "-a", "2b"])");
    const std::string e = streamed_error(bad_entry);
    EXPECT_EQ(e.rfind("m.json: /sources/w/memory/1234/3: ", 0), 0U) << e;
    EXPECT_EQ(e, tree_error_of(bad_entry));
    // A short row: the row's pointer and both widths.
    const std::string ragged = large_scenario(1500, 1234, R"(["a", "0"])");
    EXPECT_EQ(streamed_error(ragged), "m.json: /sources/w/memory/1234: row 1235 has 2 entries, row 1 has 4");
    EXPECT_EQ(streamed_error(ragged), tree_error_of(ragged));
    // A syntax error in the memory: line and column in the whole file. Row 1234 is on line 1235
    // (rows are one a line, the first on line 1); `["a" "0"` misses a comma, and the reader
    // stops after the unexpected "0", columns 6 to 8.
    const std::string syntax = large_scenario(1500, 1234, R"(["a" "0", "1", "2"])");
    const std::string se = streamed_error(syntax);
    EXPECT_EQ(se.rfind("m.json:1235:8: invalid JSON", 0), 0U) << se;
    EXPECT_EQ(se, tree_error_of(syntax));
    // Errors keep the reference's order: a section read before the sources fails first.
    std::string early = bad_entry;
    early.replace(early.find(R"("title": "large")"), 16, R"("score": "cosine")");
    EXPECT_EQ(streamed_error(early).rfind("m.json: /score: unknown score rule", 0), 0U) << streamed_error(early);
    EXPECT_EQ(streamed_error(early), tree_error_of(early));
    // A duplicate source (the later "w" is refused by the tree), and a memory that is not an array.
    const std::string twice = R"({"sources": {"w": {"memory": [["a"]]}, "w": {"memory": [["0"]]}}})";
    EXPECT_EQ(streamed_error(twice), "m.json: /sources/w: duplicate key \"w\" in the same object");
    const std::string scalar = R"({"sources": {"w": {"memory": "a"}}})";
    EXPECT_EQ(streamed_error(scalar), tree_error_of(scalar));
    EXPECT_NE(streamed_error(scalar), "");
}

// Every intervention kind over a token source of an encoder.
std::string intervention_scenario() {
    return R"({"vocabulary": {"x": ["a", "0"], "y": ["-a", "a"]},
        "encoder": {"activation": "relu", "recurrent": [[1, 0], [0, 1]], "input": [[1, 0], [0, 1]],
                    "bias": [0, 0], "initial": [0, 0]},
        "sources": {"s": ["x", "y", "x", "y"]}, "queries": {"q": [1, 0]}, "readouts": {"r": [1, 2]},
        "interventions": {"d": {"kind": "delete-token", "source": "s", "query": "q", "readout": "r"},
                          "z": {"kind": "zero-score", "source": "s", "query": "q", "readout": "r"},
                          "m": {"kind": "remove-state", "source": "s", "query": "q"}}})";
}

TEST(ReportJson, WrittenAsTheTreeDumps) {
    std::vector<std::string> texts = data_texts();
    // Removed and zeroed positions (null scores, "0" weights) and a readout.
    texts.push_back(R"({"sources": {"w": {"memory": [["a", "0"], ["0", "a"], ["-a", "2a"]]}},
        "reads": {"r": {"source": "w", "query": [1, 1], "readout": [1, 2], "remove": [2], "zero": [3]}}})");
    texts.push_back(large_scenario(300));
    // Intervention rows, whose arrays and states are written as a read's are.
    texts.push_back(intervention_scenario());
    for (const auto& text : texts) {
        const Report rep = run_scenario(parse_scenario(text, "m.json"), ReportUse::Values);
        std::ostringstream out;
        json_report_writer(rep)(out);
        EXPECT_EQ(out.str(), detail::report_to_json(rep).dump(2) + "\n") << text.substr(0, 200);
    }
}

TEST(ReportJson, PointersResolveAsInTheWholeTree) {
    const Report rep = run_scenario(parse_scenario(large_scenario(50), "m.json"), ReportUse::Values);
    const detail::Json tree = detail::report_to_json(rep);
    Location where;
    where.file = "m.json";
    for (const char* p : {"/reads/r/weights/7", "/reads/r/denominator", "/reads/r", "/sources/w/states/3/1",
                          "/reads/r/included", "/title"}) {
        detail::ReportJson lazy(rep);
        EXPECT_EQ(lazy.at(p, where), detail::resolve_pointer(tree, p, where)) << p;
    }
    const Report inter = run_scenario(parse_scenario(intervention_scenario(), "m.json"), ReportUse::Values);
    const detail::Json inter_tree = detail::report_to_json(inter);
    for (const char* p : {"/interventions/d/rows/2/states/1", "/interventions/d/rows/2/weights",
                          "/interventions/d/rows/0", "/interventions/z/rows/3/scores/2", "/interventions/m/rows/1"}) {
        detail::ReportJson lazy(inter);
        EXPECT_EQ(lazy.at(p, where), detail::resolve_pointer(inter_tree, p, where)) << p;
    }
    // A dangling pointer through a large array: the same message as the tree's.
    detail::ReportJson lazy(rep);
    std::string lazy_error;
    std::string tree_error;
    try {
        (void)lazy.at("/reads/r/weights/50", where);
    } catch (const Error& e) {
        lazy_error = e.what();
    }
    try {
        (void)detail::resolve_pointer(tree, "/reads/r/weights/50", where);
    } catch (const Error& e) {
        tree_error = e.what();
    }
    EXPECT_NE(lazy_error, "");
    EXPECT_EQ(lazy_error, tree_error);
}

TEST(ReportJson, AMarkerSpelledInTheScenarioFallsBackToTheTree) {
    // A title that spells the writer's marker for the first large array.
    const std::string text = R"({"title": "\u0001exactattn:large-array:0", "sources": {"w": {"memory": [["a"], ["0"]]}},
        "reads": {"r": {"source": "w", "query": [1]}}})";
    const Report rep = run_scenario(parse_scenario(text, "m.json"), ReportUse::Values);
    std::ostringstream out;
    json_report_writer(rep)(out);
    EXPECT_EQ(out.str(), detail::report_to_json(rep).dump(2) + "\n");
}

TEST(ReportTables, OverTheLimitIsRefusedUpFrontWithOneLineAndNoFile) {
    // 100 rows of width 4: the tables hold the source's states, n·d = 400 values, and the read's
    // table, n·(3 + d) + 2d + 1 = 700 + 9 = 709 (a row of memory, score, exponential and weight
    // per position; query, context and denominator): 1109 in all. The values alone (JSON,
    // verify) are the read's columns, 3n + 2d + 1 = 309.
    Limits l = limits();
    l.max_report_cells = 1000;
    const ScopedLimits scoped(l);
    const auto dir = std::filesystem::temp_directory_path() / "exactattn-scenario-memory-test";
    std::filesystem::create_directories(dir);
    const std::string file = (dir / "w.json").string();
    const std::string out = (dir / "w.txt").string();
    std::filesystem::remove(out);
    std::ofstream(file, std::ios::binary) << large_scenario(100);
    const auto r = test::run({"run", file, "--format", "markdown", "-o", out});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err,
              fmt::format("exactattn: {}: /reads/r: the report's tables would hold about 1109 exact values, over the "
                          "limit of 1000 (limits: max_report_cells); the table of read \"r\" alone has 100 rows, 709 "
                          "values; --format json writes the report as it is printed, and `exactattn read --memory "
                          "@FILE --fields ...` one read's chosen fields\n",
                          file));
    EXPECT_FALSE(std::filesystem::exists(out));
    // JSON is written as it is printed: the same run succeeds, and is the tree's text.
    const auto json = test::run({"run", file, "--format", "json"});
    EXPECT_EQ(json.code, 0) << json.err;
    EXPECT_EQ(
        json.out,
        detail::report_to_json(run_scenario(parse_scenario(slurp(file), file), ReportUse::Values)).dump(2) + "\n");
}
