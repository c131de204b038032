#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The figures of `manuscript audit` and `manuscript propose` on an unmarked chapter
(docs/manuscript.md, "The figures"):

- recall: of the errors planted in chapter14-unmarked.md and its LaTeX twin (planted.json, each
  written by hand from the chapter), how many `audit` reports `wrong` or `unbound` on their line;
- false alarms: how many numbers it calls `wrong` in the correct chapter and in the correct
  rewritings of planted.json (2/8 for 1/4, ½, \\tfrac{2a}{3}, 25%, …);
- proposed marks: of the marks `propose` writes on the correct chapter, how many name a quantity
  that expected-marks.json (written by hand from the chapter) accepts, and that `manuscript
  check` passes the proposed file.

    audit_figures.py EXACTATTN WORKDIR [--set NAME] [--min-recall 0.9] [--min-wrong 0] [--min-marks 0.95]

`--set chapter14` (the default) is the material the binder's rules were found on
(chapter14-unmarked.md, planted.json, expected-marks.json); `--set sky` is material written
afterwards over another scenario and never tuned on (sky-unmarked.md, sky-planted.json,
sky.json, derivations in sky-derivation.md), which has no hand-written marks: its proposed
files must pass `manuscript check`, and no marks figure is computed. `--set grove` is a layer
scenario written the same way (grove-*: self-attention, two heads); on it every number was
`unbound` before layers were bound, so the recall of `wrong` alone (`--min-wrong`) is measured too.
`--set causal` is a causal layer's head with its mask in prose (causal-*, over
data/examples/self-attention.json, which is copied from there).

