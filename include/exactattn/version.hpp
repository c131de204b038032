// SPDX-License-Identifier: MIT
// exactattn: the library's version. The one place it is written: CMakeLists.txt reads the
// project version from these lines, so the package, `exactattn --version` and this header agree.
#pragma once

#define EXACTATTN_VERSION_MAJOR 0
#define EXACTATTN_VERSION_MINOR 1
#define EXACTATTN_VERSION_PATCH 0
/// MAJOR·10000 + MINOR·100 + PATCH, for comparisons in the preprocessor (as FMT_VERSION).
#define EXACTATTN_VERSION (EXACTATTN_VERSION_MAJOR * 10000 + EXACTATTN_VERSION_MINOR * 100 + EXACTATTN_VERSION_PATCH)

#define EXACTATTN_VERSION_STRINGIFY_(x) #x
#define EXACTATTN_VERSION_STRINGIFY(x) EXACTATTN_VERSION_STRINGIFY_(x)
/// "MAJOR.MINOR.PATCH" as a string literal.
#define EXACTATTN_VERSION_STRING                         \
    EXACTATTN_VERSION_STRINGIFY(EXACTATTN_VERSION_MAJOR) \
    "." EXACTATTN_VERSION_STRINGIFY(EXACTATTN_VERSION_MINOR) "." EXACTATTN_VERSION_STRINGIFY(EXACTATTN_VERSION_PATCH)
