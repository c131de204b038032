# SPDX-License-Identifier: MIT
"""Diagnoses of backward bugs (docs/oracle.md, "Diagnoses of the backward"): each mistake is
planted in a FlashAttention-2-style backward written here in NumPy and must fail with its name;
the correct kernel passes with no name, and unrelated bugs and noise fail with no name."""

import math

import numpy as np
import pytest

from exactattn import oracle

F32, F16 = np.float32, np.float16
LOG2E = math.log2(math.e)


def exp(x):
    """float32's exp, correctly rounded but for rare double roundings (within 1 ULP)."""
    return np.exp(np.asarray(x, np.float64)).astype(F32)


def flash2(q, k, v, do, *, block=4, hidden=None, hidden_bwd=None, store=F32, bug=None):
    """FlashAttention-2 in NumPy with float32 accumulation: the online forward over key blocks (P
    stored in `store` before P·V, O stored in `store`, LSE kept in float32), then per key block
    P = exp(S − LSE), dP = dO Vᵀ, D = rowsum(dO∘O), dS = P∘(dP − D)·c stored in `store`, dV += Pᵀ dO,
    dK = dSᵀ Q, dQ += dS K. `hidden`: the forward's mask (True = masked); `hidden_bwd`: the
    backward's (default the forward's). `bug` plants one mistake."""
    st = (lambda x: x.astype(store).astype(F32))
    q32, k32, v32, do32 = (x.astype(F32) for x in (q, k, v, do))
    nq, d = q.shape
    nk = k.shape[0]
    hidden = np.zeros((nq, nk), bool) if hidden is None else hidden
    hidden_bwd = hidden if hidden_bwd is None else hidden_bwd
    c = F32(1 / math.sqrt(d))
    m = np.full(nq, -np.inf, F32)
    ell = np.zeros(nq, F32)
    acc = np.zeros((nq, v.shape[1]), F32)
    for s in range(0, nk, block):
        sc = np.where(hidden[:, s:s + block], -np.inf, (q32 @ k32[s:s + block].T) * c).astype(F32)
        m_new = np.maximum(m, sc.max(axis=1))
        alpha = exp(m - m_new)
        p = exp(sc - m_new[:, None])
        ell = alpha * ell + p.sum(axis=1, dtype=F32)
        acc = alpha[:, None] * acc + st(p) @ v32[s:s + block]
        m = m_new
    o32 = acc / ell[:, None]
    out = st(o32)
    lse = (m + np.log(ell.astype(np.float64)).astype(F32)).astype(F32)
    if bug == "lse saved in base 2":  # log2 Σ 2^(s·log2 e), then used as a natural LSE
        lse = (m * F32(LOG2E) + np.log2(ell.astype(np.float64)).astype(F32)).astype(F32)
    o_for_d = {"d from the unnormalised accumulator": acc, "d from o rounded to float16": st(o32).astype(F16).astype(F32)}
    dd = (do32 * o_for_d.get(bug, out)).sum(axis=1, dtype=F32)
    if bug == "d omitted":
        dd = np.zeros(nq, F32)
    dq = np.zeros((nq, d), F32)
    dk = np.zeros((nk, d), F32)
    dv = np.zeros((nk, v.shape[1]), F32)
    starts = list(range(0, nk, block))
    if bug == "last tile dropped":
        starts = starts[:-1]
    for s in starts:
        kb, vb = k32[s:s + block], v32[s:s + block]
        sc = ((q32 @ kb.T) * c).astype(F32)
        if bug == "lse saved in base e, used in base 2":  # exp2(s·log2 e − LSE) with a natural LSE
            p = np.exp2(np.asarray(sc * F32(LOG2E) - lse[:, None], np.float64)).astype(F32)
        else:
            p = exp(sc - lse[:, None])
        p = np.where(hidden_bwd[:, s:s + block], F32(0), p)
        dp = do32 @ vb.T
        ds = p * (dp - dd[:, None])
        if bug != "scale missing from ds":
            ds = ds * c
        if bug == "scale applied twice":
            ds = ds * c
        if bug == "ds sign flipped":
            ds = -ds
        ds = st(ds)
        dv[s:s + block] = st(p).T @ do32 * (F32(2) if bug == "dv doubled" else F32(1))
        dk[s:s + block] = ds.T @ q32
        dq += ds @ kb
    return out, dq.astype(store), dk.astype(store), dv.astype(store)


