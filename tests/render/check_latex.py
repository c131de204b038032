#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""LaTeX outputs compile with xelatex (issue 11).

  check_latex.py --cli BIN [options] SCENARIO...   every LaTeX output of each scenario
  check_latex.py [options] FILE.tex...             any fragment or complete document

The outputs are `run`, `answers` (a scenario with exercises), `crosscheck`, `encode` of each
token source and `read`, each in every variant the CLI offers (read from its --help): the
fragment, `--standalone` and `--latex-floats`; what it does not offer yet is listed as skipped.
A fragment (no \\documentclass) is wrapped in a minimal article: the preamble lines its leading
comment names (any \\usepackage, \\newcommand or \\providecommand there, or the packages of a
`% requires: a, b` line), then booktabs and xeCJK with a CJK font (EXACTATTN_CJK_FONT, default
WenQuanYi Micro Hei), and amsmath only for a fragment that lists no needs at all. A standalone document is compiled as it is. At most two xelatex
run at once (EXACTATTN_RENDER_JOBS).

A document fails on a non-zero exit of `xelatex -halt-on-error`, any `!` error or
"Undefined control sequence" in the log, any "Missing character" (a glyph no font has: how a
CJK token that does not render shows), and a CJK token of the source absent from the PDF's
text (pdftotext -raw). In the chapter's outputs the values typed by hand from the chapter
(common.CHAPTER_VALUES) must be in the PDF's text, and the report must show 红色 钥匙 。.
--escaped-math also fails a source that prints math as text (`\\$`, `\\textbackslash{}tfrac`);
--no-compile runs only the source checks.

Exit 0 all passed, 1 a failure, 77 skipped (xelatex absent, or no output accepts LaTeX)."""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (WorkDir, inputs, missing_values, parallel, parse_arguments,  # noqa: E402
                    report, require_tool)

BASE_PACKAGES = ["booktabs", "xeCJK"]  # an author's minimal document
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+")
ESCAPED_MATH = re.compile(r"\\\$|\\textbackslash\{\}[A-Za-z]+")
PREAMBLE_LINE = re.compile(r"\\(usepackage|RequirePackage|newcommand|providecommand)\b.*")
REQUIRES_LINE = re.compile(r"^%\s*(?:requires|needs)\s*:\s*(.*)$", re.IGNORECASE)
TEXT_WIDTH = "\\setlength{\\textwidth}{12cm}\n"
OVERFULL = re.compile(r"^Overfull \\hbox \(([0-9.]+)pt too wide\) (.*)$")
VARIANTS = [("fragment", ()), ("standalone", ("--standalone",)),
            ("floats", ("--latex-floats",))]


def header_preamble(tex):
    """The preamble lines named in the fragment's leading comment block."""
    lines = []
    for line in tex.splitlines():
        if not line.startswith("%"):
            break
        match = PREAMBLE_LINE.search(line)
        requires = REQUIRES_LINE.match(line)
        if match:
            lines.append(match.group(0).strip())
        elif requires:  # "% requires: booktabs, xeCJK" names packages
            lines += [f"\\usepackage{{{p}}}" for p in re.findall(r"[A-Za-z][\w-]*", requires.group(1))]
    return lines


def wrap(fragment):
    header = header_preamble(fragment)
    named = set()
    for line in header:
        for group in re.findall(r"\\(?:usepackage|RequirePackage)(?:\[[^]]*\])?\{([^}]*)\}", line):
            named.update(p.strip() for p in group.split(","))
    font = os.environ.get("EXACTATTN_CJK_FONT", "WenQuanYi Micro Hei")
    # A fragment that lists its needs gets exactly those (so the list is checked to be complete);
    # one that lists none (written before the document model) gets amsmath as well.
    base = BASE_PACKAGES + ([] if header else ["amsmath"])
    preamble = header + [f"\\usepackage{{{p}}}" for p in base if p not in named]
    preamble += [f"\\setCJK{family}font{{{font}}}" for family in ("main", "sans", "mono")]
    return ("\\documentclass{article}\n" + "\n".join(preamble) + "\n\\begin{document}\n" +
            fragment + "\n\\end{document}\n")


