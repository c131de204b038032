#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SVG figures are well-formed and draw something (issues 11 and 13).

  check_svg.py [--expect-reject REASON]... FILE.svg...
  check_svg.py --cli EXACTATTN --workdir DIR SCENARIO...   (every figure the scenarios declare)

Each file must parse with xml.etree as XML whose root is an SVG <svg> element with a size
(width and height, or a viewBox), reference nothing outside itself (an href that is not a
#fragment or data: URI), and render with rsvg-convert to a PNG that is not blank (more than one
colour, on a white background), with nothing on rsvg-convert's standard error (a warning, such
as an unknown font or an unsupported element, is a failure). Also usable from the other checks:
svg_failures(path). With --cli, each scenario's figures are written by
`exactattn run SCENARIO --format markdown -o DIR` (report.md links one SVG file per figure) and
each file is checked; the report must link every one.

Exit 0 all passed, 1 a failure, 77 skipped (rsvg-convert or python3-pil absent)."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import blank, figure_arguments, parallel, report, require_pil, require_tool  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
HREFS = ("href", "{http://www.w3.org/1999/xlink}href")


def svg_failures(path, rsvg="rsvg-convert"):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return [f"not well-formed XML: {e}"]
    if root.tag != SVG + "svg":
        return [f"the root element is {root.tag}, not an SVG <svg>"]
    failures = []
    if not ({"width", "height"} <= root.attrib.keys() or "viewBox" in root.attrib):
        failures.append("the <svg> has neither width and height nor a viewBox")
    for element in root.iter():
        for attribute in HREFS:
            target = element.get(attribute)
            if target is not None and not target.startswith(("#", "data:")):
                failures.append(f"external reference: <{element.tag.removeprefix(SVG)}> {target}")
    done = subprocess.run([rsvg, "--format=png", "--background-color=white", path],
                          capture_output=True, timeout=60)
    if done.returncode != 0:
        return failures + [f"rsvg-convert exit {done.returncode}: "
                           f"{done.stderr.decode(errors='replace').strip()}"]
    warnings = done.stderr.decode(errors="replace").strip()
    if warnings:
        failures.append(f"rsvg-convert warned: {warnings}")
    if blank(done.stdout):
        failures.append("blank rendering (one colour)")
    return failures


def scenario_figures(cli, workdir, scenario):
    """The SVG files of a scenario's figures, written beside its Markdown report, and the
    failures of writing them (each linked from report.md)."""
    stem = "builtin_chapter14" if scenario == "chapter14" else os.path.splitext(os.path.basename(scenario))[0]
    out = os.path.join(workdir, stem)
    os.makedirs(out, exist_ok=True)
    done = subprocess.run([cli, "run", scenario, "--format", "markdown", "-o", out], capture_output=True,
                          timeout=120)
    if done.returncode != 0:
        return [], [f"{stem}: run exit {done.returncode}: {done.stderr.decode(errors='replace').strip()}"]
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        report_md = f.read()
    files = sorted(name for name in os.listdir(out) if name.endswith(".svg"))
    failures = [f"{stem}: report.md does not link {name}" for name in files if f"]({name})" not in report_md]
    return [os.path.join(out, name) for name in files], failures


def figure_main(description, kind, check):
    """The command line of a figure checker (this one and check_layout.py): the files given, or
    with --cli every figure of the scenarios; check(path, rsvg) returns a file's failures."""
    args = figure_arguments(description, ".svg files")
    rsvg = require_tool("rsvg-convert")
    require_pil()
    paths, results = args.inputs, []
    if args.cli:
        paths = []
        for scenario in args.inputs:
            files, failures = scenario_figures(args.cli, args.workdir, scenario)
            paths += files
            results += [(scenario, failures)] if failures else []
    results += parallel(lambda path: (os.path.relpath(path, args.workdir) if args.cli else os.path.basename(path),
                                      check(path, rsvg)), paths)
    return report(kind, results, args.expect_reject)


def main():
    return figure_main(__doc__.splitlines()[0], "svg", svg_failures)


if __name__ == "__main__":
    sys.exit(main())