def problem(seed, nq=8, nk=12, d=16, dv=8):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(F32) for s in ((nq, d), (nk, d), (nk, dv), (nq, dv))]


def judge(seed, bug=None, **kw):
    q, k, v, do = problem(seed)
    _, dq, dk, dv = flash2(q, k, v, do, bug=bug, **{x: y for x, y in kw.items() if x in ("hidden", "hidden_bwd")})
    return oracle.judge_grads(dq, dk, dv, q, k, v, do, backward="flash2", block=4,
                              **{x: y for x, y in kw.items() if x in ("causal", "align")})


def causal_mask(nq, nk, offset):
    """True where key j is hidden from query i: j > i + offset."""
    return np.arange(nk)[None, :] > np.arange(nq)[:, None] + offset


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_correct_float32_kernel_passes_with_no_diagnosis(seed):
    j = judge(seed)
    assert j["passed"] and j["diagnosis"] == ""
    j = judge(seed, causal=True, hidden=causal_mask(8, 12, 0))
    assert j["passed"] and j["diagnosis"] == ""


# Each planted mistake and the words its diagnosis must carry.
PLANTED = [
    ("scale missing from ds", "the softmax scale is missing from dS: dQ and dK are 1/c = 4 times"),
    ("scale applied twice", "the softmax scale is applied twice in dS: dQ and dK are c = 0.25 times"),
    ("d from the unnormalised accumulator", "D = rowsum(dO∘O) is computed from the unnormalised accumulator"),
    ("d from o rounded to float16", "D = rowsum(dO∘O) is computed from the output rounded to float16"),
    ("lse saved in base 2", "the LSE is saved in base 2 and used in base e"),
    ("lse saved in base e, used in base 2", "the LSE is saved in base e and used in base 2"),
    ("last tile dropped", "the last key tile is dropped in the backward: keys 8 to 11"),
]


@pytest.mark.parametrize("bug,name", PLANTED, ids=[b for b, _ in PLANTED])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_planted_backward_mistake_fails_with_its_name(bug, name, seed):
    j = judge(seed, bug)
    assert not j["passed"]
    assert j["diagnosis"].startswith(name), j["diagnosis"]
    assert ("diagnosis: " + j["diagnosis"]) in j["text"]
    assert '"diagnosis":' in j["json"]


def test_the_scale_mistakes_leave_dv_right_and_scale_dq_and_dk_exactly():
    # The evidence the diagnosis rests on: with c = 1/√16 = 1/4 the kernel without c in dS returns
    # dQ and dK 4 times the correct kernel's (to its float32 roundings) and the same dV.
    q, k, v, do = problem(0)
    _, dq, dk, dv = flash2(q, k, v, do)
    _, dq2, dk2, dv2 = flash2(q, k, v, do, bug="scale missing from ds")
    assert np.array_equal(dv, dv2)
    np.testing.assert_allclose(dq2, 4 * dq, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dk2, 4 * dk, rtol=1e-5, atol=1e-6)


MASK_DROPPED = "the mask is applied in the forward but dropped in the backward: P = exp(S − LSE)"


@pytest.mark.parametrize("seed", [0, 1])
def test_a_causal_mask_dropped_in_the_backward_only_is_named(seed):
    nq, nk = 8, 12
    j = judge(seed, causal=True, hidden=causal_mask(nq, nk, 0), hidden_bwd=np.zeros((nq, nk), bool))
    assert not j["passed"]
    assert j["diagnosis"].startswith(MASK_DROPPED), j["diagnosis"]
    # The evidence: dV of a key no query sees under the mask is not 0 (key 11: hidden from every
    # row i ≤ 7 since 11 > i).
    q, k, v, do = problem(seed)
    _, _, _, dv = flash2(q, k, v, do, hidden=causal_mask(nq, nk, 0), hidden_bwd=np.zeros((nq, nk), bool))
    assert np.any(dv[11] != 0)


