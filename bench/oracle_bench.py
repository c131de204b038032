# SPDX-License-Identifier: MIT
"""The oracle's benchmark (docs/oracle.md; not a timed test): a certified float32 reference for
n = 4096 keys, d = 64, one query block of 128 rows, against a float64 NumPy reference on the
same inputs (time and peak memory, each measured in a fresh process), and judging a
128 × 64 output against the reference's own time. Prints the ratios of one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/oracle_bench.py
"""

import os
import resource
import subprocess
import sys
import time

# EXACTATTN_BENCH_TINY=1 (the test suite's `bench` label, docs/testing.md): 256 keys, 8 rows.
N, D, ROWS = (256, 64, 8) if os.environ.get("EXACTATTN_BENCH_TINY") == "1" else (4096, 64, 128)


def inputs():
    import numpy as np
    rng = np.random.default_rng(0)
    return (rng.standard_normal((ROWS, D)).astype(np.float32), rng.standard_normal((N, D)).astype(np.float32),
            rng.standard_normal((N, D)).astype(np.float32))


def numpy_reference(q, k, v):
    import numpy as np
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    s = q @ k.T / np.sqrt(D)
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ v


def run(mode):
    """Times one mode in this process; prints seconds and the peak RSS it added, in bytes."""
    import numpy as np
    from exactattn import oracle
    q, k, v = inputs()
    # The judged output is made before the baseline, so the peak measures the mode alone.
    out = numpy_reference(q, k, v).astype(np.float32) if mode == "judge" else None
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    if mode == "numpy":
        numpy_reference(q, k, v)
    elif mode == "reference":
        oracle.reference(q, k, v, fmt="float32")
    else:
        oracle.judge(out, q, k, v, fmt="float32", algorithm="safe")
    dt = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(dt, (peak - base) * 1024)


def measure(mode):
    r = subprocess.run([sys.executable, __file__, mode], check=True, capture_output=True, text=True)
    t, m = r.stdout.split()
    return float(t), max(float(m), 1.0)


def main():
    t_np, m_np = measure("numpy")
    t_ref, m_ref = measure("reference")
    t_judge, _ = measure("judge")
    # judge = reference + judging: the judging alone is the difference.
    t_judging = max(t_judge - t_ref, 0.0)
    print(f"float64 NumPy reference: {t_np * 1e3:.1f} ms, {m_np / 2**20:.1f} MiB")
    print(f"certified float32 reference: {t_ref * 1e3:.1f} ms, {m_ref / 2**20:.1f} MiB")
    print(f"time ratio {t_ref / t_np:.1f}x (target <= 20x), memory ratio {m_ref / m_np:.2f}x (target <= 4x)")
    print(f"judge (its reference and the judging of a {ROWS} x {D} output): {t_judge * 1e3:.1f} ms, "
          f"{t_judge / t_ref:.2f}x the reference alone; the judging itself {t_judging * 1e3:.1f} ms, "
          f"{t_judging / t_ref:.2f}x (target <= 2x; separate processes, so the difference is noisy)")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        run(sys.argv[1])
    else:
        main()
