# SPDX-License-Identifier: MIT
"""The gradients with 8-bit floats through exactattn.oracle (docs/oracle.md, "8-bit floats"): a
NumPy FlashAttention-2 backward that casts P to E4M3 with a per-block descale before dV = Pᵀ·dO,
judged under that claim; the hand-worked P-collapse; gradients correctly rounded to E4M3 compared
with a rounding written here from the OCP specification; dO past E4M3's range refused or
saturated at d_out.

Neither Debian's python3-torch 1.13 (its float8 dtypes came in 2.1) nor ml_dtypes (not packaged
by Debian) is on the machine: the E4M3 rounding below is NumPy's own, from the format's fields."""

import math

import numpy as np
import pytest

import exactattn
from exactattn import oracle


def e4m3_values():
    """Every non-negative E4M3 pattern's value, ascending: bias 7, 3 fraction bits, exponent
    field 15 holding numbers up to 1.75·2^8 = 448. The last, 0x7F, is the NaN; it stands here for
    the 480 = 1.875·2^8 an unbounded exponent range would have there, so that rounding to nearest
    (ties to the even pattern) and then overflowing is IEEE's rule: 464 ties to 448 (0x7E, even),
    anything above goes to 480, which the format lacks (±inf: no finite correct rounding)."""
    vals = []
    for bits in range(0x80):
        e, f = bits >> 3, bits & 7
        vals.append((f / 8 * 2.0**-6 if e == 0 else (1 + f / 8) * 2.0**(e - 7), bits))
    return vals


E4M3 = e4m3_values()
E4M3_MAG = np.array([v for v, _ in E4M3])
E4M3_BITS = np.array([b for _, b in E4M3])


def round_e4m3(x):
    """x (float64 array) to the nearest E4M3 value, ties to the even pattern; past the range
    (from 464 = 448 + half its spacing 32 on) ±inf: the correct rounding has no finite value."""
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    hi = np.clip(np.searchsorted(E4M3_MAG, a), 1, len(E4M3_MAG) - 1)
    lo = hi - 1
    below, above = E4M3_MAG[lo], E4M3_MAG[hi]
    pick_hi = (above - a < a - below) | ((above - a == a - below) & (E4M3_BITS[hi] % 2 == 0))
    r = np.where(pick_hi, above, below)
    r = np.where(a <= E4M3_MAG[0], 0.0, np.where(r == 480, np.inf, r))
    return np.copysign(r, x)


def cast_e4m3_saturating(x):
    r = round_e4m3(x)
    return np.where(np.isinf(r), np.copysign(448.0, x), r)


def test_the_rounding_here_is_the_specifications():
    assert round_e4m3([1.0625, 1.1875, 464, 465, 2.0**-10, 3 * 2.0**-10, 500]).tolist() == [
        1.0, 1.25, 448.0, math.inf, 0.0, 2.0**-8, math.inf]


def flash2_fp8_numpy(q, k, v, do, block=4, descale=True):
    """FlashAttention-2 in NumPy, float32 tensors and accumulation, base e, scale 1/√d. Forward:
    a safe softmax, O stored in float32, LSE kept. Backward: D = rowsum(dO∘O);
    per key block P = exp(S − LSE) recomputed, dS = P∘(dP − D)·c from the float32 P, and for dV
    P cast to E4M3 as P·σ_b, σ_b = 2^⌊log2(448/max P)⌋ per (row, block), the block's P̃ᵀ·dO
    divided by σ_b (the planted fault, descale=False: never divided)."""
    f32 = np.float32

    def exp(x):  # float32's exp correctly rounded but for rare double roundings: within 1 ULP
        return np.exp(x.astype(np.float64)).astype(f32)

    nq, d = q.shape
    nk = k.shape[0]
    c = f32(1 / math.sqrt(d))
    sc = (q @ k.T) * c  # the forward in one block of every key (the bound allows any blocking)
    m = sc.max(axis=1)
    e = exp(sc - m[:, None])
    ell = e.sum(axis=1, dtype=f32)
    out = (e @ v) / ell[:, None]
    lse = m + np.log(ell.astype(np.float64)).astype(f32)
    dd = (do * out).sum(axis=1, dtype=f32)
    dq = np.zeros((nq, d), f32)
    dk = np.zeros((nk, d), f32)
    dv = np.zeros((nk, v.shape[1]), f32)
    collapsed = 0
    for s in range(0, nk, block):
        kb, vb = k[s:s + block], v[s:s + block]
        p = exp((q @ kb.T) * c - lse[:, None])
        dp = do @ vb.T
        ds = p * (dp - dd[:, None]) * c
        sigma = np.exp2(np.floor(np.log2(448.0 / p.max(axis=1)))).astype(f32)
        pt = cast_e4m3_saturating((p * sigma[:, None]).astype(np.float64)).astype(f32)
        collapsed += int(((p > 0) & (pt == 0)).sum())
        terms = pt[:, :, None] * do[:, None, :]  # (row, key, column): each row's P̃·dO
        if descale:
            terms = terms / sigma[:, None, None]
        dv[s:s + block] = terms.sum(axis=0, dtype=f32)
        dk[s:s + block] = ds.T @ q
        dq += ds @ kb
    return dq, dk, dv, collapsed


