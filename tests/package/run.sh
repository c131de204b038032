#!/usr/bin/env bash
# Installs the built library into a scratch prefix and builds and runs a find_package consumer.
set -euo pipefail
build_dir=$1
source_dir=$2
prefix="$build_dir/package-test/prefix"
rm -rf "$build_dir/package-test"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
cmake -S "$source_dir/tests/package" -B "$build_dir/package-test/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir/package-test/consumer" >/dev/null
"$build_dir/package-test/consumer/consumer"
