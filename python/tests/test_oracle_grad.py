# SPDX-License-Identifier: MIT
"""The oracle judges real backward passes (docs/oracle.md, "Bounds for the backward"): PyTorch's
CPU autograd of attention written with torch operations in float32 and bfloat16, and a
FlashAttention-2-style backward written here in NumPy with float32 accumulation, must pass;
planted backward bugs (the softmax scale missing from dS, the causal mask dropped in the backward
only, D from the unnormalised accumulator) must fail with their diagnosis; bad arguments are
refused naming the argument."""

import math
import os

import numpy as np
import pytest

from exactattn import oracle
import exactattn

try:  # the suite sets EXACTATTN_REQUIRE_TORCH: there a missing PyTorch fails, not skips
    import torch
except ImportError:
    torch = None
    assert not os.environ.get("EXACTATTN_REQUIRE_TORCH"), "PyTorch is required (EXACTATTN_REQUIRE_TORCH)"

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def torch_problem(dtype, nq=12, nk=16, d=16, dv=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(shape, generator=g).to(dtype) for shape in ((nq, d), (nk, d), (nk, dv)))
    do = torch.randn((nq, dv), generator=g).to(dtype)
    return q, k, v, do


def torch_attention(q, k, v, causal=False):
    """softmax(q kᵀ / √d) v with torch operations (PyTorch's math attention)."""
    s = (q @ k.T) * (1 / math.sqrt(q.shape[-1]))
    if causal:
        s = s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v


def autograd(q, k, v, do, causal=False):
    q, k, v = (x.clone().requires_grad_(True) for x in (q, k, v))
    torch_attention(q, k, v, causal).backward(do)
    return q.grad, k.grad, v.grad


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("causal", [False, True])
def test_torch_autograd_gradients_pass(dtype, causal):
    q, k, v, do = torch_problem(getattr(torch, dtype), seed=3 if causal else 1)
    dq, dk, dv = autograd(q, k, v, do, causal)
    j = oracle.assert_grads_close(dq, dk, dv, q, k, v, do, causal=causal)
    assert j["passed"]
    for name in ("dq", "dk", "dv"):
        x = j["judged"][name]
        assert x["over"] == 0 and x["unbounded"] == 0
        assert 0 < x["max_bound_fraction"] <= 1, (name, x["max_bound_fraction"])
    assert "verdict: PASS" in j["text"] and j["diagnosis"] == ""


@needs_torch
def test_the_softmax_scale_missing_from_ds_fails():
    q, k, v, do = torch_problem(torch.float32, seed=5)
    dq, dk, dv = autograd(q, k, v, do)
    c = 1 / math.sqrt(q.shape[-1])
    # A backward that forgets the scale in dS: dQ = dS K and dK = dSᵀ Q, each √d = 4 times too large.
    with pytest.raises(oracle.OracleMismatch) as e:
        oracle.assert_grads_close(dq / c, dk / c, dv, q, k, v, do)
    assert "dq entries over their bound" in str(e.value)
    assert "dk entries over their bound" in str(e.value)
    assert e.value.judgement["judged"]["dv"]["over"] == 0
    assert "diagnosis: the softmax scale is missing from dS: dQ and dK are 1/c = 4 times" in str(e.value)


@needs_torch
def test_the_causal_mask_dropped_in_the_backward_only_fails():
    q, k, v, do = torch_problem(torch.float32, seed=7)
    q_, k_, v_ = (x.clone().requires_grad_(True) for x in (q, k, v))
    out = torch_attention(q_, k_, v_, causal=True)

    class DropMaskInBackward(torch.autograd.Function):
        """The causal forward, and the backward of the unmasked attention."""

        @staticmethod
        def forward(ctx, qq, kk, vv):
            ctx.save_for_backward(qq, kk, vv)
            return out.detach()

        @staticmethod
        def backward(ctx, g):
            qq, kk, vv = (x.detach().requires_grad_(True) for x in ctx.saved_tensors)
            with torch.enable_grad():
                torch_attention(qq, kk, vv, causal=False).backward(g)
            return qq.grad, kk.grad, vv.grad

    q2, k2, v2 = (x.clone().requires_grad_(True) for x in (q, k, v))
    DropMaskInBackward.apply(q2, k2, v2).backward(do)
    with pytest.raises(oracle.OracleMismatch) as e:
        oracle.assert_grads_close(q2.grad, k2.grad, v2.grad, q, k, v, do, causal=True)
    j = e.value.judgement["judged"]
    assert j["dv"]["over"] > 0 and j["dq"]["over"] > 0
    assert e.value.judgement["diagnosis"].startswith(
        "the mask is applied in the forward but dropped in the backward: the gradients are those of the unmasked")


