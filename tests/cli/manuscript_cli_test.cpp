// SPDX-License-Identifier: MIT
// exactattn manuscript check|fill|audit on the command line: exit codes 0/1/2, the summary
// lines, JUnit, -j over a directory, fill's atomic -o and --in-place, and check never writing
// to the manuscript. Expected values are the chapter's (Example 14.1's weights [1/2, 1/4, 1/4]).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "app.hpp"
#include "support/support.hpp"

namespace {

namespace fs = std::filesystem;

struct Result {
    int code;
    std::string out;
    std::string err;
};

Result run(const std::vector<std::string>& args) {
    std::ostringstream out;
    std::ostringstream err;
    const int code = exactattn::cli::run(args, out, err);
    return {code, out.str(), err.str()};
}

std::string slurp(const fs::path& p) { return exactattn::test::slurp(p.string()); }

void write(const fs::path& p, const std::string& text) { exactattn::test::write_file(p.string(), text); }

// A fresh directory with a right and a wrong manuscript (one level down) and a README that
// names no scenario (not a manuscript of the book).
fs::path book(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("exactattn-manuscript-" + name);
    fs::remove_all(dir);
    const std::string head = "---\nexactattn-scenario: chapter14\n---\n";
    write(dir / "a.md", head + "Weights [[1/2, 1/4, 1/4]]{.exact ref=\"/reads/example-14.1/weights\"}.\n");
    write(dir / "part" / "b.md", head + "\nDenominator [5]{.exact ref=\"/reads/example-14.1/denominator\"}.\n");
    write(dir / "README.md", "Not a manuscript: 1 + 1 = 3.\n");
    return dir;
}

TEST(ManuscriptCli, RightManuscriptExitsZero) {
    const auto r = run({"manuscript", "check", exactattn::test::source_path("data/chapter14/chapter14.md")});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("manuscript: 148 claims checked in 1 file, 0 wrong\n"), std::string::npos) << r.out;
}

TEST(ManuscriptCli, DirectoryWithAWrongClaimExitsOneAndSummarises) {
    const fs::path dir = book("dir");
    const auto r = run({"manuscript", "check", dir.string(), "-j", "2", "--junit", (dir / "j.xml").string()});
    EXPECT_EQ(r.code, 1) << r.err;
    const std::string b = (dir / "part" / "b.md").string();
    EXPECT_EQ(r.out, (dir / "a.md").string() + ": 1 claim, 0 wrong\n" + b +
                         ":5:13: /reads/example-14.1/denominator: written 5, exact 4 (5 ≠ 4)\n" + b +
                         ": 1 claim, 1 wrong\nmanuscript: 2 claims checked in 2 files, 1 wrong in 1 file\n");
    EXPECT_EQ(run({"manuscript", "check", dir.string(), "-j", "1"}).out, r.out);  // -j does not change it
    const std::string junit = slurp(dir / "j.xml");
    EXPECT_NE(junit.find("tests=\"2\" failures=\"1\""), std::string::npos) << junit;
    EXPECT_NE(junit.find("name=\"5:13 /reads/example-14.1/denominator\""), std::string::npos) << junit;
    // verify over the same directory checks the manuscripts too (it holds no scenario file
    // of its own, so it is given the chapter's beside it).
    fs::copy_file(exactattn::test::source_path("data/chapter14/chapter14.json"), dir / "chapter14.json");
    const auto v = run({"verify", dir.string()});
    EXPECT_EQ(v.code, 1);
    EXPECT_NE(v.out.find("manuscript: 2 claims checked in 2 files, 1 wrong in 1 file\nverify: 66 passed, 0 failed\n"),
              std::string::npos)
        << v.out;
}

