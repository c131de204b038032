# SPDX-License-Identifier: MIT
"""The gradients of a batch of heads judged in one call (docs/oracle.md, "Gradients of a batch
of heads"): PyTorch's autograd of a grouped-query batch passes in both layouts with the verdict
of the heads judged one by one; the true dK and dV of a kv head are the exact sum over its group
(checked against fractions on a problem whose softmax is rational); a kernel that gathers dK and
dV over the wrong group fails, names the entry (b, h, i, j) and its mistake; bad shapes are
refused at their argument."""

import math
from fractions import Fraction

import numpy as np
import pytest

from exactattn import oracle
import exactattn

from test_oracle_grad import needs_torch, torch  # torch, or None where it is absent and not required

B, H_Q, H_KV, N, D = 2, 4, 2, 16, 8
GROUP = H_Q // H_KV


def torch_gqa_backward(seed=0):
    """A (2, 4, 16, 8) float32 problem with H_kv = 2 and PyTorch's autograd backward of
    softmax(q kᵀ/√d) v with k, v repeat_interleaved to the query heads: q, k, v, dO, dQ, dK, dV,
    and each query head's own dK and dV (the gradients of the repeated k and v)."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn((B, H_Q, N, D), generator=g).requires_grad_()
    k = torch.randn((B, H_KV, N, D), generator=g).requires_grad_()
    v = torch.randn((B, H_KV, N, D), generator=g).requires_grad_()
    do = torch.randn((B, H_Q, N, D), generator=g)
    kk, vv = k.repeat_interleave(GROUP, dim=1), v.repeat_interleave(GROUP, dim=1)
    kk.retain_grad(), vv.retain_grad()
    s = (q @ kk.transpose(-1, -2)) * (1 / math.sqrt(D))
    (torch.softmax(s, dim=-1) @ vv).backward(do)
    return q.detach(), k.detach(), v.detach(), do, q.grad, k.grad, v.grad, kk.grad, vv.grad


def bnhd(*xs):
    return [x.transpose(1, 2).contiguous() for x in xs]


@needs_torch
@pytest.mark.parametrize("layout", ["bhnd", "bnhd"])
def test_torch_autograd_of_a_gqa_batch_passes_in_one_call_in_both_layouts(layout):
    q, k, v, do, dq, dk, dv, _, _ = torch_gqa_backward()
    args = (dq, dk, dv, q, k, v, do)
    if layout == "bnhd":
        args = bnhd(*args)
    j = oracle.assert_grads_close(*args, layout=layout)
    assert j["passed"] and j["diagnosis"] == ""
    assert {n: x["entries"] for n, x in j["judged"].items()} == {"dq": B * H_Q * N * D, "dk": B * H_KV * N * D,
                                                                   "dv": B * H_KV * N * D}
    assert all(x["over"] == 0 and x["unbounded"] == 0 for x in j["judged"].values())
    want = (B, N, H_KV, D) if layout == "bnhd" else (B, H_KV, N, D)
    assert j["dk"]["values"].shape == want and j["judged"]["dv"]["bound"].shape == want
    assert len(j["judged"]["dk"]["worst_fraction"]) == 4
    assert "dk: 0 of 512 entries over their bound" in j["text"]
    # A batch's text is the summary; its per-entry JSON report is the command line's alone.
    assert j["text"].endswith("passed\n") and j["json"] is None


@needs_torch
def test_the_batch_verdict_is_the_heads_verdicts_by_the_matrix_api():
    q, k, v, do, dq, dk, dv, dk_heads, dv_heads = torch_gqa_backward()
    j = oracle.judge_grads(dq, dk, dv, q, k, v, do)
    over = {"dq": 0, "dk": 0, "dv": 0}
    entries = dict(over)
    for b in range(B):
        for h in range(H_Q):
            kv = h // GROUP  # repeat_interleave's head
            m = oracle.judge_grads(dq[b, h], dk_heads[b, h], dv_heads[b, h], q[b, h], k[b, kv], v[b, kv], do[b, h])
            assert m["passed"]
            for n, x in m["judged"].items():
                over[n] += x["over"]
                entries[n] += x["entries"]
            # the batch's dq of a head is the matrix problem's, enclosure and rounding alike
            for key in ("values", "lo", "hi"):
                assert np.array_equal(j["dq"][key][b, h], m["dq"][key])
            # a kv head's true dK is the sum of its heads' dK: its enclosure holds the heads' sum
            # (each head's enclosure summed in double, which the outward rounding may only widen)
            if h % GROUP == 0:
                heads = [oracle.grad_reference(q[b, x], k[b, kv], v[b, kv], do[b, x]) for x in range(h, h + GROUP)]
                for name in ("dk", "dv"):
                    lo = sum(r[name]["lo"] for r in heads)
                    hi = sum(r[name]["hi"] for r in heads)
                    assert (j[name]["lo"][b, kv] <= lo).all() and (hi <= j[name]["hi"][b, kv]).all()
    assert j["passed"] and all(x["over"] == 0 for x in j["judged"].values()) and not any(over.values())
    assert j["judged"]["dq"]["entries"] == entries["dq"]
    for n in ("dk", "dv"):  # each kv head's entry sums GROUP query heads' entries
        assert j["judged"][n]["entries"] * GROUP == entries[n]


def round_f32(x):
    """The exact rational x correctly rounded to float32: the nearest of the float32 values around
    float(x) (ties to the even significand)."""
    c = np.float32(float(x))
    cands = [c, np.nextafter(c, np.float32(np.inf)), np.nextafter(c, np.float32(-np.inf))]
    return min(cands, key=lambda y: (abs(Fraction(float(y)) - x), int(np.float32(y).view(np.uint32)) & 1))


def test_a_summed_dk_is_the_exact_sum_over_the_group_rounded_once():
    # K = 0: every score is 0, P = 1/n_k exactly, so every gradient is rational (scale 1):
    # O = mean of V, dP = dO Vᵀ, D_i = Σ_c dO_ic O_ic, dS = P (dP − D), dK_j = Σ_i dS_ij Q_i, dV_j = Σ_i P dO_i.
    q = np.array([[[[1, 2], [3, -1]], [[-2, 5], [1, 1]]]], np.float32)  # (1, 2, 2, 2): two query heads
    k = np.zeros((1, 1, 3, 2), np.float32)  # one kv head (MQA): a group of 2
    v = np.array([[[[1, 0], [2, -3], [0, 7]]]], np.float32)
    do = np.array([[[[1, 1], [-2, 3]], [[4, -1], [0, 2]]]], np.float32)
    n_k = 3
    P = Fraction(1, n_k)
    dk_exact = [[Fraction(0)] * 2 for _ in range(n_k)]
    dv_exact = [[Fraction(0)] * 2 for _ in range(n_k)]
    for h in range(2):
        Q, V, dO = ([[Fraction(int(x)) for x in row] for row in a] for a in (q[0, h], v[0, 0], do[0, h]))
        O = [sum(V[j][c] for j in range(n_k)) * P for c in range(2)]
        for i in range(2):
            D = sum(dO[i][c] * O[c] for c in range(2))
            for j in range(n_k):
                ds = P * (sum(dO[i][c] * V[j][c] for c in range(2)) - D)
                for c in range(2):
                    dk_exact[j][c] += ds * Q[i][c]
                    dv_exact[j][c] += P * dO[i][c]
    g = oracle.grad_reference(q, k, v, do, scale=1.0)
    assert g["dk"]["values"].shape == (1, 1, n_k, 2)
    for name, exact in (("dk", dk_exact), ("dv", dv_exact)):
        f = g[name]
        for j in range(n_k):
            for c in range(2):
                x = exact[j][c]
                assert Fraction(f["lo"][0, 0, j, c]) <= x <= Fraction(f["hi"][0, 0, j, c])
                assert f["values"][0, 0, j, c] == round_f32(x)
                assert f["rounded"][0, 0, j, c] == 1
    # In float64 an enclosure of a sum may straddle a rounding boundary: `rounded` says where.
    # float(Fraction) is the correctly rounded double (Python rounds a Fraction to nearest, ties even).
    g64 = oracle.grad_reference(*(a.astype(np.float64) for a in (q, k, v, do)), scale=1.0)
    for name, exact in (("dk", dk_exact), ("dv", dv_exact)):
        f = g64[name]
        for j in range(n_k):
            for c in range(2):
                x, got = exact[j][c], f["values"][0, 0, j, c]
                assert Fraction(f["lo"][0, 0, j, c]) <= x <= Fraction(f["hi"][0, 0, j, c])
                if f["rounded"][0, 0, j, c] == 1:
                    assert got == float(x), (name, j, c)
                else:
                    assert abs(got - float(x)) <= np.spacing(abs(float(x))), (name, j, c)
    # by hand: O = (1, 4/3); head 0 gives dS_00 Q_00 + dS_10 Q_10 = (-4/9)(1) + (-4/3)(3) = -40/9,
    # head 1 gives (4/9)(-2) + (-8/9)(1) = -16/9: the group's dK_00 = -56/9
    assert dk_exact[0][0] == Fraction(-56, 9)


def wrong_group_sum(x_heads):
    """A kernel's mistake: kv head g sums the query heads h with h % H_kv = g (interleaved)."""
    return torch.stack([x_heads[:, g::H_KV].sum(dim=1) for g in range(H_KV)], dim=1)


