// SPDX-License-Identifier: MIT
// Work-budget refusals carry a place like every other error (docs/errors.md): wherever the
// budget runs out in `check`, `variants`, `crosscheck` and `manuscript check|audit`, the one
// stderr line is `exactattn: FILE: place: reason`, naming the file the refused work came from
// (issue 32: audit, variants and crosscheck printed `exactattn: printing a value of 15
// characters would take …` with no file).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/run_cli.hpp"
#include "exactattn/limits.hpp"

namespace {

namespace fs = std::filesystem;
using exactattn::test::run;

const std::string kSource = EXACTATTN_SOURCE_DIR;

// The work `args` is charged when it runs to the end (the command's job nests in this one).
double work_of(const std::vector<std::string>& args) {
    const exactattn::WorkBudget outer;
    const auto r = run(args);
    EXPECT_LE(r.code, 1) << r.err;
    return outer.spent();
}

// Runs `args` under budgets from 5% to 99% of the work it needs: each run is refused (exit 2)
// with a line that starts with one of `places` (a file, followed by its line or a pointer) and
// names the budget.
void expect_every_refusal_placed(const std::vector<std::string>& args, const std::vector<std::string>& places) {
    const double work = work_of(args);
    ASSERT_GT(work, 1000);
    for (const double f : {0.05, 0.3, 0.6, 0.9, 0.99}) {
        std::vector<std::string> a = args;
        a.insert(a.end(), {"--max-work", std::to_string(static_cast<std::int64_t>(f * work))});
        const auto r = run(a);
        SCOPED_TRACE(testing::Message() << "at " << f << " of " << work << " work units");
        EXPECT_EQ(r.code, 2) << r.out;
        EXPECT_NE(r.err.find("(limits: max_work; --max-work raises it)"), std::string::npos) << r.err;
        bool placed = false;
        for (const auto& p : places) placed = placed || r.err.rfind("exactattn: " + p + ":", 0) == 0;
        EXPECT_TRUE(placed) << r.err;
    }
}

class BudgetPlaces : public testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("exactattn-budget-places-" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

TEST_F(BudgetPlaces, CheckOfOneAnswerNamesTheScenario) {
    expect_every_refusal_placed(
        {"check", "chapter14", "--target", "/reads/example-14.1/weights", "--proposed", "[1/2,1/4,1/3]"},
        {"chapter14"});
}

TEST_F(BudgetPlaces, CheckOfAClassNamesTheScenarioOrTheAnswersLine) {
    const std::string csv = (dir_ / "class.csv").string();
    std::ofstream(csv) << "student,target,answer\n"
                          "s1,/reads/example-14.1/weights,\"[1/2,1/4,1/4]\"\n"
                          "s2,/reads/example-14.1/weights,\"[1/3,1/3,1/3]\"\n"
                          "s3,/reads/example-14.1/denominator,2\n";
    expect_every_refusal_placed({"check", "chapter14", "--answers", csv},
                                {"chapter14", csv + ":2", csv + ":3", csv + ":4"});
}

TEST_F(BudgetPlaces, VariantsNameTheScenarioAndWriteNothing) {
    const fs::path out = dir_ / "variants";
    const std::vector<std::string> args = {"variants", "chapter14", "--exercise", "exercise-1",
                                           "--count",  "2",         "-o",         out.string()};
    expect_every_refusal_placed(args, {"chapter14"});
    fs::remove_all(out);
    std::vector<std::string> refused = args;
    refused.insert(refused.end(), {"--max-work", "10000000"});
    EXPECT_EQ(run(refused).code, 2);
    EXPECT_FALSE(fs::exists(out));  // refused before any file is written
}

TEST_F(BudgetPlaces, CrosscheckNamesTheFileAndTheQuantity) {
    expect_every_refusal_placed({"crosscheck", "chapter14"}, {"chapter14"});
    // Refused while a declaration's double path is computed or a quantity compared, the line
    // names the declaration or the quantity (`chapter14: /reads/…`); while values are printed
    // (by the run, or into the report's table: then with its column and row), the file.
    const double work = work_of({"crosscheck", "chapter14"});
    for (const double f : {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}) {
        const auto r =
            run({"crosscheck", "chapter14", "--max-work", std::to_string(static_cast<std::int64_t>(work * f))});
        const bool pointer = r.err.rfind("exactattn: chapter14: /", 0) == 0;
        const bool printing = r.err.rfind("exactattn: chapter14: printing a value", 0) == 0 ||
                              r.err.rfind("exactattn: chapter14: writing a", 0) == 0;
        EXPECT_TRUE(pointer || printing) << f << ": " << r.err;
    }
}

TEST_F(BudgetPlaces, CrosscheckOfSeveralFilesNamesOneOfThem) {
    const std::string a = kSource + "/data/chapter14/chapter14.json";
    const std::string b = kSource + "/data/chapter14/decoder-rollout.json";
    expect_every_refusal_placed({"crosscheck", a, b, "-j", "1"}, {a, b, "the report"});
}

TEST_F(BudgetPlaces, ManuscriptCheckAndAuditNameTheManuscript) {
    const std::string md = kSource + "/data/chapter14/chapter14.md";
    expect_every_refusal_placed({"manuscript", "check", md}, {md});
    expect_every_refusal_placed({"manuscript", "audit", md}, {md});
}

}  // namespace