TEST(ManuscriptCli, WrongMarkInATableCellWithOtherTextExitsOneAtItsPlace) {
    // The key's weight of Example 14.1 is 1/4: written 1/3 in a cell among other words.
    const fs::path dir = fs::temp_directory_path() / "exactattn-manuscript-cell";
    fs::remove_all(dir);
    const std::string table =
        "---\nexactattn-scenario: chapter14\n---\n\n| quantity | value |\n| --- | --- |\n"
        "| key | [1/3]{.exact ref=\"/reads/example-14.1/weights/1\"} of the total |\n";
    write(dir / "t.md", table);
    const std::string file = (dir / "t.md").string();
    const auto wrong = run({"manuscript", "check", file});
    EXPECT_EQ(wrong.code, 1) << wrong.err;
    EXPECT_EQ(wrong.out, file + ":7:9: /reads/example-14.1/weights/1: written 1/3, exact 1/4 (1/3 ≠ 1/4)\n" + file +
                             ": 1 claim, 1 wrong\nmanuscript: 1 claim checked in 1 file, 1 wrong in 1 file\n");
    std::string right = table;
    right.replace(right.find("[1/3]"), 5, "[1/4]");
    write(dir / "t.md", right);
    const auto passed = run({"manuscript", "check", file});
    EXPECT_EQ(passed.code, 0) << passed.err;
    EXPECT_EQ(passed.out, file + ": 1 claim, 0 wrong\nmanuscript: 1 claim checked in 1 file, 0 wrong\n");
}

TEST(ManuscriptCli, BadInputIsOneLineAndExitTwo) {
    const fs::path dir = book("bad");
    write(dir / "bad.md", "---\nexactattn-scenario: chapter14\n---\n[1]{.exact ref=\"/reads/nope\"}\n");
    const auto r = run({"manuscript", "check", (dir / "bad.md").string()});
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(r.out.empty());
    const std::string head = "exactattn: " + (dir / "bad.md").string() +
                             ":4:1: /reads/nope: no such quantity in chapter14; nearest: /reads/";
    EXPECT_EQ(r.err.substr(0, head.size()), head);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
    const auto missing = run({"manuscript", "check", (dir / "none.md").string()});
    EXPECT_EQ(missing.code, 2);
    EXPECT_EQ(missing.err, "exactattn: " + (dir / "none.md").string() + ": no such file or directory\n");
}

TEST(ManuscriptCli, FillWritesANewFileAtomicallyAndNeverTheSource) {
    const fs::path dir = book("fill");
    const std::string source = "---\nexactattn-scenario: chapter14\n---\nw {{/reads/example-14.1/weights}}\n";
    write(dir / "f.md", source);
    const auto r = run({"manuscript", "fill", (dir / "f.md").string(), "-o", (dir / "out.md").string()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(slurp(dir / "out.md"), "---\nexactattn-scenario: chapter14\n---\nw [1/2, 1/4, 1/4]\n");
    EXPECT_EQ(slurp(dir / "f.md"), source);
    // A failing fill leaves the old output as it was, and no temporary file beside it.
    write(dir / "g.md", "---\nexactattn-scenario: chapter14\n---\n{{/reads/nope}}\n");
    const auto bad = run({"manuscript", "fill", (dir / "g.md").string(), "-o", (dir / "out.md").string()});
    EXPECT_EQ(bad.code, 2);
    EXPECT_EQ(slurp(dir / "out.md"), "---\nexactattn-scenario: chapter14\n---\nw [1/2, 1/4, 1/4]\n");
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
    EXPECT_EQ(files, 5U);  // a.md, README.md, f.md, out.md, g.md
    // --in-place is the one way to rewrite the manuscript.
    EXPECT_EQ(run({"manuscript", "fill", (dir / "f.md").string(), "--in-place"}).code, 0);
    EXPECT_EQ(slurp(dir / "f.md"), "---\nexactattn-scenario: chapter14\n---\nw [1/2, 1/4, 1/4]\n");
}

TEST(ManuscriptCli, CheckAndAuditNeverWriteTheManuscript) {
    const fs::path dir = book("readonly");
    const std::string before = slurp(dir / "part" / "b.md");
    const auto t = fs::last_write_time(dir / "part" / "b.md");
    (void)run({"manuscript", "check", dir.string()});
    (void)run({"manuscript", "audit", dir.string()});
    EXPECT_EQ(slurp(dir / "part" / "b.md"), before);
    EXPECT_EQ(fs::last_write_time(dir / "part" / "b.md"), t);
}

TEST(ManuscriptCli, AuditStrictFailsBelowTheThreshold) {
    const fs::path dir = book("audit");
    write(dir / "c.md",
          "---\nexactattn-scenario: chapter14\n---\nThe context is [a/2, a/4] and "
          "[1/2]{.exact ref=\"/reads/example-14.1/weights/0\"}.\n");
    const std::string c = (dir / "c.md").string();
    const auto r = run({"manuscript", "audit", c, "--strict"});
    EXPECT_EQ(r.code, 1);  // 1 of 2 claims marked: 50% < 95%
    EXPECT_NE(r.out.find("manuscript audit: coverage 50.0% (1 of 2 numeric claims marked), 0 wrong in 1 file\n"),
              std::string::npos)
        << r.out;
    // --all prints every number read, with its verdict (this one names no example: unbound).
    EXPECT_NE(run({"manuscript", "audit", c, "--all"}).out.find(c + ":4:16: [a/2, a/4] unbound: "), std::string::npos);
    EXPECT_EQ(run({"manuscript", "audit", c, "--strict", "--min-coverage", "50"}).code, 0);
    EXPECT_EQ(run({"manuscript", "audit", c}).code, 0);
    EXPECT_EQ(run({"manuscript", "audit", exactattn::test::source_path("data/chapter14/chapter14.md"), "--strict",
                   "--min-coverage", "85"})
                  .code,
              0);
}

// The threshold is compared exactly: 23 of 40 claims marked is 2300/40 = 57.5% exactly, which
// meets --min-coverage 57.5 (a double computes 100·(23/40) as 57.49999999999999 and failed it);
// 57.51 is not met.
TEST(ManuscriptCli, AuditThresholdIsComparedExactly) {
    const fs::path dir = book("exact-threshold");
    std::string text = "---\nexactattn-scenario: chapter14\n---\n";
    for (int i = 0; i < 23; ++i) text += "Weight [1/2]{.exact ref=\"/reads/example-14.1/weights/0\"} here.\n";
    for (int i = 0; i < 17; ++i) text += "Some ratio 7/9 there.\n";
    write(dir / "c.md", text);
    const std::string c = (dir / "c.md").string();
    const auto r = run({"manuscript", "audit", c, "--strict", "--min-coverage", "57.5"});
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("manuscript audit: coverage 57.5% (23 of 40 numeric claims marked)"), std::string::npos)
        << r.out;
    EXPECT_EQ(run({"manuscript", "audit", c, "--strict", "--min-coverage", "57.51"}).code, 1);
    EXPECT_EQ(run({"manuscript", "audit", c, "--strict", "--min-coverage", "101"}).code, 2);
}

}  // namespace

