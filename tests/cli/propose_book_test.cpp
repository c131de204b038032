// SPDX-License-Identifier: MIT
// `manuscript propose` on a LaTeX book named by its main file follows the chapters it \include's
// and \input's, as check and audit do: the diff and the listing cover every chapter, each bound
// with the scenario it inherits from the main file; one output cannot hold several manuscripts,
// so text output of a book is refused at --diff (exit 2). audit, too, binds each chapter with
// the scenario it inherits.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_cli.hpp"

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

TEST(ManuscriptPropose, LatexBookIsProposedChapterByChapter) {
    const fs::path dir = fs::temp_directory_path() / "exactattn-propose-book";
    fs::remove_all(dir);
    fs::create_directories(dir / "chapters");
    // a manuscript names a scenario within its folder (docs/manuscript.md): a copy beside it
    fs::copy_file(EXACTATTN_SOURCE_DIR "/data/chapter14/chapter14.json", dir / "chapter14.json");
    std::ofstream(dir / "main.tex") << "\\documentclass{book}\n% exactattn-scenario: chapter14.json"
                                       "\n\\begin{document}\n"
                                       "\\include{chapters/one}\n\\input{chapters/two}\n\\end{document}\n";
    // By hand (Chapter 14, Table 14.1): Example 14.1's weights are [1/2, 1/4, 1/4] and their
    // denominator 2 + 1 + 1 = 4; 5 is wrong.
    std::ofstream(dir / "chapters" / "one.tex") << "\\chapter{One}\nThe weights of Example 14.1 are [1/2, 1/4, 1/4].\n";
    std::ofstream(dir / "chapters" / "two.tex") << "\\chapter{Two}\nIn Example 14.1 the denominator is 5.\n";
    const std::string main = (dir / "main.tex").string();
    const std::string listing = (dir / "listing.txt").string();
    const auto r = exactattn::test::run({"manuscript", "propose", main, "--diff", "--listing", listing});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string one = (dir / "chapters" / "one.tex").string();
    const std::string two = (dir / "chapters" / "two.tex").string();
    EXPECT_EQ(r.out, "--- " + one + "\n+++ " + one + "\n@@ -2,1 +2,1 @@\n" +
                         "-The weights of Example 14.1 are [1/2, 1/4, 1/4].\n" +
                         "+The weights of Example 14.1 are \\exact{/reads/example-14.1/weights}{[1/2, 1/4, 1/4]}.\n" +
                         "--- " + two + "\n+++ " + two + "\n@@ -2,1 +2,1 @@\n" +
                         "-In Example 14.1 the denominator is 5.\n" +
                         "+In Example 14.1 the denominator is \\exact{/reads/example-14.1/denominator}{5}.\n");
    const std::string l = read_text(listing);
    EXPECT_NE(l.find(one + ":2:33: marked [1/2, 1/4, 1/4] as /reads/example-14.1/weights"), std::string::npos) << l;
    EXPECT_NE(l.find(two + ":2:36: marked 5 as /reads/example-14.1/denominator"), std::string::npos) << l;
    EXPECT_NE(l.find("; WRONG: the quantity is 4"), std::string::npos) << l;
    // audit binds the chapters by the scenario they inherit too (before, "names no scenario").
    const auto a = exactattn::test::run({"manuscript", "audit", main});
    EXPECT_EQ(a.code, 1) << a.err;
    EXPECT_NE(a.out.find(two + ":2:36: written 5; denominator"), std::string::npos) << a.out;
    // The whole text of a book has no one place to go.
    const auto t = exactattn::test::run({"manuscript", "propose", main});
    EXPECT_EQ(t.code, 2);
    EXPECT_NE(t.err.find("--diff: " + main + " is a book of 3 files"), std::string::npos) << t.err;
    fs::remove_all(dir);
}

}  // namespace
