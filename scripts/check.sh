#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The developers' inner loop: an incremental build of build/ and the tests that need no
# render tools (unit, property, golden, CLI, bad-input corpus, layers, package, SymPy, Python),
# a few minutes on the 2-core development machine once build/ exists. `bash scripts/test.sh`
# runs everything CI runs. Arguments go to ctest: `bash scripts/check.sh -R FieldElem`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j 2 -LE render "$@"