TEST(ManuscriptCli, FillInPlaceWritesThroughASymlinkToItsTarget) {
    const fs::path dir = book("symlink");
    const std::string head = "---\nexactattn-scenario: chapter14\n---\n";
    write(dir / "real" / "chapter.md", head + "w {{/reads/example-14.1/weights}}\n");
    fs::create_symlink(dir / "real" / "chapter.md", dir / "link.md");
    const auto r = run({"manuscript", "fill", (dir / "link.md").string(), "--in-place"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(dir / "link.md"));  // the link stays a link
    EXPECT_EQ(slurp(dir / "real" / "chapter.md"), head + "w [1/2, 1/4, 1/4]\n");
    std::size_t files = 0;  // no temporary file left beside the target
    for (const auto& e : fs::directory_iterator(dir / "real")) files += e.is_regular_file() ? 1 : 0;
    EXPECT_EQ(files, 1U);
}

TEST(ManuscriptCli, InPlaceWithAnOutputFileIsRefused) {
    const fs::path dir = book("inplace-o");
    const std::string source = "---\nexactattn-scenario: chapter14\n---\nw {{/reads/example-14.1/weights}}\n";
    write(dir / "f.md", source);
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"manuscript", "fill", (dir / "f.md").string(), "--in-place", "-o", (dir / "out.md").string()},
             {"-o", (dir / "out.md").string(), "manuscript", "fill", (dir / "f.md").string(), "--in-place"}}) {
        const auto r = run(args);
        EXPECT_EQ(r.code, 2);
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(r.err,
                  "exactattn: --in-place: rewrites the manuscript itself, and -o names another output: give one of "
                  "them\n");
        EXPECT_FALSE(fs::exists(dir / "out.md"));
        EXPECT_EQ(slurp(dir / "f.md"), source);
    }
}

