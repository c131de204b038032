#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Print-ready answer keys and rollouts (issue 37): laid out in a `book` and as the tool's own
standalone article, at a 12 cm text width, with no overfull box and no caption at a page's foot.

    check_book.py --cli CLI --workdir DIR SCENARIO...

For each scenario, its answer key (when it has exercises) and each of its rollouts are written
with `--format latex --standalone`, compiled by xelatex as written (article) and with the class
changed to `book`, and fail on what check_latex.py fails on in the log (errors, missing glyphs,
any `Overfull \\hbox`) and on a caption or a heading standing alone: the last text line of a page of
the PDF (`pdftotext -layout`, page by page, the page number left out) that begins a table caption
or a section heading of the source. Exit 0 when every document passes, 1 otherwise, 77 without
xelatex or pdftotext.
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_latex import at_text_width, log_failures  # noqa: E402
from common import require_tool  # noqa: E402

CAPTION = re.compile(r"\\captionof\*?\{table\}\{(.*)\}\}?$", re.M)
HEADING = re.compile(r"^\\(?:sub)*section\*?\{(.*)\}$", re.M)


def starts_of(texts):
    """The plain words each text begins with (before any math or command), when there are enough
    of them to recognise the line."""
    starts = []
    for c in texts:
        plain = re.split(r"[$\\{}]", re.sub(r"\\renewcommand\{\\thetable\}\{[^}]*\}", "", c))[0]
        words = " ".join(plain.split()[:4])
        if len(words) >= 8:
            starts.append(words)
    return starts


def caption_starts(tex):
    """The plain words each table caption and each section heading begins with."""
    return starts_of(CAPTION.findall(tex)) + starts_of(HEADING.findall(tex))


def stranded_captions(pdf, starts):
    info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    found = []
    for page in range(1, pages):  # the last page's last line may be anything
        text = subprocess.run(["pdftotext", "-layout", "-f", str(page), "-l", str(page), pdf, "-"],
                              capture_output=True, text=True).stdout
        lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not re.fullmatch(r"\s*\d+\s*", ln)]
        if not lines:
            continue
        shown = " ".join(lines[-1].split())
        last = re.sub(r"^Table [^ :]+: ", "", shown)  # a numbered caption starts "Table 15.1: "
        for start in starts:
            if last.startswith(start) or start.startswith(last):
                found.append(f"caption or heading at the foot of page {page}: {shown[:80]}")
                break
    return found


def compile_one(tex, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write(tex)
    directory, name = os.path.split(path)
    done = subprocess.run(["xelatex", "-halt-on-error", "-interaction=nonstopmode", "-no-shell-escape", name],
                          cwd=directory, capture_output=True, text=True, errors="replace", timeout=300)
    stem = os.path.splitext(path)[0]
    failures = [] if done.returncode == 0 else [f"xelatex exit {done.returncode}"]
    with open(stem + ".log", encoding="utf-8", errors="replace") as f:
        failures += log_failures(f.read().splitlines())
    if os.path.exists(stem + ".pdf"):
        failures += stranded_captions(stem + ".pdf", caption_starts(tex))
    return failures


def outputs(scenario):
    with open(scenario, encoding="utf-8") as f:
        s = json.load(f)
    stem = os.path.splitext(os.path.basename(scenario))[0]
    out = []
    if s.get("exercises"):
        out.append((f"{stem}.answers", ["answers", scenario]))
    for name in s.get("rollouts", {}):
        out.append((f"{stem}.rollout-{name}", ["rollout", scenario, "--rollout", name]))
    return out


def self_test(args):
    """Each expected failure is found in the hand-typed documents: the checker catches what it claims to."""
    found = []
    for path in args.tex:
        with open(path, encoding="utf-8") as f:
            tex = f.read()
        found += compile_one(tex, os.path.join(args.workdir, os.path.basename(path)))
    for failure in found:
        print(f"     found: {failure}")
    missed = [e for e in args.expect_reject if not any(e in failure for failure in found)]
    for e in missed:
        print(f"FAIL not found: {e}")
    print(f"check_book: {'failed' if missed or not args.expect_reject else 'passed'} ({len(missed)} faults missed)")
    return 1 if missed or not args.expect_reject else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--tex", action="append", default=[],
                        help="the checker's own test: compile this document as it is, instead of scenarios")
    parser.add_argument("--expect-reject", action="append", default=[],
                        help="with --tex: a failure that must be found (a part of its message)")
    parser.add_argument("scenarios", nargs="*")
    args = parser.parse_args()
    require_tool("xelatex")
    require_tool("pdftotext")
    os.makedirs(args.workdir, exist_ok=True)
    if args.tex:
        return self_test(args)
    failed = 0
    for scenario in args.scenarios:
        for name, argv in outputs(scenario):
            tex = subprocess.run([args.cli] + argv + ["--format", "latex", "--standalone"], capture_output=True,
                                 text=True, check=True).stdout
            for cls in ("article", "book"):
                doc = at_text_width(tex.replace("\\documentclass{article}", f"\\documentclass{{{cls}}}", 1))
                failures = compile_one(doc, os.path.join(args.workdir, f"{name}.{cls}.tex"))
                print(f"{'FAIL' if failures else 'ok  '} {name}.{cls}")
                for failure in failures:
                    print(f"     {failure}")
                failed += bool(failures)
    print(f"check_book: {'failed' if failed else 'passed'} ({failed} documents failed)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
