#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""W8's book: N scenario files, deterministic variants of the chapter's Exercise 1 setting.

Usage: make_book.py N DIR

Each file is Exercise 1's read with other integers: the memory [[k1·a, 0], [0, k2·a], [0, 0]]
(the red source's three states, Example 14.1), an integer query [q1, q2] and the readout
[1, 2], read plainly and with each position removed (a remove-state intervention, Table 14.2).
Its `expect` entries are worked here by hand with exact fractions, not by exactattn:
  scores        s = [q1·k1·a, q2·k2·a, 0]
  exponentials  exp(c·a) = 2^c, so [2^(q1·k1), 2^(q2·k2), 1]
  weights       w_j = 2^(c_j) / Σ_i 2^(c_i) over the included positions
  context       [k1·a·w_1, k2·a·w_2]
  readout       context_1 + 2·context_2
The integers come from a fixed linear congruential sequence (Knuth's MMIX constants), so the
same N gives the same bytes everywhere. (A `variants` command that draws exercise variants is
a separate feature; this script does not depend on it.)
"""
import json
import os
import sys
from fractions import Fraction


def lcg(seed):
    x = seed
    while True:
        x = (6364136223846793005 * x + 1442695040888963407) % 2**64
        yield x >> 33


def a_multiple(c):
    """c·a as exactattn reads it: '0', 'a', '-a', '3a/5'."""
    if c == 0:
        return "0"
    num = "a" if abs(c.numerator) == 1 else f"{abs(c.numerator)}a"
    sign = "-" if c < 0 else ""
    return sign + num + ("" if c.denominator == 1 else f"/{c.denominator}")


def read(k, q, removed):
    scores = [q[0] * k[0], q[1] * k[1], 0]
    exps = [None if j == removed else Fraction(2) ** scores[j] for j in range(3)]
    total = sum(e for e in exps if e is not None)
    weights = [Fraction(0) if e is None else e / total for e in exps]
    context = [k[0] * weights[0], k[1] * weights[1]]  # multiples of a
    return {
        "scores": [None if j == removed else a_multiple(Fraction(scores[j])) for j in range(3)],
        "weights": [str(w) for w in weights],
        "context": [a_multiple(c) for c in context],
        "readout": a_multiple(context[0] + 2 * context[1]),
    }


def scenario(i, rnd):
    k = [next(rnd) % 4 + 1, next(rnd) % 4 + 1]
    q = [next(rnd) % 3, next(rnd) % 3]
    doc = {
        "title": f"W8 book, variant {i + 1}: memory [[{k[0]}a, 0], [0, {k[1]}a], [0, 0]], query {q}",
        "sources": {"red": {"memory": [[a_multiple(Fraction(k[0])), "0"], ["0", a_multiple(Fraction(k[1]))], ["0", "0"]]}},
        "queries": {"q": q},
        "readouts": {"r": [1, 2]},
        "reads": {"exercise-1": {"source": "red", "query": "q", "readout": "r"}},
        "interventions": {"table-14.2": {"kind": "remove-state", "source": "red", "query": "q", "readout": "r"}},
        "expect": {},
    }
    for key, value in read(k, q, None).items():
        doc["expect"][f"/reads/exercise-1/{key}"] = value
    for row in range(1, 4):  # row 0 is the unchanged read; row p removes position p
        for key, value in read(k, q, row - 1).items():
            if key != "scores":
                doc["expect"][f"/interventions/table-14.2/rows/{row}/{key}"] = value
    return doc


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    rnd = lcg(8)
    for i in range(n):
        sub = os.path.join(out, f"part-{i // 100:02d}")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, f"variant-{i:04d}.json"), "w", encoding="utf-8") as f:
            json.dump(scenario(i, rnd), f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
