// SPDX-License-Identifier: MIT
// exactattn: the limits in force: a thread's innermost ScopedLimits, else the process defaults.
#include "exactattn/limits.hpp"

#include <mpfr.h>

namespace exactattn {

namespace {
Limits& process_defaults() {
    static Limits l;
    return l;
}
// The calling thread's innermost ScopedLimits, or null. Thread-local, so two threads (two
// Python calls with the GIL released) each compute under their own limits.
thread_local const Limits* scoped = nullptr;
}  // namespace

const Limits& limits() { return scoped != nullptr ? *scoped : process_defaults(); }
void set_limits(const Limits& l) { process_defaults() = l; }

ScopedLimits::ScopedLimits(const Limits& l) : limits_(l), saved_(scoped) { scoped = &limits_; }
ScopedLimits::~ScopedLimits() { scoped = saved_; }

void release_thread_caches() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }

}  // namespace exactattn
