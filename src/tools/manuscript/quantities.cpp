// SPDX-License-Identifier: MIT
// exactattn: the quantities a manuscript's marks address — its scenario run once, pointers
// resolved through the one report resolver of `verify`.
#include "tools/manuscript/quantities.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "exactattn/scenario.hpp"

namespace exactattn::manuscript {

using detail::Json;

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

// The segments of a pointer as written, ~0 and ~1 left escaped: they are joined again into
// pointers (bind.cpp's segments decode them, to compare with keys).
std::vector<std::string> escaped_segments(const std::string& pointer) {
    std::vector<std::string> out;
    std::size_t from = 1;
    while (from <= pointer.size()) {
        const std::size_t e = pointer.find('/', from);
        out.push_back(pointer.substr(from, e == std::string::npos ? std::string::npos : e - from));
        if (e == std::string::npos) break;
        from = e + 1;
    }
    return out;
}

}  // namespace

std::string path_identity(const std::filesystem::path& p) {
    std::error_code ec;
    const std::filesystem::path c = std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec);
    return c.lexically_normal().string();
}

bool path_inside(const std::string& path, const std::string& root) {
    if (!root.empty() && root.back() == '/') return path.size() > root.size() && path.starts_with(root);
    return path.size() > root.size() && path.starts_with(root) && path[root.size()] == '/';
}

std::string scenario_path(const Source& src, const std::string& override_path) {
    if (!override_path.empty()) return override_path;
    if (src.scenario.empty()) {
        Location where;
        where.file = src.file;
        throw usage_error(
            "names no scenario: add `exactattn-scenario: FILE` to the front matter (Markdown) or a comment "
            "`% exactattn-scenario: FILE` (LaTeX), or give --scenario",
            where);
    }
    if (src.scenario == "chapter14" || src.scenario_inherited) return src.scenario;
    const std::filesystem::path p(src.scenario);
    const std::filesystem::path folder = std::filesystem::path(src.file).parent_path();
    const std::string path = p.is_absolute() ? src.scenario : (folder / p).lexically_normal().string();
    // A manuscript is data: the scenario it names is read only from where the book is, as TeX's
    // openin_any=p confines \input to the working directory.
    const std::string id = path_identity(path);
    const std::filesystem::path root = !src.scenario_root.empty() ? std::filesystem::path(src.scenario_root)
                                       : folder.empty()           ? std::filesystem::path(".")
                                                                  : folder;
    if (!path_inside(id, path_identity(root)) && !path_inside(id, path_identity("."))) {
        throw usage_error(
            fmt::format("exactattn-scenario {}: lies outside the {} and the working "
                        "directory, where a document may name its scenario; give --scenario FILE "
                        "to use it",
                        src.scenario, src.scenario_root.empty() ? "manuscript's folder" : "Quarto project's folder"),
            src.at(src.scenario_at));
    }
    return path;
}

Quantities::Quantities(const Source& src, const std::string& override_path) : path_(scenario_path(src, override_path)) {
    try {
        report_ = std::make_unique<Report>(run_scenario(load_scenario(path_), ReportUse::Values));
    } catch (const Error& e) {
        if (!override_path.empty()) throw;
        const Location named = src.at(src.scenario_at);
        throw Error(e.kind(), named, fmt::format("exactattn-scenario {}: {}", src.scenario, e.what()));
    }
    doc_ = std::make_unique<detail::ReportJson>(*report_);
}

const Json& Quantities::at(const std::string& pointer, const Location& where) {
    try {
        return doc_->at(pointer, where);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Reference || pointer.empty() || pointer[0] != '/') throw;
    }
    // The longest prefix that exists, then its children nearest to the missing segment.
    const auto segs = escaped_segments(pointer);
    std::string prefix;
    const Json* node = nullptr;
    std::size_t k = 0;
    for (; k < segs.size(); ++k) {
        const std::string next = prefix + "/" + segs[k];
        try {
            node = &doc_->at(next, where);
        } catch (const Error&) {
            break;
        }
        prefix = next;
    }
    if (node == nullptr) {  // the first segment is unknown: the report's top-level keys
        if (full_.is_null()) full_ = detail::report_to_json(*report_);
        node = &full_;
    }
    std::vector<std::pair<std::size_t, std::string>> near;
    if (node->is_object()) {
        for (const auto& [key, value] : node->items())
            near.emplace_back(edit_distance(key, segs[k]), prefix + "/" + key);
    } else if (node->is_array()) {
        for (std::size_t i = 0; i < node->size() && i < 1000; ++i) {
            near.emplace_back(edit_distance(std::to_string(i), segs[k]), prefix + "/" + std::to_string(i));
        }
    }
    std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string names;
    for (std::size_t i = 0; i < near.size() && i < 3; ++i) names += (i ? ", " : "") + near[i].second;
    throw reference_error(fmt::format("{}: no such quantity in {}{}", pointer, path_,
                                      names.empty() ? std::string() : "; nearest: " + names),
                          where);
}

std::vector<std::pair<std::string, const Json*>> Quantities::all_values() {
    if (full_.is_null()) full_ = detail::report_to_json(*report_);
    std::vector<std::pair<std::string, const Json*>> out;
    auto walk = [&out](const Json& j, const std::string& at, auto& self) -> void {
        if (j.is_object()) {
            for (const auto& [key, value] : j.items()) {
                std::string k = key;
                for (std::size_t p = k.find('~'); p != std::string::npos; p = k.find('~', p + 2)) k.replace(p, 1, "~0");
                for (std::size_t p = k.find('/'); p != std::string::npos; p = k.find('/', p + 2)) k.replace(p, 1, "~1");
                self(value, at + "/" + k, self);
            }
            return;
        }
        if (j.is_array() || j.is_string() || j.is_number_integer()) out.emplace_back(at, &j);
        if (j.is_array()) {
            for (std::size_t i = 0; i < j.size(); ++i) self(j[i], at + "/" + std::to_string(i), self);
        }
    };
    walk(full_, "", walk);
    return out;
}

}  // namespace exactattn::manuscript
