#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Figures fit their labels (issue 24): no two texts of a figure overlap and none leaves the canvas.

  check_layout.py [--expect-reject REASON]... FILE.svg...
  check_layout.py --cli EXACTATTN --workdir DIR SCENARIO...   (every figure the scenarios declare)

Computed from the SVG: each <text>'s box is its advance (the sum of its code points' advance
widths in the fonts the figure declares, read from src/render/font_metrics.inc, which
scripts/font_metrics.py wrote from the fonts' own files) placed by its x, y and text-anchor, from
0.94 em above the baseline to 0.24 em below it (the fonts' ascent and descent). Every box must
lie within the viewBox, and no two boxes may overlap by more than 0.05 pt either way.

Checked on the rendering: rsvg-convert draws the figure at 4 pixels a point
  - on a canvas grown by 40 pt on every side: no ink may fall outside the figure's own canvas
    (a label running off the edge, a title clipped);
  - with its texts alone, all in black: every inked pixel must lie within the boxes computed
    above, grown by half a point (so the boxes, and the widths the figures are laid out with,
    hold the glyphs the renderer really draws).

Exit 0 all passed, 1 a failure, 77 skipped (rsvg-convert or python3-pil absent)."""
import bisect
import io
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import REPO, short_text, text_box_failures  # noqa: E402
from check_svg import figure_main  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
ASCENT, DESCENT = 0.94, 0.24
TOLERANCE = 0.05   # pt: boxes touching at a rounded coordinate do not overlap
SCALE = 4          # pixels a point in the renderings
MARGIN = 40        # pt of canvas added on every side to see what runs off
INK_SLACK = 0.5    # pt: antialiasing around a glyph's box


def advances():
    """[(first, last, regular, bold)] in 1/2048 em, from the table the figures are laid out with."""
    path = os.path.join(REPO, "src", "render", "font_metrics.inc")
    with open(path, encoding="utf-8") as f:
        return [tuple(int(x, 0) for x in m.groups())
                for m in re.finditer(r"\{(0x[0-9A-F]+), (0x[0-9A-F]+), (\d+), (\d+)\}", f.read())]


ADVANCES = advances()
FIRSTS = [a[0] for a in ADVANCES]


def width(text, size, bold):
    units = 0
    for ch in text:
        i = bisect.bisect_right(FIRSTS, ord(ch)) - 1
        if i >= 0 and ord(ch) <= ADVANCES[i][1]:
            units += ADVANCES[i][3] if bold else ADVANCES[i][2]
        else:
            units += 2048
    return units / 2048 * size


def text_boxes(root):
    """(x0, y0, x1, y1, text) of every <text>, with the font size and weight it inherits."""
    boxes = []

    def walk(element, size, bold):
        size = float(element.get("font-size", size))
        bold = element.get("font-weight", "bold" if bold else "normal") == "bold"
        if element.tag == SVG + "text":
            content = "".join(element.itertext())
            w = width(content, size, bold)
            x, y = float(element.get("x", 0)), float(element.get("y", 0))
            anchor = element.get("text-anchor", "start")
            x0 = x - (w if anchor == "end" else w / 2 if anchor == "middle" else 0)
            boxes.append((x0, y - ASCENT * size, x0 + w, y + DESCENT * size, content))
        for child in element:
            walk(child, size, bold)

    walk(root, 16, False)
    return boxes


def view_box(root):
    return [float(v) for v in root.get("viewBox").split()]


def layout_failures(root):
    x_min, y_min, w, h = view_box(root)
    boxes = text_boxes(root)
    failures = text_box_failures(boxes, x_min, y_min, w, h, "canvas", TOLERANCE)
    return failures, boxes


def render(root, rsvg, margin):
    """PNG pixels (RGB image) of `root` drawn at SCALE pixels a point, with `margin` pt of canvas
    added on every side."""
    from PIL import Image  # python3-pil
    x_min, y_min, w, h = view_box(root)
    root.set("viewBox", f"{x_min - margin} {y_min - margin} {w + 2 * margin} {h + 2 * margin}")
    root.set("width", str((w + 2 * margin) * SCALE))
    root.set("height", str((h + 2 * margin) * SCALE))
    done = subprocess.run([rsvg, "--format=png", "--background-color=white"], input=ET.tostring(root),
                          capture_output=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"rsvg-convert exit {done.returncode}: {done.stderr.decode(errors='replace').strip()}")
    return Image.open(io.BytesIO(done.stdout)).convert("L")


def inked(image, threshold=200):
    """The (column, row) of every pixel darker than `threshold`."""
    w = image.width
    return [(i % w, i // w) for i, v in enumerate(image.getdata()) if v < threshold]


def ink_failures(path, rsvg, boxes):
    failures = []
    ET.register_namespace("", SVG[1:-1])
    root = ET.parse(path).getroot()
    x_min, y_min, w, h = view_box(root)
    # 1. Nothing drawn outside the canvas: the canvas is white, so ink outside it is the figure's.
    outside = [(px, py) for px, py in inked(render(root, rsvg, MARGIN))
               if not (MARGIN * SCALE - 1 <= px <= (MARGIN + w) * SCALE and MARGIN * SCALE - 1 <= py <= (MARGIN + h) * SCALE)]
    if outside:
        px, py = outside[0]
        failures.append(f"the rendering draws outside the canvas ({len(outside)} pixels, the first at "
                        f"{px / SCALE - MARGIN:.1f}, {py / SCALE - MARGIN:.1f} pt)")
    # 2. The texts alone, black on white: every glyph within its computed box.
    root = ET.parse(path).getroot()
    for parent in list(root.iter()):
        for child in list(parent):
            if child.tag in (SVG + "rect", SVG + "line", SVG + "path", SVG + "defs"):
                parent.remove(child)
            elif child.tag == SVG + "text":
                child.set("fill", "#000000")
    strays = []
    for px, py in inked(render(root, rsvg, MARGIN)):
        x, y = px / SCALE - MARGIN + x_min, py / SCALE - MARGIN + y_min
        if not any(b[0] - INK_SLACK <= x <= b[2] + INK_SLACK and b[1] - INK_SLACK <= y <= b[3] + INK_SLACK
                   for b in boxes):
            strays.append((x, y))
    if strays:
        x, y = strays[0]
        near = min(boxes, key=lambda b: abs((b[0] + b[2]) / 2 - x) + abs((b[1] + b[3]) / 2 - y))[4]
        failures.append(f"glyphs drawn outside their measured boxes ({len(strays)} pixels, the first at "
                        f"{x:.1f}, {y:.1f} pt, near \"{short_text(near)}\"): the font metrics do not hold")
    return failures


def figure_failures(path, rsvg):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return [f"not well-formed XML: {e}"]
    if root.tag != SVG + "svg" or "viewBox" not in root.attrib:
        return ["not an SVG <svg> with a viewBox"]
    failures, boxes = layout_failures(root)
    try:
        failures += ink_failures(path, rsvg, boxes)
    except RuntimeError as e:
        failures.append(str(e))
    return failures


def main():
    return figure_main(__doc__.splitlines()[0], "layout", figure_failures)


if __name__ == "__main__":
    sys.exit(main())
