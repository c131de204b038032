// SPDX-License-Identifier: MIT
// exactattn command line application, callable in-process (tests drive it directly).
#pragma once

#include <iosfwd>
#include <span>
#include <string>

namespace exactattn::cli {

/// Runs the command line `args` (without the program name). Writes the report to `out` only
/// when the command succeeds (never a partial report), and one line per error to `err`.
/// Returns the exit code of DESIGN.md §4: 0 success, 1 a check failed, 2 invalid input.
int run(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace exactattn::cli
