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
    const manuscript::Source src = manuscript::prepare(text, file, format);
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
            where.pointer = m.pointer;
            throw Error(e.kind(), where, e.reason());
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

std::string mismatch_line(const std::string& file, const ClaimVerdict& v) {
    // One line whatever the file's name or the claim hold (a newline, ESC: shown as <U+000A>).
    return escape_controls(fmt::format("{}:{}:{}: {}: written {}, exact {}{}", file, v.line, v.column, v.pointer,
                                       v.written, v.exact, v.detail.empty() ? std::string() : " (" + v.detail + ")"));
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
