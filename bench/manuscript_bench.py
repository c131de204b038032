#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A synthetic book of manuscripts checked in parallel (docs/manuscript.md).

Usage: manuscript_bench.py EXACTATTN SOURCE_DIR WORK_DIR [REPETITIONS]

Writes 100 Markdown manuscripts with 200 marks each (20 000 in all) over the scenarios of
SOURCE_DIR/data/: manuscript k names scenario k mod 8, and its marks state quantities of that
scenario's report (scalars, vectors, matrices, tokens) in prose. Every written value is the
report's own value, so the check must pass. Then times
`exactattn manuscript check WORK_DIR -j 2` REPETITIONS times (default 5) and reports the
fastest (the least disturbed on a shared machine). Target: at most 5 s. Ends with one line:
  manuscript book: 100 files, 20000 marks, -j 2 fastest 0.84 s (of 5), target 5 s: met
"""
import json
import os
import shutil
import subprocess
import sys
import time

# EXACTATTN_BENCH_TINY=1 (the test suite's `bench` label, docs/testing.md): 4 files of 10 marks.
TINY = os.environ.get("EXACTATTN_BENCH_TINY") == "1"
FILES = 4 if TINY else 100
MARKS = 10 if TINY else 200


def quantities(report, at=""):
    """(pointer, value) of every string, integer or array of them in the report."""
    if isinstance(report, dict):
        for k, v in report.items():
            yield from quantities(v, f"{at}/{k.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(report, list):
        if report and all(isinstance(x, (str, int, list)) and not isinstance(x, bool) for x in report):
            yield at, report
        for i, v in enumerate(report):
            yield from quantities(v, f"{at}/{i}")
    elif isinstance(report, (str, int)) and not isinstance(report, bool):
        yield at, report


def written(value):
    if isinstance(value, list):
        return "[" + ", ".join(written(v) for v in value) + "]"
    return str(value)


def usable(pointer, value):
    text = written(value)
    # Prose and titles are not quantities; keep values that fit in a sentence.
    return ("title" not in pointer and "assumptions" not in pointer and "caption" not in pointer
            and "note" not in pointer and "meaning" not in pointer and len(text) < 200
            and "{" not in text and "}" not in text)


def main():
    exe, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    scenarios = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(source, "data"))
                       for f in fs if f.endswith(".json") and ".schema." not in f)
    pools = []
    for s in scenarios:
        report = json.loads(subprocess.run([exe, "run", s, "--format", "json"], check=True,
                                           capture_output=True, text=True).stdout)
        pool = [(p, v) for p, v in quantities(report) if usable(p, v)]
        pools.append((s, pool))
    os.makedirs(work, exist_ok=True)
    for k in range(FILES):
        scenario, pool = pools[k % len(pools)]
        # A manuscript may name only a scenario within its folder (docs/manuscript.md): a copy beside it.
        local = f"s{k % len(pools):03}.json"
        if k < len(pools):
            shutil.copyfile(scenario, os.path.join(work, local))
        lines = ["---", f"exactattn-scenario: {local}", "---", ""]
        for m in range(MARKS):
            p, v = pool[(k * 7919 + m * 104729) % len(pool)]
            lines.append(f"Sentence {m}: the quantity is [{written(v)}]{{.exact ref=\"{p}\"}}, as computed.")
        with open(os.path.join(work, f"m{k:03}.md"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        p = subprocess.run([exe, "manuscript", "check", work, "-j", "2"], capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if p.returncode != 0:
            print(p.stdout[-2000:], p.stderr, file=sys.stderr)
            sys.exit(f"manuscript check exited {p.returncode}")
    total = p.stdout.strip().splitlines()[-1]
    if total != f"manuscript: {FILES * MARKS} claims checked in {FILES} file{'' if FILES == 1 else 's'}, 0 wrong":
        sys.exit(f"unexpected total: {total}")
    best = min(times)
    print(f"manuscript book: {FILES} files, {FILES * MARKS} marks, -j 2 fastest {best:.2f} s (of {reps}), "
          f"target 5 s: {'met' if best <= 5 else 'NOT met'}")


if __name__ == "__main__":
    main()