TEST(ManuscriptCli, DirectoryTakesEveryManuscriptEnding) {
    // .ltx is a LaTeX manuscript when named and in a directory alike (one list of endings).
    const fs::path dir = fs::temp_directory_path() / "exactattn-manuscript-endings";
    fs::remove_all(dir);
    write(dir / "a.ltx", "% exactattn-scenario: chapter14\n\\exact{/reads/example-14.1/denominator}{5}\n");
    write(dir / "b.markdown",
          "---\nexactattn-scenario: chapter14\n---\n[4]{.exact ref=/reads/example-14.1/denominator}\n");
    const auto r = run({"manuscript", "check", dir.string()});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(r.out, (dir / "a.ltx").string() + ":2:1: /reads/example-14.1/denominator: written 5, exact 4 (5 ≠ 4)\n" +
                         (dir / "a.ltx").string() + ": 1 claim, 1 wrong\n" + (dir / "b.markdown").string() +
                         ": 1 claim, 0 wrong\nmanuscript: 2 claims checked in 2 files, 1 wrong in 1 file\n");
}

TEST(ManuscriptCli, FileNamesCannotForgeLinesOrSendEscapes) {
    const fs::path dir = fs::temp_directory_path() / "exactattn-manuscript-names";
    fs::remove_all(dir);
    const std::string name = "x\nmanuscript: 0 claims checked, 0 wrong in 0 files\x1b[2J.md";
    write(dir / name, "---\nexactattn-scenario: chapter14\n---\n[5]{.exact ref=/reads/example-14.1/denominator}\n");
    const auto r = run({"manuscript", "check", dir.string()});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3) << r.out;  // the claim, the file, the total
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
    EXPECT_NE(r.out.find("x<U+000A>manuscript: 0 claims checked, 0 wrong in 0 files<U+001B>[2J.md: 1 claim, 1 wrong\n"),
              std::string::npos)
        << r.out;
    const auto a = run({"manuscript", "audit", dir.string()});
    EXPECT_EQ(a.out.find('\x1b'), std::string::npos);
    EXPECT_EQ(std::count(a.out.begin(), a.out.end(), '\n'), 2) << a.out;  // the file, the total
}

TEST(ManuscriptCli, TheWorkBudgetCoversManuscriptsAndNamesThePlace) {
    const std::string chapter = exactattn::test::source_path("data/chapter14/chapter14.md");
    for (const std::string command : {"check", "audit", "fill"}) {
        const auto r = run({"manuscript", command, chapter, "--max-work", "1000"});
        EXPECT_EQ(r.code, 2) << command;
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(r.err.rfind("exactattn: " + chapter + ": reading a manuscript of ", 0), 0U) << r.err;
        EXPECT_NE(r.err.find("(limits: max_work; --max-work raises it)"), std::string::npos) << r.err;
    }
}

