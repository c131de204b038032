// SPDX-License-Identifier: MIT
// Golden tables typed from Chapter 14 (tests/golden/chapter14/*.{md,tex,html,csv}); each must
// appear verbatim in `exactattn run` in its format.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "exactattn/figures.hpp"
#include "exactattn/report.hpp"
#include "support/support.hpp"

namespace {

std::vector<std::string> golden_files() {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(exactattn::test::source_path("tests/golden/chapter14"))) {
        out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

class GoldenTable : public testing::TestWithParam<std::string> {};

TEST_P(GoldenTable, AppearsInTheReport) {
    const std::filesystem::path p(GetParam());
    const std::string ext = p.extension().string();
    const exactattn::Format f = ext == ".md"     ? exactattn::Format::Markdown
                                : ext == ".tex"  ? exactattn::Format::Latex
                                : ext == ".html" ? exactattn::Format::Html
                                                 : exactattn::Format::Csv;
    static const exactattn::Report rep = exactattn::run_scenario(exactattn::load_scenario("chapter14"));
    std::string golden = slurp(p.string());
    if (f == exactattn::Format::Csv) {  // RFC 4180 line ends; the file is stored with \n
        std::string crlf;
        for (char c : golden) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
        golden = crlf;
    }
    // Markdown goldens are typed as the chapter prints them (Unicode math); `*.math.md` ones with
    // `$…$` LaTeX math, the default.
    exactattn::RenderOptions options;
    options.markdown_math = p.filename().string().find(".math.") != std::string::npos;
    const std::string out = exactattn::render_report(rep, f, options);
    EXPECT_NE(out.find(golden), std::string::npos) << "golden table " << p.filename() << " not found in:\n" << out;
}

INSTANTIATE_TEST_SUITE_P(Chapter14, GoldenTable, testing::ValuesIn(golden_files()),
                         [](const testing::TestParamInfo<std::string>& info) {
                             std::string name = std::filesystem::path(info.param).filename().string();
                             for (auto& c : name) {
                                 if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
                             }
                             return name;
                         });

}  // namespace
