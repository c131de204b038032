// SPDX-License-Identifier: MIT
// exactattn: `manuscript check` — every marked claim of a manuscript against its scenario's
// report, the scenario run once per file.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "tools/manuscript/claims.hpp"
#include "exactattn/book.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/manuscript.hpp"
#include "exactattn/scenario.hpp"
#include "tools/manuscript/marks.hpp"
#include "tools/manuscript/quantities.hpp"

namespace exactattn {

namespace fs = std::filesystem;

std::size_t ManuscriptResult::wrong() const {
    return static_cast<std::size_t>(
        std::count_if(claims.begin(), claims.end(), [](const auto& c) { return !c.passed; }));
}

namespace {

const ManuscriptExtension* extension_of(const std::string& path) {
    const std::string ext = fs::path(path).extension().string();
    for (const auto& e : kManuscriptExtensions) {
        if (e.extension == ext) return &e;
    }
    return nullptr;
}

}  // namespace

std::string manuscript_patterns() {
    std::string out;
    for (const auto& e : kManuscriptExtensions) out += fmt::format("{}*{}", out.empty() ? "" : ", ", e.extension);
    return out;
}

ManuscriptFormat manuscript_format(const std::string& path) {
    const auto* e = extension_of(path);
    return e == nullptr ? ManuscriptFormat::Markdown : e->format;
}

std::string read_manuscript_file(const std::string& path) { return read_input_file(path); }

ManuscriptResult check_manuscript_text(std::string_view text, const std::string& file, ManuscriptFormat format,
                                       const ManuscriptOptions& options) {
    manuscript::Source src = manuscript::prepare(text, file, format);
    manuscript::inherit_scenario(src, options.inherited_scenario);
    const auto marks = manuscript::find_marks(src);
    manuscript::Quantities q(src, options.scenario);
    ManuscriptResult r;
    r.file = file;
    r.scenario = q.path();
    for (const auto& m : marks) {
        Location where = src.at(m.begin);
        if (!charge_work(manuscript::kWorkPerMark)) {
            throw over_work(manuscript::kWorkPerMark, "checking a mark").located(where);
        }
        const auto& target = q.at(m.pointer, where);
        ClaimVerdict v;
        v.line = where.line;
        v.column = where.column;
        v.pointer = m.pointer;
        v.written = m.written;
        v.exact = manuscript::quantity_text(target);
        try {
            const auto j = manuscript::judge_claim(m.written, target);
            v.passed = j.passed;
            v.detail = j.detail;
        } catch (const Error& e) {
            // A written value that is no value is a claim that does not hold, reported at its place
            // like a wrong one; it does not hide the other marks of the manuscript. What is refused
            // as input (a claim nested past any need, a work limit) stays bad input, placed.
            if (e.kind() != ErrorKind::Parse || manuscript::nests_too_deep(m.written)) {
                where.pointer = m.pointer;
                throw Error(e.kind(), where, e.reason());
            }
            v.passed = false;
            v.detail = e.reason();
        }
        r.claims.push_back(std::move(v));
    }
    return r;
}

ManuscriptResult check_manuscript(const std::string& path, const ManuscriptOptions& options) {
    return check_manuscript_text(read_manuscript_file(path), path, manuscript_format(path), options);
}

std::vector<std::string> manuscript_files(const std::vector<std::string>& paths, bool only_named) {
    std::vector<std::string> out;
    for (const auto& p : paths) {
        Location where;
        where.file = p;
        std::error_code ec;
        if (!fs::exists(p, ec)) throw reference_error("no such file or directory", where);
        if (!fs::is_directory(p, ec)) {
            out.push_back(p);
            continue;
        }
        std::vector<std::string> found;
        for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
            if (!it->is_regular_file(ec) || extension_of(it->path().string()) == nullptr) continue;
            if (only_named &&
                read_manuscript_file(it->path().string()).find("exactattn-scenario:") == std::string::npos) {
                continue;
            }
            found.push_back(it->path().string());
        }
        std::sort(found.begin(), found.end());
        out.insert(out.end(), found.begin(), found.end());
    }
    return out;
}