// propose writes the marked manuscript (to -o or standard output) or a diff, and the listing;
// never the manuscript itself. The key's weight in Example 14.1 is 1/4 (Table 14.1).
TEST(ManuscriptCli, ProposeWritesMarksADiffAndTheListing) {
    const fs::path dir = book("propose");
    const std::string line = "In Example 14.1 the key state receives weight 1/4.";
    const std::string marked =
        "In Example 14.1 the key state receives weight [1/4]{.exact ref=\"/reads/example-14.1/weights/1\"}.";
    const std::string source = "---\nexactattn-scenario: chapter14\n---\n" + line + "\n";
    const std::string p = (dir / "p.md").string();
    write(dir / "p.md", source);
    const auto r =
        run({"manuscript", "propose", p, "-o", (dir / "out.md").string(), "--listing", (dir / "l.txt").string()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(slurp(dir / "out.md"), "---\nexactattn-scenario: chapter14\n---\n" + marked + "\n");
    EXPECT_EQ(slurp(dir / "p.md"), source);
    EXPECT_EQ(slurp(dir / "l.txt").rfind(p + ":4:47: marked 1/4 as /reads/example-14.1/weights/1 (", 0), 0U);
    const auto d = run({"manuscript", "propose", p, "--diff"});
    EXPECT_EQ(d.code, 0) << d.err;
    EXPECT_EQ(d.out, "--- " + p + "\n+++ " + p + "\n@@ -4,1 +4,1 @@\n-" + line + "\n+" + marked + "\n");
    const auto c = run({"manuscript", "check", (dir / "out.md").string()});
    EXPECT_EQ(c.code, 0) << c.out;
    EXPECT_NE(c.out.find(": 1 claim, 0 wrong\n"), std::string::npos) << c.out;
}

TEST(ManuscriptCli, ProposeBadInputIsOneLineAndExitTwo) {
    const fs::path dir = book("propose-bad");
    const auto missing = run({"manuscript", "propose", (dir / "none.md").string()});
    EXPECT_EQ(missing.code, 2);
    EXPECT_EQ(missing.out, "");
    EXPECT_EQ(missing.err, "exactattn: " + (dir / "none.md").string() + ": no such file or directory\n");
    write(dir / "p.md", "---\nexactattn-scenario: chapter14\n---\nIn Example 14.1 the key weight is 1/4.\n");
    // A listing that cannot be written, a scenario that does not exist, a byte that is no UTF-8.
    write(dir / "s.md", "---\nexactattn-scenario: nowhere.json\n---\nweight 1/4\n");
    write(dir / "u.md", "---\nexactattn-scenario: chapter14\n---\nweight \xFF 1/4\n");
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"manuscript", "propose", (dir / "p.md").string(), "--listing", (dir / "no" / "dir" / "l.txt").string()},
             {"manuscript", "propose", (dir / "s.md").string()},
             {"manuscript", "propose", (dir / "u.md").string()},
             {"manuscript", "propose", (dir / "p.md").string(), "--scenario", (dir / "nowhere.json").string()}}) {
        const auto r = run(args);
        EXPECT_EQ(r.code, 2) << args[2];
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.err.rfind("exactattn: ", 0), 0U) << r.err;
    }
}

// A manuscript is data: the scenario it names is read only from within its folder or the working
// directory (symbolic links followed), as TeX's openin_any=p confines \input; whoever runs the
// command may name any scenario with --scenario. The refusal reads nothing of the file it names.
TEST(ManuscriptCli, ADocumentNamesOnlyAScenarioWithinItsFolderOrTheWorkingDirectory) {
    const fs::path dir = book("confined");
    const fs::path secret = fs::temp_directory_path() / "exactattn-confined-secret.json";
    fs::remove(secret);
    fs::copy_file(EXACTATTN_SOURCE_DIR "/data/chapter14/chapter14.json", secret);
    fs::copy_file(EXACTATTN_SOURCE_DIR "/data/chapter14/chapter14.json", dir / "own.json");
    fs::create_symlink(secret, dir / "link.json");
    // By hand (Chapter 14, Table 14.1): Example 14.1's denominator is 2 + 1 + 1 = 4.
    const std::string body =
        "\n---\nDenominator [4]{.exact ref=\"/reads/example-14.1/denominator\"}, "
        "{{/reads/example-14.1/denominator}}.\n";
    for (const std::string& named : {secret.string(), std::string("../exactattn-confined-secret.json"),
                                     std::string("link.json"), std::string("/etc/hostname")}) {
        write(dir / "out.md", "---\nexactattn-scenario: " + named + body);
        for (const char* command : {"check", "fill", "audit", "propose"}) {
            const auto r = run({"manuscript", command, (dir / "out.md").string()});
            EXPECT_EQ(r.code, 2) << command << ' ' << named << ": " << r.out << r.err;
            EXPECT_EQ(r.out, "") << command << ' ' << named;
            EXPECT_EQ(r.err, "exactattn: " + (dir / "out.md").string() + ":2:1: exactattn-scenario " + named +
                                 ": lies outside the manuscript's folder and the working directory, where a "
                                 "document may name its scenario; give --scenario FILE to use it\n")
                << command;
        }
    }
    write(dir / "own.md", "---\nexactattn-scenario: own.json" + body);
    const auto own = run({"manuscript", "check", (dir / "own.md").string()});
    EXPECT_EQ(own.code, 0) << own.out << own.err;
    EXPECT_NE(own.out.find(": 1 claim, 0 wrong\n"), std::string::npos) << own.out;
    write(dir / "out.md", "---\nexactattn-scenario: /etc/hostname" + body);
    const auto given = run({"manuscript", "check", (dir / "out.md").string(), "--scenario", secret.string()});
    EXPECT_EQ(given.code, 0) << given.out << given.err;
    fs::remove_all(dir);
    fs::remove(secret);
}

