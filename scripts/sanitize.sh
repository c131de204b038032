#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer, in build-asan/
# (built by scripts/sanitized_build.sh, which scripts/fuzz.sh shares).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/sanitized_build.sh
jobs="${EXACTATTN_JOBS:-2}"
# Any report fails the run: UBSan aborts (-fno-sanitize-recover), ASan and LeakSanitizer exit 1.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir build-asan --output-on-failure -j "$jobs"
