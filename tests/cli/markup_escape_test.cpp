// SPDX-License-Identifier: MIT
// Markdown output escapes what authors and learners write, as HTML and LaTeX output do: a
// title, token, label, read, intervention, layer, figure or rollout name, a student's name or an
// attend label holding <script> or <img onerror=…> is shown as text, never passed into the
// page as raw HTML (CommonMark reads `<` followed by a letter, `/`, `!` or `?` as a tag).
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.hpp"

namespace {

namespace fs = std::filesystem;
using exactattn::test::run;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
        s.replace(at, from.size(), to);
    }
}

// The Markdown outside code spans: inside a span (`…`, ``…``) nothing is markup, so a name is
// shown there literally and safely.
std::string outside_code_spans(const std::string& md) {
    std::string out;
    std::size_t i = 0;
    while (i < md.size()) {
        if (md[i] != '`') {
            out += md[i++];
            continue;
        }
        std::size_t run = 0;
        while (i + run < md.size() && md[i + run] == '`') ++run;
        const std::string fence(run, '`');
        std::size_t close = md.find(fence, i + run);
        // A closing run must be exactly as long (not part of a longer run).
        while (close != std::string::npos && close + run < md.size() && md[close + run] == '`') {
            std::size_t past = close;
            while (past < md.size() && md[past] == '`') ++past;
            close = md.find(fence, past);
        }
        if (close == std::string::npos) {  // no span: the backticks are text
            out += fence;
            i += run;
            continue;
        }
        i = close + run;
        out += "<code span>";  // marks where a span was, for the messages (not a tag: a space)
    }
    return out;
}

// Every raw HTML tag CommonMark would pass through, outside code spans.
std::vector<std::string> raw_tags(const std::string& md) {
    const std::string text = outside_code_spans(md);
    std::vector<std::string> tags;
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != '<') continue;
        const char c = text[i + 1];
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (text.compare(i, 11, "<code span>") == 0) continue;
        if (letter || c == '/' || c == '!' || c == '?') tags.push_back(text.substr(i, 30));
    }
    return tags;
}

