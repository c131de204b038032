#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layering rule of docs/contributing.md, checked from the code's own #include lines.

The library's folders are layers, bottom to top:

    core < model < scenario, render (side by side: neither includes the other) < report < tools

A file may include a file of its own folder or of a folder below it, never one above. A public
header (include/exactattn/NAME.hpp) belongs to the folder of its implementation (src/*/NAME.cpp,
or the files of src/*/NAME/) or, for a header without one, to the folder named in HEADER_ONLY below. Every quoted include must
name a file of the repository, so that no include escapes the check.

    check_layers.py SOURCE_DIR            exit 1 and one line per include that climbs
    check_layers.py SOURCE_DIR --figures  also the structure's figures (files, chain, sizes, layers)
    check_layers.py SOURCE_DIR --installed-headers
                                          exit 1 and one line per internal declaration (namespace
                                          detail, detail::) in an installed header (include/)
"""
import os
import re
import sys

RANK = {"core": 0, "model": 1, "scenario": 2, "render": 2, "report": 3, "tools": 4}
SIBLINGS = {("scenario", "render"), ("render", "scenario")}
# Public headers without an implementation file of their own.
HEADER_ONLY = {"deferred": "model", "version": "core", "warning": "core", "exactattn": None}  # None: the front door
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of_src(path):
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "src" else None


# An internal declaration: the namespace detail, or a name qualified by it, outside a comment.
DETAIL = re.compile(r"\bnamespace\s+(?:exactattn::)?detail\b|\bdetail::")


def internal_in_installed(root):
    """Lines of include/ (installed whole) that declare or use namespace detail."""
    found = []
    for d, _, names in os.walk(os.path.join(root, "include")):
        for n in sorted(names):
            f = os.path.join(d, n)
            for i, line in enumerate(open(f, encoding="utf-8"), 1):
                code = line.split("//", 1)[0]
                if DETAIL.search(code):
                    found.append(f"{os.path.relpath(f, root)}:{i}: internal declarations live in src/ "
                                 "(an internal header), not in an installed header: " + line.strip())
    return found


def main(argv):
    root = argv[1]
    if "--installed-headers" in argv:
        found = internal_in_installed(root)
        for p in found:
            print(p)
        return 1 if found else 0
    figures = "--figures" in argv
    files = []
    for top in ("src", "include/exactattn"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith((".cpp", ".hpp")):
                    files.append(os.path.relpath(os.path.join(d, n), root))
    stems = {}
    for f in files:
        if f.startswith("src/") and f.endswith(".cpp"):
            stems.setdefault(os.path.basename(f)[:-4], layer_of_src(f))
            parts = f.split("/")
            if len(parts) > 3:  # src/tools/manuscript/check.cpp implements manuscript.hpp
                stems.setdefault(parts[2], layer_of_src(f))
    problems = []

    def layer(f):
        if f.startswith("src/"):
            lay = layer_of_src(f)
            if lay not in RANK:
                problems.append(f"{f}: not in a layer folder ({', '.join(RANK)})")
            return lay
        stem = os.path.basename(f)[:-4]
        if stem in HEADER_ONLY:
            return HEADER_ONLY[stem]
        if stem not in stems:
            problems.append(f"{f}: a public header with no src/*/{stem}.cpp; name its layer in HEADER_ONLY")
            return None
        return stems[stem]

    def resolve(f, inc):
        for cand in (os.path.join("include", inc), os.path.join("src", inc),
                     os.path.normpath(os.path.join(os.path.dirname(f), inc))):
            if os.path.isfile(os.path.join(root, cand)):
                return cand
        return None

    edges = {}
    for f in files:
        text = open(os.path.join(root, f), encoding="utf-8").read()
        edges[f] = []
        for m in INCLUDE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            target = resolve(f, m.group(1))
            if target is None:
                problems.append(f"{f}:{line}: #include \"{m.group(1)}\" names no file of the repository")
                continue
            edges[f].append(target)
            a, b = layer(f), layer(target)
            if a is None or b is None:
                continue
            if RANK[b] > RANK[a] or (a, b) in SIBLINGS:
                problems.append(f"{f}:{line}: includes {target}, which is in {b}/, above {a}/ "
                                "(a folder includes only itself and the folders below it)")
    for p in sorted(set(problems)):
        print(p)
    if figures:
        depth = {}

        def chain(f, seen=()):
            if f in depth:
                return depth[f]
            if f in seen:
                return 0  # a cycle inside a folder: counted once
            depth[f] = d = 1 + max((chain(t, seen + (f,)) for t in edges.get(f, [])), default=0)
            return d
        longest = max(chain(f) for f in files)
        folders = sorted({os.path.dirname(f) for f in files})
        sizes = {f: sum(1 for _ in open(os.path.join(root, f), encoding="utf-8")) for f in files}
        big = sorted((n, f) for f, n in sizes.items() if n > 600)
        print(f"folders {len(folders)}, files {len(files)}, lines {sum(sizes.values())}")
        print(f"longest include chain {longest} files")
        print(f"includes that climb a folder {len([p for p in problems if 'above' in p])}")
        print("files over 600 lines: " + (", ".join(f"{f} {n}" for n, f in big) or "none"))
        by_layer = {}
        for f, n in sizes.items():
            counts = by_layer.setdefault(layer(f) or "front door", [0, 0])
            counts[0] += 1
            counts[1] += n
        print("by layer, files / lines (a public header counted with its implementation's layer): " +
              ", ".join(f"{lay} {c[0]} / {c[1]}" for lay, c in sorted(by_layer.items(), key=lambda kv: RANK.get(kv[0], 9))))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
