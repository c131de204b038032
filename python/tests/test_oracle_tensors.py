# SPDX-License-Identifier: MIT
"""The oracle judges tensors as models hold them (docs/oracle.md, "Batches of heads"): 4-D
(B, H, N, D) and (B, N, H, D) torch and NumPy tensors in one call, grouped-query heads, an
additive bias distinct from a boolean mask, causal masks aligned top-left and bottom-right,
sliding windows, FlashAttention's fully masked rows; and one report for both front ends: the
command line and Python print the same bytes for the same judgement."""

import json
import math

import numpy as np
import pytest

import exactattn
from exactattn import oracle
from test_oracle import needs_torch, torch  # torch, or None where it is absent and not required

try:
    import mpmath
except ImportError:
    mpmath = None
needs_mpmath = pytest.mark.skipif(mpmath is None, reason="mpmath is not installed")


def f32(x):
    """An mpmath value correctly rounded to float32 (normal range): 24 bits, to nearest, at once."""
    with mpmath.workprec(24):
        return np.float32(float(+x))


def heads(b=2, hq=4, hkv=2, nq=5, nk=7, d=8, dv=3, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((b, hq, nq, d)).astype(np.float32)
    k = rng.standard_normal((b, hkv, nk, d)).astype(np.float32)
    v = rng.standard_normal((b, hkv, nk, dv)).astype(np.float32)
    return q, k, v


def torch_attention(q, k, v, mask=None, bias=None, dtype=torch.float64 if torch else None):
    """softmax(q kᵀ/√d + bias, masked) v in `dtype` with torch, (B, H, N, D), GQA by repeat_interleave."""
    q, k, v = (torch.from_numpy(np.ascontiguousarray(x)).to(dtype) for x in (q, k, v))
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if bias is not None:
        s = s + torch.as_tensor(bias, dtype=dtype)
    if mask is not None:
        s = s.masked_fill(torch.as_tensor(mask, dtype=torch.bool), float("-inf"))
    return torch.softmax(s, dim=-1) @ v


@needs_torch
def test_a_4d_grouped_query_batch_from_torch_passes_in_one_call():
    q, k, v = heads()
    out = torch_attention(q, k, v).to(torch.float32)  # float64 math rounded once: correctly rounded nearly
    j = oracle.judge(out, torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), threads=2)
    assert j["passed"] and j["count"] == 2 * 4 * 5 * 3 and j["value"].shape == (2, 4, 5, 3)
    assert len(j["worst"]) == 4 and "oracle judge: 2 × 4 heads of 5 × 3 outputs" in j["text"]


@needs_torch
def test_a_bug_in_one_head_is_named_by_b_h_i_j():
    q, k, v = heads()
    out = torch_attention(q, k, v).to(torch.float32).numpy().copy()
    out[1, 2, 3, 1] *= np.float32(1.001)  # thousands of ULPs
    j = oracle.judge(out, q, k, v)
    assert not j["passed"] and j["over"] == 1
    assert j["first_over"] == [1, 2, 3, 1] and j["worst"] == [1, 2, 3, 1]
    assert "first over: out[b=1, h=2, i=3, j=1]" in j["text"]


