// SPDX-License-Identifier: MIT
// Files that are not regular files are refused without blocking (issue 10): `run FIFO`,
// `read --memory @FIFO` and `verify good.json FIFO` once blocked forever in open().
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app.hpp"

TEST(Files, FifoIsRefusedWithoutBlocking) {
    // Named .csv so that the oracle takes it for a tensor (it reads by the file's ending).
    const auto fifo = std::filesystem::temp_directory_path() / "exactattn-test-fifo.csv";
    std::filesystem::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string good = EXACTATTN_SOURCE_DIR "/tests/bad/good.json";
    const std::vector<std::vector<std::string>> commands = {
        {"run", fifo.string()},
        {"read", "--memory", "@" + fifo.string(), "--query", "[1]"},
        {"verify", good, fifo.string()},
        // Every reader is the one reader (issue 32): manuscripts and a LaTeX preamble too.
        {"manuscript", "check", fifo.string()},
        {"manuscript", "fill", fifo.string()},
        {"manuscript", "audit", fifo.string()},
        {"run", good, "--format", "latex", "--standalone", "--preamble", fifo.string()},
        // The oracle's tensors too: a FIFO named .csv once failed in file_size ("Operation not
        // supported") and would then have blocked in the read.
        {"oracle", "reference", "--q", fifo.string(), "--k", fifo.string(), "--v", fifo.string()},
    };
    for (const auto& c : commands) {
        std::ostringstream out;
        std::ostringstream err;
        EXPECT_EQ(exactattn::cli::run(c, out, err), 2) << c[0];
        EXPECT_EQ(out.str(), "");
        EXPECT_NE(err.str().find(fifo.string() + ": not a regular file"), std::string::npos) << err.str();
    }
    std::filesystem::remove(fifo);
}

TEST(Files, DevicesAndOversizedManuscriptsAreRefusedUnread) {
    // /dev/zero was read to 1 GiB as a manuscript; a file past max_file_bytes is refused from
    // its size, before it is read.
    for (const std::string command : {"check", "fill", "audit"}) {
        std::ostringstream out;
        std::ostringstream err;
        EXPECT_EQ(exactattn::cli::run(std::vector<std::string>{"manuscript", command, "/dev/zero"}, out, err), 2);
        EXPECT_EQ(out.str(), "");
        EXPECT_NE(err.str().find("/dev/zero: not a regular file"), std::string::npos) << err.str();
    }
    const auto big = std::filesystem::temp_directory_path() / "exactattn-test-big.md";
    {
        std::ofstream f(big, std::ios::binary);
        f << "---\nexactattn-scenario: chapter14\n---\n";
    }
    std::filesystem::resize_file(big, (std::int64_t{1} << 30) + 1);  // sparse: nothing is written
    std::ostringstream out;
    std::ostringstream err;
    EXPECT_EQ(exactattn::cli::run(std::vector<std::string>{"manuscript", "check", big.string()}, out, err), 2);
    EXPECT_EQ(out.str(), "");
    EXPECT_EQ(err.str().rfind("exactattn: " + big.string() + ": ", 0), 0U) << err.str();
    EXPECT_NE(err.str().find("max_file_bytes"), std::string::npos) << err.str();
    std::filesystem::remove(big);
}

TEST(Files, ChapterThatIsNotARegularFileIsRefusedByTheOneReaderAtItsInput) {
    // A FIFO or a directory named by \input was "no such chapter file" although it exists; it
    // is the one reader's refusal now, placed at the \input that names it.
    const auto dir = std::filesystem::temp_directory_path() / "exactattn-test-book";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "part.tex");
    ASSERT_EQ(::mkfifo((dir / "ch.tex").c_str(), 0600), 0);
    const auto main_tex = dir / "main.tex";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"ch", "not a regular file (a FIFO, device or socket is not read, so that nothing can block)"},
        {"part", "it is a directory"},
    };
    for (const auto& [name, why] : cases) {
        {
            std::ofstream f(main_tex, std::ios::binary | std::ios::trunc);
            f << "% exactattn-scenario: chapter14\n\\input{" << name << "}\n";
        }
        std::ostringstream out;
        std::ostringstream err;
        EXPECT_EQ(exactattn::cli::run(std::vector<std::string>{"manuscript", "check", main_tex.string()}, out, err), 2);
        EXPECT_EQ(out.str(), "");
        EXPECT_EQ(err.str(), "exactattn: " + main_tex.string() + ":2:1: \\input{" + name + "}: cannot read " +
                                 (dir / (name + ".tex")).string() + ": " + why + "\n");
    }
    std::filesystem::remove_all(dir);
}
