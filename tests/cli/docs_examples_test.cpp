// SPDX-License-Identifier: MIT
// The command-line examples of README.md and docs/*.md still hold: every `$ exactattn ...` line
// in a fenced block is run in-process and its output compared with the lines under it. The
// printed values of those examples are worked by hand next to them (docs/cli.md shows the
// arithmetic), so the docs are the expected values here, not the program's own output.
// In an expected output `...` stands for any text, and runs of whitespace compare equal (the
// docs wrap long lines). An error example documents the stderr line, as a terminal shows it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app.hpp"
#include "support/support.hpp"

namespace {

struct Example {
    std::string where;  // file:line
    std::vector<std::string> args;
    std::string expected;
};

// Splits a shell command line of plain words and '…' / "…" quoted ones (all the docs use).
std::vector<std::string> shell_words(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool in_word = false;
    char quote = 0;
    for (char c : line) {
        if (quote != 0) {
            if (c == quote)
                quote = 0;
            else
                cur += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            in_word = true;
        } else if (c == ' ') {
            if (in_word) out.push_back(cur);
            cur.clear();
            in_word = false;
        } else {
            cur += c;
            in_word = true;
        }
    }
    if (in_word) out.push_back(cur);
    return out;
}

std::string squeeze(const std::string& s) {
    std::string out;
    for (char c : s) {
        const bool space = c == ' ' || c == '\n' || c == '\r' || c == '\t';
        if (space) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += c;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// True when `text` matches `pattern`, in which "..." stands for any text.
bool matches(const std::string& pattern, const std::string& text) {
    std::vector<std::string> parts;
    std::size_t i = 0;
    while (true) {
        const std::size_t j = pattern.find("...", i);
        parts.push_back(pattern.substr(i, j == std::string::npos ? std::string::npos : j - i));
        if (j == std::string::npos) break;
        i = j + 3;
    }
    if (parts.size() == 1) return text == pattern;
    if (text.compare(0, parts.front().size(), parts.front()) != 0) return false;
    std::size_t at = parts.front().size();
    for (std::size_t k = 1; k + 1 < parts.size(); ++k) {
        at = text.find(parts[k], at);
        if (at == std::string::npos) return false;
        at += parts[k].size();
    }
    const std::string& last = parts.back();
    return text.size() >= at + last.size() && text.compare(text.size() - last.size(), last.size(), last) == 0;
}

std::vector<Example> examples_in(const std::filesystem::path& file) {
    std::vector<Example> out;
    std::ifstream in(file);
    std::string line;
    bool fenced = false;
    int number = 0;
    Example* open = nullptr;
    const std::string prompt = "$ exactattn";
    while (std::getline(in, line)) {
        ++number;
        if (line.rfind("```", 0) == 0) {
            fenced = !fenced;
            open = nullptr;
            continue;
        }
        if (!fenced) continue;
        if (line.rfind(prompt, 0) == 0) {
            Example e;
            e.where = file.filename().string() + ":" + std::to_string(number);
            e.args = shell_words(line.substr(prompt.size()));
            out.push_back(std::move(e));
            open = &out.back();
        } else if (line.rfind("$ ", 0) == 0) {
            open = nullptr;  // another program (bash scripts/...): not an exactattn example
        } else if (open != nullptr) {
            open->expected += line + "\n";
        }
    }
    return out;
}

}  // namespace

TEST(DocsExamples, EveryCommandLineExampleHolds) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files = {exactattn::test::source_path("README.md")};
    for (const auto& entry : fs::directory_iterator(exactattn::test::source_path("docs"))) {
        if (entry.path().extension() == ".md") files.push_back(entry.path());
    }
    // The examples are written for a shell in the repository root (`data/examples/…`).
    struct InRoot {
        fs::path old = fs::current_path();
        InRoot() { fs::current_path(exactattn::test::source_path("")); }
        ~InRoot() { fs::current_path(old); }
    } in_root;
    std::size_t count = 0;
    for (const auto& f : files) {
        for (const auto& e : examples_in(f)) {
            SCOPED_TRACE(e.where);
            std::ostringstream out;
            std::ostringstream err;
            const int code = exactattn::cli::run(e.args, out, err);
            // A terminal shows both streams; an error example documents its stderr line.
            const std::string shown = out.str() + err.str();
            EXPECT_TRUE(matches(squeeze(e.expected), squeeze(shown)))
                << "documented:\n"
                << e.expected << "printed (exit " << code << "):\n"
                << shown;
            ++count;
        }
    }
    // README.md and docs/cli.md hold at least the two eval examples, a read and a check.
    EXPECT_GE(count, 4U);
}

TEST(DocsExamples, PatternMatching) {
    EXPECT_TRUE(matches("{\"a\":1,...,\"z\":2}", "{\"a\":1,\"b\":5,\"z\":2}"));
    EXPECT_FALSE(matches("{\"a\":1,...,\"z\":2}", "{\"a\":1,\"b\":5,\"z\":3}"));
    EXPECT_FALSE(matches("x...y...z", "xzy"));
    EXPECT_TRUE(matches("abc", "abc"));
    EXPECT_EQ(squeeze("a\n  b\n"), "a b");
    EXPECT_EQ(shell_words("eval '2^(1/2)' --format \"uni code\""),
              (std::vector<std::string>{"eval", "2^(1/2)", "--format", "uni code"}));
}
