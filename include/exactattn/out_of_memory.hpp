// SPDX-License-Identifier: MIT
// exactattn: running out of memory, one way for every front end (docs/limits.md): the reasons
// printed or raised, and the reserve held back for the way out of an allocation failure.
#pragma once

namespace exactattn {

/// The reason given for a std::bad_alloc: `out of memory: the input needs more memory than this
/// machine has; lower its size (see docs/limits.md)`. The command line prints it as
/// `exactattn: <reason>`, the Python module raises it as an OutOfMemoryError (a LimitError).
[[nodiscard]] const char* out_of_memory_reason();
/// The reason given for a std::length_error (a size no object of this machine can have):
/// `out of memory: a result is larger than the largest object this machine can hold; …`.
[[nodiscard]] const char* too_large_reason();

/// Holds 64 MiB back for the way out of an allocation failure and installs the new-handler
/// that gives it up: destructors that run while a std::bad_alloc unwinds may allocate
/// themselves (nlohmann's JSON destructor keeps a stack of children), and a second bad_alloc
/// there would end the process with std::terminate instead of the one-line error. The first
/// failure frees the reserve and fails as usual (std::bad_alloc); with no reserve left, a
/// new-handler installed before this one (another extension's) is asked, else it fails.
/// Untouched, the reserve costs address space, not resident memory. Calling it again keeps
/// the handler and takes the reserve if it is gone.
void install_memory_reserve();
/// Takes the reserve again after a failure gave it up (a no-op while it is held). Right after
/// the failure the memory the failed work held may not yet be back: glibc's malloc is asked to
/// return what it can first, so that the reserve's address space is there (an RLIMIT_AS cap
/// counts it). The Python module takes it before each call and after each failure.
void take_memory_reserve();

}  // namespace exactattn
