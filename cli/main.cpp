// SPDX-License-Identifier: MIT
// exactattn: the command line tool's entry point; all work happens in the library and app.
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "app.hpp"
#include "exactattn/limits.hpp"

namespace {

// Memory held back for the way out of an allocation failure: destructors that run while a
// std::bad_alloc unwinds may allocate themselves (nlohmann's JSON destructor keeps a stack of
// children), and a second bad_alloc there would end the process with std::terminate instead
// of the one-line error. The first failure releases the reserve, then fails as usual.
void* reserve = nullptr;

constexpr char kOutOfMemory[] =
    "exactattn: out of memory: the input needs more memory than this machine has; lower its size "
    "(see docs/limits.md)\n";

void release_reserve_then_fail() {
    if (reserve != nullptr) {
        std::free(reserve);
        reserve = nullptr;
    }
    throw std::bad_alloc();
}

// A std::bad_alloc that unwinds into a noexcept function (a destructor that allocates) ends
// in std::terminate; it is still an allocation failure, reported as one: the one line, exit
// 2. Nothing has been written to standard output or to the -o file at that point (output
// is delivered only after the command succeeded). Any other terminate stays a crash.
[[noreturn]] void on_terminate() {
    if (const auto e = std::current_exception()) {
        try {
            std::rethrow_exception(e);
        } catch (const std::bad_alloc&) {
            [[maybe_unused]] const auto w = ::write(2, kOutOfMemory, sizeof kOutOfMemory - 1);
            ::_exit(2);
        } catch (...) {
        }
    }
    std::abort();
}

}  // namespace

int main(int argc, char** argv) {
    reserve = std::malloc(std::size_t{64} << 20);
    std::set_new_handler(release_reserve_then_fail);
    std::set_terminate(on_terminate);
    exactattn::use_throwing_gmp_allocator();  // GMP's own failures: the same one line, not abort
    std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    return exactattn::cli::run(args, std::cout, std::cerr);
}