def flash2_numpy(q, k, v, do, block=4, d_from_accumulator=False):
    """FlashAttention-2 in NumPy: float16 tensors, float32 accumulation. Forward: online softmax
    over key blocks, P rounded to float16 before P·V, O stored in float16, LSE kept in float32.
    Backward: D = rowsum(dO∘O) in float32; per key block P = exp(S − LSE) recomputed, dP = dO Vᵀ,
    dS = P∘(dP − D)·c, P and dS rounded to float16 before the products; dQ gathered per block."""
    f32, f16 = np.float32, np.float16

    def exp(x):  # float32's exp correctly rounded but for rare double roundings: within 1 ULP
        return np.exp(x.astype(np.float64)).astype(f32)

    q32, k32, v32, do32 = (x.astype(f32) for x in (q, k, v, do))
    nq, d = q.shape
    nk = k.shape[0]
    c = f32(1 / math.sqrt(d))
    m = np.full(nq, -np.inf, f32)
    ell = np.zeros(nq, f32)
    acc = np.zeros((nq, v.shape[1]), f32)
    for s in range(0, nk, block):
        sc = (q32 @ k32[s:s + block].T) * c
        m_new = np.maximum(m, sc.max(axis=1))
        alpha = exp(m - m_new)
        p = exp(sc - m_new[:, None])
        ell = alpha * ell + p.sum(axis=1, dtype=f32)
        acc = alpha[:, None] * acc + p.astype(f16).astype(f32) @ v32[s:s + block]
        m = m_new
    out = (acc / ell[:, None]).astype(f16)
    lse = m + np.log(ell.astype(np.float64)).astype(f32)
    # The planted bug: D from the accumulator before its division by ℓ.
    dd = (do32 * (acc if d_from_accumulator else out.astype(f32))).sum(axis=1, dtype=f32)
    dq = np.zeros((nq, d), f32)
    dk = np.zeros((nk, d), f32)
    dv = np.zeros((nk, v.shape[1]), f32)
    for s in range(0, nk, block):
        kb, vb = k32[s:s + block], v32[s:s + block]
        p = exp((q32 @ kb.T) * c - lse[:, None])
        dp = do32 @ vb.T
        ds = (p * (dp - dd[:, None]) * c).astype(f16).astype(f32)
        dv[s:s + block] = p.astype(f16).astype(f32).T @ do32
        dk[s:s + block] = ds.T @ q32
        dq += ds @ kb
    return out, lse, dq.astype(f16), dk.astype(f16), dv.astype(f16)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_numpy_flashattention2_backward_with_float32_accumulation_passes(seed):
    rng = np.random.default_rng(seed)
    q, k, v, do = (rng.standard_normal(s).astype(np.float16) for s in ((8, 16), (12, 16), (12, 8), (8, 8)))
    out, lse, dq, dk, dv = flash2_numpy(q, k, v, do)
    j = oracle.assert_grads_close(dq, dk, dv, q, k, v, do, backward="flash2", accumulate="float32")
    fractions = {n: j["judged"][n]["max_bound_fraction"] for n in ("dq", "dk", "dv")}
    assert all(0 < f <= 1 for f in fractions.values()), fractions
    # Its forward passes the forward oracle's judgement of the online algorithm it runs.
    oracle.assert_close(out, q, k, v, algorithm="online", block=4, accumulate="float32", p_fmt="float16")


