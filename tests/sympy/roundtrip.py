#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs/notation.md: SymPy's parse_expr, with implicit multiplication and ^ as power, reads
exactattn's canonical ascii form back to the same value. For each expression, `exactattn eval`
prints the ascii form and a 45-digit decimal; SymPy parses the ascii form with a = log(2) and
must agree to 40 digits. Also checks exact equality against SymPy's own evaluation of the
input where SymPy can read the input itself."""
import subprocess
import sys

from sympy import log, nsimplify, simplify, Symbol, N
from sympy.parsing.sympy_parser import (convert_xor, implicit_multiplication_application,
                                        parse_expr, standard_transformations)

BIN = sys.argv[1]
T = standard_transformations + (implicit_multiplication_application, convert_xor)
A = Symbol("a")

CASES = [
    "a/2", "2a/3", "-a/4", "4a/3", "6a/5", "1/4", "0", "2^(1/2) - 1", "1/(2+2^(1/2))",
    "(2^(1/2) - 1)a", "2^(1/3)", "2^(2/3)/2", "(4 - 2*2^(1/3) + 2^(2/3))/5", "a^2 - 3a/7 + 1/9",
    "3*2^(1/2)a/2", "2^(5/7)a^2 - 2^(1/7)", "(1 + 2^(1/4))^3", "1/(1 + 2^(1/3))", "-2^(1/2)a",
    "2^1100/(3*2^1099 + 1)", "(3 - 4*2^(1/3) + 2*2^(2/3)) a / 15", "exp(7a/12)", "ln(8)/5",
    "(a + 2^(1/2))^3", "1/(2^(1/6) - 1)",
]

failures = 0
for expr in CASES:
    ascii_form = subprocess.run([BIN, "eval", "--", expr], capture_output=True, text=True, check=True).stdout.strip()
    digits = subprocess.run([BIN, "eval", "--format", "decimal", "--digits", "45", "--", expr],
                            capture_output=True, text=True, check=True).stdout.strip()
    parsed = parse_expr(ascii_form, transformations=T, local_dict={"a": A})
    value = N(parsed.subs(A, log(2)), 60)
    ours = N(nsimplify(digits, rational=True), 60) if digits != "0" else 0
    ok = abs(value - ours) <= abs(ours) * 1e-40 + 1e-45
    print(f"{'ok  ' if ok else 'FAIL'} {expr!r:40} -> {ascii_form!r:40} sympy {N(value, 20)}")
    failures += 0 if ok else 1
print(f"sympy: {len(CASES) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