def at_text_width(tex):
    """A complete document set at the text width the outputs are made for, 12 cm (a book's
    column), whatever its class's default: the width is set at the end of its preamble."""
    return tex.replace("\\begin{document}", TEXT_WIDTH + "\\begin{document}", 1)


def source_failures(tex, escaped_math):
    if not escaped_math:
        return []
    found = sorted(set(ESCAPED_MATH.findall(tex)))
    return [f"escaped math (math printed as text): {', '.join(found[:5])}"] if found else []


def log_failures(log):
    """TeX errors start with "! " (an undefined control sequence among them) and are followed by
    the line that caused them; a missing glyph is one log line (wrapped at 79 columns)."""
    errors = [f"{line} {log[i + 1].strip() if i + 1 < len(log) else ''}"
              for i, line in enumerate(log) if line.startswith("! ")]
    errors += [line for line in log if "Undefined control sequence" in line
               and not line.startswith("! ")]
    missing = [line + (log[i + 1] if len(line) >= 79 and i + 1 < len(log) else "")
               for i, line in enumerate(log) if line.startswith("Missing character: There is no")]
    # A line or table wider than the text (12 cm): where the log says, and by how much.
    overfull = [f"{m.group(1)} pt too wide {m.group(2)}" for m in map(OVERFULL.match, log) if m]
    failures = []
    for what, hits in (("error", errors), ("missing character", missing), ("overfull box", overfull)):
        failures += [f"{what}: {hit}" for hit in hits[:3]]
        if len(hits) > 3:
            failures.append(f"... and {len(hits) - 3} more of: {what}")
    return failures


def compile_failures(tex, path, values, tokens):
    """Compiles `tex` (a complete document) as `path` and returns what went wrong."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(tex)
    directory, name = os.path.split(path)
    try:
        done = subprocess.run(["xelatex", "-halt-on-error", "-interaction=nonstopmode",
                               "-no-shell-escape", name], cwd=directory, capture_output=True,
                              text=True, errors="replace", timeout=300)
    except subprocess.TimeoutExpired:
        return ["xelatex did not finish in 300 s"]
    stem = os.path.splitext(path)[0]
    failures = [] if done.returncode == 0 else [f"xelatex exit {done.returncode}"]
    try:
        with open(stem + ".log", encoding="utf-8", errors="replace") as f:
            failures += log_failures(f.read().splitlines())
    except FileNotFoundError:
        return failures + ["no log written"]
    if not os.path.exists(stem + ".pdf"):
        return failures + ["no PDF written"]
    # -raw: the content stream's order, so that a fraction's numerator and denominator follow
    # each other ("[a/2, a/4]" set as \tfrac reads "[a2,a4]").
    text = subprocess.run(["pdftotext", "-raw", stem + ".pdf", "-"], capture_output=True,
                          text=True, timeout=60).stdout
    flat = re.sub(r"\s+", "", text)
    absent = sorted({t for t in CJK.findall(tex) + list(tokens) if t not in flat})
    if absent:
        failures.append("CJK text absent from the PDF: " + " ".join(absent[:10]))
    failures += [f"value absent from the PDF: {v}"
                 for v in missing_values(text, values, stacked=True)]
    return failures


def main():
    def options(parser):
        parser.add_argument("--escaped-math", action="store_true",
                            help="fail on math printed as text (\\$, \\textbackslash{}tfrac)")
        parser.add_argument("--no-compile", action="store_true", help="source checks only")
    args = parse_arguments(__doc__, "latex", "tex", options)
    if not args.no_compile:
        require_tool("xelatex")
        require_tool("pdftotext")
        workdir = WorkDir(args, "latex")

    def check(doc):
        tex, error = doc.text(args.cli, "latex")
        if error:
            return doc.name, [error]
        failures = source_failures(tex, args.escaped_math)
        if not args.no_compile:
            full = at_text_width(tex if "\\documentclass" in tex else wrap(tex))
            failures += compile_failures(full, workdir.file(doc.name, "tex"), doc.values, doc.tokens)
        return doc.name, failures

    docs = inputs(args, "latex", VARIANTS)
    return report("latex", parallel(check, docs), args.expect_reject, args.known_fault)


if __name__ == "__main__":
    sys.exit(main())
