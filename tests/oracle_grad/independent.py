# SPDX-License-Identifier: MIT
"""`exactattn oracle grad-reference` against two independent computations (docs/oracle.md,
"Certified gradients"):

1. mpmath, the textbook formulas written out here (scores, softmax, dP, D, dS, dQ, dK, dV) at
   rising precision until two successive precisions round every entry alike, each entry then
   rounded once to the format (subnormals included): the oracle's correctly rounded values must
   equal these bit for bit and its enclosures contain them (a value within 2^-150 of a quantum
   of a rounding boundary would make the comparison itself unsure: counted and reported).
2. PyTorch's CPU autograd in float64 (Debian's python3-torch), through
   torch.softmax(scale * q @ k.T + mask) @ v: within float64's own error of the reference.

Usage: independent.py EXACTATTN_CLI. Exit 0 when every check holds, 1 otherwise.
"""

import json
import math
import os
import random
import subprocess
import sys
import tempfile

import mpmath
import torch

FORMATS = {"float64": (53, -1022), "float32": (24, -126)}


def rounded(x, bits, emin):
    """x (an mpf) correctly rounded to the format of `bits` significand bits and least normal
    exponent `emin` (subnormals included), and whether x is within 2^-150 of a quantum of the
    midpoint (then the working precision could not tell)."""
    if x == 0:
        return 0.0, False
    e = mpmath.frexp(x)[1] - 1  # 2^e <= |x| < 2^(e+1)
    quantum = mpmath.ldexp(1, max(e, emin) - bits + 1)
    t = x / quantum
    whole = mpmath.floor(t)
    frac = t - whole
    if frac > 0.5 or (frac == 0.5 and int(whole) % 2 == 1):
        whole += 1
    unsure = abs(frac - mpmath.mpf(0.5)) < mpmath.ldexp(1, -150)
    return float(whole * quantum), unsure


def settled(case, bits, emin):
    """The textbook gradients at rising precision (256, 512, ... bits) until two successive
    precisions round every entry alike: cancellation (dP_ij - D_i of a weight near 1, scores
    thousands apart) leaves fewer correct bits than the working precision."""
    prec, last = 256, None
    while prec <= 1 << 15:
        mpmath.mp.prec = prec
        want = reference_mpmath(*case)
        flat = {f: [x for row in rows for x in row] if isinstance(rows[0], list) else rows for f, rows in want.items()}
        now = {f: [rounded(x, bits, emin) for x in xs] for f, xs in flat.items()}
        if now == last:
            return flat, now, prec
        last, prec = now, prec * 2
    raise RuntimeError("mpmath did not settle by 32768 bits")


def reference_mpmath(q, k, v, do, scale, causal, base, bias):
    nq, nk, d, dv = len(q), len(k), len(q[0]), len(v[0])
    c = mpmath.mpf(1) / mpmath.sqrt(d) if scale == "sqrt-dk" else mpmath.mpf(scale)
    lam = mpmath.log(2) if base == "2" else mpmath.mpf(1)
    P = [[mpmath.mpf(0)] * nk for _ in range(nq)]
    lse = []
    for i in range(nq):
        s = [c * mpmath.fsum(mpmath.mpf(q[i][x]) * k[j][x] for x in range(d)) + (bias[i][j] if bias else 0)
             for j in range(nk)]
        vis = [j for j in range(nk) if not (causal and j > i)]
        m = max(s[j] for j in vis)
        e = {j: (mpmath.power(2, s[j] - m) if base == "2" else mpmath.exp(s[j] - m)) for j in vis}
        den = mpmath.fsum(e.values())
        lse.append(m + (mpmath.log(den, 2) if base == "2" else mpmath.log(den)))
        for j in vis:
            P[i][j] = e[j] / den
    O = [[mpmath.fsum(P[i][j] * v[j][cc] for j in range(nk)) for cc in range(dv)] for i in range(nq)]
    dP = [[mpmath.fsum(mpmath.mpf(do[i][cc]) * v[j][cc] for cc in range(dv)) for j in range(nk)] for i in range(nq)]
    D = [mpmath.fsum(do[i][cc] * O[i][cc] for cc in range(dv)) for i in range(nq)]
    dS = [[lam * P[i][j] * (dP[i][j] - D[i]) for j in range(nk)] for i in range(nq)]
    dQ = [[c * mpmath.fsum(dS[i][j] * k[j][x] for j in range(nk)) for x in range(d)] for i in range(nq)]
    dK = [[c * mpmath.fsum(dS[i][j] * q[i][x] for i in range(nq)) for x in range(d)] for j in range(nk)]
    dV = [[mpmath.fsum(P[i][j] * do[i][cc] for i in range(nq)) for cc in range(dv)] for j in range(nk)]
    return {"dq": dQ, "dk": dK, "dv": dV, "p": P, "ds": dS, "d": D, "out": O, "lse": lse, "dp": dP}