@needs_torch
@pytest.mark.parametrize("layout", ["bhnd", "bnhd"])
def test_dk_gathered_over_the_wrong_gqa_group_fails_naming_the_entry_and_the_mistake(layout):
    q, k, v, do, dq, _, _, dk_heads, dv_heads = torch_gqa_backward()
    args = (dq, wrong_group_sum(dk_heads), wrong_group_sum(dv_heads), q, k, v, do)
    if layout == "bnhd":
        args = bnhd(*args)
    with pytest.raises(oracle.OracleMismatch) as e:
        oracle.assert_grads_close(*args, layout=layout)
    j = e.value.judgement
    assert not j["passed"] and j["judged"]["dq"]["over"] == 0  # dq is not gathered
    assert j["judged"]["dk"]["over"] > 0 and j["judged"]["dv"]["over"] > 0
    assert "wrong GQA group" in j["diagnosis"]
    b, h, i, c = j["judged"]["dk"]["worst_fraction"]
    assert 0 <= b < B and 0 <= h < H_KV and 0 <= i < N and 0 <= c < D
    assert f"worst dk[b={b}, h={h}, i={i}, j={c}] = " in str(e.value)
    assert "diagnosis: dK/dV gathered over the wrong GQA group" in str(e.value)


@needs_torch
def test_only_dk_gathered_wrong_fails_with_the_same_diagnosis():
    q, k, v, do, dq, _, dv, dk_heads, _ = torch_gqa_backward(seed=1)
    j = oracle.judge_grads(dq, wrong_group_sum(dk_heads), dv, q, k, v, do)
    assert not j["passed"] and j["judged"]["dv"]["over"] == 0
    assert j["diagnosis"].startswith("dK gathered over the wrong GQA group")


