#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The scaling curve of four commands (a benchmark, not a test; docs/performance.md).

Usage: scaling.py EXACTATTN LAYER_BENCH WORK_DIR [OUT_MD OUT_SVG]

For each command, five sizes over three decades, each run once as its own process (wall
seconds around the process, which include its start, and the peak resident memory of GNU
time's %M):
  read        `exactattn read --memory @FILE --query Q --format json`, n rows of width 4
              (multiples of a), n = 10^3 .. 10^6;
  layer       W7's causal self-attention layer (d_model = 64, one head of d_k = d_v = 16)
              over n tokens, computed exactly with every output looked at
              (`exactattn_bench_layer --one=N`: attend_layer, as a program that keeps the
              trace), n = 8 .. 8192 (its cost grows as n^2);
  manuscript  `exactattn manuscript check FILE` of one Markdown file of m marks stating values of
              the chapter's report, m = 10 .. 10^4;
  oracle      `exactattn oracle reference` of 4 queries over n keys, d = 16, float32, n = 10^2 ..
              10^5.
Prints the table (Markdown) and one summary line per command:
  scaling read: 1000 .. 1000000, time x1.2e+03, memory x35, exponent 1.02
(the exponent is the slope of log time against log size between the two largest sizes: 1 is
linear, 2 quadratic). With OUT_MD and OUT_SVG, writes the table and a log-log plot of time and
memory against size, one line per command, relative to the smallest size.
EXACTATTN_BENCH_TINY=1 (the test suite's `bench` label): the three smallest sizes of each.
"""
import math
import os
import shutil
import subprocess
import sys
import json
import time

TINY = os.environ.get("EXACTATTN_BENCH_TINY") == "1"


def sizes(lo, hi):
    """Five sizes, equally spaced in log between lo and hi (three decades)."""
    out = [round(lo * (hi / lo) ** (i / 4)) for i in range(5)]
    return out[:3] if TINY else out


def timed(argv, work):
    """(wall seconds, peak MiB) of one process; exits when it fails."""
    tfile = os.path.join(work, "time.txt")
    start = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", tfile] + argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"scaling: {' '.join(argv[:3])} ... exited {r.returncode}: {r.stderr.strip()[-500:]}")
    secs = time.perf_counter() - start
    with open(tfile, encoding="utf-8") as f:
        kib = f.read().split()[-1]
    return secs, int(kib) / 1024


def read_case(exe, work, n):
    path = os.path.join(work, f"read_{n}.json")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write("[")
            f.write(",".join(f'["{(j * 7) % 17 - 8}a","{(j * 5) % 13 - 6}a","{(j * 3) % 11 - 5}a","{j % 9 - 4}a"]'
                             for j in range(n)))
            f.write("]")
    return [exe, "read", "--memory", "@" + path, "--query", "[1,-2,3,-1]", "--format", "json"]


def layer_case(layer_bench, work, n):
    return [layer_bench, f"--one={n}"]


def manuscript_case(exe, work, m, pool):
    path = os.path.join(work, f"manuscript_{m}.md")
    scenario, quantities = pool
    lines = ["---", f"exactattn-scenario: {scenario}", "---", ""]
    for k in range(m):
        p, v = quantities[(k * 104729) % len(quantities)]
        lines.append(f"Sentence {k}: the quantity is [{v}]{{.exact ref=\"{p}\"}}, as computed.")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return [exe, "manuscript", "check", path]


def oracle_case(exe, work, n):
    def csv(name, rows, d, mul):
        path = os.path.join(work, f"oracle_{name}_{rows}.csv")
        with open(path, "w", encoding="utf-8") as f:
            for j in range(rows):
                f.write(",".join(str(((j * mul + i * 7) % 23 - 11) / 8) for i in range(d)) + "\n")
        return path
    return [exe, "oracle", "reference", "--q", csv("q", 4, 16, 5), "--k", csv("k", n, 16, 3), "--v",
            csv("v", n, 16, 11), "--dtype", "float32"]


def chapter_pool(exe, source):
    """Scalar quantities of the chapter's report, as a manuscript states them."""
    scenario = os.path.join(source, "data", "chapter14", "chapter14.json")
    report = json.loads(subprocess.run([exe, "run", scenario, "--format", "json"], check=True,
                                       capture_output=True, text=True).stdout)
    out = []

    def walk(x, at):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{at}/{k.replace('~', '~0').replace('/', '~1')}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{at}/{i}")
        elif isinstance(x, str) and at.startswith("/reads/") and ("/weights/" in at or "/scores/" in at):
            out.append((at, x))
    walk(report, "")
    return scenario, out


def svg(results, path):
    """A log-log plot: time and peak memory relative to the smallest size, per command."""
    w, h, left, top, pw, ph = 720, 330, 60, 40, 270, 220
    colours = {"read": "#1f77b4", "layer": "#d62728", "manuscript": "#2ca02c", "oracle": "#9467bd"}
    ymax = max(max(r[1] / rows[0][1] for r in rows) for rows in results.values())
    ymax = max(ymax, max(max(r[2] / rows[0][2] for r in rows) for rows in results.values()))
    decades_y = max(1, math.ceil(math.log10(ymax)))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           'font-family="sans-serif" font-size="11">', f'<rect width="{w}" height="{h}" fill="white"/>']
    for panel, (col, title) in enumerate(((1, "time / time at the smallest size"),
                                          (2, "peak memory / at the smallest size"))):
        x0 = left + panel * (pw + 90)
        out.append(f'<text x="{x0 + pw / 2}" y="{top - 20}" text-anchor="middle">{title}</text>')
        out.append(f'<rect x="{x0}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>')
        for d in range(decades_y + 1):
            y = top + ph - ph * d / decades_y
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + pw}" y2="{y:.1f}" stroke="#ddd"/>')
            out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">1e{d}</text>')
        for d in range(4):
            x = x0 + pw * d / 3
            out.append(f'<text x="{x:.1f}" y="{top + ph + 16}" text-anchor="middle">x1e{d}</text>')
        out.append(f'<text x="{x0 + pw / 2}" y="{top + ph + 32}" text-anchor="middle">size / smallest size</text>')
        for name, rows in results.items():
            pts = []
            for size, t, m in rows:
                x = x0 + pw * math.log10(size / rows[0][0]) / 3
                v = (t, m)[col - 1] / (rows[0][1], rows[0][2])[col - 1]
                y = top + ph - ph * math.log10(max(v, 1e-3)) / decades_y
                pts.append(f"{x:.1f},{min(max(y, top), top + ph):.1f}")
            out.append(f'<polyline points="{" ".join(pts)}" fill="none" stroke="{colours[name]}" stroke-width="2"/>')
    for i, name in enumerate(results):
        x = left + i * 120
        out.append(f'<line x1="{x}" y1="{h - 14}" x2="{x + 20}" y2="{h - 14}" stroke="{colours[name]}" '
                   'stroke-width="2"/>')
        out.append(f'<text x="{x + 26}" y="{h - 10}">{name}</text>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def main():
    exe, layer_bench, work = sys.argv[1], sys.argv[2], sys.argv[3]
    out_md = sys.argv[4] if len(sys.argv) > 5 else None
    out_svg = sys.argv[5] if len(sys.argv) > 5 else None
    source = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.makedirs(work, exist_ok=True)
    pool = chapter_pool(exe, source)
    # A manuscript may name only a scenario within its folder (docs/manuscript.md): a copy beside it.
    shutil.copyfile(pool[0], os.path.join(work, "chapter14.json"))
    pool = ("chapter14.json", pool[1])
    cases = {
        "read": (sizes(1000, 1000000), lambda n: read_case(exe, work, n), "rows"),
        "layer": (sizes(8, 8192), lambda n: layer_case(layer_bench, work, n), "tokens"),
        "manuscript": (sizes(10, 10000), lambda n: manuscript_case(exe, work, n, pool), "marks"),
        "oracle": (sizes(100, 100000), lambda n: oracle_case(exe, work, n), "keys"),
    }
    results = {}
    table = ["| command | size | seconds | peak MiB |", "| --- | ---: | ---: | ---: |"]
    for name, (ns, argv_of, unit) in cases.items():
        rows = []
        for n in ns:
            secs, mib = timed(argv_of(n), work)
            rows.append((n, secs, mib))
            table.append(f"| {name} | {n} {unit} | {secs:.3f} | {mib:.0f} |")
        results[name] = rows
    print("\n".join(table))
    summary = []
    for name, rows in results.items():
        (n1, t1, _), (n2, t2, _) = rows[-2], rows[-1]
        exponent = math.log(t2 / t1) / math.log(n2 / n1)
        summary.append(f"scaling {name}: {rows[0][0]} .. {rows[-1][0]}, time x{rows[-1][1] / rows[0][1]:.3g}, "
                       f"memory x{rows[-1][2] / rows[0][2]:.3g}, exponent {exponent:.2f}")
    print("\n".join(summary))
    if out_md and out_svg:
        with open("/proc/loadavg", encoding="utf-8") as f:
            load = " ".join(f.read().split()[:3])
        with open(out_md, "w", encoding="utf-8") as f:
            f.write("# Scaling\n\n"
                    "How the cost of four commands grows with their input: each at five sizes over three\n"
                    "decades, run once as its own process (wall seconds, which include the process's start of a\n"
                    "few milliseconds, and peak resident memory, GNU time). Written by `bash scripts/bench.sh` (bench/scaling.py, whose header says what each\n"
                    f"size is); this run: {os.cpu_count()} cores, load average {load} before it.\n\n"
                    f"![time and peak memory against size, log-log]({os.path.relpath(out_svg, os.path.dirname(out_md))})\n\n"
                    + "\n".join(table) + "\n\n"
                    "The exponent is the slope of log time against log size between the two largest sizes\n"
                    "(1: linear, 2: quadratic):\n\n"
                    + "\n".join(f"- {line}" for line in summary) + "\n")
        svg(results, out_svg)


if __name__ == "__main__":
    main()