@pytest.mark.parametrize("seed", [100, 113])
def test_a_causal_mask_dropped_in_a_float16_backward_is_named(seed):
    # Float16 tensors and storage, float32 accumulation. P = exp(S − LSE) on the masked keys is
    # not a probability (these seeds reach P ≈ 2.5 and 47), so its roundings to float16 and dV's
    # are as large as the mistake's terms; keys 8 to 11, which no query sees, must not pull the
    # tolerance's median bound down to float16's least subnormal (these two were unnamed then).
    nq, nk = 8, 12
    q, k, v, do = (x.astype(F16) for x in problem(seed))
    hidden, shown = causal_mask(nq, nk, 0), np.zeros((nq, nk), bool)
    _, dq, dk, dv = flash2(q, k, v, do, hidden=hidden, hidden_bwd=shown, store=F16)
    j = oracle.judge_grads(dq, dk, dv, q, k, v, do, backward="flash2", block=4, causal=True)
    assert not j["passed"]
    assert j["diagnosis"].startswith(MASK_DROPPED), j["diagnosis"]
    # The evidence: P on a masked key above 1 (e^(s − L) with L the LSE over the visible keys only).
    s = (q.astype(np.float64) @ k.astype(np.float64).T) / 4
    visible = np.where(hidden, -np.inf, s)
    lse = np.log(np.exp(visible).sum(axis=1))
    assert np.exp(s - lse[:, None])[hidden].max() > 2
    # And the correct float16 kernel, masked in both passes, passes with no name.
    _, dq, dk, dv = flash2(q, k, v, do, hidden=hidden, store=F16)
    j = oracle.judge_grads(dq, dk, dv, q, k, v, do, backward="flash2", block=4, causal=True)
    assert j["passed"] and j["diagnosis"] == ""


def test_a_causal_alignment_changed_in_the_backward_is_named():
    # Forward bottom-right (query i sees keys j ≤ i + 4), backward top-left (j ≤ i).
    nq, nk = 8, 12
    j = judge(3, causal=True, align="bottom-right", hidden=causal_mask(nq, nk, nk - nq),
              hidden_bwd=causal_mask(nq, nk, 0))
    assert not j["passed"]
    assert j["diagnosis"].startswith("the causal mask is aligned bottom-right in the forward but top-left in the "
                                     "backward"), j["diagnosis"]


UNRELATED = ["ds sign flipped", "d omitted", "dv doubled"]


@pytest.mark.parametrize("bug", UNRELATED)
@pytest.mark.parametrize("seed", [0, 1])
def test_an_unrelated_backward_bug_fails_with_no_name(bug, seed):
    j = judge(seed, bug)
    assert not j["passed"] and j["diagnosis"] == "", j["diagnosis"]


def test_noise_fails_with_no_name():
    q, k, v, do = problem(5)
    _, dq, dk, dv = flash2(q, k, v, do)
    rng = np.random.default_rng(6)
    failed = 0
    for trial in range(40):
        grads = [x.astype(np.float64) for x in (dq, dk, dv)]
        which = trial % 3
        # 1 to every entry of one tensor perturbed by a relative 1e-5 to 1e-1
        size = grads[which].size
        n = int(rng.integers(1, size + 1))
        at = rng.choice(size, n, replace=False)
        flat = grads[which].reshape(-1)
        flat[at] *= 1 + rng.choice([-1, 1], n) * 10 ** rng.uniform(-5, -1, n)
        j = oracle.judge_grads(*(x.astype(F32) for x in grads), q, k, v, do, backward="flash2", block=4)
        failed += not j["passed"]
        assert j["diagnosis"] == "", (trial, j["diagnosis"])
    assert failed >= 30


def test_assert_grads_close_names_the_diagnosis():
    q, k, v, do = problem(0)
    _, dq, dk, dv = flash2(q, k, v, do, bug="last tile dropped")
    with pytest.raises(oracle.OracleMismatch) as e:
        oracle.assert_grads_close(dq, dk, dv, q, k, v, do, backward="flash2", block=4)
    assert "diagnosis: the last key tile is dropped in the backward: keys 8 to 11" in str(e.value)
