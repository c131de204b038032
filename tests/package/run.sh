#!/usr/bin/env bash
# Installs the built library into a scratch prefix, then builds and runs against it, with
# find_package(exactattn): the consumer project, and every example of docs/cpp.md, whose output
# must be the one the page shows under it.
set -euo pipefail
build_dir=$1
source_dir=$2
python=${3:-python3}
prefix="$build_dir/package-test/prefix"
rm -rf "$build_dir/package-test"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
# Only public headers are installed: no header of src/ (internal) may reach the prefix.
if find "$prefix/include/exactattn" -name '*.hpp' | grep -E '/(fastpath|interval|json|report_json)\.hpp$'; then
  echo "internal headers were installed" >&2
  exit 1
fi
cmake -S "$source_dir/tests/package" -B "$build_dir/package-test/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir/package-test/consumer" >/dev/null
"$build_dir/package-test/consumer/consumer"
examples="$build_dir/package-test/examples"
mkdir -p "$examples"
names=$("$python" "$source_dir/tests/package/doc_examples.py" "$source_dir/docs/cpp.md" "$examples")
cmake -S "$examples" -B "$examples/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$examples/build" -j 2 >/dev/null
for n in $names; do
  if ! "$examples/build/$n" > "$examples/$n.out"; then
    echo "docs/cpp.md: $n exited with $?" >&2
    exit 1
  fi
  if ! diff -u "$examples/$n.txt" "$examples/$n.out" >&2; then
    echo "docs/cpp.md: $n does not print what the page shows" >&2
    exit 1
  fi
done
echo "docs/cpp.md: $(echo $names | wc -w) examples print what the page shows"
