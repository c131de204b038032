#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The benchmarks (not tests): configures build-bench/ (Release, no asserts, with bench/), builds
# them, and runs the read benchmark of issue 6 (W1-W5), the layer benchmark of issue 12
# (W6, W7), the end-to-end benchmark of issue 17 (W9, W9g, W10: the exactattn command as a process on
# W1's data written as a memory file), then the whole-book benchmark of issue 15 (W8: 1000
# generated scenario files verified with -j 1 and -j 2, bench/book_bench.py). Each output ends
# with one line per workload, e.g.
#   W1: exact/double = 1.05x, peak memory 167 MiB (...)
# Extra arguments go to the read benchmark (e.g. --repetitions=9, or Google Benchmark flags);
# EXACTATTN_LAYER_BENCH_ARGS to the layer benchmark (e.g. --repetitions=1), EXACTATTN_E2E_BENCH_ARGS
# to the end-to-end one (e.g. --repetitions=5); EXACTATTN_BOOK_BENCH_REPETITIONS runs of each -j
# for W8 (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXACTATTN_ASSERTS=OFF \
      -DEXACTATTN_BUILD_TESTS=OFF -DEXACTATTN_BUILD_BENCH=ON >/dev/null
cmake --build build-bench -j 2 >&2
./build-bench/exactattn_bench "$@"
# shellcheck disable=SC2086
./build-bench/exactattn_bench_layer ${EXACTATTN_LAYER_BENCH_ARGS:-}
# shellcheck disable=SC2086
./build-bench/exactattn_bench_e2e ${EXACTATTN_E2E_BENCH_ARGS:-}
exec python3 bench/book_bench.py ./build-bench/exactattn build-bench ${EXACTATTN_BOOK_BENCH_REPETITIONS:-5}