def torch_grads(q, k, v, do, scale, causal, base, bias):
    tq, tk, tv = (torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in (q, k, v))
    c = 1 / math.sqrt(len(q[0])) if scale == "sqrt-dk" else float(scale)
    s = c * tq @ tk.T
    if bias:
        s = s + torch.tensor(bias, dtype=torch.float64)
    if base == "2":
        s = s * math.log(2)
    if causal:
        s = s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), float("-inf"))
    o = torch.softmax(s, dim=-1) @ tv
    o.backward(torch.tensor(do, dtype=torch.float64))
    return {"dq": tq.grad, "dk": tk.grad, "dv": tv.grad}


def write_csv(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(",".join(repr(float(x)) for x in r) + "\n")


def main():
    cli = sys.argv[1]
    rng = random.Random(38)
    failures = 0
    unsure = 0
    compared = 0
    max_prec = 0
    torch_compared = 0
    cases = []
    for n in range(12):
        nq, nk, d, dv = rng.randint(1, 4), rng.randint(1, 5), rng.randint(1, 4), rng.randint(1, 3)
        causal = n % 3 == 2 and nq <= nk
        dtype = "float32" if n % 4 == 1 else "float64"
        base = "2" if n % 5 == 3 else "e"
        scale = "sqrt-dk" if n % 2 == 0 else "0.5"

        def mat(r, cc):
            # float32 values (also float64 ones): a random sign, 1–8 significant bits and a binade
            return [[rng.choice([-1, 1]) * rng.randint(0, 255) / 2 ** rng.randint(3, 8) for _ in range(cc)]
                    for _ in range(r)]

        bias = mat(nq, nk) if n % 4 == 3 else None  # an additive score bias (ALiBi-like)
        cases.append((mat(nq, d), mat(nk, d), mat(nk, dv), mat(nq, dv), scale, causal, base, bias, dtype))
    with tempfile.TemporaryDirectory() as tmp:
        for case_no, (q, k, v, do, scale, causal, base, bias, dtype) in enumerate(cases):
            for name, t in (("q", q), ("k", k), ("v", v), ("do", do)):
                write_csv(os.path.join(tmp, name + ".csv"), t)
            args = [cli, "oracle", "grad-reference", "--format", "json", "--dtype", dtype, "--scale", scale,
                    "--base", base]
            for name in ("q", "k", "v", "do"):
                args += ["--" + name, os.path.join(tmp, name + ".csv")]
            if causal:
                args.append("--causal")
            if bias:
                write_csv(os.path.join(tmp, "bias.csv"), bias)
                args += ["--bias", os.path.join(tmp, "bias.csv")]
            run = subprocess.run(args, capture_output=True, text=True)
            if run.returncode != 0:
                print(f"case {case_no}: exit {run.returncode}: {run.stderr}")
                failures += 1
                continue
            got = json.loads(run.stdout)["fields"]
            flat, rounded_values, prec = settled((q, k, v, do, scale, causal, base, bias), *FORMATS[dtype])
            max_prec = max(max_prec, prec)
            for field, xs in flat.items():
                for at, x in enumerate(xs):
                    r, u = rounded_values[field][at]
                    compared += 1
                    if u:
                        unsure += 1
                        continue
                    g = got[field]["values"][at]
                    lo, hi = got[field]["lo"][at], got[field]["hi"][at]
                    if g != r or not lo <= x <= hi:
                        print(f"case {case_no} ({dtype}, base {base}, scale {scale}, causal {causal}): "
                              f"{field}[{at}] = {g!r} in [{lo!r}, {hi!r}], mpmath rounds to {r!r} ({x})")
                        failures += 1
            if dtype != "float64":
                continue
            t = torch_grads(q, k, v, do, scale, causal, base, bias)
            for field in ("dq", "dk", "dv"):
                flat_t = t[field].flatten().tolist()
                ref = got[field]["values"]
                # float64 autograd of these tiny problems errs by a few hundred ulps of the largest term
                size = max([abs(x) for x in ref] + [1e-300])
                for at, (a, b) in enumerate(zip(flat_t, ref)):
                    torch_compared += 1
                    if abs(a - b) > 1e-13 * max(size, 1.0):
                        print(f"case {case_no}: torch {field}[{at}] = {a!r}, reference {b!r}")
                        failures += 1
    print(f"{len(cases)} problems, {compared} entries compared with mpmath ({unsure} too near a boundary "
          f"to compare; mpmath settled by {max_prec} bits), {torch_compared} with torch float64 autograd, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
