// SPDX-License-Identifier: MIT
// exactattn: the command line tool's entry point; all work happens in the library and app.
#include <iostream>
#include <string>
#include <vector>

#include "app.hpp"

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    return exactattn::cli::run(args, std::cout, std::cerr);
}
