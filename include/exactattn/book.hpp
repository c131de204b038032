// SPDX-License-Identifier: MIT
// exactattn: a whole book of scenario files — collected from directories, run in parallel, and
// reported per file, in total and as JUnit XML for CI systems.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "exactattn/crosscheck.hpp"
#include "exactattn/verify.hpp"

namespace exactattn {

/// The scenario files named by `paths`, in a deterministic order: a directory contributes every
/// regular file below it (recursively) whose name ends in `.json`, sorted by path (byte order);
/// a file (or the built-in `chapter14`) is taken as given, in the order given. A path that does
/// not exist, or a directory without any `.json` file, is a ReferenceError naming it (exit 2).
std::vector<std::string> scenario_files(const std::vector<std::string>& paths);

/// The default number of jobs: the number of cores (std::thread::hardware_concurrency), at
/// least 1.
std::size_t default_jobs();

/// Runs `task(i)` for i in [0, count) on `jobs` threads (a pool of std::thread taking indices in
/// increasing order; jobs ≤ 1 runs them in this thread). Results are the caller's, stored by
/// index, so their order never depends on scheduling. When tasks throw, the exception of the
/// lowest index is rethrown after every started task has finished, and indices above it are not
/// started: the error reported is the one a sequential run would report.
void run_parallel(std::size_t count, std::size_t jobs, const std::function<void(std::size_t)>& task);

/// The JUnit XML report of verified files (the common schema CI systems read: Jenkins, GitLab,
/// GitHub actions): one <testsuite> per file, one <testcase> per expect entry named by its
/// pointer, with the expected and the computed value as properties, and a <failure> when they
/// differ. `suite_name` names the <testsuites> element.
std::string junit_xml(const std::vector<VerifyResult>& results, const std::string& suite_name);

/// The JUnit XML report of cross-checked files: one <testcase> per compared quantity, its exact
/// value as `expected`, the double path's result (shortest round-trip form) as `computed`, and
/// a <failure> when the error exceeds its bound (docs/crosscheck.md).
std::string crosscheck_junit(const std::vector<CrosscheckResult>& results);

}  // namespace exactattn
