#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""reStructuredText outputs parse in docutils without an error or a warning.

  check_rst.py [--expect-token T]... [--expect-reject REASON]... FILE.rst...
  check_rst.py --cli EXACTATTN [--workdir DIR] SCENARIO|chapter14...

Each document is read by docutils (Debian's python3-docutils) and written as HTML5 with its
math as MathML, as Sphinx and rst2html would: any system message of level WARNING or above (a
title underline too short, a list-table whose rows differ in length, inline markup left open,
a math role docutils cannot convert) is a failure, each named with its line. A table of the
output must be a table of the doctree; the chapter's tokens must be in the document's text.

Exit 0 all passed, 1 a failure, 77 skipped (python3-docutils absent)."""
import io
import os
import sys
import threading

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import WorkDir, absent, inputs, parallel, parse_arguments, report  # noqa: E402

try:
    import docutils.core
    import docutils.nodes
    import docutils.utils
except ImportError:
    docutils = None


# docutils is not thread-safe (its parser keeps state in module- and class-level objects; Sphinx
# parallelises with processes for that reason): a CI run once reported a warning for a document
# that parses clean alone. The CLI runs in parallel; docutils parses one document at a time.
DOCUTILS = threading.Lock()


def rst_failures(text):
    """What docutils reports about `text` at WARNING or above (each with its line, as docutils
    writes it), and the document's text; or the failures alone when docutils gave up."""
    with DOCUTILS:
        return _rst_failures(text)


def _rst_failures(text):
    stream = io.StringIO()
    settings = {"report_level": docutils.utils.Reporter.WARNING_LEVEL, "halt_level": 5,
                "warning_stream": stream, "math_output": "MathML", "output_encoding": "unicode",
                "_disable_config": True}
    try:
        docutils.core.publish_string(text, writer_name="html5", settings_overrides=settings)
        doctree = docutils.core.publish_doctree(text, settings_overrides=settings)
    except Exception as e:  # noqa: BLE001 (docutils raises its own kinds on a severe error)
        return [f"docutils failed: {type(e).__name__}: {e}"]
    failures = list(dict.fromkeys(line.replace("<string>:", "line ", 1)
                                  for line in stream.getvalue().splitlines() if "(WARNING/" in line
                                  or "(ERROR/" in line or "(SEVERE/" in line))
    written = text.count(".. list-table::")
    parsed = len(list(doctree.findall(docutils.nodes.table)))
    if parsed != written:
        failures.append(f"{written} list-table directives, but {parsed} tables in the doctree")
    return failures, doctree.astext()


def check(document, cli, workdir):
    text, error = document.text(cli, "rst")
    if error:
        return document.name, [error]
    if workdir is not None:
        with open(workdir.file(document.name, "rst"), "w", encoding="utf-8") as f:
            f.write(text)
    result = rst_failures(text)
    if isinstance(result, list):
        return document.name, result
    failures, body = result
    for token in document.tokens:
        if token not in body:
            failures.append(f"token {token} missing from the document's text")
    return document.name, failures


def main():
    args = parse_arguments(__doc__, "rst", "rst")
    if docutils is None:
        absent("python3-docutils")
    workdir = WorkDir(args, "rst") if args.cli else None
    documents = inputs(args, "rst", [("default", ())])
    results = parallel(lambda d: check(d, args.cli, workdir), documents)
    return report("rst", results, args.expect_reject, args.known_fault)


if __name__ == "__main__":
    sys.exit(main())