// A book split into files with its metadata in one (a pandoc build, docs/manuscript.md): with
// --scenario-from FILE a file that names no scenario takes FILE's, confined to FILE's folder or
// the working directory and resolved there, not in the inheriting file's folder; a file that
// names its own keeps it. By hand (Chapter 14, Table 14.1): Example 14.1's weights are
// [1/2, 1/4, 1/4] and its denominator 2 + 1 + 1 = 4.
TEST(ManuscriptCli, AFileNamingNoScenarioTakesTheOneScenarioFromNamesConfinedWhereItIsNamed) {
    const fs::path dir = book("scenario-from");
    fs::copy_file(EXACTATTN_SOURCE_DIR "/data/chapter14/chapter14.json", dir / "own.json");
    const fs::path secret = fs::temp_directory_path() / "exactattn-scenario-from-secret.json";
    fs::remove(secret);
    fs::copy_file(EXACTATTN_SOURCE_DIR "/data/chapter14/chapter14.json", secret);
    const std::string first = (dir / "one.md").string();
    const std::string second = (dir / "ch" / "two.md").string();
    write(first, "---\nexactattn-scenario: own.json\n---\nFirst.\n");
    const auto claim = [](const std::string& written) {
        return "Denominator [" + written +
               "]{.exact ref=\"/reads/example-14.1/denominator\"}, weights {{/reads/example-14.1/weights}}.\n";
    };
    write(second, claim("4"));
    const auto checked = run({"manuscript", "check", "--scenario-from", first, second});
    EXPECT_EQ(checked.code, 0) << checked.out << checked.err;
    EXPECT_NE(checked.out.find(second + ": 1 claim, 0 wrong\n"), std::string::npos) << checked.out;
    const auto filled = run({"manuscript", "fill", "--scenario-from", first, second});
    EXPECT_EQ(filled.code, 0) << filled.err;
    EXPECT_EQ(filled.out,
              "Denominator [4]{.exact ref=\"/reads/example-14.1/denominator\"}, weights [1/2, 1/4, 1/4].\n");
    for (const char* command : {"audit", "propose"}) {
        const auto r = run({"manuscript", command, "--scenario-from", first, second});
        EXPECT_EQ(r.code, 0) << command << ": " << r.out << r.err;
    }
    write(second, claim("5"));
    const auto wrong = run({"manuscript", "check", "--scenario-from", first, second});
    EXPECT_EQ(wrong.code, 1) << wrong.out << wrong.err;
    EXPECT_NE(wrong.out.find(second + ":1:13: /reads/example-14.1/denominator: written 5, exact 4"), std::string::npos)
        << wrong.out;
    // Without it, and from a file that names none: refused, placed at the file.
    const auto none = run({"manuscript", "check", second});
    EXPECT_EQ(none.code, 2);
    EXPECT_EQ(none.err.rfind("exactattn: " + second + ": names no scenario", 0), 0U) << none.err;
    const auto from_none = run({"manuscript", "fill", "--scenario-from", second, second});
    EXPECT_EQ(from_none.code, 2);
    EXPECT_EQ(from_none.err.rfind("exactattn: " + second + ": names no scenario, and --scenario-from", 0), 0U)
        << from_none.err;
    // The named scenario outside the naming file's folder and the working directory: refused at
    // its line by every command, before the inheriting file is read.
    write(first, "---\nexactattn-scenario: " + secret.string() + "\n---\nFirst.\n");
    for (const char* command : {"check", "fill", "audit", "propose"}) {
        const auto r = run({"manuscript", command, "--scenario-from", first, second});
        EXPECT_EQ(r.code, 2) << command;
        EXPECT_EQ(r.out, "") << command;
        EXPECT_EQ(
            r.err.rfind("exactattn: " + first + ":2:1: exactattn-scenario " + secret.string() + ": lies outside", 0),
            0U)
            << command << ": " << r.err;
    }
    // A file naming its own scenario keeps it (here one that does not exist: refused as its own).
    write(first, "---\nexactattn-scenario: own.json\n---\nFirst.\n");
    write(second, "---\nexactattn-scenario: nowhere.json\n---\n" + claim("4"));
    const auto own = run({"manuscript", "check", "--scenario-from", first, second});
    EXPECT_EQ(own.code, 2);
    EXPECT_EQ(own.err.rfind("exactattn: " + second + ":2:1: exactattn-scenario nowhere.json", 0), 0U) << own.err;
    // --scenario names one for every file: giving both is refused.
    const auto both = run({"manuscript", "check", "--scenario-from", first, "--scenario", "chapter14", second});
    EXPECT_EQ(both.code, 2);
    EXPECT_EQ(both.err.rfind("exactattn: --scenario-from: ", 0), 0U) << both.err;
    // A file that cannot be read is the option's error, named at the option.
    const auto missing = run({"manuscript", "check", "--scenario-from", (dir / "nowhere.md").string(), second});
    EXPECT_EQ(missing.code, 2);
    EXPECT_EQ(missing.err.rfind("exactattn: --scenario-from: cannot read ", 0), 0U) << missing.err;
    EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
    fs::remove_all(dir);
    fs::remove(secret);
}

