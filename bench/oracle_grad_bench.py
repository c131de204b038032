# SPDX-License-Identifier: MIT
"""The gradient oracle on a batch of heads (docs/oracle.md, "Speed and memory"): judging the
dQ, dK, dV of a (1, 8, 512, 64) float32 attention, computed by torch's CPU autograd, against their
certified gradients, beside the float64 torch autograd reference an engineer would otherwise
compute on the same inputs (torch on every core, as the oracle). Target: the judgement within 3x
the torch reference. Prints the times and the ratio of one run (best of three for torch, one
judgement).

    PYTHONPATH=build/python /usr/bin/python3 bench/oracle_grad_bench.py
"""

import math
import os
import time

# EXACTATTN_BENCH_TINY=1 (the test suite's `bench` label): (1, 2, 32, 8), so it cannot rot.
SHAPE = (1, 2, 32, 8) if os.environ.get("EXACTATTN_BENCH_TINY") == "1" else (1, 8, 512, 64)


def attention(q, k, v):
    import torch

    d = q.shape[-1]
    scale = 1.0 / math.sqrt(d)
    return torch.softmax((q @ k.transpose(-1, -2)) * scale, dim=-1) @ v


def gradients(q, k, v, do):
    """dQ, dK, dV of attention at (q, k, v) under the upstream gradient do, by torch autograd in
    the inputs' own dtype."""
    leaves = [x.detach().clone().requires_grad_(True) for x in (q, k, v)]
    attention(*leaves).backward(do)
    return [x.grad for x in leaves]


def main():
    import torch
    import exactattn
    from exactattn import oracle

    cores = os.cpu_count() or 1
    torch.set_num_threads(cores)
    g = torch.Generator().manual_seed(0)
    q, k, v, do = (torch.randn(*SHAPE, generator=g, dtype=torch.float32) for _ in range(4))

    times = []
    for _ in range(3):
        t = time.perf_counter()
        ref = gradients(*(x.double() for x in (q, k, v, do)))
        times.append(time.perf_counter() - t)
    t_torch = min(times)
    # The kernel judged: torch's float32 autograd of float32 attention.
    dq, dk, dv = gradients(q, k, v, do)
    # The default work budget (docs/limits.md) refuses a judgement this size at once; a benchmark
    # raises it, as a user judging a whole model's heads would.
    with exactattn.limits(max_work=2**60):
        t = time.perf_counter()
        j = oracle.judge_grads(dq, dk, dv, q, k, v, do, threads=0)
        t_judge = time.perf_counter() - t
    assert j["passed"], j["text"]
    dev = max(float((r - x.double()).abs().max()) for r, x in zip(ref, (dq, dk, dv)))
    share = max(float(j["judged"][n]["max_bound_fraction"]) for n in ("dq", "dk", "dv"))
    print(f"machine: {cores} cores, torch {torch.__version__} on {torch.get_num_threads()} threads")
    print(f"torch float64 autograd {SHAPE}: {t_torch * 1e3:.1f} ms (best of 3; max |float32 - float64| {dev:.3g})")
    print(f"oracle judge_grads {SHAPE} float32, dQ dK dV: {t_judge * 1e3:.1f} ms, largest use of the "
          f"bound {share:.3g}")
    print(f"gradients ratio {t_judge / t_torch:.2f}x the torch float64 autograd reference (target <= 3x)")


if __name__ == "__main__":
    main()