def test_grouped_query_heads_read_their_own_key_head():
    # Head h of q reads key head h // 2: judging against the reference of head h // 2 passes, the
    # reference of the wrong key head (h % 2) does not.
    q, k, v = heads(b=1, hq=4, hkv=2)
    r = oracle.reference(q, k, v)["out"]
    for h in range(4):
        own = oracle.reference(q[0, h], k[0, h // 2], v[0, h // 2])["out"]
        assert np.array_equal(r[0, h], own)
    wrong = r.copy()
    wrong[0, 1] = oracle.reference(q[0, 1], k[0, 1], v[0, 1])["out"]
    assert not oracle.judge(wrong.astype(np.float32), q, k, v)["passed"]


def test_bnhd_is_bhnd_with_the_head_and_sequence_axes_swapped():
    q, k, v = heads()
    r = oracle.reference(q, k, v)["out"].astype(np.float32)
    t = lambda x: np.ascontiguousarray(np.swapaxes(x, 1, 2))  # noqa: E731
    j1 = oracle.judge(r, q, k, v)
    j2 = oracle.judge(t(r), t(q), t(k), t(v), layout="bnhd")
    assert j1["json"] == j2["json"] and j1["text"] == j2["text"]
    assert j2["value"].shape == (2, 5, 4, 3) and np.array_equal(j2["value"], t(j1["value"]))


def test_4d_shapes_that_do_not_match_are_refused_naming_the_argument():
    q, k, v = heads()
    with pytest.raises(exactattn.ShapeError, match="not a multiple") as e:
        oracle.reference(q[:, :3], k, v)
    assert e.value.place == "k"
    with pytest.raises(exactattn.ShapeError, match="v has 6 keys but k has 7") as e:
        oracle.reference(q, k, v[:, :, :6])
    assert e.value.place == "v"
    with pytest.raises(exactattn.ShapeError, match=r"\(B, H, N, D\) = \(2, 4, 5, 3\)") as e:
        oracle.judge(np.zeros((2, 5, 4, 3), np.float32), q, k, v)
    assert e.value.place == "out"
    with pytest.raises(exactattn.UsageError, match="bhnd, bnhd") as e:
        oracle.reference(q, k, v, layout="bshd")
    assert e.value.place == "layout"


@needs_mpmath
def test_a_bias_is_added_to_the_scores():
    # Scores 0 (q = 0) and an ALiBi-like bias (0, -1): out = 1/(1 + e^-1) = e/(e + 1), correctly
    # rounded by mpmath.
    q = np.zeros((1, 4), np.float32)
    k = np.ones((2, 4), np.float32)
    v = np.array([[1], [0]], np.float32)
    r = oracle.reference(q, k, v, bias=np.array([[0.0, -1.0]]))
    mpmath.mp.prec = 200
    exact = mpmath.e / (mpmath.e + 1)
    assert r["out"][0, 0] == f32(exact) and r["out_lo"][0, 0] <= float(exact) <= r["out_hi"][0, 0]
    assert r["lse"][0, 0] == f32(mpmath.log(1 + mpmath.exp(-1)))


def test_a_bias_that_makes_scores_equal_gives_the_exact_mean():
    # q·k = 1 and 0, bias 0 and 1: both scores 1, so the output is the mean of v exactly.
    q = np.ones((1, 1), np.float32)
    k = np.array([[1], [0]], np.float32)
    v = np.array([[1], [2]], np.float32)
    r = oracle.reference(q, k, v, scale="none", bias=[[0.0, 1.0]])
    assert r["out"][0, 0] == 1.5 and r["out_exact"][0, 0] == 1


@needs_mpmath
def test_a_float_mask_is_not_read_as_boolean():
    q, k, v = np.zeros((1, 2), np.float32), np.ones((3, 2), np.float32), np.ones((3, 1), np.float32)
    with pytest.raises(exactattn.DomainError, match=r"mask\[0, 1\]: -1 is neither 0 .* bias") as e:
        oracle.reference(q, k, v, mask=np.array([[0.0, -1.0, -2.0]]))
    assert e.value.place == "mask"
    # as a bias it is what SDPA's float attn_mask means: added to the scores
    as_bias = oracle.reference(q, k, np.array([[3], [0], [0]], np.float32), bias=[[0.0, -1.0, -2.0]])["out"][0, 0]
    mpmath.mp.prec = 200
    assert as_bias == f32(3 / (1 + mpmath.exp(-1) + mpmath.exp(-2)))


def test_minus_inf_in_the_bias_masks_the_key():
    q, k, v = heads(b=1, hq=1, hkv=1)
    mask = np.triu(np.ones((5, 7), bool), 3)
    bias = np.where(mask, -np.inf, 0.0)
    assert np.array_equal(oracle.reference(q, k, v, mask=mask)["out"], oracle.reference(q, k, v, bias=bias)["out"])


def test_causal_bottom_right_is_flash_attentions_alignment():
    # n_q = 2, n_k = 4: top-left, query 0 sees key 0 only; bottom-right, keys 0..2 (j ≤ i + 2).
    q = np.zeros((2, 1), np.float32)
    k = np.zeros((4, 1), np.float32)
    v = np.array([[0], [3], [6], [9]], np.float32)
    tl = oracle.reference(q, k, v, causal=True)["out"][:, 0]
    br = oracle.reference(q, k, v, causal=True, align="bottom-right")["out"][:, 0]
    assert list(tl) == [0.0, 1.5] and list(br) == [3.0, 4.5]  # means of v over the visible keys


def test_a_sliding_window_sees_left_and_right_of_the_diagonal():
    q = np.zeros((4, 1), np.float32)
    k = np.zeros((4, 1), np.float32)
    v = np.array([[0], [4], [8], [12]], np.float32)
    out = oracle.reference(q, k, v, window=(1, 0))["out"][:, 0]  # keys i-1 and i
    assert list(out) == [0.0, 2.0, 6.0, 10.0]
    out = oracle.reference(q, k, v, window=(0, 1))["out"][:, 0]  # keys i and i+1
    assert list(out) == [2.0, 6.0, 10.0, 12.0]


def test_flash_attentions_fully_masked_rows_zeros_and_plus_inf_lse():
    q, k, v = heads(b=1, hq=2, hkv=2, nq=3, nk=3)
    mask = np.zeros((3, 3), bool)
    mask[1] = True  # row 1 sees nothing
    ref = oracle.reference(q, k, v, mask=mask, masked_rows="zeros", masked_lse="inf")
    out = ref["out"].astype(np.float32)
    lse = ref["lse"].astype(np.float32)
    assert lse.shape == (1, 2, 3) and np.all(lse[:, :, 1] == np.inf) and np.all(out[:, :, 1] == 0)
    j = oracle.judge(out, q, k, v, mask=mask, masked_rows="zeros", masked_lse="inf", lse=lse)
    assert j["passed"] and j["lse"]["passed"] and j["lse"]["value"].shape == (1, 2, 3)
    lse_minus = np.where(np.isinf(lse), np.float32(-np.inf), lse)
    assert not oracle.judge(out, q, k, v, mask=mask, masked_rows="zeros", masked_lse="inf", lse=lse_minus)["lse"][
        "passed"]


@needs_torch
def test_a_torch_bool_mask_and_a_torch_bias_in_4d():
    q, k, v = heads(b=1, hq=2, hkv=1, nq=4, nk=6)
    slopes = np.array([0.5, 0.25])
    dist = np.arange(6)[None, :] - np.arange(4)[:, None]
    alibi = (slopes[:, None, None] * -np.abs(dist)[None]).reshape(1, 2, 4, 6).astype(np.float32)
    mask = torch.zeros((4, 6), dtype=torch.bool)
    mask[:, 5] = True
    out = torch_attention(q, k, v, mask=mask, bias=alibi).to(torch.float32)
    j = oracle.judge(out, q, k, v, mask=mask, bias=torch.from_numpy(alibi))
    assert j["passed"], j["text"]
    assert not oracle.judge(out, q, k, v, mask=mask)["passed"]  # the bias is not optional


def test_the_command_line_and_python_print_the_same_judgement(cli, tmp_path):
    q, k, v = heads(b=1, hq=2, hkv=1, nq=3, nk=4, d=4, dv=2)
    out = oracle.reference(q, k, v, causal=True)["out"].astype(np.float32)
    out[0, 0, 1, 1] *= np.float32(1.01)  # over: the worst entry
    for name, x in (("q", q), ("k", k), ("v", v), ("out", out)):
        np.save(tmp_path / f"{name}.npy", x)
    args = ["oracle", "judge", "--q", str(tmp_path / "q.npy"), "--k", str(tmp_path / "k.npy"), "--v",
            str(tmp_path / "v.npy"), "--actual", str(tmp_path / "out.npy"), "--causal", "-j", "1"]
    code_text, text, _ = cli(*args)
    code_json, js, _ = cli(*args, "--format", "json")
    j = oracle.judge(out, q, k, v, causal=True, threads=1)
    assert code_text == code_json == 1
    assert text == j["text"] and js == j["json"]
    doc = json.loads(js)
    summary = doc["tensors"][0]
    assert summary["worst"] == j["worst"] == [0, 0, 1, 1]
    assert all(summary[key] == j[key] for key in summary)  # one vocabulary


def test_the_command_line_and_python_print_the_same_matrix_judgement(cli, tmp_path):
    q = np.zeros((1, 2), np.float32)
    k = np.ones((2, 2), np.float32)
    v = np.array([[3], [0]], np.float32)
    out = np.array([[1.5]], np.float32)
    for name, x in (("q", q), ("k", k), ("v", v), ("out", out)):
        np.save(tmp_path / f"{name}.npy", x)
    args = ["oracle", "judge", "--q", str(tmp_path / "q.npy"), "--k", str(tmp_path / "k.npy"), "--v",
            str(tmp_path / "v.npy"), "--actual", str(tmp_path / "out.npy")]
    j = oracle.judge(out, q, k, v)
    assert cli(*args) == (0, j["text"], "") and cli(*args, "--format", "json") == (0, j["json"], "")
    assert j["exact_count"] == 1 and j["worst"] == [0, 0]


def test_python_refuses_what_the_command_line_refuses(cli, tmp_path):
    q, k, v = np.zeros((1, 2), np.float32), np.ones((2, 2), np.float32), np.ones((2, 1), np.float32)
    for name, x in (("q", q), ("k", k), ("v", v)):
        np.save(tmp_path / f"{name}.npy", x)
    files = ["--q", str(tmp_path / "q.npy"), "--k", str(tmp_path / "k.npy"), "--v", str(tmp_path / "v.npy")]
    for option, keyword, value in (("--masked-rows", "masked_rows", "nans"), ("--base", "base", "10"),
                                   ("--align", "align", "bottom"), ("--masked-lse", "masked_lse", "nan")):
        code, _, err = cli("oracle", "reference", *files, option, value)
        with pytest.raises(exactattn.UsageError) as e:
            oracle.reference(q, k, v, **{keyword: value})
        assert code == 2 and e.value.place == keyword
        assert err.strip() == f"exactattn: {option}: {e.value.reason}"


@needs_torch
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pytorchs_bfloat16_math_attention_passes_as_unfused_attention_stored_in_bfloat16(seed):
    # S = q kᵀ·c written as bfloat16, softmax in float32 written as bfloat16, P·V accumulated in
    # float32 and written as bfloat16: the claim "safe, accumulate float32, S and P stored in bfloat16".
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(1, 2, 16, 32, generator=g).to(torch.bfloat16) for _ in range(3))
    s = (q @ k.transpose(-1, -2)) * (1 / math.sqrt(32))
    out = torch.softmax(s, dim=-1) @ v
    assert out.dtype == torch.bfloat16
    j = oracle.judge(out, q, k, v, accumulate="float32", stored="bfloat16")
    assert j["passed"], j["text"]
    assert "S and P stored in bfloat16" in j["text"] and json.loads(j["json"])["stored"] == "bfloat16"


def test_an_unfused_emulation_is_within_the_stored_claims_bound():
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in ((6, 16), (40, 16), (40, 4)))
    e = oracle.emulate(q, k, v, fmt="float16", accumulate="float32", stored="float16")["out"].astype(np.float16)
    j = oracle.judge(e, q, k, v, fmt="float16", accumulate="float32", stored="float16")
    assert j["passed"], j["text"]
    plain = oracle.emulate(q, k, v, fmt="float16", accumulate="float32")["out"]
    assert not np.array_equal(plain, e)  # the stored intermediates do change the output