def problem(seed):
    """Scores spread wide (q ~ N(0, 64), scores ~ N(0, 64)): within a block of 4 keys many
    probabilities are 2^−18 of the block's largest or less, below 2^−10/σ_b."""
    rng = np.random.default_rng(seed)
    q = (8 * rng.standard_normal((6, 8))).astype(np.float32)
    k, v, do = (rng.standard_normal(s).astype(np.float32) for s in ((12, 8), (12, 4), (6, 4)))
    return q, k, v, do


CLAIM = dict(backward="flash2", accumulate="float32", block=4, p_fmt="float8_e4m3fn", p_descale="block")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_numpy_fp8_flashattention2_backward_passes_under_its_claim(seed):
    q, k, v, do = problem(seed)
    dq, dk, dv, _ = flash2_fp8_numpy(q, k, v, do)
    j = oracle.assert_grads_close(dq, dk, dv, q, k, v, do, **CLAIM)
    share = j["judged"]["dv"]["max_bound_fraction"]
    assert 0.01 < share <= 1, share  # dV's error is mostly P's E4M3 rounding, a visible share
    assert j["fp8"] is not None and "p_collapse" in j["fp8"]


def test_the_same_gradients_fail_a_float32_claim_and_a_forgotten_descale_fails_its_own():
    q, k, v, do = problem(0)
    dq, dk, dv, _ = flash2_fp8_numpy(q, k, v, do)
    j = oracle.judge_grads(dq, dk, dv, q, k, v, do, backward="flash2", accumulate="float32", block=4)
    assert not j["passed"] and j["judged"]["dv"]["over"] > 0 and j["judged"]["dq"]["over"] == 0
    dq, dk, dv, _ = flash2_fp8_numpy(q, k, v, do, descale=False)
    j = oracle.judge_grads(dq, dk, dv, q, k, v, do, **CLAIM)
    assert not j["passed"] and j["judged"]["dv"]["over"] > 0


def test_the_emulation_counts_the_collapse_the_numpy_kernel_sees():
    # Same claim, same blocks: a probability the cast flushes to zero in one is flushed in the
    # other unless it sits within an ulp of half the least subnormal (not on these inputs).
    q, k, v, do = problem(1)
    *_, collapsed = flash2_fp8_numpy(q, k, v, do)
    e = oracle.grad_emulate(q, k, v, do, fmt="float32", backward="flash2", block=4, p_fmt="float8_e4m3fn",
                            p_descale="block")
    assert collapsed > 0
    assert e["fp8"]["p_collapse"]["count"] == collapsed


