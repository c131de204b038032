// SPDX-License-Identifier: MIT
// A manuscript given as `-` is read from standard input and checked, filled, audited or marked
// like a file (issue 32: `manuscript check -` said "-: no such file or directory"); a terminal or
// device on standard input is refused at once, and so is `-` named twice or `--in-place` on it.
// Expected values are the chapter's (Example 14.1: weights [1/2, 1/4, 1/4], denominator 4).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "run_cli.hpp"

namespace {

namespace fs = std::filesystem;

// RAII: `fd` is standard input for a scope (the descriptor the command reads), then the
// process's own again.
class StdinFrom {
  public:
    explicit StdinFrom(int fd) : saved_(::dup(STDIN_FILENO)) {
        EXPECT_GE(saved_, 0);
        EXPECT_EQ(::dup2(fd, STDIN_FILENO), STDIN_FILENO);
        ::close(fd);
    }
    ~StdinFrom() {
        ::dup2(saved_, STDIN_FILENO);
        ::close(saved_);
    }
    StdinFrom(const StdinFrom&) = delete;
    StdinFrom& operator=(const StdinFrom&) = delete;

  private:
    int saved_;
};

// `text` on a pipe whose writing end is closed (the manuscripts here fit the pipe's buffer).
int pipe_of(const std::string& text) {
    int fds[2] = {-1, -1};
    EXPECT_EQ(::pipe(fds), 0);
    EXPECT_EQ(::write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fds[1]);
    return fds[0];
}

exactattn::test::Result run_with_stdin(const std::string& text, const std::vector<std::string>& args) {
    const StdinFrom in(pipe_of(text));
    return exactattn::test::run(args);
}

const std::string kHead = "---\nexactattn-scenario: chapter14\n---\n\n";

TEST(ManuscriptStdin, CheckReadsAPipeAndFindsTheWrongClaim) {
    // Line 5 (after the four lines of front matter and blank): the denominator is 4, not 5.
    const std::string text = kHead +
                             "Weights [[1/2, 1/4, 1/4]]{.exact ref=\"/reads/example-14.1/weights\"} and "
                             "[5]{.exact ref=\"/reads/example-14.1/denominator\"}.\n";
    const auto r = run_with_stdin(text, {"manuscript", "check", "-"});
    EXPECT_EQ(r.code, 1) << r.err;
    // Column 73: "Weights " (8), the first mark (17 + 42), " and " (5), then "[5]".
    EXPECT_EQ(r.out,
              "<stdin>:5:73: /reads/example-14.1/denominator: written 5, exact 4 (5 ≠ 4)\n"
              "<stdin>: 2 claims, 1 wrong\n"
              "manuscript: 2 claims checked in 1 file, 1 wrong in 1 file\n");
}

TEST(ManuscriptStdin, CheckReadsARedirectedFileBesideNamedFiles) {
    const fs::path dir = fs::temp_directory_path() / "exactattn-stdin-files";
    fs::remove_all(dir);
    fs::create_directories(dir);
    {
        std::ofstream(dir / "a.md") << kHead << "Total [4]{.exact ref=\"/reads/example-14.1/denominator\"}.\n";
        std::ofstream(dir / "in.md") << kHead
                                     << "Weights [[1/2, 1/4, 1/4]]{.exact ref=\"/reads/example-14.1/weights\"}.\n";
    }
    const int fd = ::open((dir / "in.md").c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    const StdinFrom in(fd);
    const auto r = exactattn::test::run({"manuscript", "check", (dir / "a.md").string(), "-"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, (dir / "a.md").string() + ": 1 claim, 0 wrong\n<stdin>: 1 claim, 0 wrong\n" +
                         "manuscript: 2 claims checked in 2 files, 0 wrong\n");
    fs::remove_all(dir);
}

TEST(ManuscriptStdin, StdinFilenameGivesTheNameTheFormatAndTheScenariosDirectory) {
    // A LaTeX manuscript whose scenario is named relative to where --stdin-filename puts it.
    const fs::path dir = fs::temp_directory_path() / "exactattn-stdin-latex";
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(EXACTATTN_SOURCE_DIR "/tests/bad/good.json", dir / "s.json");
    const std::string tex = "% exactattn-scenario: s.json\nRead: \\exact{/reads/r1/denominator}{9}.\n";
    const std::string name = (dir / "ch.tex").string();
    const auto r = run_with_stdin(tex, {"manuscript", "check", "-", "--stdin-filename", name});
    // Read as Markdown the mark would not be seen; as LaTeX it is checked (and 9 is wrong).
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(r.out.rfind(name + ":2:7: /reads/r1/denominator: written 9, exact ", 0), 0U) << r.out;
    fs::remove_all(dir);
}

// The Quarto shortcode hands its one-line manuscript over this way: a scenario named on standard
// input is confined to --stdin-filename's folder (or the working directory) as a file's is.
TEST(ManuscriptStdin, AScenarioNamedOnStandardInputIsConfinedAsAFilesIs) {
    const fs::path dir = fs::temp_directory_path() / "exactattn-stdin-confined";
    fs::remove_all(dir);
    fs::create_directories(dir / "book");
    fs::copy_file(EXACTATTN_SOURCE_DIR "/tests/bad/good.json", dir / "s.json");
    fs::copy_file(EXACTATTN_SOURCE_DIR "/tests/bad/good.json", dir / "book" / "s.json");
    const std::string name = (dir / "book" / "ch.qmd").string();
    const auto out = run_with_stdin("---\nexactattn-scenario: ../s.json\n---\n{{/reads/r1/denominator}}\n",
                                    {"manuscript", "fill", "-", "--stdin-filename", name});
    EXPECT_EQ(out.code, 2) << out.out;
    EXPECT_EQ(out.err, "exactattn: " + name +
                           ":2:1: exactattn-scenario ../s.json: lies outside the manuscript's folder and the "
                           "working directory, where a document may name its scenario; give --scenario FILE to "
                           "use it\n");
    const auto in = run_with_stdin("---\nexactattn-scenario: s.json\n---\n{{/reads/r1/denominator}}\n",
                                   {"manuscript", "fill", "-", "--stdin-filename", name});
    EXPECT_EQ(in.code, 0) << in.err;
    EXPECT_EQ(in.out.rfind("---\nexactattn-scenario: s.json\n---\n", 0), 0U) << in.out;
    fs::remove_all(dir);
}

TEST(ManuscriptStdin, FillAuditAndProposeReadStandardInput) {
    const std::string text = kHead + "The weights are {{/reads/example-14.1/weights}}.\n";
    const auto fill = run_with_stdin(text, {"manuscript", "fill", "-"});
    EXPECT_EQ(fill.code, 0) << fill.err;
    EXPECT_EQ(fill.out, kHead + "The weights are [1/2, 1/4, 1/4].\n");

    const std::string prose = kHead + "Example 14.1 has denominator 4.\n";
    const auto audit = run_with_stdin(prose, {"manuscript", "audit", "-", "--all"});
    EXPECT_EQ(audit.code, 0) << audit.err;
    EXPECT_NE(audit.out.find("<stdin>: 0 marked, 1 unmarked (1 verified"), std::string::npos) << audit.out;

    const auto propose = run_with_stdin(prose, {"manuscript", "propose", "-"});
    EXPECT_EQ(propose.code, 0) << propose.err;
    EXPECT_NE(propose.out.find("[4]{.exact ref=\"/reads/example-14.1/denominator\"}"), std::string::npos)
        << propose.out;
}

TEST(ManuscriptStdin, DevicesTwiceAndInPlaceAreRefusedWithOneLine) {
    const auto refused = [](const std::vector<std::string>& args, const std::string& says) {
        const auto r = exactattn::test::run(args);
        EXPECT_EQ(r.code, 2) << args[1];
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    };
    {
        // /dev/zero never ends; a terminal would wait for typing: neither is read.
        const StdinFrom in(::open("/dev/zero", O_RDONLY));
        for (const std::string command : {"check", "fill", "audit", "propose"}) {
            refused({"manuscript", command, "-"}, "cannot read standard input (-): it is a terminal, device or socket");
        }
    }
    {
        const StdinFrom in(pipe_of(kHead));
        refused({"manuscript", "check", "-", "-"}, "standard input (-) is named twice");
    }
    {
        const StdinFrom in(pipe_of(kHead));
        refused({"manuscript", "fill", "-", "--in-place"},
                "--in-place: rewrites the manuscript's file, and standard input");
    }
    refused({"manuscript", "check", EXACTATTN_SOURCE_DIR "/data/chapter14/chapter14.md", "--stdin-filename", "x.md"},
            "--stdin-filename: names standard input, and no manuscript is `-`");
}

TEST(ManuscriptStdin, AnEndlessPipeIsRefusedOnceItIsPastTheBudgetsManuscriptSize) {
    // `yes | exactattn manuscript check -` was read to max_file_bytes (1 GiB of memory) before
    // its refusal. Each byte of a manuscript costs 2000 work units (docs/limits.md), so the
    // default budget of 2^37 units admits (n − 3)·2000 ≤ 2^37, n ≤ 68 719 479 bytes (3: a
    // byte-order mark is not charged): the reader stops at the first read past that, about
    // 64 KiB later, plus what the pipe holds (64 KiB on Linux).
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    struct sigaction saved {};
    ASSERT_EQ(::sigaction(SIGPIPE, &ignore, &saved), 0);  // the writer sees EPIPE when reading stops
    int fds[2] = {-1, -1};
    ASSERT_EQ(::pipe(fds), 0);
    std::atomic<std::int64_t> written{0};
    std::thread writer([fd = fds[1], &written] {
        const std::string yes(1 << 16, 'y');
        for (;;) {
            const ssize_t w = ::write(fd, yes.data(), yes.size());
            if (w <= 0) break;
            written += w;
        }
        ::close(fd);
    });
    exactattn::test::Result r;
    {
        const StdinFrom in(fds[0]);
        r = exactattn::test::run({"manuscript", "check", "-"});
    }  // the reading end closes: the writer stops
    writer.join();
    ::sigaction(SIGPIPE, &saved, nullptr);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("-: reading a manuscript of "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(limits: max_work"), std::string::npos) << r.err;
    EXPECT_GE(written.load(), 68'719'480);
    EXPECT_LE(written.load(), 68'719'480 + (std::int64_t{2} << 20));
}

}  // namespace
