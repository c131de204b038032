// SPDX-License-Identifier: MIT
// exactattn: the out-of-memory reasons and the reserve (exactattn/out_of_memory.hpp).
#include "exactattn/out_of_memory.hpp"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace exactattn {

namespace {

constexpr std::size_t kReserveBytes = std::size_t{64} << 20;
std::atomic<void*> g_reserve{nullptr};
std::new_handler g_previous_handler = nullptr;

void release_reserve_then_fail() {
    if (void* r = g_reserve.exchange(nullptr)) {
        std::free(r);
        throw std::bad_alloc();
    }
    if (g_previous_handler != nullptr) {
        g_previous_handler();  // another extension's handler: it frees memory or throws
        return;
    }
    throw std::bad_alloc();
}

}  // namespace

const char* out_of_memory_reason() {
    return "out of memory: the input needs more memory than this machine has; lower its size (see docs/limits.md)";
}

const char* too_large_reason() {
    return "out of memory: a result is larger than the largest object this machine can hold; lower the input's "
           "size (see docs/limits.md)";
}

void take_memory_reserve() {
    if (g_reserve.load() != nullptr) return;
#ifdef __GLIBC__
    ::malloc_trim(0);
#endif
    void* r = std::malloc(kReserveBytes);
    void* expected = nullptr;
    if (r != nullptr && !g_reserve.compare_exchange_strong(expected, r)) std::free(r);
}

void install_memory_reserve() {
    take_memory_reserve();
    const std::new_handler previous = std::set_new_handler(release_reserve_then_fail);
    if (previous != release_reserve_then_fail) g_previous_handler = previous;  // not installed twice
}

}  // namespace exactattn
