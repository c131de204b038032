#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite: build, unit/property/golden/CLI tests (ctest), then the book checks
# (verify and crosscheck on every scenario in data/); then the same tests under ASan and UBSan
# (scripts/sanitize.sh) and a bounded fuzzing run (scripts/fuzz.sh, about a minute).
set -euo pipefail
cd "$(dirname "$0")/.."
# --quick: the inner loop only (scripts/check.sh): no render checks, no sanitizers, no fuzzing.
if [ "${1:-}" = --quick ]; then
  shift
  exec bash scripts/check.sh "$@"
fi
export EXACTATTN_WITH_CLANG=1  # the fuzzers need clang++ and its libFuzzer runtime
export EXACTATTN_WITH_RENDER=1  # tests/render: xelatex, a CJK font and Chromium
export EXACTATTN_REQUIRE_TORCH=1  # python/tests/test_oracle.py judges PyTorch: fail, not skip, without it
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j 2
# The whole book in parallel (every *.json below data/), with the JUnit report CI systems show.
./build/exactattn verify data --junit build/verify-junit.xml
xmllint --noout --schema tests/junit/junit.xsd build/verify-junit.xml
./build/exactattn crosscheck data > build/crosscheck.md
grep -E '^(Summary|Dyadic|Result)' build/crosscheck.md
tail -n 1 build/crosscheck.md
bash scripts/sanitize.sh
bash scripts/fuzz.sh
