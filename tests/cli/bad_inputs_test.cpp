// SPDX-License-Identifier: MIT
// The bad-input corpus (tests/bad/cases.json): every case fails cleanly with its error kind.
// Exit code 2, nothing on stdout (no partial report), exactly one stderr line that starts with
// "exactattn: " and contains the expected text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "app.hpp"
#include "support/support.hpp"

namespace {

struct BadCase {
    std::string name;
    std::vector<std::string> argv;
    std::string kind;
    std::string message;
};

std::string corpus_dir() { return exactattn::test::source_path("tests/bad"); }

// "{dir}" is the corpus directory; "\xHH" is the raw byte HH.
std::string expand(const std::string& arg) {
    std::string out;
    for (std::size_t i = 0; i < arg.size(); ++i) {
        if (arg.compare(i, 5, "{dir}") == 0) {
            out += corpus_dir();
            i += 4;
        } else if (arg.compare(i, 2, "\\x") == 0 && i + 3 < arg.size()) {
            out += static_cast<char>(std::stoi(arg.substr(i + 2, 2), nullptr, 16));
            i += 3;
        } else {
            out += arg[i];
        }
    }
    return out;
}

std::vector<BadCase> load_cases() {
    std::ifstream in(corpus_dir() + "/cases.json");
    const auto doc = nlohmann::json::parse(in);
    std::vector<BadCase> out;
    for (const auto& c : doc.at("cases")) {
        BadCase b;
        b.name = c.at("name").get<std::string>();
        for (const auto& a : c.at("argv")) b.argv.push_back(expand(a.get<std::string>()));
        b.kind = c.at("kind").get<std::string>();
        b.message = c.at("message").get<std::string>();
        out.push_back(std::move(b));
    }
    return out;
}

const std::vector<BadCase>& cases() {
    static const std::vector<BadCase> all = load_cases();
    return all;
}

// "json-trailing-comma" → "JsonTrailingComma" (gtest names without underscores).
std::string test_name(const std::string& name) {
    std::string out;
    bool upper = true;
    for (char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
            upper = true;
            continue;
        }
        out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
    }
    return out;
}

class BadInput : public testing::TestWithParam<std::size_t> {};

TEST_P(BadInput, FailsCleanlyWithItsErrorKind) {
    const BadCase& c = cases()[GetParam()];
    std::ostringstream out;
    std::ostringstream err;
    std::optional<exactattn::ErrorKind> kind;
    const int code = exactattn::cli::run(c.argv, out, err, &kind);
    const std::string e = err.str();
    EXPECT_EQ(code, 2) << e;
    EXPECT_EQ(out.str(), "") << "no partial report on stdout";
    ASSERT_FALSE(e.empty());
    EXPECT_EQ(e.find('\n'), e.size() - 1) << "exactly one line: " << e;
    EXPECT_EQ(e.rfind("exactattn: ", 0), 0U) << e;
    EXPECT_NE(e.find(c.message), std::string::npos) << "expected to contain: " << c.message << "\n  got: " << e;
    ASSERT_TRUE(kind.has_value());
    EXPECT_EQ(exactattn::kind_name(*kind), c.kind) << e;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInput, testing::Range<std::size_t>(0, cases().size()),
                         [](const testing::TestParamInfo<std::size_t>& info) {
                             return test_name(cases()[info.param].name);
                         });

TEST(BadInputCorpus, IsLargeUniqueAndCoversEveryInvalidInputKind) {
    EXPECT_GE(cases().size(), 60U);
    std::set<std::string> names;
    std::set<std::string> kinds;
    for (const auto& c : cases()) {
        EXPECT_TRUE(names.insert(test_name(c.name)).second) << "duplicate name " << c.name;
        kinds.insert(c.kind);
    }
    for (const char* k : {"ParseError", "DomainError", "LimitError", "ShapeError", "ReferenceError", "UsageError"}) {
        EXPECT_EQ(kinds.count(k), 1U) << k;
    }
}

TEST(BadInputCorpus, EveryFileIsUsedAndExists) {
    // Each bad file differs from good.json in one place, and is named by a case.
    std::set<std::string> used;
    for (const auto& c : cases()) {
        for (const auto& a : c.argv) {
            const auto at = a.find(corpus_dir() + "/");
            if (at != std::string::npos) used.insert(a.substr(at + corpus_dir().size() + 1));
        }
    }
    for (const auto& e : std::filesystem::recursive_directory_iterator(corpus_dir())) {
        if (!e.is_regular_file()) continue;
        const std::string rel = std::filesystem::relative(e.path(), corpus_dir()).string();
        if (rel == "cases.json" || rel == "good.json" || rel == "memory/good.json") continue;
        EXPECT_EQ(used.count(rel), 1U) << rel << " is not used by any case";
    }
    for (const auto& u : used) {
        EXPECT_TRUE(std::filesystem::exists(corpus_dir() + "/" + u)) << u;
    }
}

TEST(BadInputCorpus, TheGoodFilesTheyAreMadeFromAreGood) {
    std::ostringstream out;
    std::ostringstream err;
    const std::vector<std::string> verify = {"verify", corpus_dir() + "/good.json"};
    EXPECT_EQ(exactattn::cli::run(verify, out, err), 0) << err.str();
    // good.json: memory [[a,0],[0,a]], query [1,0]: scores a, 0; exponentials 2, 1; weights 2/3, 1/3.
    EXPECT_EQ(out.str(), "verify: 1 passed, 0 failed\n");
    const std::vector<std::string> read = {
        "read", "--memory", "@" + corpus_dir() + "/memory/good.json", "--query", "[1,0]", "--format", "json"};
    std::ostringstream out2;
    EXPECT_EQ(exactattn::cli::run(read, out2, err), 0) << err.str();
    EXPECT_NE(out2.str().find(R"("weights":["2/3","1/3"])"), std::string::npos) << out2.str();
}

}  // namespace
