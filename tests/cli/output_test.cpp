// SPDX-License-Identifier: MIT
// Output is never lost or half-written (issues 9 and 10): -o on every command, written
// atomically; a failed write on standard output or on the file is exit 2 with one line.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <streambuf>

#include "app.hpp"

namespace {

namespace fs = std::filesystem;

struct Result {
    int code = -1;
    std::string out;
    std::string err;
};

Result run(std::vector<std::string> args, std::ostream* out_stream = nullptr) {
    std::ostringstream out;
    std::ostringstream err;
    Result r;
    r.code = exactattn::cli::run(args, out_stream != nullptr ? *out_stream : out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / "exactattn-output-test";
    fs::create_directories(dir);
    return dir / name;
}

const std::string kChapter = EXACTATTN_SOURCE_DIR "/data/chapter14/chapter14.json";

}  // namespace

// Every command, with -o after it, writes what it would print to the file and nothing to
// standard output (crosscheck, answers and check once refused -o).
TEST(Output, EveryCommandTakesOutputFile) {
    const std::vector<std::vector<std::string>> commands = {
        {"eval", "2a/3"},
        {"run", "chapter14"},
        {"read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]"},
        {"encode", "--tokens", "红色 钥匙 。"},
        {"verify", kChapter},
        {"crosscheck", "chapter14"},
        {"answers", "chapter14"},
        {"check", "chapter14", "--answer", "exercise-1-correct"},
        {"figure", "chapter14", "--figure", "14.1"},
    };
    for (const auto& c : commands) {
        const Result plain = run(c);
        ASSERT_EQ(plain.code, 0) << c[0] << ": " << plain.err;
        const fs::path file = scratch(c[0] + ".out");
        fs::remove(file);
        auto args = c;
        args.insert(args.end(), {"-o", file.string()});
        const Result r = run(args);
        EXPECT_EQ(r.code, 0) << c[0] << ": " << r.err;
        EXPECT_EQ(r.out, "") << c[0];
        EXPECT_EQ(slurp(file), plain.out) << c[0];
        // The long form, and before the command.
        args = c;
        args.insert(args.begin(), {"--output", file.string()});
        EXPECT_EQ(run(args).code, 0) << c[0];
        EXPECT_EQ(slurp(file), plain.out) << c[0];
    }
}

// A write that fails partway (here: a file-size limit of 100 bytes, as a full disk would)
// leaves the old file as it was and says so, instead of leaving a truncated report.
TEST(Output, FailedWriteLeavesTheOldFileIntact) {
    const fs::path file = scratch("atomic.txt");
    { std::ofstream(file) << "the old answer key\n"; }
    rlimit old{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto old_handler = signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of the signal
    rlimit small = old;
    small.rlim_cur = 100;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    const Result r = run({"run", "chapter14", "-o", file.string()});
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("exactattn: --output: cannot write " + file.string() + ": write failed: "), std::string::npos)
        << r.err;
    EXPECT_EQ(slurp(file), "the old answer key\n");
    // No temporary file is left beside it.
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(file.parent_path())) {
        files += e.path().filename().string().rfind("atomic.txt", 0) == 0 ? 1 : 0;
    }
    EXPECT_EQ(files, 1u);
}

TEST(Output, DirectoryAsOutputIsRefused) {
    const Result r = run({"eval", "a", "-o", fs::temp_directory_path().string()});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("it is a directory"), std::string::npos) << r.err;
}