def test_a_fortran_ordered_4d_npy_file_is_read_in_its_own_order(cli, tmp_path):
    q, k, v = heads(b=1, hq=2, hkv=1, nq=3, nk=4, d=4, dv=2)
    ref = oracle.reference(q, k, v)["out"].astype(np.float32)
    for name, x in (("q", q), ("k", k), ("v", v)):
        np.save(tmp_path / f"{name}.npy", np.asfortranarray(x))
    np.save(tmp_path / "out.npy", np.asfortranarray(ref))
    code, text, err = cli("oracle", "judge", "--q", str(tmp_path / "q.npy"), "--k", str(tmp_path / "k.npy"), "--v",
                          str(tmp_path / "v.npy"), "--actual", str(tmp_path / "out.npy"))
    assert code == 0 and "Result: PASS" in text, text + err


def test_a_4d_batch_is_emulated_head_by_head_in_its_layout():
    # Each head of a grouped-query batch is emulated as its own matrix problem (query head h reads
    # key head h // 2), causal bottom-right; the batch's output is those outputs in the layout.
    q, k, v = heads(nq=5, nk=7)
    opts = dict(algorithm="online", block=4, accumulate="float16", causal=True, align="bottom-right")
    got = oracle.emulate(q, k, v, trace=True, **opts)
    assert got["out"].shape == (2, 4, 5, 3)
    trace = []
    for b in range(2):
        for h in range(4):
            one = oracle.emulate(q[b, h], k[b, h // 2], v[b, h // 2], trace=True, **opts)
            assert np.array_equal(got["out"][b, h], one["out"]), (b, h)
            trace += [f"head (b={b}, h={h}): {line}" for line in one["trace"]]
    # Online with blocks of 4 over 7 keys rescales: each head's trace, named, in head order.
    assert got["trace"] == trace and len(trace) > 0
    swapped = oracle.emulate(q.transpose(0, 2, 1, 3), k.transpose(0, 2, 1, 3), v.transpose(0, 2, 1, 3),
                             layout="bnhd", threads=1, **opts)["out"]
    assert np.array_equal(swapped, got["out"].transpose(0, 2, 1, 3))
    # The emulated kernel is one the batch's judgement passes, under the bound of its claim.
    j = oracle.judge(got["out"].astype(np.float32), q, k, v, fmt="float32", **opts)
    assert j["passed"] and j["over"] == 0
    text = oracle.emulate(q[:1, :1], k[:1, :1], v[:1, :1], report=True, **opts)["text"]
    assert "out[0, 0, 4, 2] = " in text and "out[0, 0, 5, 0]" not in text