// A Quarto directory's _metadata.yml names a scenario as _quarto.yml does (top level), resolved
// against its own folder and confined to its project's folder (the nearest _quarto.yml above it):
// `../own.json` from part/_metadata.yml is the project's own.json; `../../outside.json` lies outside.
// Without a _quarto.yml above, its own folder confines it. By hand: Example 14.1's denominator is 4.
TEST(ManuscriptCli, AQuartoMetadataFileNamesAScenarioConfinedToItsProject) {
    const fs::path dir = book("quarto-metadata") / "project";
    fs::create_directories(dir / "part");
    fs::copy_file(EXACTATTN_SOURCE_DIR "/data/chapter14/chapter14.json", dir / "own.json");
    fs::copy_file(EXACTATTN_SOURCE_DIR "/data/chapter14/chapter14.json", dir.parent_path() / "outside.json");
    const std::string chapter = (dir / "part" / "two.qmd").string();
    write(chapter, "Denominator [4]{.exact ref=\"/reads/example-14.1/denominator\"}.\n");
    const std::string meta = (dir / "part" / "_metadata.yml").string();
    write(meta, "exactattn-scenario: ../own.json\n");
    const auto outside_project = run({"manuscript", "check", "--scenario-from", meta, chapter});
    EXPECT_EQ(outside_project.code, 2) << outside_project.out;  // no _quarto.yml: part/ confines it
    EXPECT_NE(outside_project.err.find(meta + ":1:1: exactattn-scenario ../own.json: lies outside the manuscript's"),
              std::string::npos)
        << outside_project.err;
    write((dir / "_quarto.yml").string(), "project:\n  type: book\n");
    const auto inside = run({"manuscript", "check", "--scenario-from", meta, chapter});
    EXPECT_EQ(inside.code, 0) << inside.out << inside.err;
    EXPECT_NE(inside.out.find(chapter + ": 1 claim, 0 wrong\n"), std::string::npos) << inside.out;
    write(meta, "exactattn-scenario: ../../outside.json\n");
    const auto escaped = run({"manuscript", "check", "--scenario-from", meta, chapter});
    EXPECT_EQ(escaped.code, 2) << escaped.out;
    EXPECT_NE(escaped.err.find(meta + ":1:1: exactattn-scenario ../../outside.json: lies outside the Quarto project's "
                                      "folder"),
              std::string::npos)
        << escaped.err;
}

