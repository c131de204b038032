// SPDX-License-Identifier: MIT
// A check, verify or manuscript target resolved against the report's own values
// (report_quantity, report/targets.hpp): the chapter's numbers by pointer, and on every pointer
// of every scenario of data/ (and a few that name nothing) the same values and the same refusal
// as the JSON report's resolver and flatten(), which it replaces for the values.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "report/report_json.hpp"
#include "report/targets.hpp"
#include "scenario/pointer.hpp"
#include "support/support.hpp"

namespace {

using namespace exactattn;
using detail::Flat;
using detail::Json;

std::vector<std::string> ascii(const Flat& f) {
    std::vector<std::string> out;
    for (const auto& v : f.values) out.push_back(v ? to_ascii(*v) : "null");
    return out;
}

// The quantity at `p`, or the refusal's kind and reason.
struct Outcome {
    std::vector<std::string> values;
    std::size_t columns = 0;
    bool scalar = false;
    std::string refusal;
};

template <class F>
Outcome outcome(F&& resolve) {
    Outcome o;
    try {
        const Flat f = resolve();
        o.values = ascii(f);
        o.columns = f.columns;
        o.scalar = f.scalar;
    } catch (const Error& e) {
        o.refusal = std::string(kind_name(e.kind())) + ": " + e.what();
    }
    return o;
}

// Every pointer of `j` below `at` (objects' keys escaped), containers before their entries.
void pointers_of(const Json& j, const std::string& at, std::vector<std::string>& out) {
    out.push_back(at);
    if (j.is_object()) {
        for (const auto& [k, v] : j.items()) pointers_of(v, detail::pointer_join(at, k), out);
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) pointers_of(j[i], detail::pointer_join(at, i), out);
    }
}

Location place() {
    Location where;
    where.file = "t.json";
    where.pointer = "/expect";
    return where;
}

Flat quantity(const Report& rep, const std::string& p) {
    return detail::report_quantity(rep, p, place(), detail::report_to_json(rep));
}

TEST(ReportQuantity, ExampleFourteenOneHasTheChaptersWeightsDenominatorAndContext) {
    const Report rep = run_scenario(load_scenario("chapter14"));
    const Flat w = quantity(rep, "/reads/example-14.1/weights");
    EXPECT_EQ(ascii(w), (std::vector<std::string>{"1/2", "1/4", "1/4"}));
    EXPECT_FALSE(w.scalar);
    EXPECT_EQ(w.columns, 0u);
    const Flat w1 = quantity(rep, "/reads/example-14.1/weights/1");
    EXPECT_EQ(ascii(w1), (std::vector<std::string>{"1/4"}));
    EXPECT_TRUE(w1.scalar);
    EXPECT_EQ(ascii(quantity(rep, "/reads/example-14.1/denominator")), (std::vector<std::string>{"4"}));
    EXPECT_EQ(ascii(quantity(rep, "/reads/example-14.1/context")), (std::vector<std::string>{"a/2", "a/4"}));
    EXPECT_EQ(ascii(quantity(rep, "/reads/example-14.1/context/0")), (std::vector<std::string>{"a/2"}));
}

TEST(ReportQuantity, ACostIsItsCountAndAMemoryIsAMatrixOfRows) {
    const Report rep = run_scenario(load_scenario("chapter14"));
    // Exercise 5: 100 states of width 2, four target steps, eight bytes a number.
    EXPECT_EQ(ascii(quantity(rep, "/costs/exercise-5/stored_numbers")), (std::vector<std::string>{"200"}));
    EXPECT_EQ(ascii(quantity(rep, "/costs/exercise-5/stored_bytes")), (std::vector<std::string>{"1600"}));
    EXPECT_EQ(ascii(quantity(rep, "/costs/exercise-5/dot_products")), (std::vector<std::string>{"400"}));
    const Flat states = quantity(rep, "/sources/red/states");
    EXPECT_EQ(states.columns, 2u);
    EXPECT_EQ(states.values.size(), 6u);  // three tokens, width two
    const Flat row = quantity(rep, "/sources/red/states/1");
    EXPECT_EQ(row.columns, 0u);
    EXPECT_EQ(row.values.size(), 2u);
}

TEST(ReportQuantity, APointerThatNamesNothingIsRefusedNamingWhatIsThere) {
    const Report rep = run_scenario(load_scenario("chapter14"));
    try {
        (void)quantity(rep, "/reads/example-14.1/colour");
        FAIL() << "resolved";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Reference);
        EXPECT_NE(std::string(e.what()).find("/reads/example-14.1/colour resolves to nothing in the run report: no "
                                             "\"colour\" at /reads/example-14.1"),
                  std::string::npos)
            << e.what();
    }
}

// Every pointer of every scenario of data/, and each with a step that names nothing added.
TEST(ReportQuantity, AgreesWithTheJsonReportOnEveryPointerOfTheDataScenarios) {
    std::size_t checked = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(test::source_path("data"))) {
        if (entry.path().extension() != ".json") continue;
        const Report rep = run_scenario(load_scenario(entry.path().string()));
        const Json doc = detail::report_to_json(rep);
        std::vector<std::string> pointers;
        pointers_of(doc, "", pointers);
        const std::size_t n = pointers.size();
        for (std::size_t i = 0; i < n; ++i) {
            for (const char* tail : {"/x", "/9", "/01", "~2"}) pointers.push_back(pointers[i] + tail);
        }
        for (const auto& p : pointers) {
            const Location where = place();
            const Outcome typed = outcome([&] { return detail::report_quantity(rep, p, where, doc); });
            const Outcome json =
                outcome([&] { return detail::flatten(detail::resolve_pointer(doc, p, where), where, p); });
            ASSERT_EQ(typed.refusal, json.refusal) << entry.path() << " " << p;
            ASSERT_EQ(typed.values, json.values) << entry.path() << " " << p;
            ASSERT_EQ(typed.columns, json.columns) << entry.path() << " " << p;
            ASSERT_EQ(typed.scalar, json.scalar) << entry.path() << " " << p;
            ++checked;
        }
    }
    EXPECT_GT(checked, 1000u);
}

}  // namespace
