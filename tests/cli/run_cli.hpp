// SPDX-License-Identifier: MIT
// The command line driven in-process: exit code, stdout and stderr of one invocation.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "app.hpp"

namespace exactattn::test {

struct Result {
    int code = -1;
    std::string out;
    std::string err;
};

inline Result run(std::vector<std::string> args) {
    std::ostringstream out;
    std::ostringstream err;
    Result r;
    r.code = exactattn::cli::run(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

}  // namespace exactattn::test