// A Markdown file's scenario is read from every YAML metadata block, as pandoc reads its metadata
// (the later value winning), what only a YAML parser reads is refused at its line, and a book's
// project file (_quarto.yml's top level, myst.yml's project: map) names the scenario that
// --scenario-from passes to the files naming none; given twice, the first file naming one wins.
// By hand (Chapter 14): Example 14.1's denominator is 2 + 1 + 1 = 4.
// `manuscript check --scenario-from _quarto.yml` (or myst.yml) audits as the book's build does
// when the project file asks for it: an unmarked wrong number fails the check at its line.
// Chapter 14: Example 14.1's denominator is 4.
TEST(ManuscriptCli, ABooksProjectFileNamedByScenarioFromAsksForTheAudit) {
    const fs::path dir = book("project-audit");
    fs::copy_file(EXACTATTN_SOURCE_DIR "/data/chapter14/chapter14.json", dir / "own.json");
    const std::string chapter = (dir / "ch.md").string();
    write(chapter, "# One\n\nIn Example 14.1 the denominator is 5.\n");
    const std::string quarto = (dir / "_quarto.yml").string();
    const std::string myst = (dir / "myst.yml").string();
    write(quarto, "project:\n  type: book\nexactattn-scenario: own.json\n");
    EXPECT_EQ(run({"manuscript", "check", "--scenario-from", quarto, chapter}).code, 0);
    write(quarto, "project:\n  type: book\nexactattn-scenario: own.json\nexactattn-audit: true\n");
    write(myst, "version: 1\nproject:\n  exactattn-scenario: own.json\n  exactattn-audit: true\n");
    for (const std::string& project : {quarto, myst}) {
        const auto r = run({"manuscript", "check", "--scenario-from", project, chapter});
        EXPECT_EQ(r.code, 1) << project << ": " << r.out << r.err;
        EXPECT_NE(r.out.find(chapter + ":3:"), std::string::npos) << r.out;
        EXPECT_EQ(run({"manuscript", "check", "--marks-only", "--scenario-from", project, chapter}).code, 0);
    }
    write(myst, "version: 1\nproject:\n  exactattn-scenario: own.json\n  exactattn-audit: maybe\n");
    const auto bad = run({"manuscript", "check", "--scenario-from", myst, chapter});
    EXPECT_EQ(bad.code, 2);
    EXPECT_EQ(bad.err.rfind("exactattn: " + myst + ":4:3: exactattn-audit: maybe", 0), 0U) << bad.err;
}

TEST(ManuscriptCli, AScenarioIsReadFromEveryYamlBlockAndFromABooksProjectFile) {
    const fs::path dir = book("yaml-blocks");
    fs::copy_file(EXACTATTN_SOURCE_DIR "/data/chapter14/chapter14.json", dir / "own.json");
    const std::string claim = "Denominator [4]{.exact ref=\"/reads/example-14.1/denominator\"}.\n";
    const std::string mid = (dir / "mid.md").string();
    write(mid,
          "Text.\n\n---\ntitle: x\nexactattn-scenario: nowhere.json\nexactattn-scenario: own.json\n---\n\n" + claim);
    const auto read = run({"manuscript", "check", mid});
    EXPECT_EQ(read.code, 0) << read.out << read.err;
    EXPECT_NE(read.out.find(mid + ": 1 claim, 0 wrong\n"), std::string::npos) << read.out;
    const std::string folded = (dir / "folded.md").string();
    write(folded, "---\nexactattn-scenario: >\n  own.json\n---\n" + claim);
    const auto refused = run({"manuscript", "check", folded});
    EXPECT_EQ(refused.code, 2);
    EXPECT_EQ(refused.err.rfind("exactattn: " + folded + ":2:1: exactattn-scenario: the value > is YAML", 0), 0U)
        << refused.err;
    const std::string chapter = (dir / "part" / "two.md").string();
    write(chapter, claim);
    const std::string quarto = (dir / "_quarto.yml").string();
    const std::string myst = (dir / "myst.yml").string();
    write(quarto, "project:\n  type: book\nexactattn-scenario: own.json\n");
    write(myst, "version: 1\nproject:\n  title: A book\n  exactattn-scenario: own.json\n");
    for (const std::string& project : {quarto, myst}) {
        const auto r = run({"manuscript", "check", "--scenario-from", project, chapter});
        EXPECT_EQ(r.code, 0) << project << ": " << r.out << r.err;
    }
    write(myst, "version: 1\nexactattn-scenario: own.json\nproject:\n  title: A book\n");  // not the project's
    const auto top = run({"manuscript", "check", "--scenario-from", myst, chapter});
    EXPECT_EQ(top.code, 2);
    EXPECT_EQ(top.err.rfind("exactattn: " + myst + ": names no scenario", 0), 0U) << top.err;
    const auto twice =
        run({"manuscript", "check", "--scenario-from", chapter, "--scenario-from", quarto, chapter, mid});
    EXPECT_EQ(twice.code, 0) << twice.out << twice.err;
    EXPECT_NE(twice.out.find("2 claims checked in 2 files"), std::string::npos) << twice.out;
}
