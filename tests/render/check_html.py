#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""HTML outputs load cleanly in headless Chromium (issue 11).

  check_html.py --cli BIN [options] SCENARIO...   every HTML output of each scenario
  check_html.py [options] FILE.html...            any page

The outputs are `run`, `answers` (a scenario with exercises), `crosscheck`, `encode` and `read`,
for each command whose --help offers `--format html` (the others are listed as skipped). Each
page is written to a file and opened from its file:// URL in a fresh headless Chromium with the
network off (browser.py, over the DevTools protocol). A page fails on:
  - any console error, uncaught exception or failed resource load, any request that is not to
    file: or data:, and any http(s) reference in its source (a page is self-contained: no CDN,
    no external fonts; only xmlns values are exempt);
  - a <table> without a non-empty <caption>;
  - in the chapter's outputs, a value typed by hand from the chapter (common.CHAPTER_VALUES)
    absent from the DOM after the load (MathML fractions read as p/q; a vector counts when its
    entries stand in one table column), and in the report the tokens 红色 钥匙 。;
  - with --expect-report-text TEXT, TEXT (whitespace ignored) absent from a scenario's `run`
    report (author math: `\\frac{2}{3}` read as 2/3, a command outside the MathML subset as its
    TeX);
  - a blank screenshot (a single colour: nothing was drawn);
  - an inline <svg> figure that check_svg.py rejects.
At most two browsers run at once (EXACTATTN_RENDER_JOBS).

Exit 0 all passed, 1 a failure, 77 skipped (chromium absent, or no output accepts html)."""
import html.parser
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import load_page  # noqa: E402
from check_svg import svg_failures  # noqa: E402
from common import (FileDocument, WorkDir, blank, inputs, missing_values,  # noqa: E402
                    parallel, parse_arguments, report, require_pil, require_tool)

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
HIDDEN = {"script", "style", "annotation", "annotation-xml", "head", "title"}
# An http(s) URL anywhere but in an xmlns="..." declaration.
INLINE_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)
EXTERNAL = re.compile(r"""(?<!xmlns=")(?<!xmlns:xlink=")(?<!xmlns:m=")https?://[^\s"'<>)]*""")


class Node:
    def __init__(self, tag, parent=None):
        self.tag, self.parent, self.children = tag, parent, []


class _Tree(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.current = Node("#document")

    def handle_starttag(self, tag, attrs):
        node = Node(tag, self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_endtag(self, tag):
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def parse(source):
    tree = _Tree()
    tree.feed(source)
    tree.close()
    return tree.root


def text(node):
    """The node's text as a reader would type it: MathML fractions as p/q, powers as b^e,
    roots with √; scripts, styles and TeX annotations left out."""
    if isinstance(node, str):
        return node.replace("\u2062", "").replace("\u2061", " ")  # invisible times, function application
    if node.tag in HIDDEN:
        return ""
    parts = [text(child) for child in node.children]
    if node.tag == "mfrac" and len(parts) == 2:
        num, den = (p.strip() for p in parts)
        wrap = [f"({p})" if re.search(r"[-+\u2212 ]", p) else p for p in (num, den)]
        return f"{wrap[0]}/{wrap[1]}"
    if node.tag == "msup" and len(parts) == 2:
        return f"{parts[0].strip()}^{parts[1].strip()}"
    if node.tag == "msqrt":
        return "√" + "".join(parts)
    separator = " " if node.tag in ("td", "th", "tr", "p", "li", "div", "caption") else ""
    return separator + "".join(parts) + separator


def find(node, tag):
    if isinstance(node, str):
        return []
    found = [node] if node.tag == tag else []
    for child in node.children:
        found += find(child, tag)
    return found


def table_failures(dom):
    """Every table has a non-empty caption; returns (failures, columns of every table)."""
    failures, columns = [], []
    for number, table in enumerate(find(dom, "table"), 1):
        captions = [c for c in table.children if not isinstance(c, str) and c.tag == "caption"]
        if not captions or not text(captions[0]).strip():
            failures.append(f"table {number} has no caption")
        rows = [[text(cell).strip() for cell in row.children
                 if not isinstance(cell, str) and cell.tag in ("td", "th")]
                for row in find(table, "tr")]
        width = max((len(r) for r in rows), default=0)
        columns += [[r[j] for r in rows if j < len(r)] for j in range(width)]
    return failures, columns


def figure_failures(source, path):
    """Each inline <svg> of the page, saved next to it, passes check_svg (well-formed XML with a
    size and no outside reference, rendered non-blank by rsvg-convert)."""
    failures = []
    for number, svg in enumerate(INLINE_SVG.findall(source), 1):
        if "xmlns=" not in svg.split(">", 1)[0]:  # HTML does not need the namespace; XML does
            svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
        figure = f"{os.path.splitext(path)[0]}.figure-{number}.svg"
        with open(figure, "w", encoding="utf-8") as f:
            f.write(svg)
        failures += [f"figure {number}: {failure}" for failure in svg_failures(figure)]
    return failures


def page_failures(chromium, path, values, tokens, workdir):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    failures = [f"external reference: {url}" for url in sorted(set(EXTERNAL.findall(source)))]
    failures += figure_failures(source, workdir.file(os.path.basename(path), "html"))
    load = load_page(chromium, path)
    if load.problem:
        return failures + [load.problem]
    failures += load.console_errors + load.failed_requests
    dom = parse(load.dom)
    tables, columns = table_failures(dom)
    failures += tables
    page = text(dom)
    failures += [f"value absent from the DOM: {v}" for v in missing_values(page, values, columns=columns)]
    flat = re.sub(r"\s+", "", page)
    absent = [t for t in tokens if t not in flat]
    if absent:
        failures.append("tokens absent from the DOM: " + " ".join(absent))
    if blank(load.png):
        failures.append("blank screenshot (one colour)")
    return failures


def main():
    def options(parser):
        parser.add_argument("--expect-report-text", action="append", default=[], metavar="TEXT",
                            help="each scenario's run report must show this text")

    args = parse_arguments(__doc__, "html", "html", options)
    chromium = require_tool("chromium")
    require_tool("rsvg-convert")  # for the figures
    require_pil()
    workdir = WorkDir(args, "html")

    def check(doc):
        page, error = doc.text(args.cli, "html")
        if error:
            return doc.name, [error]
        if isinstance(doc, FileDocument):
            path = doc.path
        else:  # a file:// URL to open
            path = workdir.file(doc.name, "html")
            with open(path, "w", encoding="utf-8") as f:
                f.write(page)
        return doc.name, page_failures(chromium, path, doc.values, doc.tokens, workdir)

    docs = inputs(args, "html", [("page", ())])
    for doc in docs:
        if getattr(doc, "output", None) is not None and doc.output.name == "run":
            doc.tokens = list(doc.tokens) + [re.sub(r"\s+", "", t) for t in args.expect_report_text]
    return report("html", parallel(check, docs), args.expect_reject, args.known_fault)


if __name__ == "__main__":
    sys.exit(main())
