#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TikZ figures fit their labels (issue 24): measured in the typeset picture, not only compiled.

  check_tikz.py [--expect-reject REASON]... FILE.tex...          a tikzpicture with "% canvas: W H"
  check_tikz.py --cli EXACTATTN --workdir DIR SCENARIO...        every figure the scenarios declare

Each picture is compiled with xelatex alone on a page (the standalone class, the preamble its
fragment's leading comment lists, 40 bp of white around the picture) with its canvas as its
bounding box: the SVG twin's viewBox (`exactattn figure --format svg`, the same shapes in the
same units: one unit is 1 bp, y down), or a fixture's "% canvas: W H" line. Every \\node is named
and, after the last one, TeX writes each node's box to the log (its south west and north east
anchors, less the 0.2 pt outer sep): the box TeX set for the label in the document's fonts, math
and CJK included. Then

  - no box leaves the canvas, and no two boxes overlap by more than 0.05 pt either way;
  - on the PDF rendered by pdftoppm at 4 pixels a bp, nothing is drawn in the white border
    around the canvas (a label or a bar running off the picture);
  - the log has no error and no missing character.

Exit 0 all passed, 1 a failure, 77 skipped (xelatex, pdftoppm or python3-pil absent)."""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_latex import header_preamble, log_failures  # noqa: E402
from common import (BUILTIN, figure_arguments, load_scenario, parallel, report, require_pil,  # noqa: E402
                    require_tool, scenario_name, text_box_failures)

BORDER = 40        # bp of white page around the canvas
SCALE = 4          # pixels a bp in the rendering
TOLERANCE = 0.05   # bp: boxes touching at a rounded coordinate do not overlap
OUTER_SEP = 0.2    # pt: TikZ's default outer sep (half the 0.4 pt line width) around each node
PT_PER_BP = 72.27 / 72
NODE = re.compile(r"\\node\[")
VIEW_BOX = re.compile(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"')
CANVAS = re.compile(r"^%\s*canvas:\s*([0-9.]+)\s+([0-9.]+)\s*$", re.MULTILINE)
REPORTED = re.compile(r"^EXACTATTN-NODE (\d+) (-?[0-9.]+)pt (-?[0-9.]+)pt (-?[0-9.]+)pt (-?[0-9.]+)pt$",
                      re.MULTILINE)


def node_texts(tikz):
    """The text of each \\node, in order (the braces after `at (x,y)`), for the messages."""
    texts = []
    for match in NODE.finditer(tikz):
        start = tikz.find("{", tikz.find("] at (", match.end()))
        depth, i = 0, start
        while i < len(tikz):
            depth += {"{": 1, "}": -1}.get(tikz[i], 0)
            if depth == 0:
                break
            i += 1
        texts.append(tikz[start + 1:i])
    return texts


def instrumented(tikz, width, height):
    """The picture with its canvas as bounding box, each node named, and the nodes' boxes written
    to the log at its end."""
    count = [0]

    def name(_):
        count[0] += 1
        return f"\\node (exactattnNode{count[0]}) ["
    body = NODE.sub(name, tikz)
    begin = body.index("\\begin{tikzpicture}")
    line_end = body.index("\n", begin) + 1
    body = body[:line_end] + f"\\useasboundingbox (0,0) rectangle ({width},{height});\n" + body[line_end:]
    probes = "".join(
        f"\\path (exactattnNode{i}.south west);\\pgfgetlastxy{{\\exactattnXa}}{{\\exactattnYa}}"
        f"\\path (exactattnNode{i}.north east);\\pgfgetlastxy{{\\exactattnXb}}{{\\exactattnYb}}"
        f"\\typeout{{EXACTATTN-NODE {i} \\exactattnXa\\space\\exactattnYa\\space\\exactattnXb\\space\\exactattnYb}}\n"
        for i in range(1, count[0] + 1))
    end = body.rindex("\\end{tikzpicture}")
    return body[:end] + probes + body[end:], count[0]


def document(fragment, width, height):
    font = os.environ.get("EXACTATTN_CJK_FONT", "WenQuanYi Micro Hei")
    preamble = header_preamble(fragment) or ["\\usepackage{amsmath}", "\\usepackage{tikz}",
                                             "\\usepackage{xeCJK}",
                                             "\\providecommand{\\exactattnToken}[1]{#1}"]
    preamble = [line for line in preamble if "{caption}" not in line]  # for floats; standalone has none
    preamble += [f"\\setCJK{family}font{{{font}}}" for family in ("main", "sans", "mono")]
    body, nodes = instrumented(fragment[fragment.index("\\begin{tikzpicture}"):], width, height)
    return (f"\\documentclass[border={BORDER}bp]{{standalone}}\n" + "\n".join(preamble) +
            "\n\\begin{document}\n" + body + "\\end{document}\n"), nodes


def ink_failures(pdf, width, height):
    """Ink in the white border around the canvas, from pdftoppm's rendering."""
    from PIL import Image  # python3-pil
    stem = os.path.splitext(pdf)[0]
    done = subprocess.run(["pdftoppm", "-r", str(72 * SCALE), "-gray", "-png", "-singlefile", pdf, stem],
                          capture_output=True, timeout=120)
    if done.returncode != 0:
        return [f"pdftoppm exit {done.returncode}: {done.stderr.decode(errors='replace').strip()}"]
    image = Image.open(stem + ".png").convert("L")
    w = image.width
    lo_x, hi_x = BORDER * SCALE - 1, (BORDER + width) * SCALE + 1
    lo_y, hi_y = BORDER * SCALE - 1, (BORDER + height) * SCALE + 1
    outside = [(i % w, i // w) for i, v in enumerate(image.getdata())
               if v < 200 and not (lo_x <= i % w <= hi_x and lo_y <= i // w <= hi_y)]
    if not outside:
        return []
    px, py = outside[0]
    return [f"the picture draws outside its canvas ({len(outside)} pixels, the first at "
            f"{px / SCALE - BORDER:.1f}, {py / SCALE - BORDER:.1f} bp)"]


def tikz_failures(fragment, width, height, path):
    """Compiles the picture as `path` (.tex) and returns what does not fit."""
    tex, nodes = document(fragment, width, height)
    with open(path, "w", encoding="utf-8") as f:
        f.write(tex)
    directory, name = os.path.split(path)
    try:
        done = subprocess.run(["xelatex", "-halt-on-error", "-interaction=nonstopmode", "-no-shell-escape", name],
                              cwd=directory, capture_output=True, text=True, errors="replace", timeout=300)
    except subprocess.TimeoutExpired:
        return ["xelatex did not finish in 300 s"]
    stem = os.path.splitext(path)[0]
    try:
        with open(stem + ".log", encoding="utf-8", errors="replace") as f:
            log = f.read()
    except FileNotFoundError:
        return ["no log written"]
    failures = [] if done.returncode == 0 else [f"xelatex exit {done.returncode}"]
    failures += log_failures(log.splitlines())
    if failures or not os.path.exists(stem + ".pdf"):
        return failures or ["no PDF written"]
    texts = node_texts(fragment)
    boxes = []
    # TeX's log wraps at 79 columns; the probe lines are shorter.
    for m in REPORTED.finditer(log):
        i, xa, ya, xb, yb = int(m.group(1)), *(float(g) for g in m.groups()[1:])
        # Canvas units: x in bp; y down (the picture's y unit is −1 bp).
        boxes.append(((xa + OUTER_SEP) / PT_PER_BP, -(yb - OUTER_SEP) / PT_PER_BP,
                      (xb - OUTER_SEP) / PT_PER_BP, -(ya + OUTER_SEP) / PT_PER_BP,
                      texts[i - 1] if i <= len(texts) else f"node {i}"))
    if len(boxes) != nodes:
        return [f"{nodes} nodes, {len(boxes)} boxes reported in the log"]
    return text_box_failures(boxes, 0, 0, width, height, "picture", TOLERANCE) + ink_failures(stem + ".pdf", width, height)


def scenario_pictures(cli, scenario):
    """(figure name, TikZ fragment, width, height) of every figure the scenario declares, or an
    error text in place of the fragment."""
    out = []
    for figure in load_scenario(scenario).get("figures", {}):
        argv = [cli, "figure", scenario, "--figure", figure, "--format"]
        svg = subprocess.run(argv + ["svg"], capture_output=True, text=True, timeout=120)
        tikz = subprocess.run(argv + ["tikz"], capture_output=True, text=True, timeout=120)
        size = VIEW_BOX.search(svg.stdout)
        if svg.returncode != 0 or tikz.returncode != 0 or size is None:
            out.append((figure, None, f"figure exit {svg.returncode}/{tikz.returncode}: "
                                      f"{(svg.stderr + tikz.stderr).strip()}", 0))
            continue
        out.append((figure, tikz.stdout, float(size.group(1)), float(size.group(2))))
    return out


def main():
    args = figure_arguments(__doc__.splitlines()[0], ".tex files with a tikzpicture")
    require_tool("xelatex")
    require_tool("pdftoppm")
    require_pil()
    jobs = []  # (name, fragment, width, height, path)
    results = []
    for arg in args.inputs:
        if args.cli:
            stem = scenario_name(arg) if arg != BUILTIN else "builtin-chapter14"
            directory = os.path.join(args.workdir, stem)
            os.makedirs(directory, exist_ok=True)
            for figure, fragment, width, height in scenario_pictures(args.cli, arg):
                name = f"{stem}.{figure}"
                if fragment is None:
                    results.append((name, [width]))
                else:
                    jobs.append((name, fragment, width, height, os.path.join(directory, f"{figure}.tex")))
        else:
            with open(arg, encoding="utf-8") as f:
                fragment = f.read()
            canvas = CANVAS.search(fragment)
            if canvas is None:
                results.append((os.path.basename(arg), ["no \"% canvas: W H\" line"]))
                continue
            directory = args.workdir or os.path.dirname(os.path.abspath(arg))
            os.makedirs(directory, exist_ok=True)
            stem = os.path.splitext(os.path.basename(arg))[0]
            jobs.append((os.path.basename(arg), fragment, float(canvas.group(1)), float(canvas.group(2)),
                         os.path.join(directory, stem + ".measured.tex")))
    results += parallel(lambda job: (job[0], tikz_failures(job[1], job[2], job[3], job[4])), jobs)
    return report("tikz", results, args.expect_reject)


if __name__ == "__main__":
    sys.exit(main())
