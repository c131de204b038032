#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Audit time of an unmarked book: 20 chapters (10 copies of tests/manuscript/chapter14-unmarked.md
and 10 of its LaTeX twin, each naming the built-in chapter14), `manuscript audit BOOK -j 2`,
fastest of 5 runs (docs/manuscript.md, "The figures"; goal ≤ 5 s). EXACTATTN_BENCH_TINY=1 (the test
suite's `bench` label): 2 chapters, one run, so that it cannot rot.

    manuscript_audit_bench.py EXACTATTN SOURCE_DIR WORKDIR
"""
import os
import shutil
import subprocess
import sys
import time

exe, src, work = sys.argv[1], sys.argv[2], sys.argv[3]
tiny = os.environ.get("EXACTATTN_BENCH_TINY") == "1"
copies, runs = (1, 1) if tiny else (10, 5)
book = os.path.join(work, "book")
shutil.rmtree(book, ignore_errors=True)
os.makedirs(book)
for i in range(copies):
    for ext in ("md", "tex"):
        shutil.copy(os.path.join(src, "tests", "manuscript", f"chapter14-unmarked.{ext}"),
                    os.path.join(book, f"ch{i:02d}.{ext}"))
best = None
for _ in range(runs):
    t = time.perf_counter()
    p = subprocess.run([exe, "manuscript", "audit", book, "-j", "2"], capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode not in (0, 1):
        sys.exit(f"audit failed: {p.stderr}")
    best = dt if best is None else min(best, dt)
print(p.stdout.splitlines()[-1])
size = sum(os.path.getsize(os.path.join(book, f)) for f in os.listdir(book))
print(f"audit of a {2 * copies}-chapter book ({2 * copies} files, {size} bytes): {best:.2f} s (fastest of {runs})")
