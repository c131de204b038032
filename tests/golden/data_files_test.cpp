// SPDX-License-Identifier: MIT
// One test per scenario in data/: every `expect` entry holds exactly.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>

#include "exactattn/verify.hpp"
#include "support/support.hpp"

namespace {

std::vector<std::string> data_files() {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(exactattn::test::source_path("data"))) {
        const auto p = e.path();
        if (p.extension() == ".json" && p.filename().string().find(".schema.") == std::string::npos) {
            out.push_back(p.string());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

class DataFile : public testing::TestWithParam<std::string> {};

TEST_P(DataFile, EveryExpectationHolds) {
    const auto r = exactattn::verify_report(exactattn::run_scenario(exactattn::load_scenario(GetParam())));
    EXPECT_GT(r.passed, 0U) << "a scenario in data/ must state expectations";
    for (const auto& m : r.failures) {
        ADD_FAILURE() << m.pointer << ": expected " << m.expected << ", computed " << m.computed;
    }
}

// The scenario writer is the loader's inverse (docs/variants.md: every variant is a written
// scenario): load(write(s)) == s, and writing again gives the same bytes.
TEST_P(DataFile, WriterRoundTrips) {
    const exactattn::Scenario s = exactattn::load_scenario(GetParam());
    const std::string text = exactattn::write_scenario(s);
    const exactattn::Scenario back = exactattn::parse_scenario(text, s.file);
    EXPECT_TRUE(back == s);
    EXPECT_EQ(exactattn::write_scenario(back), text);
}

INSTANTIATE_TEST_SUITE_P(Data, DataFile, testing::ValuesIn(data_files()),
                         [](const testing::TestParamInfo<std::string>& info) {
                             std::string name = std::filesystem::path(info.param).stem().string();
                             for (auto& c : name) {
                                 if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
                             }
                             return name;
                         });

TEST(Verify, WrongClaimFailsWithAPreciseMessage) {
    // Table 14.2's key row claimed with readout a/2 instead of 2a/3.
    auto s = exactattn::load_scenario("chapter14");
    s.expect = {{"/interventions/table-14.2/rows/2/readout", "\"a/2\""},
                {"/reads/example-14.1/context", "[\"0.5a\", \"a/4\"]"}};
    const auto r = exactattn::verify_report(exactattn::run_scenario(s));
    EXPECT_EQ(r.passed, 1U);  // "0.5a" equals "a/2" by value
    ASSERT_EQ(r.failures.size(), 1U);
    EXPECT_EQ(r.failures[0].pointer, "/interventions/table-14.2/rows/2/readout");
    EXPECT_EQ(r.failures[0].expected, "\"a/2\"");
    EXPECT_EQ(r.failures[0].computed, "\"2a/3\"");
}

TEST(Verify, PointerToNothingIsInvalidInput) {
    auto s = exactattn::load_scenario("chapter14");
    s.expect = {{"/reads/example-14.9/context", "\"a\""}};
    EXPECT_ERROR(exactattn::verify_report(exactattn::run_scenario(s)), exactattn::ErrorKind::Reference,
                 "chapter14: /expect: /reads/example-14.9/context resolves to nothing in the run "
                 "report: no \"example-14.9\" at /reads (there: example-14.1, example-14.2, blue-q1, "
                 "exercise-1, exercise-2-zero-query)");
}

}  // namespace

namespace {

std::string slurp_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

TEST(Docs, ScenarioExampleVerifies) {
    // The complete example in docs/scenario.md is a working scenario whose expectations hold.
    const std::string md = slurp_file(exactattn::test::source_path("docs/scenario.md"));
    const auto start = md.find("```json\n");
    ASSERT_NE(start, std::string::npos);
    const auto end = md.find("```", start + 8);
    const auto s = exactattn::parse_scenario(md.substr(start + 8, end - start - 8), "docs/scenario.md");
    const auto r = exactattn::verify_report(exactattn::run_scenario(s));
    EXPECT_EQ(r.passed, 5U);
    EXPECT_TRUE(r.failures.empty());
}

TEST(Docs, SchemaIsJsonAndNamesEveryTopLevelKey) {
    const auto schema = nlohmann::json::parse(slurp_file(exactattn::test::source_path("docs/scenario.schema.json")));
    const auto& props = schema.at("properties");
    for (const char* key : {"title", "assumptions", "vocabulary", "encoder", "score", "sources", "queries", "readouts",
                            "reads", "interventions", "costs", "learner_answers", "exercises", "crosscheck", "expect",
                            "sequences", "matrices", "layers"}) {
        EXPECT_TRUE(props.contains(key)) << key;
    }
    EXPECT_EQ(schema.at("additionalProperties"), false);
}
