#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every C++ file of the project is formatted as .clang-format says: lists the files that are
# not and exits 1 (format them with `clang-format -i FILE`). One clang-format process checks every
# file (a process a file took 39 s on an idle machine and timed out on a loaded one).
set -euo pipefail
cd "$1"
clang_format=${2:-clang-format}
mapfile -t files < <(find src include cli python/src tests bench fuzz -name '*.cpp' -o -name '*.hpp' | sort)
# --dry-run --Werror reports each unformatted place as `FILE:LINE:COL: error: code should be
# clang-formatted`; the status says whether there was any.
if report=$("$clang_format" --dry-run --Werror "${files[@]}" 2>&1); then
  echo "${#files[@]} files formatted as .clang-format says"
  exit 0
fi
mapfile -t bad < <(printf '%s\n' "$report" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [ ${#bad[@]} -eq 0 ]; then
  printf '%s\n' "$report" >&2
  echo "clang-format failed without naming a file" >&2
  exit 1
fi
for f in "${bad[@]}"; do echo "$f: not formatted as .clang-format says (clang-format -i $f)"; done
exit 1
