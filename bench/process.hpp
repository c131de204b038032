// SPDX-License-Identifier: MIT
// exactattn benchmark: a command run as a process, its wall time and peak resident set.
#pragma once

#include <string>
#include <vector>

namespace exactattn::bench {

struct ProcessRun {
    double ms = 0;
    int code = -1;
    double maxrss_mib = 0;
};

/// Runs argv (argv[0] a path) with stderr to /dev/null and stdout to /dev/null, or captured
/// into `captured`, or written to the file `stdout_file`; returns wall ms, exit code and the
/// child's ru_maxrss.
ProcessRun run_process(const std::vector<std::string>& args, std::string* captured = nullptr,
                       const std::string& stdout_file = "");

}  // namespace exactattn::bench