// Markdown with -o DIR (issue 13): report.md, and beside it the SVG file of every figure it
// links, each the figure as `exactattn figure` draws it; HTML and LaTeX to a directory are refused.
TEST(Output, MarkdownToDirectoryWritesTheFiguresItLinks) {
    const fs::path dir = scratch("markdown-dir");
    fs::remove_all(dir);
    fs::create_directories(dir);
    const Result r = run({"run", "chapter14", "--format", "markdown", "-o", dir.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    const std::string md = slurp(dir / "report.md");
    for (const std::string n : {"14.1", "14.2"}) {
        EXPECT_NE(md.find("](figure-" + n + ".svg)"), std::string::npos) << n;
        EXPECT_EQ(slurp(dir / ("figure-" + n + ".svg")), run({"figure", "chapter14", "--figure", n}).out) << n;
    }
    const Result html = run({"run", "chapter14", "--format", "html", "-o", dir.string()});
    EXPECT_EQ(html.code, 2);
    EXPECT_NE(html.err.find("report.md and its figures (--format markdown)"), std::string::npos) << html.err;
}

namespace {
// A stream buffer that refuses every byte, as standard output on /dev/full does.
class FullBuf : public std::streambuf {
  protected:
    int_type overflow(int_type) override { return traits_type::eof(); }
    std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};
}  // namespace

TEST(Output, FailedStandardOutputIsAnError) {
    FullBuf buf;
    std::ostream full(&buf);
    const Result r = run({"eval", "a"}, &full);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.rfind("exactattn: cannot write standard output", 0), 0u) << r.err;
}

// Commands that write files to -o DIR and their summary to standard output (variants) lose
// no write either: the summary on /dev/full is exit 2 like every other command's output.
TEST(Output, FailedStandardOutputAfterWritingFilesIsAnError) {
    const fs::path dir = fs::temp_directory_path() / ("exactattn-full-summary-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    FullBuf buf;
    std::ostream full(&buf);
    const Result r = run({"variants", "chapter14", "--exercise", "1", "--count", "2", "-o", dir.string()}, &full);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.rfind("exactattn: cannot write standard output", 0), 0u) << r.err;
    fs::remove_all(dir);
}

// A set of files is written all or nothing: when one destination cannot be written (here
// sheet.html is a directory), none of the others is left behind, in a directory that existed
// (its other contents untouched) or one the command created (removed again).
TEST(Output, FileSetIsWrittenAllOrNothing) {
    const fs::path dir = fs::temp_directory_path() / ("exactattn-all-or-nothing-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "sheet.html");
    { std::ofstream(dir / "notes.txt") << "mine"; }
    Result r = run({"variants", "chapter14", "--exercise", "1", "--count", "3", "-o", dir.string()});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "exactattn: --output: cannot write " + (dir / "sheet.html").string() +
                         ": it is a directory: Is a directory\n");
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir)) left.push_back(e.path().filename().string());
    std::sort(left.begin(), left.end());
    EXPECT_EQ(left, (std::vector<std::string>{"notes.txt", "sheet.html"}));
    EXPECT_EQ(slurp(dir / "notes.txt"), "mine");
    // A file that fails while the set is written (a file-size limit, as a full disk) leaves
    // nothing either, and the directory the command created is removed again.
    const fs::path fresh = dir / "new";
    struct rlimit old {};
    ::getrlimit(RLIMIT_FSIZE, &old);
    struct rlimit small = old;
    small.rlim_cur = 100;
    ::signal(SIGXFSZ, SIG_IGN);
    ::setrlimit(RLIMIT_FSIZE, &small);
    r = run({"variants", "chapter14", "--exercise", "1", "--count", "3", "-o", fresh.string()});
    ::setrlimit(RLIMIT_FSIZE, &old);
    ::signal(SIGXFSZ, SIG_DFL);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("cannot write " + fresh.string() + "/"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(".exactattn-"), std::string::npos) << r.err;  // the temporary name is not shown
    EXPECT_FALSE(fs::exists(fresh));
    fs::remove_all(dir);
}

