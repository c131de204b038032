# SPDX-License-Identifier: MIT
"""How the backward diagnoses do on planted mistakes (docs/oracle.md, "Diagnoses of the backward";
a measurement, not a test): the NumPy FlashAttention-2 backward of
python/tests/test_oracle_grad_diagnoses.py (n_q = 8, n_k = 12, d = 16, blocks of 4, float32
accumulation) with each planted mistake, the unrelated bugs and the correct kernel (causal and
not), over seeds FIRST to LAST − 1, with float16 (inputs and storage) and float32; then NOISE
noisy copies of correct kernels (both formats, causal or not), which must get no name.

    PYTHONPATH=build/python /usr/bin/python3 bench/oracle_grad_diagnoses.py [FIRST LAST NOISE]
"""

import collections
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "tests"))
import test_oracle_grad_diagnoses as t  # noqa: E402  (the planted-bug kernel)

from exactattn import oracle  # noqa: E402

F16, F32 = np.float16, np.float32
NQ, NK = 8, 12
ALIGN = "the causal mask is aligned bottom-right in the forward but top-left"


def judge(seed, store, bug=None, causal=False, align=None, hidden=None, hidden_bwd=None):
    q, k, v, do = (x.astype(store) for x in t.problem(seed))
    _, dq, dk, dv = t.flash2(q, k, v, do, store=store, bug=bug, hidden=hidden, hidden_bwd=hidden_bwd)
    extra = {"align": align} if align else {}
    return oracle.judge_grads(dq, dk, dv, q, k, v, do, backward="flash2", block=4, causal=causal, **extra)


def planted(store):
    """(label, the diagnosis's first words, the kernel's arguments) of every planted mistake."""
    out = [(bug, name, {"bug": bug}) for bug, name in t.PLANTED
           if not (bug == "d from o rounded to float16" and store is F16)]  # that is the claim itself
    out.append(("mask dropped", t.MASK_DROPPED, {"causal": True, "hidden": t.causal_mask(NQ, NK, 0),
                                                 "hidden_bwd": np.zeros((NQ, NK), bool)}))
    out.append(("alignment", ALIGN, {"causal": True, "align": "bottom-right",
                                     "hidden": t.causal_mask(NQ, NK, NK - NQ), "hidden_bwd": t.causal_mask(NQ, NK, 0)}))
    return out


def planted_and_unrelated(seeds):
    for store in (F16, F32):
        right = wrong = 0
        missed = collections.Counter()
        runs = 0
        for label, name, kw in planted(store):
            for s in seeds:
                j = judge(s, store, **kw)
                runs += 1
                if not j["passed"] and j["diagnosis"].startswith(name):
                    right += 1
                elif j["diagnosis"] == "":
                    missed[label] += 1
                else:
                    wrong += 1
                    print(f"  wrong name ({label}, seed {s}): {j['diagnosis']}")
        unrelated = sum(judge(s, store, bug=b)["diagnosis"] != "" for b in t.UNRELATED for s in seeds)
        failed = named = 0
        for s in seeds:
            for kw in ({}, {"causal": True, "hidden": t.causal_mask(NQ, NK, 0)}):
                j = judge(s, store, **kw)
                failed += not j["passed"]
                named += j["diagnosis"] != ""
        print(f"{store.__name__}: named right {right} of {runs}, wrong names {wrong}, unnamed {dict(missed)}; "
              f"unrelated named {unrelated} of {len(t.UNRELATED) * len(seeds)}; "
              f"correct kernels failed {failed} of {2 * len(seeds)}, named {named}", flush=True)


def noise(count):
    rng = np.random.default_rng(7)
    runs = failed = named = 0
    while runs < count:
        store = (F16, F32)[runs % 2]
        causal = runs // 2 % 2 == 1
        q, k, v, do = (x.astype(store) for x in t.problem(300 + runs // 100))
        _, dq, dk, dv = t.flash2(q, k, v, do, store=store, hidden=t.causal_mask(NQ, NK, 0) if causal else None)
        grads = [x.astype(np.float64) for x in (dq, dk, dv)]
        flat = grads[runs % 3].reshape(-1)  # 1 to every entry of one tensor off by 1e-5 to 1e-1
        n = int(rng.integers(1, flat.size + 1))
        at = rng.choice(flat.size, n, replace=False)
        flat[at] *= 1 + rng.choice([-1, 1], n) * 10 ** rng.uniform(-5, -1, n)
        j = oracle.judge_grads(*(x.astype(store) for x in grads), q, k, v, do, backward="flash2", block=4,
                               causal=causal)
        runs += 1
        failed += not j["passed"]
        named += j["diagnosis"] != ""
    print(f"noise: {runs} noisy copies of correct kernels, {failed} fail, {named} named")


def main():
    first, last, count = (int(x) for x in sys.argv[1:4]) if len(sys.argv) > 3 else (100, 120, 1000)
    planted_and_unrelated(range(first, last))
    noise(count)


if __name__ == "__main__":
    main()
