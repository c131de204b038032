#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite: build, unit/property/golden/CLI tests (ctest), then the book checks
# (verify and crosscheck on every scenario in data/); then the same tests under ASan and UBSan
# (scripts/sanitize.sh) and a bounded fuzzing run (scripts/fuzz.sh, about a minute).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j 2
mapfile -t scenarios < <(find data -name '*.json' ! -name '*.schema.json' | sort)
./build/exactattn verify "${scenarios[@]}"
bash scripts/sanitize.sh
bash scripts/fuzz.sh
