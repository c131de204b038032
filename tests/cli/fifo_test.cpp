// SPDX-License-Identifier: MIT
// Files that are not regular files are refused without blocking (issue 10): `run FIFO`,
// `read --memory @FIFO` and `verify good.json FIFO` once blocked forever in open().
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "app.hpp"

TEST(Files, FifoIsRefusedWithoutBlocking) {
    const auto fifo = std::filesystem::temp_directory_path() / "exactattn-test.fifo";
    std::filesystem::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string good = EXACTATTN_SOURCE_DIR "/tests/bad/good.json";
    const std::vector<std::vector<std::string>> commands = {
        {"run", fifo.string()},
        {"read", "--memory", "@" + fifo.string(), "--query", "[1]"},
        {"verify", good, fifo.string()},
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
