// SPDX-License-Identifier: MIT
// exactattn internal: a manuscript's scenario, run once, and its report's quantities addressed
// by pointer (an unknown pointer named with the nearest existing ones).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "exactattn/report.hpp"
#include "tools/manuscript/marks.hpp"
#include "report/report_json.hpp"

namespace exactattn::manuscript {

/// A file's identity: its absolute path with every symbolic link and `..` resolved.
std::string path_identity(const std::filesystem::path& p);

/// Whether the identity `path` lies below the folder whose identity is `root`.
bool path_inside(const std::string& path, const std::string& root);

/// The path of the scenario that `src` names (or `override`), resolved against the
/// manuscript's directory; UsageError at the file when it names none, and at its naming when
/// it lies outside the manuscript's directory and the working directory.
std::string scenario_path(const Source& src, const std::string& override_path);

class Quantities {
  public:
    /// Loads and runs the scenario (errors placed at the manuscript's naming of it).
    Quantities(const Source& src, const std::string& override_path);
    /// The report's value at `pointer`; ReferenceError at `where` naming the nearest pointers.
    const detail::Json& at(const std::string& pointer, const Location& where);
    /// Every pointer to a value (scalar leaf, vector, matrix) of the report, for audit.
    std::vector<std::pair<std::string, const detail::Json*>> all_values();
    [[nodiscard]] const std::string& path() const { return path_; }
    /// The run report (the scenario's structure: reads, interventions, costs, exercises).
    [[nodiscard]] const Report& report() const { return *report_; }

  private:
    std::string path_;
    std::unique_ptr<Report> report_;
    std::unique_ptr<detail::ReportJson> doc_;
    detail::Json full_;  ///< the whole tree, built only for audit
};

}  // namespace exactattn::manuscript