@needs_torch
def test_a_backward_mistake_in_every_head_is_diagnosed_at_the_first_failing_head_named():
    q, k, v, do, _, _, _, _, _ = torch_gqa_backward()
    # the softmax scale missing from dS, by hand in float32: dQ = dS K, dK = Σ_group dSᵀ Q
    kk, vv = k.repeat_interleave(GROUP, dim=1), v.repeat_interleave(GROUP, dim=1)
    p = torch.softmax((q @ kk.transpose(-1, -2)) * (1 / math.sqrt(D)), dim=-1)
    o = p @ vv
    ds = p * (do @ vv.transpose(-1, -2) - (do * o).sum(-1, keepdim=True))
    dq = ds @ kk
    dk = (ds.transpose(-1, -2) @ q).reshape(B, H_KV, GROUP, N, D).sum(2)
    dv = (p.transpose(-1, -2) @ do).reshape(B, H_KV, GROUP, N, D).sum(2)
    j = oracle.judge_grads(dq, dk, dv, q, k, v, do)
    assert not j["passed"] and j["judged"]["dq"]["over"] > 0
    assert j["diagnosis"].startswith("head (b=0, h=0): ") and "scale" in j["diagnosis"]


def test_a_gqa_batch_of_a_single_group_member_is_mha():
    # H_kv = H_q: each kv head's group is itself, its dK the head's own (correctly rounded, exact flags kept)
    rng = np.random.default_rng(3)
    q, k, v, do = (rng.standard_normal((1, 2, 4, 3)).astype(np.float32) for _ in range(4))
    g = oracle.grad_reference(q, k, v, do)
    for h in range(2):
        m = oracle.grad_reference(q[0, h], k[0, h], v[0, h], do[0, h])
        for name in ("dq", "dk", "dv", "out", "lse", "p", "ds"):
            for key in ("values", "lo", "hi", "exact"):
                assert np.array_equal(g[name][key][0, h], m[name][key]), (name, key)
            assert np.all(g[name]["rounded"][0, h] == 1), name