namespace {

// The scenario a LaTeX file passes to the chapters it includes: its own (as a path that does not
// depend on the chapter's directory), else the one it inherited.
std::string passed_scenario(const manuscript::Source& src, const std::string& inherited) {
    if (src.scenario.empty()) return inherited;
    const std::string path = manuscript::scenario_path(src, "");  // refused here if outside the book
    if (path == "chapter14") return path;
    std::error_code ec;
    return fs::absolute(path, ec).lexically_normal().string();
}

// The Quarto project a directory's `_metadata.yml` belongs to: the nearest folder at or above it
// holding `_quarto.yml` (or `_quarto.yaml`), as Quarto finds a document's project; empty if none.
std::string quarto_project_of(const std::string& file) {
    std::error_code ec;
    fs::path dir = fs::absolute(fs::path(file), ec).lexically_normal().parent_path();
    for (; !dir.empty(); dir = dir.parent_path()) {
        if (fs::is_regular_file(dir / "_quarto.yml", ec) || fs::is_regular_file(dir / "_quarto.yaml", ec)) {
            return dir.string();
        }
        if (dir == dir.root_path()) break;
    }
    return "";
}

// The file `--scenario-from` names, prepared: a manuscript, or a book's project file (_quarto.yml,
// a Quarto directory's _metadata.yml, myst.yml), which is YAML, not a manuscript: prepared only to
// be placed (its lines and columns), then read as YAML. A _metadata.yml's scenario is resolved
// against its own folder, as Quarto resolves its paths, and confined to its project's folder.
manuscript::Source scenario_source(const std::string& file) {
    const std::string name = fs::path(file).filename().string();
    const bool project = file.ends_with(".yml") || file.ends_with(".yaml");
    manuscript::Source src = manuscript::prepare(read_manuscript_file(file), file,
                                                 project ? ManuscriptFormat::Latex : manuscript_format(file));
    if (project) manuscript::read_project_file(src, name == "myst.yml" || name == "myst.yaml");
    if (name == "_metadata.yml" || name == "_metadata.yaml") src.scenario_root = quarto_project_of(file);
    return src;
}

}  // namespace

bool names_scenario(const std::string& file) { return !scenario_source(file).scenario.empty(); }

std::string inheritable_scenario(const std::string& file) {
    const manuscript::Source src = scenario_source(file);
    if (src.scenario.empty()) {
        Location where;
        where.file = file;
        throw usage_error(
            "names no scenario, and --scenario-from names it as the one its book's files inherit: add "
            "`exactattn-scenario: FILE` to its front matter (Markdown) or a comment `% exactattn-scenario: FILE` "
            "(LaTeX)",
            where);
    }
    return passed_scenario(src, "");
}

namespace {

struct BookWalk {
    std::vector<BookFile> out;
    std::vector<std::string> seen;   // identities of the files listed
    std::vector<std::string> stack;  // identities of the files being walked (a cycle)

