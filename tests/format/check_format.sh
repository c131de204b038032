#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every C++ file of the project is formatted as .clang-format says: lists the files that are
# not and exits 1 (format them with `clang-format -i FILE`).
set -euo pipefail
cd "$1"
clang_format=${2:-clang-format}
mapfile -t files < <(find src include cli python/src tests bench fuzz -name '*.cpp' -o -name '*.hpp' | sort)
bad=()
for f in "${files[@]}"; do
  if ! "$clang_format" --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ ${#bad[@]} -gt 0 ]; then
  for f in "${bad[@]}"; do echo "$f: not formatted as .clang-format says (clang-format -i $f)"; done
  exit 1
fi
echo "${#files[@]} files formatted as .clang-format says"
