// SPDX-License-Identifier: MIT
// exactattn: the command line tool's entry point; all work happens in the library and app.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "app.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/out_of_memory.hpp"

namespace {

// A std::bad_alloc that unwinds into a noexcept function (a destructor that allocates) ends
// in std::terminate; it is still an allocation failure, reported as one: the one line, exit
// 2. Nothing has been written to standard output or to the -o file at that point (output
// is delivered only after the command succeeded). Any other terminate stays a crash.
[[noreturn]] void on_terminate() {
    if (const auto e = std::current_exception()) {
        try {
            std::rethrow_exception(e);
        } catch (const std::bad_alloc&) {
            // The one line of cli/app.cpp's report, written without allocating.
            const char* reason = exactattn::out_of_memory_reason();
            [[maybe_unused]] auto w = ::write(2, "exactattn: ", 11);
            w = ::write(2, reason, std::strlen(reason));
            w = ::write(2, "\n", 1);
            ::_exit(2);
        } catch (...) {
        }
    }
    std::abort();
}

}  // namespace

int main(int argc, char** argv) {
    exactattn::install_memory_reserve();  // the way out of an allocation failure stays open
    std::set_terminate(on_terminate);
    exactattn::use_throwing_gmp_allocator();  // GMP's own failures: the same one line, not abort
    std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    return exactattn::cli::run(args, std::cout, std::cerr);
}