    // `base`: the directory of the book's main file, against which TeX resolves every \\input (latexmk
    // runs in it); `root`: the same with its links resolved, outside which nothing is read.
    void walk(const std::string& file, const std::string& inherited, const fs::path& base, const std::string& root,
              int depth) {
        out.push_back({file, inherited});
        if (manuscript_format(file) != ManuscriptFormat::Latex) return;
        const manuscript::Source src = manuscript::prepare(read_manuscript_file(file), file, ManuscriptFormat::Latex);
        const std::string scenario = passed_scenario(src, inherited);
        const std::string_view s(src.scan);
        stack.push_back(manuscript::path_identity(file));
        for (std::size_t k = s.find('\\'); k != std::string_view::npos; k = s.find('\\', k + 1)) {
            const bool include = s.compare(k, 8, "\\include") == 0 &&
                                 (k + 8 >= s.size() || !std::isalpha(static_cast<unsigned char>(s[k + 8])));
            const bool input = s.compare(k, 6, "\\input") == 0 &&
                               (k + 6 >= s.size() || !std::isalpha(static_cast<unsigned char>(s[k + 6])));
            if (!include && !input) continue;
            std::size_t open = k + (include ? 8 : 6);
            while (open < s.size() && (s[open] == ' ' || s[open] == '\t')) ++open;
            if (open >= s.size() || s[open] != '{') continue;  // `\input file`: TeX's form, not a chapter
            const std::size_t close = s.find('}', open);
            if (close == std::string_view::npos) continue;
            const std::string name = manuscript::trim(s.substr(open + 1, close - open - 1));
            const Location where = src.at(k);
            const std::string command = fmt::format("\\{}{{{}}}", include ? "include" : "input", name);
            fs::path target = base / name;
            if (!target.has_extension()) target += ".tex";
            const std::string ext = target.extension().string();
            if (ext != ".tex" && ext != ".ltx") continue;  // a table or figure's data, not prose
            target = target.lexically_normal();
            const std::string id = manuscript::path_identity(target);
            if (fs::path(name).is_absolute() || !manuscript::path_inside(id, root)) {
                throw usage_error(
                    fmt::format("{}: the chapter is outside the book's directory {}; a book's chapters are "
                                "read only from inside it",
                                command, root),
                    where);
            }
            std::error_code ec;
            if (!fs::exists(target, ec)) {
                throw usage_error(fmt::format("{}: no such chapter file {}", command, target.string()), where);
            }
            if (!fs::is_regular_file(target, ec)) {
                // A FIFO, device or directory named as a chapter: the one reader's refusal (it
                // opens without blocking and reads nothing), placed at the command.
                try {
                    (void)read_manuscript_file(target.string());
                } catch (const Error& e) {
                    throw Error(e.kind(), where, fmt::format("{}: {}", command, e.reason()));
                }
            }
            if (std::find(stack.begin(), stack.end(), id) != stack.end()) {
                throw usage_error(fmt::format("{}: the chapter includes itself", command), where);
            }
            if (depth >= 32) throw usage_error(fmt::format("{}: chapters nest more than 32 deep", command), where);
            if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
            seen.push_back(id);
            walk(target.string(), scenario, base, root, depth + 1);
        }
        stack.pop_back();
    }
};

}  // namespace

std::vector<BookFile> book_files(const std::vector<std::string>& files) {
    BookWalk w;
    for (const auto& f : files) w.seen.push_back(manuscript::path_identity(f));
    for (const auto& f : files) {
        const fs::path base = fs::path(f).parent_path();
        w.walk(f, "", base, manuscript::path_identity(base.empty() ? fs::path(".") : base), 0);
    }
    return w.out;
}

std::string mismatch_message(const ClaimVerdict& v) {
    return escape_controls(fmt::format("{}: written {}, exact {}{}", v.pointer, v.written, v.exact,
                                       v.detail.empty() ? std::string() : " (" + v.detail + ")"));
}

std::string mismatch_line(const std::string& file, const ClaimVerdict& v) {
    // One line whatever the file's name or the claim hold (a newline, ESC: shown as <U+000A>).
    return escape_controls(fmt::format("{}:{}:{}: ", file, v.line, v.column)) + mismatch_message(v);
}

std::string manuscript_junit(const std::vector<ManuscriptResult>& results) {
    std::vector<VerifyResult> suites;
    for (const auto& r : results) {
        VerifyResult v;
        v.file = r.file;
        for (const auto& c : r.claims) {
            v.entries.push_back(
                Checked{fmt::format("{}:{} {}", c.line, c.column, c.pointer), c.written, c.exact, c.passed});
        }
        suites.push_back(std::move(v));
    }
    return junit_xml(suites, "exactattn manuscript check");
}

}  // namespace exactattn