@pytest.mark.parametrize("arg, shape, place", [
    ("dk", (B, H_Q, N, D), "dk"),   # dK with the query heads, not the kv heads
    ("dv", (B, H_KV, N, D + 1), "dv"),
    ("dq", (B, H_KV, N, D), "dq"),
    ("d_out", (B, H_Q, N - 1, D), "d_out"),
    ("k", (B, 3, N, D), "k"),       # 4 query heads are not a multiple of 3 kv heads
])
def test_a_batch_of_the_wrong_shape_is_refused_at_its_argument(arg, shape, place):
    rng = np.random.default_rng(0)
    x = {"dq": (B, H_Q, N, D), "dk": (B, H_KV, N, D), "dv": (B, H_KV, N, D), "q": (B, H_Q, N, D),
         "k": (B, H_KV, N, D), "v": (B, H_KV, N, D), "d_out": (B, H_Q, N, D)}
    a = {n: rng.standard_normal(s).astype(np.float32) for n, s in x.items()}
    a[arg] = rng.standard_normal(shape).astype(np.float32)
    if arg == "k":
        a["v"] = rng.standard_normal(shape).astype(np.float32)
    with pytest.raises(exactattn.ShapeError) as e:
        oracle.judge_grads(a["dq"], a["dk"], a["dv"], a["q"], a["k"], a["v"], a["d_out"])
    assert e.value.place == place


def test_the_batch_options_are_refused_by_the_matrix_only_emulation():
    x = np.zeros((2, 2), np.float32)
    with pytest.raises(exactattn.UsageError) as e:
        oracle.grad_emulate(x, x, x, x, layout="bnhd")
    assert e.value.place == "layout"


@needs_torch
def test_a_masked_gqa_batch_passes_and_its_judgement_is_the_same_on_any_number_of_threads():
    # a 4-D mask (1, H_q, N, N) broadcast over the batch, each head its own (causal, then a band)
    g = torch.Generator().manual_seed(5)
    q = torch.randn((B, H_Q, N, D), generator=g).requires_grad_()
    k = torch.randn((B, H_KV, N, D), generator=g).requires_grad_()
    v = torch.randn((B, H_KV, N, D), generator=g).requires_grad_()
    do = torch.randn((B, H_Q, N, D), generator=g)
    i, j = torch.arange(N)[:, None], torch.arange(N)[None, :]
    mask = torch.stack([j > i + h for h in range(H_Q)])[None]  # True = masked
    s = (q @ k.repeat_interleave(GROUP, 1).transpose(-1, -2)) * (1 / math.sqrt(D))
    (torch.softmax(s.masked_fill(mask, float("-inf")), -1) @ v.repeat_interleave(GROUP, 1)).backward(do)
    args = (q.grad, k.grad, v.grad, q.detach(), k.detach(), v.detach(), do)
    one = oracle.assert_grads_close(*args, mask=mask, threads=1)
    two = oracle.judge_grads(*args, mask=mask, threads=2)
    assert one["text"] == two["text"]
    for name in ("dq", "dk", "dv"):
        assert np.array_equal(one["judged"][name]["bound"], two["judged"][name]["bound"])
        assert np.array_equal(one[name]["lo"], two[name]["lo"]) and np.array_equal(one[name]["hi"], two[name]["hi"])
    # the masked keys of head 0's first row have no weight: its P there is exactly 0
    assert (one["p"]["values"][:, 0, 0, 1:] == 0).all()
    # the mask is each head's: the batch's dq of head 3 is the matrix problem's under its own mask
    m = oracle.grad_reference(q.detach()[1, 3], k.detach()[1, 1], v.detach()[1, 1], do[1, 3], mask=mask[0, 3])
    assert np.array_equal(one["dq"]["values"][1, 3], m["dq"]["values"])
