#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SVG figures are well-formed and draw something (issue 11, for the figures to come).

  check_svg.py [--expect-reject REASON]... FILE.svg...

Each file must parse with xml.etree as XML whose root is an SVG <svg> element with a size
(width and height, or a viewBox), reference nothing outside itself (an href that is not a
#fragment or data: URI), and render with rsvg-convert to a PNG that is not blank (more than one
colour, on a white background). Also usable from the other checks: svg_failures(path).

Exit 0 all passed, 1 a failure, 77 skipped (rsvg-convert or python3-pil absent)."""
import argparse
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import blank, parallel, report, require_pil, require_tool  # noqa: E402

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
    if blank(done.stdout):
        failures.append("blank rendering (one colour)")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", help=".svg files")
    parser.add_argument("--expect-reject", action="append", default=[], metavar="REASON",
                        help="pass only if every file fails with this reason (a fixture)")
    args = parser.parse_args()
    rsvg = require_tool("rsvg-convert")
    require_pil()
    results = parallel(lambda path: (os.path.basename(path), svg_failures(path, rsvg)), args.inputs)
    return report("svg", results, args.expect_reject)


if __name__ == "__main__":
    sys.exit(main())
