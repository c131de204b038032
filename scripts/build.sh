#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configures and builds exactattn into build/ (after installing missing packages).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXACTATTN_ASSERTS=ON \
      -DEXACTATTN_BUILD_PYTHON=ON >/dev/null
cmake --build build -j 2