def test_a_numpy_flashattention2_backward_with_d_from_the_unnormalised_accumulator_fails():
    """D = rowsum(dO ∘ Õ) with Õ = O·ℓ, the accumulator before the division: dS off by a row constant."""
    rng = np.random.default_rng(11)
    q, k, v, do = (rng.standard_normal(s).astype(np.float16) for s in ((8, 16), (12, 16), (12, 8), (8, 8)))
    _, _, dq, dk, dv = flash2_numpy(q, k, v, do, d_from_accumulator=True)
    with pytest.raises(oracle.OracleMismatch) as e:
        oracle.assert_grads_close(dq, dk, dv, q, k, v, do, backward="flash2")
    j = e.value.judgement["judged"]
    assert j["dq"]["over"] > 0 and j["dv"]["over"] == 0  # dV does not use D
    assert e.value.judgement["diagnosis"].startswith("D = rowsum(dO∘O) is computed from the unnormalised accumulator")


def test_the_emulations_pass_their_own_claims():
    rng = np.random.default_rng(4)
    q, k, v, do = (rng.standard_normal(s).astype(np.float32) for s in ((5, 8), (7, 8), (7, 4), (5, 4)))
    for backward in ("standard", "flash2"):
        e = oracle.grad_emulate(q, k, v, do, backward=backward, storage="bfloat16", fmt="bfloat16", block=3,
                                trace=True)
        assert e["dq"].shape == (5, 8) and e["dv"].shape == (7, 4)
        oracle.assert_grads_close(e["dq"], e["dk"], e["dv"], q, k, v, do, fmt="bfloat16", backward=backward,
                                  storage="bfloat16")


def test_the_reference_matches_hand_worked_gradients():
    # q = 0, K = I, V = ((1, −1), (1/2, −1)), no scale, dO = (1, 2): P = (1/2, 1/2), dP = (−1, −3/2),
    # D = −5/4, dS = P∘(dP − D) = (1/8, −1/8), dQ = dS K = (1/8, −1/8), dV = Pᵀ dO = ((1/2, 1), (1/2, 1)).
    q = np.zeros((1, 2), np.float32)
    k = np.eye(2, dtype=np.float32)
    v = np.array([[1, -1], [0.5, -1]], np.float32)
    do = np.array([[1, 2]], np.float32)
    g = oracle.grad_reference(q, k, v, do, scale="none")
    assert g["dq"]["values"].tolist() == [[0.125, -0.125]]
    assert g["dv"]["values"].tolist() == [[0.5, 1.0], [0.5, 1.0]]
    assert g["d"]["values"].tolist() == [-1.25]
    j = oracle.judge_grads(np.array([[0.125, -0.125]], np.float32), None, None, q, k, v, do, scale="none")
    assert j["passed"] and j["judged"]["dq"]["over"] == 0


def test_bad_arguments_are_refused_naming_the_argument():
    q = np.zeros((1, 2), np.float32)
    k = np.eye(2, dtype=np.float32)
    v = np.array([[1, -1], [0.5, -1]], np.float32)
    with pytest.raises(exactattn.ShapeError) as e:
        oracle.grad_reference(q, k, v, np.zeros((1, 3), np.float32))
    assert e.value.place == "d_out" and "1 × 2" in str(e.value)
    with pytest.raises(exactattn.ShapeError) as e:
        oracle.judge_grads(np.zeros((2, 2), np.float32), None, None, q, k, v, np.zeros((1, 2), np.float32))
    assert e.value.place == "dq"
    with pytest.raises(exactattn.UsageError) as e:
        oracle.judge_grads(np.zeros((1, 2), np.float32), None, None, q, k, v, np.zeros((1, 2), np.float32),
                           backward="flash3")
    assert e.value.place == "backward"
    with pytest.raises(exactattn.UsageError) as e:
        oracle.judge_grads(None, None, None, q, k, v, np.zeros((1, 2), np.float32))
    assert e.value.place == "dq"
    with pytest.raises(exactattn.UsageError) as e:
        oracle.grad_reference(q, k, v, np.zeros((1, 2), np.float32), tolerance_ulps=3)
    assert e.value.place == "tolerance_ulps"
