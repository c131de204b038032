#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the C++ examples of docs/cpp.md as a consumer project of the installed package.

Each ```cpp block followed by a ```text block becomes examples/example_N.cpp and its expected
output examples/example_N.txt; CMakeLists.txt builds every example with find_package(exactattn).
    doc_examples.py DOC OUTDIR
"""
import re
import sys


def main(doc, out):
    text = open(doc, encoding="utf-8").read()
    pairs = re.findall(r"```cpp\n(.*?)```\s*```text\n(.*?)```", text, re.S)
    if not pairs:
        sys.exit(f"{doc}: no ```cpp example followed by its ```text output")
    names = []
    for i, (code, expected) in enumerate(pairs, 1):
        names.append(f"example_{i}")
        open(f"{out}/example_{i}.cpp", "w", encoding="utf-8").write(code)
        open(f"{out}/example_{i}.txt", "w", encoding="utf-8").write(expected)
    with open(f"{out}/CMakeLists.txt", "w", encoding="utf-8") as f:
        f.write("cmake_minimum_required(VERSION 3.20)\nproject(exactattn_doc_examples LANGUAGES CXX)\n"
                "find_package(exactattn 0.1 REQUIRED)\n")
        for n in names:
            f.write(f"add_executable({n} {n}.cpp)\ntarget_link_libraries({n} PRIVATE exactattn::exactattn)\n")
    print("\n".join(names))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
