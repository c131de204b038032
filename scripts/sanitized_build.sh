#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configures and builds build-asan/: the library, the command line tool and the tests under
# AddressSanitizer and UndefinedBehaviorSanitizer at -O1 (what the sanitizers recommend: it
# compiles faster than -O3 and keeps stacks readable; -g1 keeps the file and line of every frame
# of a report without the cost of full debug information). With clang++ and its libFuzzer runtime
# (EXACTATTN_WITH_CLANG=1 bash scripts/setup.sh) the same build also holds the libFuzzer targets
# of fuzz/, so the library is compiled once for both scripts/sanitize.sh and scripts/fuzz.sh;
# without them it is built with the default compiler and has no fuzzers.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs="${EXACTATTN_JOBS:-2}"
cxx="${EXACTATTN_FUZZ_CXX:-clang++}"
fuzz=(-DEXACTATTN_BUILD_FUZZ=OFF)
if command -v "$cxx" >/dev/null &&
   echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
     "$cxx" -x c++ -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
  export CXX="$cxx"
  fuzz=(-DEXACTATTN_BUILD_FUZZ=ON)
fi
# A build directory configured with another compiler cannot switch: start it afresh.
if [ -f build-asan/CMakeCache.txt ] && [ -n "${CXX:-}" ] &&
   ! grep -q "^CMAKE_CXX_COMPILER:.*$(command -v "$CXX")" build-asan/CMakeCache.txt; then
  rm -rf build-asan
fi
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1" \
      -DEXACTATTN_SANITIZE=ON -DEXACTATTN_ASSERTS=ON -DEXACTATTN_INSTALL=OFF "${fuzz[@]}" >/dev/null
cmake --build build-asan -j "$jobs"
