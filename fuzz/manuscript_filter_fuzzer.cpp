// SPDX-License-Identifier: MIT
// libFuzzer target: what the pandoc filter hands exactattn (share/exactattn/pandoc/exactattn.lua,
// docs/manuscript.md). The filter never passes text: for every input file pandoc names it runs
// `exactattn manuscript check -- FILE` and `exactattn manuscript fill -- FILE`, so exactattn
// reads the file itself (the one input reader), takes its format from the file's ending and its
// scenario from the document (front matter `exactattn-scenario:` or `% exactattn-scenario:`),
// relative to the file. This target does the same from files in memory-backed /dev/shm: the
// first byte's two low bits choose the ending (.md, .qmd, .tex, .markdown); the text is the
// manuscript, optionally followed by a line `--` and a scenario file written beside it as
// `s.json` (a document naming it then brings its own tokens, labels and titles, the values that
// a filled placeholder carries into the page). Any input must finish or be refused with an
// exactattn::Error within the watchdog of scripts/fuzz.sh (fuzz_common.hpp's small limits, one
// work budget per command as the filter's two processes have); and what the filter prints must
// stay one line per wrong claim (a name or a claim holding a newline or ESC cannot forge a line
// of the build's log), and a fill replaces no more placeholders than the text holds.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/manuscript.hpp"
#include "fuzz_common.hpp"

using namespace exactattn;

namespace {

const std::string& work_dir() {
    static const std::string dir = [] {
        std::string d = "/dev/shm/exactattn-filter-fuzz-" + std::to_string(::getpid());
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

void write_file(const std::string& path, std::string_view bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::size_t occurrences(std::string_view text, std::string_view what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::flagged_input(data, size);
    if (!input) return 0;
    static const char* const kEndings[] = {".md", ".qmd", ".tex", ".markdown"};
    const std::string path = work_dir() + "/chapter" + kEndings[input->flags & 3U];
    const std::string scenario = work_dir() + "/s.json";
    std::string_view manuscript = input->text;
    constexpr std::string_view sep = "\n--\n";
    std::error_code ec;
    std::filesystem::remove(scenario, ec);
    if (const std::size_t at = manuscript.find(sep); at != std::string_view::npos) {
        write_file(scenario, manuscript.substr(at + sep.size()));
        manuscript = manuscript.substr(0, at);
    }
    for (const char* ending : kEndings) std::filesystem::remove(work_dir() + "/chapter" + ending, ec);
    write_file(path, manuscript);

    // 1. `exactattn manuscript check -- FILE`: a job of its own.
    try {
        const WorkBudget job;
        const ManuscriptResult r = check_manuscript(path);
        for (const auto& c : r.claims) {
            if (c.line < 1 || c.column < 1) std::abort();  // the filter's file:line:col
            const std::string line = mismatch_line(r.file, c);
            if (line.find('\n') != std::string::npos || line.find('\x1b') != std::string::npos) std::abort();
        }
    } catch (const Error&) {
        // refused with a kind and a place: the filter stops the build with exit 2
    }
    // 2. `exactattn manuscript fill -- FILE`: another job, the file read again.
    try {
        const WorkBudget job;
        const FillResult f = fill_manuscript_text(read_manuscript_file(path), path, manuscript_format(path));
        const std::size_t written = manuscript_format(path) == ManuscriptFormat::Latex
                                        ? occurrences(manuscript, "\\exactvalue")
                                        : occurrences(manuscript, "{{");
        if (f.replaced > written) std::abort();
    } catch (const Error&) {
    }
    return 0;
}
