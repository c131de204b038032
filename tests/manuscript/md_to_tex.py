#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The LaTeX twin of a test chapter: chapter14-unmarked.md written as an author of a LaTeX book
writes it (\\section, tabular with booktabs, math in $…$, fractions as \\tfrac, \\frac, \\dfrac,
vectors as \\left[…\\right], 50\\%), one line of LaTeX for each line of Markdown, so that a line
of the one is the same line of the other (the audit figures compare them line by line).

    md_to_tex.py IN.md OUT.tex
"""
import re
import sys

FRACTIONS = ["\\tfrac", "\\frac", "\\dfrac"]


def frac(m, k=[0]):
    """a/2 → \\tfrac{a}{2}, 2a/3 → \\tfrac{2a}{3}, 1/4 → \\tfrac14 (cycling the commands)."""
    num, den = m.group(1), m.group(2)
    k[0] += 1
    cmd = FRACTIONS[k[0] % 3]
    if len(num) == 1 and len(den) == 1 and num.isdigit() and cmd == "\\tfrac":
        return f"\\tfrac{num}{den}"
    return f"{cmd}{{{num}}}{{{den}}}"


def math_of(v):
    """A value of the prose in math: fractions as commands, a vector in \\left[ \\right]."""
    v = re.sub(r"(?<![\w.])(\d*a|\d+)/(\d+)", frac, v)
    v = v.replace("×", "\\times ").replace("−", "-").replace("≈", "\\approx ")
    if v.startswith("[") and v.endswith("]") and ";" not in v:
        v = "\\left[" + v[1:-1] + "\\right]"
    return v


VECTOR = re.compile(r"\[[0-9a/,\- .]+\](?![({])")
NUMBER = re.compile(r"(?<![\w.$\\{])(\d*a/\d+|\d+/\d+)(?![\w/])")


def prose(line):
    out = []
    parts = re.split(r"(\$[^$]+\$)", line)
    for i, p in enumerate(parts):
        if i % 2 == 1:
            out.append(p)
            continue
        p = p.replace("%", "\\%").replace("&", "\\&").replace("#", "\\#")
        p = re.sub(r"@tbl-(\d+)-(\d+)", r"Table~\\ref{tab:\1.\2}", p)
        p = re.sub(r"@sec-(\d+)-(\d+)", r"Section~\\ref{sec:\1.\2}", p)
        p = re.sub(r"(code|data|notebooks)/([\w./-]+)", lambda m: "\\texttt{" + m.group(0).replace("_", "\\_") + "}", p)
        p = VECTOR.sub(lambda m: "$" + math_of(m.group(0)) + "$", p)
        p = NUMBER.sub(lambda m: "$" + math_of(m.group(0)) + "$", p)
        out.append(p)
    return "".join(out)


def cell(c):
    c = c.strip()
    if re.fullmatch(r"[0-9a/,\[\]\- .;×+=−]+", c) and re.search(r"[0-9]", c):
        return "$" + math_of(c) + "$"
    return prose(c)


def convert(md):
    lines = md.split("\n")
    out = []
    k = 0
    in_front = False
    in_list = None
    for k, line in enumerate(lines):
        if k == 0 and line == "---":
            in_front = True
            out.append("\\documentclass{book}")
            continue
        if in_front:
            if line == "---":
                in_front = False
                out.append("\\begin{document}\\setcounter{chapter}{13}")
            elif line.startswith("exactattn-scenario:"):
                out.append("% " + line)
            else:
                out.append("\\usepackage{amsmath,booktabs,graphicx,exactattn}")
            continue
        m = re.match(r"^(\d+)\. (.*)$", line)
        b = re.match(r"^- (.*)$", line)
        prefix = ""
        if m or b:
            kind = "enumerate" if m else "itemize"
            if in_list != kind:
                prefix = ("\\end{" + in_list + "}" if in_list else "") + "\\begin{" + kind + "}"
                in_list = kind
            out.append(prefix + "\\item " + prose((m or b).group(2 if m else 1)))
            continue
        if in_list:
            prefix = "\\end{" + in_list + "}"
            in_list = None
        if line.startswith("# "):
            out.append(prefix + "\\chapter*{" + line[2:] + "}")
        elif line.startswith("## "):
            t = re.sub(r"\s*\{#sec-(\d+)-(\d+)\}", "", line[3:])
            num = t.split()[0]
            out.append(prefix + "\\section*{" + t + "}\\label{sec:" + num + "}")
        elif line.startswith("|---"):
            out.append(prefix + "\\midrule")
        elif line.startswith("| "):
            cells = [c for c in line.strip().strip("|").split("|")]
            is_header = k + 1 < len(lines) and lines[k + 1].startswith("|---")
            row = " & ".join(cell(c) if not is_header else prose(c.strip()) for c in cells) + " \\\\"
            if is_header:
                row = "\\begin{tabular}{" + "l" * len(cells) + "}\\toprule " + row
            if k + 1 >= len(lines) or not lines[k + 1].startswith("|"):
                row += "\\bottomrule\\end{tabular}\\end{table}"
            out.append(prefix + row)
        elif re.match(r"Table \d+\.\d+ —", line):
            num = line.split()[1]
            cap = prose(line.split("—", 1)[1].strip())
            out.append(prefix + "\\begin{table}\\caption{Table " + num + " --- " + cap + "}\\label{tab:" + num + "}")
        elif line.startswith("::: {#fig"):
            out.append(prefix + "\\begin{figure}")
        elif line.startswith("!["):
            out.append(prefix + "\\includegraphics[width=0.5\\textwidth]{figures/read-comparison}")
        elif line == ":::":
            out.append(prefix + "\\end{figure}")
        else:
            out.append(prefix + prose(line))
    if in_list:
        out.append("\\end{" + in_list + "}")
    out.append("\\end{document}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        tex = convert(f.read())
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(tex)
