#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generic prose is no claim of the scenario (docs/manuscript.md, "How audit binds a number"):
an author writing about something else ("a list of 12 steps", "3 heads of lettuce", "in 4 steps
we sort the list") in a book over Chapter 14, whose cost cases count 4 target steps. A unit word
alone ("steps", "bytes", "numbers") names no quantity of the scenario when the number's context
names nothing of it (no example, table, section, read, source, query or field word): such a number
is `unbound`, never `wrong`, and never `verified` either (a sort's 4 steps are not the target
steps). The same units beside the scenario's words still bind: Section 14.6's four output steps
over three source positions are twelve dot products (4 × 3, by hand), and thirteen is wrong.

    audit_generic_prose.py EXACTATTN WORKDIR

Exit 0 when every number has its verdict, 1 otherwise.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audit_figures  # noqa: E402

FRONT = "---\nexactattn-scenario: chapter14\n---\n\n"

# (sentence, the number as written, its verdict): "not wrong" accepts any verdict but `wrong`.
GENERIC = [
    ("A list of 12 steps is long.", "12", "unbound"),
    ("Sorting takes the 12 steps of a list.", "12", "unbound"),
    ("In 4 steps we sort the list.", "4", "unbound"),
    ("The proof takes twelve steps.", "twelve", "unbound"),
    ("The file holds 700 bytes of text.", "700", "unbound"),
    ("She wrote 7 numbers on the board.", "7", "unbound"),
    ("Buy 3 heads of lettuce.", "3", "not wrong"),
    ("The recipe has 5 steps and needs 3 heads of lettuce.", "5", "unbound"),
]

# An aside in a paragraph that does name the scenario: a unit alone binds only when the number's
# own sentence names something of it, so the paragraph's weights, query or source do not lend
# "the 12 steps of a list" a subject. The scenario's numbers beside it keep theirs: Example
# 14.1's key has weight 1/4, the blue source three states (Chapter 14).
ASIDES = [
    ("The weights of Example 14.1 are 1/2, 1/4 and 1/4. Sorting takes the 12 steps of a list. The query [1,0] "
     "scores each key.", "12", "unbound"),
    ("The weights of Example 14.1 are 1/2, 1/4 and 1/4. Sorting takes the 12 steps of a list. The query [1,0] "
     "scores each key.", "1/4", "verified"),
    ("The blue source holds three states. A list of 12 steps is long.", "12", "unbound"),
    ("The blue source holds three states. A list of 12 steps is long.", "three", "verified"),
]

# The same units where the text names the scenario: Section 14.6 (its heading's number) counts
# 4 target steps over the red source's 3 positions, 4 × 3 = 12 dot products (Chapter 14).
BOUND = [
    ("Each of the four output steps scores all three source positions: twelve dot products.", "twelve", "verified"),
    ("Each of the four output steps scores all three source positions: thirteen dot products.", "thirteen",
     "wrong"),
]


def verdicts(exe, path):
    """{(line, text): verdict} of every number `audit --all` lists in `path`, and its exit code."""
    found = audit_figures.findings(exe, path)
    return {(line, text): verdict for line, _, verdict, text in found}, audit_figures.EXIT_CODES[os.path.basename(path)]


def main():
    exe, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failed = False
    for name, heading, cases in (("generic.md", "# Sorting a list\n\n", GENERIC),
                                 ("asides.md", "# Notes\n\n", ASIDES),
                                 ("costs.md", "## 14.6 The cost of reading\n\n", BOUND)):
        path = os.path.join(work, name)
        body = "".join(sentence + "\n\n" for sentence, _, _ in cases)
        with open(path, "w", encoding="utf-8") as f:
            f.write(FRONT + heading + body)
        found, code = verdicts(exe, path)
        first = FRONT.count("\n") + heading.count("\n") + 1
        for i, (sentence, number, want) in enumerate(cases):
            line = first + 2 * i
            got = found.get((line, number), "not listed")
            ok = got != "wrong" if want == "not wrong" else got == want
            print(f"{name}:{line}: {number!r} in {sentence!r}: {got}{'' if ok else f' (want {want})'}")
            failed = failed or not ok
        if name in ("generic.md", "asides.md") and code != 0:
            print(f"FAIL: audit of {name} exited {code}, not 0")
            failed = True
    if failed:
        print("FAIL: a number of the prose has another verdict than it should")
        return 1
    print("audit_generic_prose: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
