#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The class report's HTML page (docs/check.md#a-class-on-variants) checked as every HTML output
is: `exactattn variants` of tests/cli/fixtures/class-scaled.json, then `exactattn check
--variants DIR --answers tests/cli/fixtures/class-scaled.csv --format html`; the page is opened
in headless Chromium by check_html.py (no console error, no outside request, every table
captioned, a non-blank screenshot, each inline SVG parsed and rendered by rsvg-convert) and must
show the class's names and the mistakes; each bar chart is then measured by check_layout.py (no
two labels overlap, none leaves the canvas, the ink where the labels are measured); and the
report as a LaTeX fragment, its chart in TikZ, compiles with check_latex.py.

Usage: check_class_report.py --cli build/exactattn --workdir DIR
Exit 0 when every check passes, 1 when one fails, 77 (skipped) when a tool is missing."""
import argparse
import glob
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    variants = os.path.join(args.workdir, "variants")
    fixture = os.path.join(REPO, "tests", "cli", "fixtures", "class-scaled")
    made = subprocess.run([args.cli, "variants", fixture + ".json", "--exercise", "scaled", "--count", "3",
                           "--seed", "1", "-o", variants], capture_output=True, text=True)
    if made.returncode != 0:
        print(f"FAIL variants: exit {made.returncode}: {made.stderr}")
        return 1
    page = os.path.join(args.workdir, "class.html")
    graded = subprocess.run([args.cli, "check", "--variants", variants, "--answers", fixture + ".csv",
                             "--format", "html", "-o", page], capture_output=True, text=True)
    if graded.returncode != 1:  # the class has wrong answers and no refused row
        print(f"FAIL check --variants: exit {graded.returncode} (expected 1): {graded.stderr}")
        return 1
    html_work = os.path.join(args.workdir, "html")
    loaded = subprocess.run([sys.executable, os.path.join(HERE, "check_html.py"), "--workdir", html_work,
                             "--expect-token", "王芳", "--expect-token", "divide-by-count+forget-scale",
                             "--expect-token", "forgotthescale", page])
    if loaded.returncode != 0:
        return loaded.returncode
    charts = sorted(glob.glob(os.path.join(html_work, "**", "*.figure-*.svg"), recursive=True))
    if not charts:
        print("FAIL no bar chart was saved from the page (expected one inline SVG)")
        return 1
    laid_out = subprocess.run([sys.executable, os.path.join(HERE, "check_layout.py")] + charts).returncode
    if laid_out != 0:
        return laid_out
    # The same report as a LaTeX fragment (the chart as TikZ) compiles like every LaTeX output.
    tex = os.path.join(args.workdir, "class.tex")
    graded = subprocess.run([args.cli, "check", "--variants", variants, "--answers", fixture + ".csv",
                             "--format", "latex", "-o", tex], capture_output=True, text=True)
    if graded.returncode != 1:
        print(f"FAIL check --variants --format latex: exit {graded.returncode}: {graded.stderr}")
        return 1
    return subprocess.run([sys.executable, os.path.join(HERE, "check_latex.py"), "--escaped-math", "--workdir",
                           os.path.join(args.workdir, "latex"), tex]).returncode


if __name__ == "__main__":
    sys.exit(main())
