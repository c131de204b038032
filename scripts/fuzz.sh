#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets with Clang in build-asan/ (scripts/sanitized_build.sh: the same
# build as the sanitizer run, so the library is compiled once for both) and runs each for a bounded time
# (EXACTATTN_FUZZ_SECONDS, default 10: eight targets, two at a time (EXACTATTN_JOBS), about 45 s)
# from its seed corpus in fuzz/corpus/<target>/.
# New inputs go to build-asan/corpus/<target>/ (the committed seeds are never rewritten); a
# crash leaves its input in build-asan/artifacts/ and fails the run. A resource watchdog catches
# the classes of issue 10: an input running over 2 s (-timeout), a process over 1 GiB
# (-rss_limit_mb) or one allocation over 256 MiB (-malloc_limit_mb) is a finding too; the
# targets run under the small limits of fuzz/fuzz_common.hpp, where every input takes
# milliseconds, so none of them is legitimate.
# Clang and its libFuzzer runtime are not part of the default install: without them this
# script says so and exits 0, and EXACTATTN_WITH_CLANG=1 installs them (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
seconds="${EXACTATTN_FUZZ_SECONDS:-10}"
jobs="${EXACTATTN_JOBS:-2}"
bash scripts/sanitized_build.sh
if ! ls build-asan/fuzz/*_fuzzer >/dev/null 2>&1; then
  echo "fuzz: skipped: clang++ with libFuzzer not found (EXACTATTN_WITH_CLANG=1 bash scripts/setup.sh installs it)" >&2
  exit 0
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p build-asan/artifacts
# One target: its own corpus, log and artifacts; on a finding, the log's tail and exit 1.
run_fuzzer() {
  local fuzzer="$1" target status=0
  target="$(basename "$fuzzer" _fuzzer)"
  mkdir -p "build-asan/corpus/$target"
  echo "fuzz: $target for ${seconds}s" >&2
  "$fuzzer" "build-asan/corpus/$target" "fuzz/corpus/$target" \
    -max_total_time="$seconds" -timeout=2 -rss_limit_mb=1024 -malloc_limit_mb=256 -max_len=2048 \
    -artifact_prefix="build-asan/artifacts/${target}-" -print_final_stats=1 \
    >"build-asan/$target.log" 2>&1 || status=$?
  grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "build-asan/$target.log" | sed "s/^/fuzz: $target: /" >&2 || true
  if [ "$status" != 0 ]; then
    tail -n 60 "build-asan/$target.log" >&2
    echo "fuzz: $target found a failure; its input is in build-asan/artifacts/" >&2
    return 1
  fi
}
export -f run_fuzzer
export seconds
# Every target fuzz/CMakeLists.txt builds (its list is the one home of the fuzzers' names), $jobs
# at a time: each is one process on one core for its $seconds, so two cores run two side by side
# (docs/testing.md, "Build and suite time"). xargs exits non-zero when any of them failed.
printf '%s\n' build-asan/fuzz/*_fuzzer | xargs -P "$jobs" -n 1 bash -c 'run_fuzzer "$1"' run_fuzzer || exit 1
