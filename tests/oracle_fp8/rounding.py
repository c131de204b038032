# SPDX-License-Identifier: MIT
"""The oracle's rounding to the 8-bit formats against an independent one (docs/oracle.md,
"8-bit floats"), over every finite float16 value (63 488 of them, both signs):

1. Written out here from the OCP 8-bit FP specification: the 256 bit patterns of each format
   decoded field by field as exact fractions, and each input rounded to the nearest of them by
   exact comparison, a tie to the pattern with an even last bit, past the largest finite value
   (from the midpoint to the next binade's first value on) out of range: E4M3's NaN, E5M2's inf.
2. PyTorch's own casts, tensor.to(torch.float8_e4m3fn / torch.float8_e5m2), bit for bit, when
   this machine's torch has them (Debian's python3-torch 1.13 does not: reported and skipped).

The oracle's side is `exactattn oracle reference` of one key (its output is v itself, exactly)
with the 65 536 values as v and `--dtype` the 8-bit format, written by `--npy` as bit patterns.

Usage: rounding.py EXACTATTN_CLI. Exit 0 when every check holds, 1 otherwise.
"""

import os
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np

LAYOUT = {"float8_e4m3fn": (4, 3, 7), "float8_e5m2": (5, 2, 15)}  # exponent bits, fraction bits, bias


def decode(bits, fmt):
    """The value of an 8-bit pattern by the OCP specification: None for NaN, 'inf' for E5M2's."""
    ebits, fbits, bias = LAYOUT[fmt]
    sign = -1 if bits >> 7 else 1
    e = (bits >> fbits) & ((1 << ebits) - 1)
    m = bits & ((1 << fbits) - 1)
    if fmt == "float8_e4m3fn" and e == 15 and m == 7:
        return None
    if fmt == "float8_e5m2" and e == 31:
        return "inf" if m == 0 else None
    if e == 0:
        return sign * Fraction(m, 1 << fbits) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(m, 1 << fbits)) * Fraction(2) ** (e - bias)


def independent_round(x, fmt, table):
    """x (a Fraction) to the nearest value of fmt, ties to the even pattern; None when out of range."""
    if x == 0:
        return 0.0
    sign = -1 if x < 0 else 1
    a = abs(x)
    values, top_next = table
    lo = max((v for v in values if v[0] <= a), key=lambda v: v[0])
    above = [v for v in values if v[0] > a]
    hi = min(above, key=lambda v: v[0]) if above else top_next  # past the largest: the next binade's
    d_lo, d_hi = a - lo[0], hi[0] - a
    pick = lo if d_lo < d_hi else hi if d_hi < d_lo else (lo if lo[1] % 2 == 0 else hi)
    if pick is top_next:
        return None
    return float(sign * pick[0])


def table_of(fmt):
    ebits, fbits, bias = LAYOUT[fmt]
    values = []
    for b in range(128):  # the non-negative patterns
        v = decode(b, fmt)
        if isinstance(v, Fraction):
            values.append((v, b))
    largest = max(values)
    # The value the exponent range stops short of: one ulp above the largest (whose pattern minus
    # one is in the same binade), with the pattern's last bit one more (so a tie there goes to it
    # only when it would be the even one).
    ulp = largest[0] - decode(largest[1] - 1, fmt)
    return values, (largest[0] + ulp, largest[1] + 1)


def main():
    cli = sys.argv[1]
    bits16 = np.arange(65536, dtype=np.uint16)
    f16 = bits16.view(np.float16)
    finite = f16[np.isfinite(f16)]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "q.npy"), np.zeros((1, 1), np.float16))
        np.save(os.path.join(tmp, "k.npy"), np.zeros((1, 1), np.float16))
        np.save(os.path.join(tmp, "v.npy"), finite.reshape(1, -1))
        for fmt in LAYOUT:
            out = os.path.join(tmp, fmt + ".npy")
            r = subprocess.run([cli, "oracle", "reference", "--q", os.path.join(tmp, "q.npy"), "--k",
                                os.path.join(tmp, "k.npy"), "--v", os.path.join(tmp, "v.npy"), "--dtype", fmt,
                                "--npy", out, "--max-work", "1000000000000"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{fmt}: the oracle failed: {r.stderr.strip()}")
                failures += 1
                continue
            got = np.load(out)
            if got.dtype != np.uint8 or got.shape != (1, finite.size):
                print(f"{fmt}: the oracle wrote {got.dtype} {got.shape}")
                failures += 1
                continue
            table = table_of(fmt)
            wrong = 0
            for x, b in zip(finite.tolist(), got[0].tolist()):
                want = independent_round(Fraction(x), fmt, table)
                have = decode(b, fmt)
                ok = (have is None or have == "inf") if want is None else (
                    isinstance(have, Fraction) and have == Fraction(want) and
                    # a nonzero x that rounds to zero keeps its sign (IEEE); ±0 itself is the exact 0
                    (want != 0 or x == 0 or (b >> 7) == (1 if np.signbit(x) else 0)))
                if not ok:
                    wrong += 1
                    if wrong <= 5:
                        print(f"{fmt}: {x!r} -> oracle pattern {b:#04x} ({have}), independent {want}")
            print(f"{fmt}: {finite.size - wrong} of {finite.size} float16 values rounded alike "
                  f"(oracle vs the OCP table by exact comparison)")
            failures += wrong
            try:
                import torch
                tdt = getattr(torch, fmt, None)
            except ImportError:
                torch, tdt = None, None
            if tdt is None:
                print(f"{fmt}: torch {getattr(torch, '__version__', '(absent)')} has no torch.{fmt}: "
                      "its casts not compared")
                continue
            tb = torch.from_numpy(finite.astype(np.float32)).to(tdt).view(torch.uint8).numpy()
            mine = got[0]
            nan_t = np.array([decode(int(b), fmt) is None for b in tb])
            nan_m = np.array([decode(int(b), fmt) is None for b in mine])
            diff = int(np.sum((tb != mine) & ~(nan_t & nan_m)))
            print(f"{fmt}: torch {torch.__version__}: {finite.size - diff} of {finite.size} bit for bit")
            failures += diff
    print("rounding: all agree" if failures == 0 else f"rounding: {failures} disagreements")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
