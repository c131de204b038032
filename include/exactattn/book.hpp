// SPDX-License-Identifier: MIT
// exactattn: a whole book of scenario files reported as JUnit XML for CI systems (the command
// line collects the files and runs them in parallel).
#pragma once

#include <string>
#include <vector>

#include "exactattn/crosscheck.hpp"
#include "exactattn/verify.hpp"

namespace exactattn {

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