// check and verify address the report through one resolver: the scores of a row that
// removed position 1 are [null, "0", "0"] for both, and a learner who lists the scores of
// the included positions only is right (by hand: q = [1,0], states [0,a] and [0,0] score 0).
TEST(Output, CheckAndVerifyReadTheSameQuantity) {
    Result r =
        run({"check", "chapter14", "--target", "/interventions/table-14.2/rows/1/scores", "--proposed", "[0,0]"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("listed for the included positions 2 and 3"), std::string::npos) << r.out;
    r = run({"check", "chapter14", "--target", "/interventions/table-14.2/rows/1/scores", "--proposed", "[0,0,0]"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("exact [—, 0, 0]"), std::string::npos) << r.out;
    // Anything expect can address: a state row, one element, a cost (Exercise 5: 100 × 4).
    EXPECT_EQ(run({"check", "chapter14", "--target", "/sources/red/states/1", "--proposed", "[0,a]"}).code, 0);
    EXPECT_EQ(run({"check", "chapter14", "--target", "/sources/red/states", "--proposed", "[[a,0],[0,a],[0,0]]"}).code,
              0);
    EXPECT_EQ(run({"check", "chapter14", "--target", "/costs/exercise-5/dot_products", "--proposed", "400"}).code, 0);
    // By hand: equal weights over three positions give 1/3; 1/5 matches no known mistake.
    r = run({"check", "chapter14", "--target", "/reads/example-14.1/weights/0", "--proposed", "1/3"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("mistake: equal weights"), std::string::npos) << r.out;
    r = run({"check", "chapter14", "--target", "/reads/example-14.1/weights/0", "--proposed", "1/5"});
    EXPECT_NE(r.out.find("no known mistake"), std::string::npos) << r.out;
    r = run({"check", "chapter14", "--target", "/reads/example-14.1/weights/0", "--proposed", "2/3"});
    EXPECT_NE(r.out.find("divided by the number of positions (3)"), std::string::npos) << r.out;
}

// File names reach the output escaped: verify prints a line break of a name as <U+000A> (so it
// cannot forge a "verify: 99 passed" line), an ESC as <U+001B>, a byte that is not UTF-8 as
// <0xFF>; its JUnit report stays well-formed XML for the same names.
TEST(Output, FileNamesAreShownEscaped) {
    const fs::path dir = fs::temp_directory_path() / ("exactattn-names-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    // The expectation is wrong on purpose (by hand the weights of [a] and [0] under query [1]
    // are 2/3 and 1/3), so that the failure line names the file too.
    const std::string scenario = R"({"sources": {"m": {"memory": [["a"], ["0"]]}}, "queries": {"q": [1]},
        "reads": {"r": {"source": "m", "query": "q"}}, "expect": {"/reads/r/weights/0": "1/2"}})";
    const fs::path forged = dir / "a\nverify: 99 passed, 0 failed\n\x1b[2J.json";
    const fs::path latin = dir / "b\xff.json";
    std::ofstream(forged) << scenario;
    std::ofstream(latin) << scenario;
    const fs::path junit = dir / "report.xml";
    const Result r = run({"verify", forged.string(), latin.string(), "--junit", junit.string()});
    EXPECT_EQ(r.code, 1) << r.err;
    // Two files: a failure line and a summary line each, then the total: five lines.
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 5) << r.out;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
    EXPECT_EQ(r.out.find('\xff'), std::string::npos);
    EXPECT_NE(r.out.find("a<U+000A>verify: 99 passed, 0 failed<U+000A><U+001B>[2J.json: /reads/r/weights/0: expected"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("b<0xFF>.json: 0 passed, 1 failed\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.rfind("verify: 0 passed, 2 failed in 2 files\n"), std::string::npos) << r.out;
    const std::string xml = slurp(junit);
    EXPECT_EQ(xml.find('\xff'), std::string::npos);
    EXPECT_EQ(xml.find('\x1b'), std::string::npos);
    EXPECT_NE(xml.find("b&lt;0xFF&gt;.json"), std::string::npos) << xml;
    EXPECT_NE(xml.find("&lt;U+001B&gt;"), std::string::npos) << xml;
    fs::remove_all(dir);
}

namespace {

// A LaTeX fragment lists every package its output can need, amssymb among them (an author's
// \mathbb in a note), and --standalone loads each; --preamble FILE adds the author's own lines
// after them, and only to a complete document.
TEST(Output, LatexPreambleListsAmssymbAndTakesTheAuthorsLines) {
    const Result fragment = run({"run", "chapter14", "--format", "latex"});
    ASSERT_EQ(fragment.code, 0) << fragment.err;
    EXPECT_NE(fragment.out.find("%   \\usepackage{amssymb}"), std::string::npos);
    const fs::path file = scratch("preamble.tex");
    std::ofstream(file) << "\\newcommand{\\R}{\\mathbb{R}}";
    const Result doc = run({"run", "chapter14", "--format", "latex", "--standalone", "--preamble", file.string()});
    ASSERT_EQ(doc.code, 0) << doc.err;
    const auto amssymb = doc.out.find("\\usepackage{amssymb}\n");
    const auto mine = doc.out.find("\\newcommand{\\R}{\\mathbb{R}}\n");
    const auto begin = doc.out.find("\\begin{document}");
    ASSERT_NE(amssymb, std::string::npos);
    ASSERT_NE(mine, std::string::npos);
    EXPECT_LT(amssymb, mine);
    EXPECT_LT(mine, begin);
    const Result no_document = run({"run", "chapter14", "--format", "latex", "--preamble", file.string()});
    EXPECT_EQ(no_document.code, 2);
    EXPECT_EQ(no_document.out, "");
    EXPECT_EQ(no_document.err,
              "exactattn: --preamble: --preamble adds to a complete document's preamble: give --standalone\n");
    const Result missing =
        run({"run", "chapter14", "--format", "latex", "--standalone", "--preamble", scratch("none.tex").string()});
    EXPECT_EQ(missing.code, 2);
    EXPECT_NE(missing.err.find("exactattn: --preamble: cannot read "), std::string::npos) << missing.err;
}

}  // namespace

// Issue 24 item 5: author TeX outside the MathML subset is kept verbatim in HTML with a warning,
// one placed line on stderr; the exit code stays 0. LaTeX keeps the TeX as written and does not
// warn. --warnings-as-errors makes the warning the command's one error line (exit 2) and writes
// nothing. The note (a hand-made scenario: weights 2/3 and 1/3) has \frac inside the subset and
// \widehat outside it; the expected lines are written by hand from docs/cli.md.
TEST(Output, AuthorTexOutsideTheMathMLSubsetIsAPlacedWarning) {
    const fs::path file = scratch("tex-note.json");
    {
        std::ofstream f(file);
        f << R"({"sources": {"m": {"memory": [["a", "0"], ["0", "0"]]}}, "queries": {"q": ["1", "0"]},
                 "reads": {"r": {"source": "m", "query": "q",
                                 "note": "The weight $\\frac{2}{3}$ is $\\widehat{w}_1$; $\\widehat{w}_2 = 1/3$."}}})";
    }
    const std::string line = "exactattn: warning: " + file.string() +
                             ": /reads/r/note: TeX \\widehat is outside the MathML subset, kept verbatim\n";
    const Result html = run({"run", file.string(), "--format", "html"});
    EXPECT_EQ(html.code, 0);
    EXPECT_EQ(html.err, line);  // once, though the note uses \widehat twice
    EXPECT_NE(html.out.find("<mtext>\\widehat</mtext>"), std::string::npos);
    EXPECT_NE(html.out.find("<mfrac><mrow><mn>2</mn></mrow><mrow><mn>3</mn></mrow></mfrac>"), std::string::npos);

    const Result latex = run({"run", file.string(), "--format", "latex"});
    EXPECT_EQ(latex.code, 0);
    EXPECT_EQ(latex.err, "");

    const fs::path out = scratch("tex-note.html");
    fs::remove(out);
    const Result strict = run({"run", file.string(), "--format", "html", "--warnings-as-errors", "-o", out.string()});
    EXPECT_EQ(strict.code, 2);
    EXPECT_EQ(strict.out, "");
    EXPECT_EQ(strict.err, "exactattn: " + file.string() +
                              ": /reads/r/note: TeX \\widehat is outside the MathML subset, kept verbatim "
                              "(--warnings-as-errors: nothing written)\n");
    EXPECT_FALSE(fs::exists(out));
}
