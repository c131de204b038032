// SPDX-License-Identifier: MIT
// exactattn command line application, callable in-process (tests drive it directly).
#pragma once

#include <iosfwd>
#include <optional>
#include <span>
#include <string>

#include "exactattn/error.hpp"

namespace exactattn::cli {

/// Runs the command line `args` (without the program name). Writes the report to `out` only
/// when the command succeeds (never a partial report), and one line per error to `err`.
/// Returns the exit code of docs/cli.md: 0 success, 1 a check failed, 2 invalid input.
int run(std::span<const std::string> args, std::ostream& out, std::ostream& err);

/// As run(), and sets `*kind` to the error kind when the command failed with an error
/// (command line usage errors are ErrorKind::Usage). Tests use it to assert error classes.
int run(std::span<const std::string> args, std::ostream& out, std::ostream& err, std::optional<ErrorKind>* kind);

}  // namespace exactattn::cli
