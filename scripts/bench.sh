#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The benchmark of issue 6 (not a test): configures build-bench/ (Release, no asserts, with
# bench/), builds it, and runs it. Its output ends with one line per workload, e.g.
#   W1: exact/double = 1.05x, peak memory 167 MiB (...)
# Extra arguments go to the benchmark (e.g. --repetitions=9, or Google Benchmark flags).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXACTATTN_ASSERTS=OFF \
      -DEXACTATTN_BUILD_TESTS=OFF -DEXACTATTN_BUILD_BENCH=ON >/dev/null
cmake --build build-bench -j 2 >&2
exec ./build-bench/exactattn_bench "$@"
