#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: build the command line tool (only it: not the tests, not the Python module),
# then run exactattn on the built-in Chapter 14 scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh exactattn_cli >&2
exec ./build/exactattn "$@"
