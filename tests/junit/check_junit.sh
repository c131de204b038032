#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify and crosscheck over directories: -j N gives the same bytes as -j 1, and --junit writes
# a report that xmllint validates against tests/junit/junit.xsd, with one <testcase> per expect
# entry and a <failure> for each mismatch.
# Usage: check_junit.sh EXACTATTN SOURCE_DIR WORK_DIR
set -euo pipefail
exe=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work/book/part/deeper"
fail() { echo "check_junit: $*" >&2; exit 1; }
validate() { xmllint --noout --schema "$src/tests/junit/junit.xsd" "$1" || fail "$1 does not validate"; }

# The whole of data/, in parallel and alone: same output, same report, both valid.
"$exe" verify "$src/data" -j 2 --junit "$work/j2.xml" > "$work/j2.txt"
"$exe" verify "$src/data" -j 1 --junit "$work/j1.xml" > "$work/j1.txt"
cmp "$work/j1.txt" "$work/j2.txt" || fail "verify -j 1 and -j 2 print differently"
cmp "$work/j1.xml" "$work/j2.xml" || fail "verify -j 1 and -j 2 write different JUnit reports"
validate "$work/j2.xml"
# One testcase per expect entry: the count is the total line's "N passed, 0 failed".
passed=$(tail -n 1 "$work/j2.txt" | sed -E 's/^verify: ([0-9]+) passed, 0 failed in [0-9]+ files$/\1/')
[ "$(grep -c '<testcase ' "$work/j2.xml")" = "$passed" ] || fail "testcases differ from the $passed entries"
files=$(find "$src/data" -name '*.json' | wc -l)
[ "$(grep -c '<testsuite ' "$work/j2.xml")" = "$files" ] || fail "not one testsuite per file"

# A book with a wrong claim two directories down, and markup characters in a name and a value:
# Table 14.2's key row has readout 2a/3 (weights [2/3, 1/3] over [a, 0] and [0, 0], readout
# coefficients [1, 2]: 2a/3·1 + 0·2), so the claim "a/2" fails; "4a/3" for row 3 passes
# (weights [2/3, 1/3] over [a, 0] and [0, a]: 2a/3 + 2·a/3 = 4a/3).
cat > "$work/book/part/deeper/wrong.json" <<'JSON'
{"sources": {"red": {"memory": [["a","0"],["0","a"],["0","0"]]}},
 "queries": {"q1": [1, 0]}, "readouts": {"r": [1, 2]},
 "interventions": {"t<&\"'>": {"kind": "remove-state", "source": "red", "query": "q1", "readout": "r"}},
 "expect": {"/interventions/t<&\"'>/rows/2/readout": "a/2",
            "/interventions/t<&\"'>/rows/3/readout": "4a/3"}}
JSON
cp "$src/data/chapter14/chapter14.json" "$work/book/a.json"
echo '{}' > "$work/book/part/not-a-scenario.txt"
set +e
"$exe" verify "$work/book" --junit "$work/wrong.xml" > "$work/wrong.txt"
code=$?
set -e
[ "$code" = 1 ] || fail "a mismatch must exit 1, got $code"
validate "$work/wrong.xml"
[ "$(grep -c '<failure ' "$work/wrong.xml")" = 1 ] || fail "one <failure> expected"
grep -q 'name="/interventions/t&lt;&amp;&quot;&apos;&gt;/rows/2/readout"' "$work/wrong.xml" || fail "pointer not escaped"
# Files in sorted order: a.json before part/deeper/wrong.json; a per-file line each, then the total.
head -n 1 "$work/wrong.txt" | grep -q "^$work/book/a.json: [0-9]* passed, 0 failed$" || fail "per-file summary"
grep -q "^$work/book/part/deeper/wrong.json: 1 passed, 1 failed$" "$work/wrong.txt" || fail "per-file failure summary"
tail -n 1 "$work/wrong.txt" | grep -qE "^verify: [0-9]+ passed, 1 failed in 2 files$" || fail "total line"

# crosscheck over the directory: its JUnit report validates too, and -j does not change it.
"$exe" crosscheck "$src/data" -j 2 --junit "$work/c2.xml" --format text > "$work/c2.txt"
"$exe" crosscheck "$src/data" -j 1 --junit "$work/c1.xml" --format text > "$work/c1.txt"
cmp "$work/c1.txt" "$work/c2.txt" || fail "crosscheck -j 1 and -j 2 print differently"
cmp "$work/c1.xml" "$work/c2.xml" || fail "crosscheck -j 1 and -j 2 write different reports"
validate "$work/c2.xml"

# A bad file in a book: exit 2 and its one error line, the first bad file in sorted order, no report.
echo '{"sources": 1}' > "$work/book/b-bad.json"
echo '{"sources": 2}' > "$work/book/c-bad.json"
set +e
"$exe" verify "$work/book" -j 2 --junit "$work/bad.xml" > "$work/bad.txt" 2> "$work/bad.err"
code=$?
set -e
[ "$code" = 2 ] || fail "a bad file must exit 2, got $code"
[ ! -e "$work/bad.xml" ] || fail "no report after an error"
[ "$(wc -l < "$work/bad.err")" = 1 ] && grep -q "b-bad.json" "$work/bad.err" || fail "error line: $(cat "$work/bad.err")"
echo "check_junit: passed"