fs::path scratch(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("exactattn-markup-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d / name;
}

// A data file with markup put into its title and the names it declares (each replaced
// everywhere it occurs, so references and pointers still agree).
fs::path with_markup(const std::string& data_file, const std::vector<std::pair<std::string, std::string>>& names,
                     const std::string& out_name) {
    auto j = nlohmann::json::parse(slurp(fs::path(EXACTATTN_SOURCE_DIR) / data_file));
    j["title"] = "<script>alert('title')</script> " + j["title"].get<std::string>();
    std::string text = j.dump(2);
    for (const auto& [from, to] : names) replace_all(text, from, to);
    const fs::path p = scratch(out_name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

void expect_no_raw_html(const std::vector<std::string>& args, const std::vector<std::string>& shown) {
    const exactattn::test::Result r = run(args);
    ASSERT_EQ(r.code, 0) << args[0] << ": " << r.err;
    EXPECT_EQ(raw_tags(r.out), std::vector<std::string>{}) << args[0] << " " << args[1];
    // The names are still there, as text.
    for (const auto& s : shown) EXPECT_NE(r.out.find(s), std::string::npos) << s << " in\n" << r.out;
}

}  // namespace

TEST(MarkdownEscape, ReportNamesTokensLabelsAndFiguresAreText) {
    // The chapter: a read, an intervention and a figure named with markup, a token and a label.
    const fs::path chapter = with_markup("data/chapter14/chapter14.json",
                                         {{"example-14.1", "<img src=x onerror=alert(1)>"},
                                          {"table-14.2", "<iframe>t2"},
                                          {"change-the-query", "<svg onload=f>"},
                                          {"红色", "<b>红色"},
                                          {"\"color\"", "\"<i>color\""}},
                                         "chapter.json");
    expect_no_raw_html({"run", chapter.string(), "--format", "markdown"},
                       {"&lt;script&gt;alert('title')&lt;/script&gt;", "&lt;b&gt;红色", "&lt;i&gt;color"});
    expect_no_raw_html({"answers", chapter.string(), "--format", "markdown"}, {"&lt;script&gt;"});
    expect_no_raw_html({"crosscheck", chapter.string(), "--format", "markdown"}, {});
    // Figures linked from a report written to a directory: the image's description too.
    const fs::path dir = scratch("report-dir");
    fs::create_directories(dir);
    ASSERT_EQ(run({"run", chapter.string(), "--format", "markdown", "-o", dir.string()}).code, 0);
    EXPECT_EQ(raw_tags(slurp(dir / "report.md")), std::vector<std::string>{});

    // A rollout named with markup, whose target vocabulary holds the token <s> (an HTML tag:
    // raw, it struck through the rest of the page).
    const fs::path rollout = with_markup("data/chapter14/decoder-rollout.json",
                                         {{"table-14.4", "<script>r"}, {"rollout-heatmap", "<p>h"}}, "rollout.json");
    expect_no_raw_html({"run", rollout.string(), "--format", "markdown"}, {"&lt;s&gt;", "&lt;script&gt;r"});
    expect_no_raw_html({"rollout", rollout.string(), "--format", "markdown"}, {"&lt;s&gt;", "&lt;script&gt;r"});

    // Layers named with markup, over a sequence of tokens with markup.
    const fs::path layer = with_markup(
        "data/examples/self-attention.json",
        {{"\"full\"", "\"<script>full\""}, {"\"cat\"", "\"<img/src=c>\""}, {"causal-weights", "<svg>w"}}, "layer.json");
    expect_no_raw_html({"run", layer.string(), "--format", "markdown"}, {"&lt;img/src=c&gt;", "&lt;script&gt;full"});
    fs::remove_all(chapter.parent_path());
}

TEST(MarkdownEscape, AttendTokensAreText) {
    expect_no_raw_html({"attend", "--x", "[[1,0],[0,1]]", "--wq", "[[1,0],[0,1]]", "--wk", "[[a,0],[0,a]]", "--wv",
                        "[[1,0],[0,1]]", "--tokens", "<script>x <img>", "--format", "markdown"},
                       {"&lt;script&gt;x", "&lt;img&gt;"});
}

TEST(MarkdownEscape, StudentNamesOfAClassAreText) {
    const fs::path csv = scratch("class.csv");
    std::ofstream(csv, std::ios::binary) << "student,target,answer\r\n"
                                            "<script>eve</script>,/reads/example-14.1/weights,\"[1/2,1/4,1/4]\"\r\n";
    const exactattn::test::Result r = run({"check", "chapter14", "--answers", csv.string(), "--format", "markdown"});
    EXPECT_LE(r.code, 1) << r.err;
    EXPECT_EQ(raw_tags(r.out), std::vector<std::string>{});
    EXPECT_NE(r.out.find("&lt;script&gt;eve&lt;/script&gt;"), std::string::npos) << r.out;
    fs::remove_all(csv.parent_path());
}

// A name holding backticks cannot close its code span and continue as Markdown: the crosscheck
// shows each quantity's pointer in a span of two backticks around the name's one.
TEST(MarkdownEscape, CodeSpansOutlastTheBackticksOfTheirText) {
    const fs::path chapter =
        with_markup("data/chapter14/chapter14.json", {{"example-14.1", "`<img src=x onerror=y>`"}}, "ticks.json");
    expect_no_raw_html({"run", chapter.string(), "--format", "markdown"}, {"`&lt;img src=x onerror=y&gt;`"});
    expect_no_raw_html({"crosscheck", chapter.string(), "--format", "markdown"},
                       {"``/reads/`<img src=x onerror=y>`/scores/0``"});
    fs::remove_all(chapter.parent_path());
}
