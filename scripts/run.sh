#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: build, then run exactattn on the built-in Chapter 14 scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >&2
exec ./build/exactattn "$@"
