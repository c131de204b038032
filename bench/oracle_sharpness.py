# SPDX-License-Identifier: MIT
"""How sharp the oracle's bounds are (docs/oracle.md, "How sharp"; a measurement, not a test):
NumPy safe attention kernels on standard normal q, k, v at n = 128 keys and queries, d = d_v = 64,
judged under each bound. Per bound and format it prints the median bound and the largest
fraction of it a correct kernel uses, the smallest single-entry error (in ULPs of the entry,
added in the direction of its own error) that the judgement catches, checked by planting it,
and the false alarms (per-entry or systematic) over RUNS further correct kernels.

    PYTHONPATH=build/python /usr/bin/python3 bench/oracle_sharpness.py [RUNS] [SEEDS] [BOUND,...]
"""

import math
import sys

import numpy as np

from exactattn import oracle

N, D = 128, 64
BOUNDS = ("a-priori", "running", "running-ordered", "probabilistic", "probabilistic-ordered", "probabilistic-ulp")


def kernel(q, k, v, work):
    s = (q @ k.T) * work(1 / math.sqrt(q.shape[1]))
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return ((e / e.sum(axis=1, keepdims=True)) @ v).astype(work)


def inputs(seed, work, nq=N):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((nq, D)).astype(work), rng.standard_normal((N, D)).astype(work),
            rng.standard_normal((N, D)).astype(work))


def ulp_of(x, work):
    return np.spacing(np.abs(x).astype(work)).astype(np.float64)


def smallest_caught(out, j, work):
    """Per entry: the least whole number of ULPs that, added in the direction of the entry's own
    error, takes it over its bound; the smallest over the entries and the median."""
    u = ulp_of(j["rounded"], work)
    need = np.floor((j["bound"] - np.abs(j["value"] - j["rounded"])) / u) + 1
    need = need[np.isfinite(need)]
    return need.min(), np.median(need)


def planted_is_caught(out, q, k, v, bound, work, ulps, seed):
    """An error of `ulps` ULPs planted at a random entry (in its error's direction)."""
    rng = np.random.default_rng(seed)
    i, c = rng.integers(0, out.shape[0]), rng.integers(0, out.shape[1])
    bad = out.copy()
    step = np.spacing(np.abs(bad[i, c]))
    bad[i, c] = bad[i, c] + np.sign(bad[i, c]) * step * ulps
    return not oracle.judge(bad, q, k, v, bound=bound)["passed"]


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    alarm_bounds = (sys.argv[3].split(",") if len(sys.argv) > 3 else
                    ("running", "probabilistic", "probabilistic-ordered", "probabilistic-ulp"))
    for work in (np.float32, np.float64):
        name = np.dtype(work).name
        for bound in BOUNDS if seeds > 0 else ():
            fr, med, mins, meds, caught8 = [], [], [], [], 0
            for seed in range(seeds):
                q, k, v = inputs(seed, work)
                out = kernel(q, k, v, work)
                j = oracle.judge(out, q, k, v, bound=bound)
                assert j["passed"], (name, bound, seed, j["systematic"])
                fr.append(j["max_bound_fraction"])
                med.append(np.median(j["bound"] / ulp_of(j["rounded"], work)))
                lo, md = smallest_caught(out, j, work)
                mins.append(lo)
                meds.append(md)
                caught8 += planted_is_caught(out, q, k, v, bound, work, 8, seed)
            print(f"{name} {bound:22s} median bound {min(med):9.1f}–{max(med):9.1f} ULP, largest fraction used "
                  f"{100 * min(fr):5.1f}–{100 * max(fr):5.1f}%, smallest caught {min(mins):.0f} ULP "
                  f"(median over entries {min(meds):.0f}–{max(meds):.0f}), 8 ULP planted caught {caught8}/{seeds}")
        for bound in alarm_bounds:
            alarms = systematic = 0
            for seed in range(1000, 1000 + runs):
                q, k, v = inputs(seed, work)  # 128 rows: the row-level sign tests can reject (16 cannot)
                j = oracle.judge(kernel(q, k, v, work), q, k, v, bound=bound)
                alarms += not j["passed"]
                systematic += j["systematic"] != ""
            print(f"{name} {bound:22s} false alarms {alarms} of {runs} correct kernels (128 × 128 keys, d = 64), "
                  f"{systematic} of them systematic")


if __name__ == "__main__":
    main()
