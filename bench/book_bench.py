#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""W8 (issue 15): a whole book verified in parallel.

Usage: book_bench.py EXACTATTN WORK_DIR [REPETITIONS]

Generates 1000 scenario files (make_book.py), then times `exactattn verify DIR -j 1` and
`-j 2` alternately, REPETITIONS times each (default 5), and takes each one's fastest run
(the least disturbed by other processes on a shared machine). Targets: -j 2 at least 1.7x
faster than -j 1, and -j 1 at most 20 ms per file. Ends with one line:
  W8: -j 2 speedup = 1.85x, -j 1 = 12.3 ms/file (1000 files; -j 1 12.3 s, -j 2 6.6 s; fastest of 5)
"""
import os
import subprocess
import sys
import time

# EXACTATTN_BENCH_TINY=1 (the test suite's `bench` label, docs/testing.md): 20 files.
FILES = 20 if os.environ.get("EXACTATTN_BENCH_TINY") == "1" else 1000


def timed(exe, book, jobs):
    start = time.perf_counter()
    r = subprocess.run([exe, "verify", book, "-j", str(jobs)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"W8: verify -j {jobs} exited {r.returncode}: {r.stderr.decode().strip()}")
    return elapsed


def main():
    exe, work = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    book = os.path.join(work, "w8-book")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "make_book.py"), str(FILES), book],
                   check=True)
    one, two = [], []
    for _ in range(reps):
        one.append(timed(exe, book, 1))
        two.append(timed(exe, book, 2))
    t1, t2 = min(one), min(two)
    print(f"W8: -j 1 runs (s): {' '.join(f'{t:.3f}' for t in one)}")
    print(f"W8: -j 2 runs (s): {' '.join(f'{t:.3f}' for t in two)}")
    print(f"W8: -j 2 speedup = {t1 / t2:.2f}x, -j 1 = {1000 * t1 / FILES:.1f} ms/file "
          f"({FILES} files; -j 1 {t1:.2f} s, -j 2 {t2:.2f} s; fastest of {reps})")


if __name__ == "__main__":
    main()
