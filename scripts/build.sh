#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configures exactattn into build/ (after installing missing packages) and builds it: every
# target, or only the targets named (`bash scripts/build.sh exactattn_cli`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXACTATTN_ASSERTS=ON \
      -DEXACTATTN_BUILD_PYTHON=ON -DEXACTATTN_BUILD_BENCH=ON >/dev/null
if [ $# -gt 0 ]; then
  targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build build -j 2 "${targets[@]}"
else
  cmake --build build -j 2
fi
