#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Whole books in CI (docs/manuscript.md, "Books"):
#   --only annotations: `manuscript check DIR` and `verify DIR` print a summary per chapter and
#     each wrong number as a GitHub annotation line at its file, line and column (--format
#     github), and write a SARIF 2.1.0 log (--sarif) with the same places; the log's structure is
#     held to what SARIF 2.1.0 requires (the OASIS schema is not committed: its licence is not
#     the project's).
#     A Markdown book whose front matter asks for the audit of its unmarked prose is audited by
#     `manuscript check` too (exactattn-audit), the strictest file winning.
#   --only latexmk: a LaTeX book of \include'd chapters checked in one command from its main
#     file, chapters outside the book's directory refused, and the book built by latexmk
#     (xelatex); exits 77 (skipped) where latexmk or xelatex is absent, unless
#     EXACTATTN_WITH_RENDER=1 asked for them.
# Every expected place and value is written here by hand from the text below and Chapter 14.
import argparse
import json
import os
import shutil
import subprocess
import sys


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def run(cmd, cwd, expect):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    if p.returncode != expect:
        fail(f"{' '.join(cmd)} exited {p.returncode}, not {expect}:\n{p.stdout}\n{p.stderr}")
    return p


def lines_with(text, needle):
    return [line for line in text.splitlines() if needle in line]


SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def check_sarif(path, results, artifacts):
    """The log against SARIF 2.1.0's requirements (sarifLog: version, runs; run: tool; tool: driver;
    toolComponent: name; reportingDescriptor: id; result: message with text; region lines and
    columns ≥ 1; level and columnKind from their enumerations) and the expected results."""
    log = json.load(open(path, encoding="utf-8"))
    if log.get("version") != "2.1.0" or log.get("$schema") != SCHEMA or len(log.get("runs", [])) != 1:
        fail(f"{path}: not one SARIF 2.1.0 run: {list(log)}")
    run_ = log["runs"][0]
    driver = run_["tool"]["driver"]
    rules = [r["id"] for r in driver["rules"]]
    if driver["name"] != "exactattn" or rules != ["wrong-claim", "expect-mismatch", "unmarked-wrong"]:
        fail(f"{path}: driver {driver}")
    if run_["columnKind"] != "unicodeCodePoints":
        fail(f"{path}: columns are code points, not {run_['columnKind']}")
    root = run_["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    if not root.startswith("file:///") or not root.endswith("/"):
        fail(f"{path}: %SRCROOT% is {root}")
    uris = [a["location"]["uri"] for a in run_["artifacts"]]
    if uris != artifacts:
        fail(f"{path}: artifacts {uris}, not {artifacts}")
    got = []
    for r in run_["results"]:
        if r["level"] not in ("none", "note", "warning", "error") or r["ruleId"] != rules[r["ruleIndex"]]:
            fail(f"{path}: result {r}")
        loc = r["locations"][0]["physicalLocation"]
        if loc["artifactLocation"].get("uriBaseId") != "%SRCROOT%":
            fail(f"{path}: a relative path without %SRCROOT%: {loc}")
        region = loc.get("region", {})
        if region.get("startLine", 1) < 1 or region.get("startColumn", 1) < 1:
            fail(f"{path}: region {region}")
        got.append((r["ruleId"], loc["artifactLocation"]["uri"], region.get("startLine"), region.get("startColumn"),
                    r["message"]["text"]))
    if len(got) != len(results):
        fail(f"{path}: {len(got)} results, not {len(results)}: {got}")
    for g, (rule, uri, line, col, start) in zip(got, results):
        if g[:4] != (rule, uri, line, col) or not g[4].startswith(start):
            fail(f"{path}: result {g}, not {(rule, uri, line, col, start)}…")


def annotations(args, work):
    book = os.path.join(work, "book")
    s = json.load(open(os.path.join(args.source, "data/chapter14/chapter14.json"), encoding="utf-8"))
    # One right and one wrong expect entry: Example 14.1's denominator is 2 + 1 + 1 = 4, not 5.
    del s["expect"]
    text = json.dumps(s, ensure_ascii=False, indent=2)[:-2]
    text += ',\n  "expect": {\n    "/reads/example-14.1/weights": ["1/2", "1/4", "1/4"],\n' \
            '    "/reads/example-14.1/denominator": "5"\n  }\n}\n'
    write(os.path.join(book, "scenario.json"), text)
    denominator_line = text[: text.index('"/reads/example-14.1/denominator"')].count("\n") + 1
    front = "---\nexactattn-scenario: scenario.json\n---\n\n"
    write(os.path.join(book, "ch1.md"),
          front + "The weights are [[1/2, 1/4, 1/4]]{.exact ref=\"/reads/example-14.1/weights\"}.\n")
    # Line 6, column 24 (code points: 红色 is two): key's weight is 1/4, written 1/3. The name
    # holds a comma, a colon and spaces, which GitHub's properties and a URI escape.
    write(os.path.join(book, "ch2, part: b.md"),
          front + "The denominator is [$2+1+1=4$]{.exact ref=\"/reads/example-14.1/denominator\"}.\n"
                  "The 红色 key's weight is [1/3]{.exact ref=\"/reads/example-14.1/weights/1\"}.\n")
    sarif = os.path.join(work, "check.sarif")
    p = run([args.cli, "manuscript", "check", "book", "--format", "github", "--sarif", sarif], work, 1)
    out = p.stdout.splitlines()
    want = ["book/ch1.md: 1 claim, 0 wrong",
            "::error file=book/ch2%2C part%3A b.md,line=6,col=24,title=exactattn wrong-claim::"
            "/reads/example-14.1/weights/1: written 1/3, exact 1/4",
            "book/ch2, part: b.md: 2 claims, 1 wrong",
            "manuscript: 3 claims checked in 2 files, 1 wrong in 1 file"]
    if len(out) != 4 or out[0] != want[0] or not out[1].startswith(want[1]) or out[2:] != want[2:]:
        fail(f"manuscript check --format github printed:\n{p.stdout}\nnot:\n" + "\n".join(want))
    check_sarif(sarif, [("wrong-claim", "book/ch2%2C%20part%3A%20b.md", 6, 24,
                         "/reads/example-14.1/weights/1: written 1/3, exact 1/4")],
                ["book/ch1.md", "book/ch2%2C%20part%3A%20b.md"])
    # The text format keeps its lines.
    p = run([args.cli, "manuscript", "check", "book"], work, 1)
    if not lines_with(p.stdout, "book/ch2, part: b.md:6:24: /reads/example-14.1/weights/1: written 1/3, exact 1/4"):
        fail(f"manuscript check (text) printed:\n{p.stdout}")
    # verify DIR: the scenario's wrong expect at its line, then the chapters, then the total.
    sarif = os.path.join(work, "verify.sarif")
    p = run([args.cli, "verify", "book", "--format", "github", "--sarif", sarif, "-j", "1"], work, 1)
    want_expect = (f"::error file=book/scenario.json,line={denominator_line},title=exactattn expect-mismatch::"
                   "/reads/example-14.1/denominator: expected \"5\", computed \"4\"")
    if want_expect not in p.stdout.splitlines() or not lines_with(p.stdout, "::error file=book/ch2%2C part%3A b.md,line=6,col=24"):
        fail(f"verify --format github printed:\n{p.stdout}\nwithout {want_expect}")
    if p.stdout.splitlines()[-1] != "verify: 1 passed, 1 failed":
        fail(f"verify's total is not last:\n{p.stdout}")
    check_sarif(sarif, [("expect-mismatch", "book/scenario.json", denominator_line, None,
                         "/reads/example-14.1/denominator: expected \"5\", computed \"4\""),
                        ("wrong-claim", "book/ch2%2C%20part%3A%20b.md", 6, 24, "/reads/example-14.1/weights/1")],
                ["book/scenario.json", "book/ch1.md", "book/ch2%2C%20part%3A%20b.md"])
    # No wrong number: an empty result list, exit 0.
    write(os.path.join(book, "ch2, part: b.md"), front + "Key's weight is [1/4]{.exact ref=\"/reads/example-14.1/weights/1\"}.\n")
    run([args.cli, "manuscript", "check", "book", "--sarif", sarif], work, 0)
    check_sarif(sarif, [], ["book/ch1.md", "book/ch2%2C%20part%3A%20b.md"])


def markdown_book_audit(args, work):
    """`manuscript check` of a Markdown book audits its unmarked prose when a file's YAML metadata asks
    (`exactattn-audit: true|strict`, `exactattn-audit-min-coverage: P`), as for a LaTeX book's comment
    lines: the strictest file wins, one total line, exit 1 on a wrong unmarked number. By hand (Chapter
    14, Example 14.1): key's weight is 1/4; ch2.md's `1/3` stands at line 5 (three lines of front
    matter and a blank before it), column 36; ch1.md's one mark and ch2.md's one unmarked number
    make a coverage of 1 of 2, 50.0%."""
    book = os.path.join(work, "mdbook")
    shutil.copy(os.path.join(args.source, "data/chapter14/chapter14.json"), os.path.join(work, "chapter14.json"))
    ch1 = os.path.join(book, "ch1.md")
    ch2 = os.path.join(book, "ch2.md")
    one = ("---\nexactattn-scenario: ../chapter14.json\n{}---\n\n"
           "The weights are [[1/2, 1/4, 1/4]]{{.exact ref=\"/reads/example-14.1/weights\"}}.\n")
    two = "---\nexactattn-scenario: ../chapter14.json\n{}---\n\nIn Example 14.1 the key has weight {}.\n"
    write(ch1, one.format("exactattn-audit: true  # the book's unmarked prose too\n"))
    write(ch2, two.format("", "1/3"))
    wrong = ("mdbook/ch2.md:5:36: written 1/3; weight of position 2 (key) in read example-14.1 (source red, query "
             "q1) (/reads/example-14.1/weights/1) is 1/4 (1/3 ≠ 1/4)")
    want = ["mdbook/ch1.md: 1 claim, 0 wrong", "mdbook/ch2.md: 0 claims, 0 wrong",
            "manuscript: 1 claim checked in 2 files, 0 wrong", wrong,
            "manuscript audit: coverage 50.0% (1 of 2 numeric claims marked), 1 wrong in 2 files "
            "(exactattn-audit: true)"]
    p = run([args.cli, "manuscript", "check", "mdbook"], work, 1)
    if p.stdout.splitlines() != want:
        fail("manuscript check of a Markdown book asking for the audit printed:\n" + p.stdout + "\nnot:\n"
             + "\n".join(want))
    # The strictest file wins: ch2's own `false` does not turn off ch1's `true`.
    write(ch2, two.format("exactattn-audit: false\n", "1/3"))
    p = run([args.cli, "manuscript", "check", "mdbook"], work, 1)
    if not lines_with(p.stdout, wrong.replace(":5:36:", ":6:36:")):
        fail(f"a chapter's exactattn-audit: false turned off the book's audit:\n{p.stdout}")
    write(ch2, two.format("", "1/3"))
    # As a GitHub annotation, rule unmarked-wrong.
    p = run([args.cli, "manuscript", "check", "mdbook", "--format", "github"], work, 1)
    if not lines_with(p.stdout, "::error file=mdbook/ch2.md,line=5,col=36,title=exactattn unmarked-wrong::written 1/3"):
        fail(f"the unmarked wrong number is no annotation:\n{p.stdout}")
    # --marks-only: the marks alone, as a build tool that audits the book itself asks (exit 0).
    p = run([args.cli, "manuscript", "check", "mdbook", "--marks-only"], work, 0)
    if p.stdout.splitlines() != want[:3]:
        fail(f"check --marks-only printed:\n{p.stdout}")
    # pandoc merges a file's metadata blocks, a later key replacing an earlier one: a later block's
    # `false` is the file's setting, and nothing else asks.
    write(ch1, one.format("exactattn-audit: true\n") + "\n---\nexactattn-audit: false\n---\n")
    run([args.cli, "manuscript", "check", "mdbook"], work, 0)
    # A key in a fenced block or nested under another is not the document's.
    write(ch1, one.format("book:\n  exactattn-audit: true\n") + "\n```\n---\nexactattn-audit: true\n---\n```\n")
    run([args.cli, "manuscript", "check", "mdbook"], work, 0)
    # strict: 1 of 2 marked (50.0%) is below the default 95% (exit 1, each file's coverage printed);
    # a minimum of 50 in ch2 is met.
    write(ch2, two.format("", "1/4"))
    write(ch1, one.format("exactattn-audit: strict\n"))
    p = run([args.cli, "manuscript", "check", "mdbook"], work, 1)
    if ("mdbook/ch2.md: 0 marked, 1 unmarked, coverage 0.0%" not in p.stdout.splitlines()
            or "0 wrong in 2 files (exactattn-audit: strict, minimum 95%)" not in p.stdout):
        fail(f"strict below 95% did not fail the Markdown book:\n{p.stdout}")
    write(ch2, two.format("exactattn-audit-min-coverage: 50\n", "1/4"))
    run([args.cli, "manuscript", "check", "mdbook"], work, 0)
    # A value that is no setting: refused at its key (line 3, column 1), one line, exit 2.
    for key, value, reason in (("exactattn-audit", "maybe", "exactattn-audit: maybe is none of true, false and "
                                "strict"),
                               ("exactattn-audit-min-coverage", "'ninety'", "exactattn-audit-min-coverage: ninety is "
                                "not a percentage from 0 to 100")):
        write(ch1, one.format(f"{key}: {value}\n"))
        p = run([args.cli, "manuscript", "check", "mdbook"], work, 2)
        if not p.stderr.startswith(f"exactattn: mdbook/ch1.md:3:1: {reason}") or p.stderr.count("\n") != 1:
            fail(f"{key}: {value} in the front matter was not refused at its line: {p.stderr}")


def latexmk_book(args, work):
    missing = [t for t in ("latexmk", "xelatex", "pdftotext") if shutil.which(t) is None]
    if missing:
        asked = os.environ.get("EXACTATTN_WITH_RENDER") == "1"
        print(f"{'FAIL' if asked else 'SKIPPED'}: {', '.join(missing)} not found "
              "(install with EXACTATTN_WITH_RENDER=1 bash scripts/setup.sh)")
        sys.exit(1 if asked else 77)
    book = os.path.join(work, "book")
    main = ("\\documentclass{book}\n\\usepackage{fontspec}\n\\usepackage{amsmath,exactattn}\n"
            "% exactattn-scenario: scenario/chapter14.json\n\\begin{document}\n"
            "\\include{chapters/one}\n\\include{chapters/two}\n\\end{document}\n")
    write(os.path.join(book, "main.tex"), main)
    os.makedirs(os.path.join(book, "scenario"))
    shutil.copy(os.path.join(args.source, "data/chapter14/chapter14.json"), os.path.join(book, "scenario"))
    # Example 14.1's weights are [1/2, 1/4, 1/4]; removing key, the readout is 2a/3 (Table 14.2).
    write(os.path.join(book, "chapters/one.tex"),
          "\\chapter{One}\nThe weights are \\exact{/reads/example-14.1/weights}{$[\\tfrac12, \\tfrac14, \\tfrac14]$}.\n")
    right = "\\chapter{Two}\nRemoving key, the readout is \\exact{/interventions/table-14.2/rows/2/readout}{$\\tfrac{2a}{3}$}.\n"
    write(os.path.join(book, "chapters/two.tex"), right)
    p = run([args.cli, "manuscript", "check", "book/main.tex"], work, 0)
    want = ["book/main.tex: 0 claims, 0 wrong", "book/chapters/one.tex: 1 claim, 0 wrong",
            "book/chapters/two.tex: 1 claim, 0 wrong", "manuscript: 2 claims checked in 3 files, 0 wrong"]
    if p.stdout.splitlines() != want:
        fail(f"the book's check printed:\n{p.stdout}\nnot:\n" + "\n".join(want))
    # The book directory, as CI would name it, gives the same chapters.
    p = run([args.cli, "manuscript", "check", "book"], work, 0)
    if p.stdout.splitlines() != want:
        fail(f"the book directory's check printed:\n{p.stdout}")
    env = dict(os.environ, TEXINPUTS=os.path.join(args.source, "share/exactattn/tex") + os.pathsep)
    p = subprocess.run(["latexmk", "-xelatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"], cwd=book,
                       env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        fail(f"latexmk exited {p.returncode}:\n{p.stdout[-3000:]}\n{p.stderr[-2000:]}")
    text = subprocess.run(["pdftotext", os.path.join(book, "main.pdf"), "-"], capture_output=True, text=True).stdout
    for shown in ["One", "Two", "The weights are", "Removing key, the readout is"]:
        if shown not in text:
            fail(f"the book's PDF lacks {shown!r}")
    if "/reads/" in text or "/interventions/" in text:
        fail("a pointer leaks into the book's PDF")
    # The example book of docs/manuscript.md builds too.
    example = os.path.join(work, "example")
    shutil.copytree(os.path.join(args.source, "docs/examples/latex-book"), example)
    p = subprocess.run(["latexmk", "-xelatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"],
                       cwd=example, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0 or "Removing key, the readout is" not in subprocess.run(
            ["pdftotext", os.path.join(example, "main.pdf"), "-"], capture_output=True, text=True).stdout:
        fail(f"latexmk did not build docs/examples/latex-book:\n{p.stdout[-3000:]}")
    latex_book_audit(args, work, book, main, right, env)
    # A wrong readout in the second chapter: its file, line 2 and column 30.
    write(os.path.join(book, "chapters/two.tex"), right.replace("\\tfrac{2a}{3}", "\\tfrac{a}{3}"))
    p = run([args.cli, "manuscript", "check", "book/main.tex", "--format", "github"], work, 1)
    if not lines_with(p.stdout, "::error file=book/chapters/two.tex,line=2,col=30,title=exactattn wrong-claim::"
                                "/interventions/table-14.2/rows/2/readout: written $\\tfrac{a}{3}$, exact 2a/3"):
        fail(f"the wrong readout of chapter two was not annotated:\n{p.stdout}")
    write(os.path.join(book, "chapters/two.tex"), right)
    # Chapters are read only inside the book's directory: ../, an absolute path and a symbolic
    # link out of it are refused at the \include (line 6, column 1), as is a missing chapter.
    write(os.path.join(work, "outside.tex"), "\\exact{/reads/example-14.1/weights/1}{$\\tfrac13$}\n")
    os.symlink(os.path.join(work, "outside.tex"), os.path.join(book, "chapters/link.tex"))
    for name, reason in [("../outside", "\\input{../outside}: the chapter is outside the book's directory"),
                         (os.path.join(work, "outside.tex"), "the chapter is outside the book's directory"),
                         ("chapters/link", "\\input{chapters/link}: the chapter is outside the book's directory"),
                         ("chapters/none", "\\input{chapters/none}: no such chapter file")]:
        write(os.path.join(book, "main.tex"), main.replace("\\include{chapters/one}", "\\input{" + name + "}"))
        p = run([args.cli, "manuscript", "check", "book/main.tex"], work, 2)
        if not p.stderr.startswith("exactattn: book/main.tex:6:1: ") or reason not in p.stderr or p.stderr.count("\n") != 1:
            fail(f"\\input{{{name}}} was not refused at its place: {p.stderr}")
    # A chapter that includes the file including it.
    write(os.path.join(book, "main.tex"), main)
    write(os.path.join(book, "chapters/two.tex"), right + "\\input{chapters/two}\n")
    p = run([args.cli, "manuscript", "check", "book/main.tex"], work, 2)
    if "book/chapters/two.tex:3:1: \\input{chapters/two}: the chapter includes itself" not in p.stderr:
        fail(f"a chapter including itself was not refused: {p.stderr}")


def latex_book_audit(args, work, book, main, right, env):
    """The unmarked prose of a LaTeX book, audited by `manuscript check main.tex` when a comment line
    `% exactattn-audit: true|strict` in the main file or a chapter asks for it (the strictest taken).
    By hand (Chapter 14): key's weight in Example 14.1 is 1/4, so an unmarked $\\tfrac13$ for it is
    wrong; line 4 of chapters/two.tex (the chapter, the marked readout, a blank), column 38."""
    asked = main.replace("% exactattn-scenario: scenario/chapter14.json\n",
                         "% exactattn-scenario: scenario/chapter14.json\n% exactattn-audit: true\n")
    two = os.path.join(book, "chapters/two.tex")
    weight = right + "\nIn Example 14.1 the weight of key is $\\tfrac@$.\n"
    wrong_line = "book/chapters/two.tex:4:38: written $\\tfrac13$; "
    # The correct book builds with latexmk (the comment is TeX's) and passes the audited check.
    write(os.path.join(book, "main.tex"), asked)
    write(two, weight.replace("@", "14"))
    run([args.cli, "manuscript", "check", "book/main.tex"], work, 0)
    p = subprocess.run(["latexmk", "-xelatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"], cwd=book,
                       env=env, capture_output=True, text=True, timeout=600)
    shown = subprocess.run(["pdftotext", os.path.join(book, "main.pdf"), "-"], capture_output=True, text=True).stdout
    if p.returncode != 0 or "the weight of key is" not in shown:
        fail(f"latexmk did not build the audited book:\n{p.stdout[-3000:]}")
    # The wrong weight fails the check (exit 1) at its place, asked for by the main file, by a
    # chapter alone, and by the main file despite a chapter's `false`; without the setting it passes.
    write(two, weight.replace("@", "13"))
    for main_text, chapter_setting in ((asked, ""), (main, "% exactattn-audit: true\n"),
                                       (asked, "% exactattn-audit: false\n")):
        write(os.path.join(book, "main.tex"), main_text)
        write(two, chapter_setting + weight.replace("@", "13"))
        p = run([args.cli, "manuscript", "check", "book/main.tex"], work, 1)
        at = wrong_line.replace(":4:", f":{4 + chapter_setting.count(chr(10))}:")
        if not lines_with(p.stdout, at) or "1 wrong in 3 files (exactattn-audit: true)" not in p.stdout:
            fail(f"the audited LaTeX book did not fail at {at!r}:\n{p.stdout}")
    # CI: under --format github the wrong unmarked weight is an annotation line at 4:38 in place
    # of its text line, and --sarif holds it as an `unmarked-wrong` result there, after the wrong
    # marked readout (line 2, column 30: Table 14.2's readout without key is 2a/3, not a/3).
    write(os.path.join(book, "main.tex"), asked)
    write(two, weight.replace("@", "13").replace("\\tfrac{2a}{3}", "\\tfrac{a}{3}"))
    sarif = os.path.join(work, "audit.sarif")
    p = run([args.cli, "manuscript", "check", "book/main.tex", "--format", "github", "--sarif", sarif], work, 1)
    note = ("::error file=book/chapters/two.tex,line=4,col=38,title=exactattn unmarked-wrong::"
            "written $\\tfrac13$; ")
    noted = lines_with(p.stdout, note)
    if len(noted) != 1 or not noted[0].startswith(note) or "(/reads/example-14.1/weights/1) is 1/4" not in noted[0] \
            or lines_with(p.stdout, wrong_line) or "1 wrong in 3 files (exactattn-audit: true)" not in p.stdout:
        fail(f"the audited LaTeX book's wrong weight was not annotated at 4:38:\n{p.stdout}")
    check_sarif(sarif, [("wrong-claim", "book/chapters/two.tex", 2, 30,
                         "/interventions/table-14.2/rows/2/readout: written $\\tfrac{a}{3}$, exact 2a/3"),
                        ("unmarked-wrong", "book/chapters/two.tex", 4, 38, "written $\\tfrac13$; ")],
                ["book/main.tex", "book/chapters/one.tex", "book/chapters/two.tex"])
    write(os.path.join(book, "main.tex"), main)
    write(two, weight.replace("@", "13"))
    run([args.cli, "manuscript", "check", "book/main.tex"], work, 0)
    # strict: 2 of 3 numeric claims marked (the two marks and the unmarked weight), below 95%; a
    # minimum of 50 is met; the highest minimum of all places is taken.
    write(two, weight.replace("@", "14"))
    strict = main.replace("\\begin{document}", "% exactattn-audit: strict\n\\begin{document}")
    write(os.path.join(book, "main.tex"), strict)
    p = run([args.cli, "manuscript", "check", "book/main.tex"], work, 1)
    if "coverage 66.7% (2 of 3 numeric claims marked), 0 wrong in 3 files" not in p.stdout:
        fail(f"the strict LaTeX book did not fail at its coverage:\n{p.stdout}")
    write(os.path.join(book, "main.tex"), strict.replace("strict\n", "strict\n% exactattn-audit-min-coverage: 50\n"))
    run([args.cli, "manuscript", "check", "book/main.tex"], work, 0)
    write(two, "% exactattn-audit-min-coverage: 70\n" + weight.replace("@", "14"))
    run([args.cli, "manuscript", "check", "book/main.tex"], work, 1)
    # Values are words and a percentage: anything else is refused at its line (exit 2, one line).
    for key, value, line, reason in (("exactattn-audit", "maybe", 5, "exactattn-audit: maybe is none of true, false "
                                      "and strict"),
                                     ("exactattn-audit", "true; \\input{x}", 5, "exactattn-audit: true; \\input{x} is "
                                      "none of true, false and strict"),
                                     ("exactattn-audit-min-coverage", "ninety", 5, "exactattn-audit-min-coverage: "
                                      "ninety is not a percentage from 0 to 100")):
        write(os.path.join(book, "main.tex"), main.replace("\\begin{document}", f"% {key}: {value}\n\\begin{{document}}"))
        p = run([args.cli, "manuscript", "check", "book/main.tex"], work, 2)
        if not p.stderr.startswith(f"exactattn: book/main.tex:{line}:3: {reason}") or p.stderr.count("\n") != 1:
            fail(f"% {key}: {value} was not refused at its line: {p.stderr}")
    write(os.path.join(book, "main.tex"), main)
    write(two, right)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--only", choices=["annotations", "latexmk"], required=True)
    args = ap.parse_args()
    args.cli = os.path.abspath(args.cli)
    args.source = os.path.abspath(args.source)
    work = os.path.join(args.workdir, args.only)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if args.only == "annotations":
        annotations(args, work)
        markdown_book_audit(args, work)
    else:
        latexmk_book(args, work)
    print("check_books: passed")


if __name__ == "__main__":
    main()