Exit 0 when every goal is met, 1 otherwise; the figures are printed either way.
"""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import md_to_tex  # noqa: E402

LINE = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<rest>.*)$")


def run(exe, *args):
    return subprocess.run([exe, *args], capture_output=True, text=True)


def written_text(rest, source_line, col):
    """W of `written W; …`: W may itself hold "; " (`[0,a]; [0,0]`, the rows of a cell), so it
    is the longest part before a "; " that stands in the source line at its column."""
    parts = rest.split("; ")
    at = source_line[col - 1:]
    for n in range(len(parts), 0, -1):
        w = "; ".join(parts[:n])
        if at.replace("\n", " ").startswith(w):
            return w
    return parts[0]


EXIT_CODES = {}


def findings(exe, path):
    """(line, col, verdict, text) of every number audit reads in `path`; its exit code is kept in
    EXIT_CODES."""
    p = run(exe, "manuscript", "audit", "--all", path)
    EXIT_CODES[os.path.basename(path)] = p.returncode
    if p.returncode not in (0, 1):
        raise SystemExit(f"audit {path} failed ({p.returncode}): {p.stderr}")
    with open(path, encoding="utf-8") as f:
        source = f.read().split("\n")
    out = []
    for raw in p.stdout.splitlines():
        m = LINE.match(raw)
        if not m:
            continue
        rest = m.group("rest")
        if rest.startswith("written "):
            line, col = int(m.group("line")), int(m.group("col"))
            text = written_text(rest[len("written "):], source[line - 1] if line <= len(source) else "", col)
            verdict = "wrong"
        else:
            for v in ("verified", "ambiguous", "unbound", "not a claim"):
                k = rest.find(f" {v}: ")
                if k >= 0:
                    verdict, text = v, rest[:k]
                    break
            else:
                continue
        out.append((int(m.group("line")), int(m.group("col")), verdict, text))
    return out


def apply(text, edits):
    """The text with each edit applied in turn, and the place (line, first col, last col) of
    what each one changed (columns in code points, 1-based)."""
    regions = []
    for e in edits:
        k = text.find(e["anchor"])
        assert k >= 0 and text.count(e["anchor"]) == 1, e["anchor"]
        a, w = e["anchor"], e["with"]
        pre = 0
        while pre < min(len(a), len(w)) and a[pre] == w[pre]:
            pre += 1
        suf = 0
        while suf < min(len(a), len(w)) - pre and a[-1 - suf] == w[-1 - suf]:
            suf += 1
        b, end = k + pre, k + len(w) - suf
        delta = len(w) - len(a)
        regions = [(rb + (delta if rb > k else 0), re_ + (delta if rb > k else 0)) for rb, re_ in regions]
        text = text[:k] + w + text[k + len(a):]
        regions.append((b, max(end, b + 1)))
    places = []
    for b, end in regions:
        line = text.count("\n", 0, b) + 1
        start = text.rfind("\n", 0, b) + 1
        places.append((line, b - start + 1, end - start))
    return text, places


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    exe, work = sys.argv[1], sys.argv[2]
    min_recall = float(sys.argv[sys.argv.index("--min-recall") + 1]) if "--min-recall" in sys.argv else 0.9
    min_marks = float(sys.argv[sys.argv.index("--min-marks") + 1]) if "--min-marks" in sys.argv else 0.95
    min_wrong = float(sys.argv[sys.argv.index("--min-wrong") + 1]) if "--min-wrong" in sys.argv else 0.0
    name = sys.argv[sys.argv.index("--set") + 1] if "--set" in sys.argv else "chapter14"
    planted_file = "planted.json" if name == "chapter14" else f"{name}-planted.json"
    marks_file = os.path.join(HERE, "expected-marks.json" if name == "chapter14" else f"{name}-expected-marks.json")
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(HERE, f"{name}-unmarked.md"), encoding="utf-8") as f:
        clean = f.read()
    with open(os.path.join(HERE, planted_file), encoding="utf-8") as f:
        planted = json.load(f)
    ok = True
    # A scenario named by a file beside the chapter (else one of data/examples) is copied beside
    # the audited files.
    m = re.search(r"^exactattn-scenario: (\S+\.json)$", clean, re.M)
    if m:
        beside = os.path.join(HERE, m.group(1))
        examples = os.path.join(HERE, "..", "..", "data", "examples", m.group(1))
        shutil.copy(beside if os.path.exists(beside) else examples, os.path.join(work, m.group(1)))
    # An edit that gives its line must find its anchor there in the correct text.
    for e in planted["errors"] + planted["rewrites"]:
        if "line" in e and e["anchor"] not in clean.split("\n")[e["line"] - 1]:
            print(f"FAIL: {planted_file}: {e['anchor']!r} is not on line {e['line']}")
            ok = False
    # The committed LaTeX twin is the converter's output on the committed Markdown.
    with open(os.path.join(HERE, f"{name}-unmarked.tex"), encoding="utf-8") as f:
        if f.read() != md_to_tex.convert(clean):
            print(f"FAIL: {name}-unmarked.tex is not md_to_tex.py's output on {name}-unmarked.md")
            ok = False
    wrong_md, err_places = apply(clean, planted["errors"])
    right_md, _ = apply(clean, planted["rewrites"])
    files = {
        "clean.md": clean,
        "errors.md": wrong_md,
        "rewrites.md": right_md,
        "clean.tex": md_to_tex.convert(clean),
        "errors.tex": md_to_tex.convert(wrong_md),
        "rewrites.tex": md_to_tex.convert(right_md),
    }
    found = {}
    for name, text in files.items():
        path = os.path.join(work, name)
        write(path, text)
        found[name] = findings(exe, path)

    # Recall, Markdown: a wrong or unbound finding whose text covers the changed columns.
    flagged = ("wrong", "unbound")
    missed = []
    hit_md = 0
    wrong_md = wrong_tex = 0  # reported `wrong` itself (not only unbound)
    for e, (line, c0, c1) in zip(planted["errors"], err_places):
        hit = any(
            l == line and v in flagged and col <= c1 and c0 <= col + len(t) - 1 for l, col, v, t in found["errors.md"]
        )
        wrong_md += any(
            l == line and v == "wrong" and col <= c1 and c0 <= col + len(t) - 1 for l, col, v, t in found["errors.md"]
        )
        hit_md += hit
        if not hit:
            missed.append(f"md line {line}: {e['kind']}: {e['with']} (truth {e['truth']})")
    # Recall, LaTeX: the twin keeps the lines. An error's place in the wrong twin is where it
    # differs from the twin of the chapter with every other error planted (difflib, in code
    # points); it is found when a wrong or unbound finding covers it, as in Markdown.
    errors_tex = files["errors.tex"].split("\n")
    hit_tex = 0
    for i, (e, (line, _, _)) in enumerate(zip(planted["errors"], err_places)):
        others, _ = apply(clean, planted["errors"][:i] + planted["errors"][i + 1:])
        without = md_to_tex.convert(others).split("\n")[line - 1]
        ops = difflib.SequenceMatcher(None, without, errors_tex[line - 1], autojunk=False).get_opcodes()
        regions = [(j1 + 1, max(j2, j1 + 1)) for tag, _, _, j1, j2 in ops if tag != "equal"]
        hit = any(l == line and v in flagged and col <= c1 and c0 <= col + len(t) - 1
                  for c0, c1 in regions for l, col, v, t in found["errors.tex"])
        hit_tex += hit
        wrong_tex += any(l == line and v == "wrong" and col <= c1 and c0 <= col + len(t) - 1
                         for c0, c1 in regions for l, col, v, t in found["errors.tex"])
        if not hit:
            missed.append(f"tex line {line}: {e['kind']}: {e['with']} (truth {e['truth']})")
    n = len(planted["errors"])
    recall_md, recall_tex = hit_md / n, hit_tex / n
    false_wrong = {name: [f for f in found[name] if f[2] == "wrong"]
                   for name in ("clean.md", "rewrites.md", "clean.tex", "rewrites.tex")}
    n_false = sum(len(v) for v in false_wrong.values())
    counts = {name: {v: sum(1 for f in found[name] if f[2] == v) for v in
                     ("verified", "wrong", "ambiguous", "unbound", "not a claim")} for name in ("clean.md", "clean.tex")}

    # Proposed marks on the correct chapter, against the marks written by hand.
    expected = []
    if os.path.exists(marks_file):
        with open(marks_file, encoding="utf-8") as f:
            expected = json.load(f)["marks"]
    right = wrong_marks = unknown = 0
    bad_marks = []
    for fmt_name, ext in (("Markdown", "md"), ("LaTeX", "tex")):
        src = os.path.join(work, f"clean.{ext}")
        out = os.path.join(work, f"proposed.{ext}")
        listing = os.path.join(work, f"proposed-{ext}.txt")
        p = run(exe, "manuscript", "propose", src, "-o", out, "--listing", listing)
        if p.returncode != 0:
            print(f"FAIL: propose {src}: {p.stderr.strip()}")
            ok = False
            continue
        c = run(exe, "manuscript", "check", out)
        if c.returncode != 0:
            print(f"FAIL: manuscript check on the proposed {fmt_name} file:\n{c.stdout}{c.stderr}")
            ok = False
        if ext != "md" or not expected:
            continue
        lines = clean.split("\n")
        with open(listing, encoding="utf-8") as f:
            for raw in f:
                m = re.match(r"^.*?:(\d+):(\d+): marked (.*) as (/\S+) \(", raw)
                if not m:
                    continue
                line, col, written, pointer = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
                text = lines[line - 1]
                after = text[col - 1 + len(written):]  # columns count code points, as Python's str does
                want = [x for x in expected if x["near"] in text and x["written"] == written
                        and after.startswith(x.get("followed_by", ""))]
                if not want:
                    unknown += 1
                    continue
                if any(re.fullmatch(pat.replace("*", "[^/]*"), pointer) for pat in want[0]["ok"]):
                    right += 1
                else:
                    wrong_marks += 1
                    bad_marks.append(f"line {line}: {written} marked {pointer}, expected {want[0]['ok']}")
    judged = right + wrong_marks
    marks_rate = right / judged if judged else 0.0

    print(f"planted errors: {n}; recall Markdown {hit_md}/{n} = {recall_md:.1%}, LaTeX {hit_tex}/{n} = {recall_tex:.1%}")
    print(f"planted errors reported wrong: Markdown {wrong_md}/{n} = {wrong_md / n:.1%}, "
          f"LaTeX {wrong_tex}/{n} = {wrong_tex / n:.1%}")
    print(f"false wrong on correct text: {n_false} (clean md {len(false_wrong['clean.md'])}, rewrites md "
          f"{len(false_wrong['rewrites.md'])}, clean tex {len(false_wrong['clean.tex'])}, rewrites tex "
          f"{len(false_wrong['rewrites.tex'])}); rewritings: {len(planted['rewrites'])}")
    print(f"verdicts on the correct chapter: Markdown {counts['clean.md']}, LaTeX {counts['clean.tex']}")
    print(f"proposed marks (Markdown) judged against expected-marks.json: {right}/{judged} = {marks_rate:.1%} right, "
          f"{unknown} marks with no hand-written expectation")
    for m in missed:
        print("  missed:", m)
    for name, fs in false_wrong.items():
        for f in fs:
            print(f"  false wrong: {name}:{f[0]}:{f[1]}: {f[3]}")
    for b in bad_marks:
        print("  wrong mark:", b)
    if recall_md < min_recall or recall_tex < min_recall:
        print(f"FAIL: recall below {min_recall:.0%}")
        ok = False
    if wrong_md / n < min_wrong or wrong_tex / n < min_wrong:
        print(f"FAIL: planted errors reported wrong below {min_wrong:.0%}")
        ok = False
    if n_false:
        print("FAIL: a correct number was called wrong")
        ok = False
    # audit fails a manuscript with a wrong number, and passes one without.
    for name in ("errors.md", "errors.tex"):
        if EXIT_CODES[name] != 1:
            print(f"FAIL: audit {name} exited {EXIT_CODES[name]}, not 1")
            ok = False
    for name in ("clean.md", "rewrites.md", "clean.tex", "rewrites.tex"):
        if EXIT_CODES[name] != 0:
            print(f"FAIL: audit {name} exited {EXIT_CODES[name]}, not 0")
            ok = False
    if expected and marks_rate < min_marks:
        print(f"FAIL: proposed marks right below {min_marks:.0%}")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
