#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The benchmarks (not tests): configures build-bench/ (Release, no asserts, with bench/ and the
# Python module), builds them, and runs the read benchmark of issue 6 (W1-W5), the layer
# benchmark of issue 12 (W6, W7), the end-to-end benchmark of issue 17 (W9, W9g, W10: the
# exactattn command as a process on W1's data written as a memory file), the whole-book
# benchmark of issue 15 (W8: generated scenario files verified with -j 1 and -j 2,
# bench/book_bench.py), the manuscript book (bench/manuscript_bench.py) and the oracle's
# reference against NumPy (bench/oracle_bench.py), then the scaling curve of bench/scaling.py
# (docs/scaling.md, docs/figures/scaling.svg). It starts with the machine's load (uptime).
# Each output ends with one line per workload, e.g.
#   W1: exact/double = 1.05x, peak memory 167 MiB (...)
# Every workload runs under the default limits.
# Extra arguments go to the read benchmark (e.g. --repetitions=9, or Google Benchmark flags);
# EXACTATTN_LAYER_BENCH_ARGS to the layer benchmark (e.g. --repetitions=1), EXACTATTN_E2E_BENCH_ARGS
# to the end-to-end one (e.g. --repetitions=5); EXACTATTN_BOOK_BENCH_REPETITIONS runs of each -j
# for W8 and of the manuscript book (default 5).
# EXACTATTN_BENCH_BUILD=DIR uses the benchmarks already built in DIR instead (the test suite's
# `bench` label runs this script so, with EXACTATTN_BENCH_TINY=1: every benchmark at a tiny
# size, in seconds; docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${EXACTATTN_BENCH_BUILD:-}"
if [ -z "$build" ]; then
  bash scripts/setup.sh
  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXACTATTN_ASSERTS=OFF \
        -DEXACTATTN_BUILD_TESTS=OFF -DEXACTATTN_BUILD_BENCH=ON -DEXACTATTN_BUILD_PYTHON=ON >/dev/null
  cmake --build build-bench -j 2 >&2
  build=build-bench
fi
reps="${EXACTATTN_BOOK_BENCH_REPETITIONS:-5}"
if [ "${EXACTATTN_BENCH_TINY:-}" = 1 ]; then reps=1; fi
echo "machine: $(nproc) cores; load: $(uptime)"
"$build/exactattn_bench" "$@"
# shellcheck disable=SC2086
"$build/exactattn_bench_layer" ${EXACTATTN_LAYER_BENCH_ARGS:-}
# shellcheck disable=SC2086
"$build/exactattn_bench_e2e" ${EXACTATTN_E2E_BENCH_ARGS:-}
python3 bench/book_bench.py "$build/exactattn" "$build" "$reps"
rm -rf "$build/bench-manuscript"
python3 bench/manuscript_bench.py "$build/exactattn" . "$build/bench-manuscript" "$reps"
if [ -d "$build/python/exactattn" ]; then
  PYTHONPATH="$build/python" /usr/bin/python3 bench/oracle_bench.py
else
  echo "oracle: skipped (no Python module in $build)"
fi
# The scaling curve of read, layer, manuscript check and oracle reference (docs/scaling.md and
# docs/figures/scaling.svg; tiny: the three smallest sizes, nothing written).
if [ "${EXACTATTN_BENCH_TINY:-}" = 1 ]; then
  python3 bench/scaling.py "$build/exactattn" "$build/exactattn_bench_layer" "$build/bench-scaling"
else
  python3 bench/scaling.py "$build/exactattn" "$build/exactattn_bench_layer" "$build/bench-scaling" \
    docs/scaling.md docs/figures/scaling.svg
fi
echo "load after: $(uptime)"
