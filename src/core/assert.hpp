// SPDX-License-Identifier: MIT
// exactattn: the internal invariant check, EXACTATTN_ASSERT (not installed: the library's own
// code checks its invariants; a user of the headers has no use for the macro).
#pragma once

/// Internal invariant check (SymEngine's SYMENGINE_ASSERT): on when EXACTATTN_ASSERTS is
/// defined (the tests build with it), off otherwise. It aborts with file, function and line.
#ifdef EXACTATTN_ASSERTS
#define EXACTATTN_ASSERT(cond)                                                                \
    do {                                                                                      \
        if (!(cond)) ::exactattn::detail::assert_failed(#cond, __FILE__, __LINE__, __func__); \
    } while (0)
#else
#define EXACTATTN_ASSERT(cond) \
    do {                       \
    } while (0)
#endif

namespace exactattn::detail {
[[noreturn]] void assert_failed(const char* cond, const char* file, int line, const char* func);
}