def test_the_hand_worked_p_collapse_of_the_backward():
    # Base 2, no scale, scores 0 and −18: P = (1, 2^−18)/(1 + 2^−18); σ = 256 puts P_1·σ below
    # 2^−10, half E4M3's least subnormal: P̃_1 = 0, dV_1 = 0; P_0·σ = 256 − 2^−10 → 256, dV_0 = 1.
    q = np.array([[1.0]], np.float32)
    k = np.array([[0.0], [-18.0]], np.float32)
    v = np.array([[0.0], [1.0]], np.float32)
    do = np.array([[1.0]], np.float32)
    for backward in ("standard", "flash2"):
        e = oracle.grad_emulate(q, k, v, do, fmt="float32", backward=backward, p_fmt="float8_e4m3fn",
                                p_descale=256, scale="none", base=2)
        assert e["dv"].tolist() == [[1.0], [0.0]]
        c = e["fp8"]["p_collapse"]
        assert (c["count"], c["row"], c["key"]) == (1, 0, 1)
        assert 2.0**-18 * (1 - 2.0**-17) <= c["largest_lost"] < 2.0**-18
        assert "fp8: P-collapse: 1 probabilities flushed to zero" in e["text"]


def test_gradients_are_correctly_rounded_to_e4m3():
    # One key (P = 1, dV = dO exactly): float32 values of dO spread over E4M3's range, its
    # subnormals, the ties and past 464, rounded by the oracle and by the rounding above.
    rng = np.random.default_rng(5)
    mags = np.concatenate([2.0 ** rng.uniform(-12, 9.5, 400),
                           [2.0**-10, 3 * 2.0**-10, 1.0625, 1.1875, 464, -464, 463.99, 464.01, 480, 240]])
    do = (mags * rng.choice([-1, 1], mags.size)).astype(np.float32)[None, :]
    one = np.zeros((1, 1), np.float32)
    g = oracle.grad_reference(one, one, np.ones((1, do.size), np.float32), do, fmt="float8_e4m3fn")
    assert np.array_equal(g["dv"]["values"][0], round_e4m3(do[0].astype(np.float64)))


def test_an_e4m3_d_out_past_the_range_is_refused_at_d_out_or_saturated():
    q = k = np.zeros((1, 1), np.float32)
    v = np.array([[1.0, 2.0]], np.float32)
    do = np.array([[0.5, 500.0]], np.float32)
    with pytest.raises(exactattn.Error, match=r"d_out: do\[0, 1\]: 500 is out of float8_e4m3fn's range"):
        oracle.grad_reference(q, k, v, do, fmt="float32", in_fmt="float8_e4m3fn")
    e = oracle.grad_emulate(q, k, v, do, fmt="float32", in_fmt="float8_e4m3fn", fp8_overflow="saturate")
    assert e["dv"].tolist() == [[0.5, 448.0]]
    assert e["fp8"]["saturated"] == {"count": 1, "first": "do[0, 1]"}
    with pytest.raises(exactattn.UsageError, match="accumulate"):
        oracle.grad_emulate(q, k, v, np.array([[0.5, 1.0]], np.float32), accumulate="float8_e4m3fn")


def test_ds_cast_to_e4m3_flushes_below_half_the_least_subnormal_unless_descaled():
    # Scores 0, 0 (q = [1, 0], keys [0, 1], [0, 3]): P = 1/2 each; v = [[0], [1]], dO = 2^−12:
    # dS = P∘(dP − D) = (−2^−14, 2^−14), dQ = (0, 2^−13). Cast to E4M3 as is, |dS| < 2^−10 is flushed
    # (dQ = 0), within the claim's bound; with σ = 256, dS·σ = ±2^−6 is exact and so is dQ.
    q = np.array([[1.0, 0.0]], np.float32)
    k = np.array([[0.0, 1.0], [0.0, 3.0]], np.float32)
    v = np.array([[0.0], [1.0]], np.float32)
    do = np.array([[2.0**-12]], np.float32)
    for backward in ("standard", "flash2"):
        e = oracle.grad_emulate(q, k, v, do, fmt="float32", backward=backward, ds_fmt="float8_e4m3fn", scale="none")
        assert e["dq"].tolist() == [[0.0, 0.0]]
        j = oracle.judge_grads(e["dq"], None, None, q, k, v, do, backward=backward, ds_fmt="float8_e4m3fn",
                               scale="none")
        assert j["passed"]
        assert not oracle.judge_grads(e["dq"], None, None, q, k, v, do, backward=backward, scale="none")["passed"]
        e = oracle.grad_emulate(q, k, v, do, fmt="float32", backward=backward, ds_fmt="float8_e4m3fn",
                                ds_descale=256, scale="none")
        assert e["dq"].tolist() == [[0.0, 2.0**-13]]
