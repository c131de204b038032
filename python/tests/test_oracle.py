# SPDX-License-Identifier: MIT
"""The oracle judges real implementations: NumPy attention written here (float16/32/64, naive
and safe, an online/tiled one) and PyTorch on the CPU. Correct kernels pass within their
algorithm's bound; deliberately broken ones fail with the right diagnosis."""

import math
import os

import numpy as np
import pytest

from exactattn import oracle
import exactattn

try:
    import torch
except ImportError:  # skipped only when torch is truly absent and not required
    torch = None
    if os.environ.get("EXACTATTN_REQUIRE_TORCH"):
        raise

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def problem(nq=8, nk=64, d=16, dv=8, dtype=np.float32, spread=1.0, seed=0):
    rng = np.random.default_rng(seed)
    q = (rng.standard_normal((nq, d)) * spread).astype(dtype)
    k = rng.standard_normal((nk, d)).astype(dtype)
    v = rng.standard_normal((nk, dv)).astype(dtype)
    return q, k, v


def np_attention(q, k, v, work, out_dtype=None, safe=True, scale=None, causal_shift=None, acc16=False):
    """softmax(scale·q·kᵀ)·v computed in `work` (NumPy), rounded to out_dtype."""
    q, k, v = (x.astype(work) for x in (q, k, v))
    d = q.shape[1]
    c = work(1 / math.sqrt(d)) if scale is None else work(scale)
    s = (q @ k.T) * c
    if causal_shift is not None:  # key j masked when j > i + shift
        i, j = np.indices(s.shape)
        s = np.where(j > i + causal_shift, work(-np.inf), s)
    if safe:
        s = s - s.max(axis=1, keepdims=True)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(s)
        if acc16:  # a broken kernel: sums and P·V accumulated in float16, one key at a time
            den = np.zeros((q.shape[0], 1), np.float16)
            num = np.zeros((q.shape[0], v.shape[1]), np.float16)
            e16, v16 = e.astype(np.float16), v.astype(np.float16)
            for jj in range(k.shape[0]):
                den = den + e16[:, jj:jj + 1]
                num = num + e16[:, jj:jj + 1] * v16[jj]
            o = num / den
        else:
            o = (e / e.sum(axis=1, keepdims=True)) @ v
    return o.astype(out_dtype or work)


@pytest.mark.parametrize("work,algorithm", [(np.float64, "safe"), (np.float32, "safe"), (np.float32, "naive")])
def test_numpy_attention_in_float32_and_float64_is_within_its_bound(work, algorithm):
    q, k, v = problem(dtype=work)
    out = np_attention(q, k, v, work, safe=algorithm == "safe")
    j = oracle.assert_close(out, q, k, v, algorithm=algorithm)
    assert j["over"] == 0 and np.all(j["within"] == 1) and np.all(j["bound"] > 0)


def test_float16_inputs_computed_in_float32_pass_in_float16():
    q, k, v = problem(dtype=np.float16)
    out = np_attention(q, k, v, np.float32, out_dtype=np.float16)
    j = oracle.assert_close(out, q, k, v, fmt="float16", algorithm="safe", accumulate="float32")
    assert j["max_abs_ulp"] <= 2  # one rounding to float16 after float32 work


def test_reference_entries_are_the_correctly_rounded_float64_softmax_to_float16():
    # Independent check: float64 NumPy is accurate to ~1e-15, far inside a float16 half-ulp
    # except within 1e-12 of a tie, which random inputs do not meet.
    q, k, v = problem(dtype=np.float16, seed=5)
    r = oracle.reference(q, k, v, fmt="float16")
    f64 = np_attention(q, k, v, np.float64)
    assert np.array_equal(r["out"], f64.astype(np.float16).astype(np.float64))
    assert np.all(r["out_lo"] <= f64 + 1e-12) and np.all(f64 - 1e-12 <= r["out_hi"])


def test_no_max_subtraction_in_float16_fails_and_is_named():
    q, k, v = problem(dtype=np.float16, spread=6.0, seed=1)  # scores past ln 65504 ≈ 11.09
    out = np_attention(q, k, v, np.float16, safe=False)
    assert not np.all(np.isfinite(out))
    with pytest.raises(oracle.OracleMismatch) as e:
        oracle.assert_close(out, q, k, v, fmt="float16", algorithm="safe", accumulate="float16")
    assert "without max subtraction" in str(e.value)


def test_a_scale_of_one_over_dk_fails_and_is_named():
    q, k, v = problem(spread=3.0, seed=2)
    out = np_attention(q, k, v, np.float32, scale=1 / q.shape[1])
    with pytest.raises(oracle.OracleMismatch) as e:
        oracle.assert_close(out, q, k, v, fmt="float32")
    msg = str(e.value)
    assert "1/d_k = 1/16" in msg and "exact value in [" in msg and "ULP" in msg and "bound" in msg


def test_a_causal_mask_off_by_one_fails_and_is_named():
    q, k, v = problem(nq=8, nk=8, seed=3)
    out = np_attention(q, k, v, np.float32, causal_shift=1)  # each query also sees the next key
    oracle.assert_close(np_attention(q, k, v, np.float32, causal_shift=0), q, k, v, causal=True)
    with pytest.raises(oracle.OracleMismatch) as e:
        oracle.assert_close(out, q, k, v, causal=True)
    assert "off by one" in str(e.value) and "next key" in str(e.value)


def test_float16_accumulation_fails_the_float32_bound_and_is_named():
    q, k, v = problem(nq=4, nk=256, dv=4, dtype=np.float16, seed=4)
    out = np_attention(q, k, v, np.float32, out_dtype=np.float16, acc16=True)
    with pytest.raises(oracle.OracleMismatch) as e:
        oracle.assert_close(out, q, k, v, fmt="float16", accumulate="float32")
    assert "accumulates in float16" in str(e.value)


def test_fully_masked_rows_follow_the_declared_semantics():
    q, k, v = problem(nq=2, nk=3)
    mask = np.array([[1, 1, 1], [0, 1, 0]])
    with pytest.raises(exactattn.DomainError, match="every key is masked"):
        oracle.reference(q, k, v, mask=mask)
    r = oracle.reference(q, k, v, mask=mask, masked_rows="nan")
    assert np.all(np.isnan(r["out"][0])) and np.all(np.isfinite(r["out"][1]))
    r = oracle.reference(q, k, v, mask=mask, masked_rows="zeros")
    assert np.all(r["out"][0] == 0)


def test_bad_inputs_raise_the_modules_exceptions():
    q, k, v = problem(nq=2, nk=3)
    q[0, 0] = np.nan
    with pytest.raises(exactattn.DomainError, match=r"q\[0, 0\]"):
        oracle.reference(q, k, v)
    q, k, v = problem(nq=2, nk=3)
    with pytest.raises(exactattn.ShapeError):
        oracle.reference(q, k[:, :3], v)
    with pytest.raises(exactattn.UsageError, match="float8"):
        oracle.reference(q, k, v, fmt="float8")
    with pytest.raises(exactattn.ShapeError, match="complex64"):  # also a TypeError
        oracle.reference(q.astype(np.complex64), k, v)


def online_attention(q, k, v, block, p_dtype):
    """FlashAttention's forward in torch: float32 running max, sum and accumulator per block,
    P rounded to p_dtype before P·V, rescaling by exp(m_old − m_new)."""
    qf, kf, vf = (x.float() for x in (q, k, v))
    c = 1 / math.sqrt(q.shape[1])
    m = torch.full((q.shape[0], 1), -math.inf)
    ell = torch.zeros((q.shape[0], 1))
    acc = torch.zeros((q.shape[0], v.shape[1]))
    for b in range(0, k.shape[0], block):
        s = (qf @ kf[b:b + block].T) * c
        m_new = torch.maximum(m, s.max(dim=1, keepdim=True).values)
        alpha = torch.exp(m - m_new)
        p = torch.exp(s - m_new)
        ell = alpha * ell + p.sum(dim=1, keepdim=True)
        acc = alpha * acc + p.to(p_dtype).float() @ vf[b:b + block]
        m = m_new
    return (acc / ell).to(q.dtype)


@needs_torch
def test_torch_softmax_and_multihead_attention_in_float32_pass():
    q, k, v = (torch.from_numpy(x) for x in problem(d=8, dv=8))
    out = torch.softmax(q @ k.T / math.sqrt(8), dim=-1) @ v
    oracle.assert_close(out, q, k, v, fmt="float32", algorithm="safe")
    mha = torch.nn.MultiheadAttention(8, 1, bias=False)
    with torch.no_grad():  # identity projections: the layer is one attention
        mha.in_proj_weight.copy_(torch.cat([torch.eye(8)] * 3))
        mha.out_proj.weight.copy_(torch.eye(8))
        o, w = mha(q, k, v, need_weights=True)
    oracle.assert_close(o, q, k, v, fmt="float32", algorithm="safe")


@needs_torch
def test_a_tiled_online_kernel_in_bfloat16_passes_its_bound_and_a_wrong_scale_fails():
    q, k, v = (torch.from_numpy(x).to(torch.bfloat16) for x in problem(nq=8, nk=128, d=16, dv=8, seed=6))
    out = online_attention(q, k, v, block=32, p_dtype=torch.bfloat16)
    j = oracle.assert_close(out, q, k, v, fmt="bfloat16", algorithm="online", block=32)
    assert j["count"] == 64
    with pytest.raises(oracle.OracleMismatch):
        oracle.assert_close(out * 1.05, q, k, v, fmt="bfloat16", algorithm="online", block=32)


def test_emulation_in_float16_traces_the_overflow_and_its_output_passes_its_own_bound():
    q = np.array([[12.0]], np.float16)  # e^12 ≈ 162755 > 65504
    k = np.array([[1.0], [0.0]], np.float16)
    v = np.array([[1.0], [0.0]], np.float16)
    e = oracle.emulate(q, k, v, scale="none", algorithm="naive", trace=True, accumulate="float16")
    assert np.isnan(e["out"][0, 0]) and "exp(12) overflows float16" in e["trace"][0]
    q, k, v = problem(nq=4, nk=48, dtype=np.float16, seed=8)
    for algorithm in ("naive", "safe", "online"):
        out = oracle.emulate(q, k, v, algorithm=algorithm, block=16, accumulate="float16")["out"].astype(np.float16)
        oracle.assert_close(out, q, k, v, fmt="float16", algorithm=algorithm, block=16, accumulate="float16")


@needs_torch
def test_torch_weights_and_logsumexp_are_judged_and_a_wrong_lse_fails():
    q, k, v = (torch.from_numpy(x) for x in problem(d=8, dv=8, seed=9))
    s = q @ k.T / math.sqrt(8)
    w = torch.softmax(s, dim=-1)
    lse = torch.logsumexp(s, dim=-1)
    j = oracle.assert_close(w @ v, q, k, v, fmt="float32", weights=w, lse=lse)
    assert j["weights"]["passed"] and j["lse"]["count"] == 8
    with pytest.raises(oracle.OracleMismatch, match=r"8 of 8 lse entries over the bound"):
        oracle.assert_close(w @ v, q, k, v, fmt="float32", weights=w, lse=lse + 1e-3)


def test_option_strings_name_something_or_are_refused():
    q, k, v = problem(nq=2, nk=3)
    for kwargs, place in (({"base": "10"}, "base"), ({"base": 2.0}, "base"), ({"base": "E"}, "base"),
                          ({"masked_rows": "bogus"}, "masked_rows"), ({"scale": "sqrtdk"}, "scale"),
                          ({"scale": float("nan")}, "scale"), ({"scale": [1]}, "scale"),
                          ({"masked_rows": 3}, "masked_rows"), ({"fmt": 32}, "fmt")):
        with pytest.raises(exactattn.UsageError) as e:
            oracle.reference(q, k, v, **kwargs)
        assert e.value.place == place, kwargs
    # base=2 as an int is the exp2 kernel: integer scores 1 and 0 give 2/3 and 1/3
    one = np.ones((1, 1), np.float16)
    r = oracle.reference(one, np.array([[1], [0]], np.float16), np.array([[1], [0]], np.float16),
                         scale="none", base=2)
    assert r["out"][0, 0] == np.float16(2 / 3)


def test_a_transposed_mask_of_the_same_size_is_refused():
    q, k, v = problem(nq=2, nk=3)
    with pytest.raises(exactattn.ShapeError, match=r"2 × 3, not 3 × 2") as e:
        oracle.reference(q, k, v, mask=np.zeros((3, 2)))
    assert e.value.place == "mask"


def test_shape_errors_name_their_argument():
    q, k, v = problem(nq=2, nk=3)
    for args, place in (((q[0], k, v), "q"), ((q, k[:, :3], v), "k"), ((q, k, v[:2]), "v")):
        with pytest.raises(exactattn.ShapeError) as e:
            oracle.reference(*args)
        assert e.value.place == place
    out = np.zeros((3, 2), np.float32)
    with pytest.raises(exactattn.ShapeError) as e:
        oracle.judge(out, q, k, v)
    assert e.value.place == "out"


def test_a_tolerance_is_a_finite_number_from_zero_and_a_block_a_whole_number():
    q, k, v = problem(nq=2, nk=3)
    out = oracle.reference(q, k, v)["out"].astype(np.float32)
    assert oracle.judge(out, q, k, v, tolerance_ulps=1)["passed"]  # correctly rounded: within 1/2 ULP
    for bad in (-1, float("nan"), float("inf"), "1"):
        with pytest.raises(exactattn.UsageError) as e:
            oracle.judge(out, q, k, v, tolerance_ulps=bad)
        assert e.value.place == "tolerance_ulps"
    for bad in (0, 1.5, "64"):
        with pytest.raises(exactattn.UsageError) as e:
            oracle.judge(out, q, k, v, block=bad)
        assert e.value.place == "block"


def test_each_call_is_one_job_of_the_work_budget():
    # Three keys with v on both sides of the float32 midpoint 1 + 2^-24 and the output 2^-4.3M
    # above it: no exact test decides it, and the rising precision is charged and refused.
    q = np.array([[3000000.0]])
    k = np.array([[1.0], [0.0], [0.0]])
    v = np.array([[1 + 2.0 ** -24], [2.0], [0.5]])
    with exactattn.limits(max_work=10 ** 9):
        with pytest.raises(exactattn.LimitError, match=r"working precision would take about .*max_work=\.\.\.\) raises it"):
            oracle.reference(q, k, v, fmt="float32", scale="none")
    # With one key on the midpoint and the other above it the sign decides at once: 1 + 2^-23.
    r = oracle.reference(q, k[:2], np.array([[1 + 2.0 ** -24], [2.0]]), fmt="float32", scale="none")
    assert r["out"][0, 0] == 1 + 2.0 ** -23


def test_the_default_judgement_holds_the_running_bound_and_names_it():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in ((7, 8), (7, 8), (7, 8)))
    s = (q @ k.T) * np.float32(1 / np.sqrt(8))
    e = np.exp(s - s.max(1, keepdims=True))
    out = ((e / e.sum(1, keepdims=True)) @ v).astype(np.float32)
    run = oracle.judge(out, q, k, v)
    pri = oracle.judge(out, q, k, v, bound="a-priori")
    assert run["passed"] and pri["passed"]
    assert run["bound_name"] == "running" and pri["bound_name"] == "a-priori"
    assert np.all(run["bound"] <= pri["bound"]) and np.median(run["bound"] / pri["bound"]) < 0.6
    assert 0 < pri["max_bound_fraction"] < run["max_bound_fraction"] <= 1
    with pytest.raises(exactattn.UsageError, match="bound"):
        oracle.judge(out, q, k, v, bound="tight")


def test_a_float16_output_whose_products_w_v_underflow_is_within_its_bound():
    q = np.zeros((1, 2), np.float16); k = np.zeros((7, 2), np.float16)
    v = np.full((7, 1), 1.7881393432617188e-07, np.float16)  # 3·2^-24, a float16 subnormal
    out = oracle.emulate(q, k, v, fmt="float16", accumulate="float16")["out"].astype(np.float16)
    assert out[0, 0] == 0
    j = oracle.judge(out, q, k, v, fmt="float16", accumulate="float16")
    assert j["ulp_error"][0, 0] == -3 and j["passed"]


def test_a_torch_bool_mask_is_read_as_a_numpy_bool_mask_is():
    torch = pytest.importorskip("torch")
    q = np.zeros((2, 2), np.float32); k = np.eye(2, dtype=np.float32)
    v = np.array([[1], [3]], np.float32)
    m = np.array([[False, True], [False, False]])
    ref_np = oracle.reference(q, k, v, mask=m)["out"]
    ref_torch = oracle.reference(q, k, v, mask=torch.tensor(m))["out"]
    assert ref_np[0, 0] == 1 and ref_np[1, 0] == 2  # row 0 sees key 0 only; row 1 the mean
    assert np.array_equal(ref_np, ref_torch)


# ---- Kernel oracle II: sharper bounds, systematic errors, diagnoses as hypotheses (docs/oracle.md §3, §4)


def np_online(q, k, v, block, work=np.float32, rescale_o=True, rescale_l=True, drop_last=False):
    """FlashAttention's forward in NumPy (running max, sum and accumulator per block) in `work`,
    with the mistakes a tiled kernel makes switchable."""
    q, k, v = (x.astype(work) for x in (q, k, v))
    c = work(1 / math.sqrt(q.shape[1]))
    m = np.full((q.shape[0], 1), -np.inf, work)
    ell = np.zeros((q.shape[0], 1), work)
    acc = np.zeros((q.shape[0], v.shape[1]), work)
    starts = list(range(0, k.shape[0], block))
    for b in starts[:-1] if drop_last else starts:
        s = (q @ k[b:b + block].T) * c
        m_new = np.maximum(m, s.max(axis=1, keepdims=True))
        with np.errstate(invalid="ignore"):
            alpha = np.where(np.isinf(m), work(0), np.exp(m - m_new)).astype(work)
        p = np.exp(s - m_new)
        keep = np.where(np.isinf(m), work(0), work(1)).astype(work)
        ell = (alpha if rescale_l else keep) * ell + p.sum(axis=1, keepdims=True)
        acc = (alpha if rescale_o else keep) * acc + p @ v[b:b + block]
        m = m_new
    return (acc / ell).astype(work)


def truncate(x64, dtype):
    """x64 (float64) cast to dtype rounding toward zero: a truncating cast."""
    y = x64.astype(dtype)
    over = np.abs(y.astype(np.float64)) > np.abs(x64)
    y[over] = np.nextafter(y[over], dtype(0))
    return y


def test_a_probabilistic_bound_is_an_option_named_with_its_failure_probability():
    q, k, v = problem(nq=16, nk=128, d=64, dv=16, seed=11)
    out = np_attention(q, k, v, np.float32)
    run = oracle.judge(out, q, k, v)
    for name in ("probabilistic", "probabilistic-ordered"):
        j = oracle.judge(out, q, k, v, bound=name)
        assert j["passed"] and j["bound_name"] == name and j["failure_probability"] == 2.0 ** -40
        # never above the sound running bound, and here far below it (the squares of the errors'
        # coefficients, not their sum)
        assert np.all(j["bound"] <= run["bound"]) and np.median(j["bound"]) < np.median(run["bound"]) / 3
        assert j["max_bound_fraction"] > 2 * run["max_bound_fraction"]
    assert run["failure_probability"] == 0


def test_exact_outputs_pass_under_every_bound_and_an_unbounded_entry_never_does():
    q, k, v = problem(nq=4, nk=300, d=8, dv=2, seed=12)
    q[:] = 0  # equal scores: every weight 1/300 and every output the mean of v, exactly 0.375
    v[:] = np.float32(0.375)
    for bound in ("running", "a-priori", "probabilistic", "probabilistic-ordered"):
        for acc in ("float32", "bfloat16", "float16"):
            j = oracle.judge(v[:4].copy(), q, k, v, bound=bound, accumulate=acc)
            assert j["passed"] and j["exact_count"] == 8
    q, k, v = problem(nq=4, nk=300, d=8, dv=2, seed=12)
    noise = np.random.default_rng(0).standard_normal((4, 2)).astype(np.float32)
    j = oracle.judge(noise, q, k, v, accumulate="bfloat16")  # 300 keys in bfloat16: n·u ≥ 1
    assert not j["passed"] and j["unbounded"] == 8 and "accumulation in float32 would bound it" in j["unbounded_reason"]


def test_correct_kernels_raise_no_systematic_alarm():
    # The two sign tests together raise a false alarm with probability at most 1e-6 a judgement:
    # over these 60 correct kernels at most 6e-5 under the model, and an alarm here would be a bug.
    for seed in range(60):
        work = (np.float32, np.float64)[seed % 2]
        q, k, v = problem(nq=8, nk=48, d=16, dv=8, dtype=work, seed=100 + seed)
        j = oracle.judge(np_attention(q, k, v, work), q, k, v)
        assert j["passed"] and j["systematic"] == "", (seed, j["systematic"])
        t = j["systematic_tests"]
        assert t["alpha"] == 1e-6 and t["p_rounding"] >= 5e-7 and t["p_temperature"] >= 5e-7


def test_a_truncating_cast_is_a_rounding_bias_and_is_named():
    # One sign a row: 32 rows all mostly toward zero have p = 2·2^-32, under the 5e-7 of each test
    # (16 rows could not: 2·2^-16 = 3.1e-5).
    q, k, v = problem(nq=32, nk=64, d=16, dv=16, seed=13)
    out = truncate(np_attention(q, k, v, np.float64), np.float16)  # float64 work, cast toward zero
    j = oracle.judge(out, q, k, v, fmt="float16", accumulate="float32")
    t = j["systematic_tests"]
    assert t["toward_zero"] > 0.75 * t["rows"] and t["p_rounding"] < 5e-7
    assert "toward zero" in j["systematic"] and not j["passed"]
    assert "truncat" in j["diagnosis"]


def test_a_temperature_bug_is_named_a_temperature_and_never_a_rounding_bias():
    # c off by 0.2% moves each |o| by about 0.2% (2^-9 relative: thousands of float32 ULPs, most
    # of them away from zero); the rounding test reads only errors within the rounding's reach
    # (|e| <= 2B + 1 ulp), so it sees none of them and says nothing. Before, 61 of 62 rows
    # "away from zero" gave a false "rounding bias" beside the temperature.
    q, k, v = problem(nq=64, nk=64, d=16, dv=16, seed=18)
    out = np_attention(q, k, v, np.float32, scale=0.25 * 1.002)
    j = oracle.judge(out, q, k, v)
    assert not j["passed"] and "temperature" in j["diagnosis"], j["diagnosis"]
    assert "rounding bias" not in j["systematic"] and "zero" not in j["systematic"], j["systematic"]
    assert j["systematic_tests"]["p_rounding"] >= 5e-7
    # a truncating cast of the same size still is one: float64 work cast toward zero to float32,
    # each error within 1 ulp, so within the reach of a float32 kernel's rounding
    trunc = truncate(np_attention(q, k, v, np.float64), np.float32)
    j = oracle.judge(trunc, q, k, v)
    t = j["systematic_tests"]
    assert "toward zero" in j["systematic"] and "rounding bias" in j["systematic"] and not j["passed"]
    assert t["toward_zero"] > 0.75 * t["rows"] and t["p_rounding"] < 5e-7


def test_a_smaller_scale_is_reported_with_the_rows_that_err_along_it():
    q, k, v = problem(nq=32, nk=64, d=16, dv=16, dtype=np.float64, seed=14)
    c = np.float64(0.25 * (1 - 4e-15))  # as below, the other way: most rows err along a smaller c
    out = np_attention(q, k, v, np.float64, scale=c)
    j = oracle.judge(out, q, k, v)
    t = j["systematic_tests"]
    majority = t["signed_rows"] - t["along_scale"]
    assert majority > t["signed_rows"] / 2 and j["systematic_tests"]["temperature"] < 0
    assert f"{majority} of {t['signed_rows']} rows err along a smaller scale" in j["systematic"], j["systematic"]


def test_a_temperature_too_small_for_any_entry_is_found_over_all_entries():
    q, k, v = problem(nq=32, nk=64, d=16, dv=16, dtype=np.float64, seed=14)
    c = np.float64(0.25 * (1 + 4e-15))  # c off by 4e-13 %: tens of ULPs, inside every entry's bound
    tau = c / 0.25 - 1
    out = np_attention(q, k, v, np.float64, scale=c)
    j = oracle.judge(out, q, k, v)
    assert j["over"] == 0  # every entry within its own bound
    assert "temperature" in j["systematic"] and not j["passed"]
    assert abs(j["systematic_tests"]["temperature"] - tau) < 0.2 * tau


@pytest.mark.parametrize("bug,name", [
    (dict(rescale_o=False, rescale_l=False), "online rescaling is missing"),
    (dict(rescale_l=False), "ℓ is wrong"),
    (dict(drop_last=True), "last tile is dropped"),
])
def test_a_tiled_kernels_planted_bug_is_named(bug, name):
    q, k, v = problem(nq=8, nk=96, d=16, dv=8, spread=2.0, seed=15)
    assert oracle.judge(np_online(q, k, v, 32), q, k, v, algorithm="online", block=32)["passed"]
    j = oracle.judge(np_online(q, k, v, 32, **bug), q, k, v, algorithm="online", block=32)
    assert not j["passed"] and name in j["diagnosis"], j["diagnosis"]


@pytest.mark.parametrize("claim", [dict(), dict(algorithm="online", block=64), dict(algorithm="online", block=16)])
def test_a_dropped_last_tile_is_named_whatever_tile_the_claim_declares(claim):
    # The kernel tiles keys by 32 and never reads keys 64 to 95; the claim says safe, or online
    # with another block: the tile is the kernel's, the evidence (those keys missing) names it.
    q, k, v = problem(nq=8, nk=96, d=16, dv=8, spread=2.0, seed=15)
    j = oracle.judge(np_online(q, k, v, 32, drop_last=True), q, k, v, **claim)
    assert not j["passed"]
    assert "the last tile is dropped: keys 64 to 95 are never read" in j["diagnosis"], j["diagnosis"]
    assert oracle.judge(np_online(q, k, v, 32), q, k, v, **claim)["diagnosis"] == ""


def test_planted_mask_scale_and_axis_bugs_are_named():
    q, k, v = problem(nq=8, nk=8, d=16, dv=8, spread=2.0, seed=16)
    i, jj = np.indices((8, 8))
    keep = (jj <= i) | (jj % 3 == 0)  # a keep-mask: True = attend
    masked = ~keep

    def with_mask(hidden, work=np.float32, over_queries=False, scale=None):
        c = work(1 / math.sqrt(16)) if scale is None else work(scale)
        s = (q.astype(work) @ k.astype(work).T) * c
        s = np.where(hidden, work(-np.inf), s)
        ax = 0 if over_queries else 1
        with np.errstate(invalid="ignore"):  # a row with every key hidden is NaN, as torch gives
            e = np.exp(s - s.max(axis=ax, keepdims=True))
            return ((e / e.sum(axis=ax, keepdims=True)) @ v.astype(work)).astype(work)

    assert oracle.judge(with_mask(masked), q, k, v, mask=masked)["passed"]
    cases = [
        (with_mask(keep), dict(mask=masked), "mask is inverted"),  # SDPA's keep-mask read as masked
        (with_mask(jj >= i), dict(causal=True), "diagonal"),
        (with_mask(jj > i, over_queries=True), dict(causal=True), "over the queries"),
        (with_mask(jj > i, scale=0.25 * 1.002), dict(causal=True), "temperature"),
    ]
    for out, opts, name in cases:
        j = oracle.judge(out, q, k, v, **opts)
        assert not j["passed"] and name in j["diagnosis"], (name, j["diagnosis"])


def test_noise_and_a_correct_kernel_get_no_diagnosis():
    q, k, v = problem(nq=8, nk=96, d=16, dv=8, seed=17)
    rng = np.random.default_rng(1)
    for out in (rng.standard_normal((8, 8)).astype(np.float32),
                np_attention(q, k, v, np.float32) + rng.standard_normal((8, 8)).astype(np.float32) * 1e-3,
                np.zeros((8, 8), np.float32)):
        for algorithm in ("safe", "online"):
            j = oracle.judge(out, q, k, v, algorithm=algorithm, block=32, causal=algorithm == "online")
            assert not j["passed"] and j["diagnosis"] == "", j["diagnosis"]


def test_per_entry_flags_are_bool_arrays_and_values_float64():
    # Equal keys give weights 1/2 and the mean of v exactly: every output entry is exact, so
    # the flags are all True, and a flag is a truth value, not a number to compute with.
    q = np.zeros((1, 2), np.float32)
    k = np.ones((2, 2), np.float32)
    v = np.array([[1, 2], [3, 5]], np.float32)
    r = oracle.reference(q, k, v)
    assert r["out_exact"].dtype == np.bool_ and r["out_exact"].all()
    assert r["out"].dtype == np.float64 and r["out"][0].tolist() == [2.0, 3.5]
    j = oracle.judge(np.array([[2, 3.5]], np.float32), q, k, v)
    assert j["within"].dtype == np.bool_ and j["exact"].dtype == np.bool_
    assert j["within"].all() and j["exact"].all() and j["bound"].dtype == np.float64
    g = oracle.grad_reference(q, k, v, np.ones((1, 2), np.float32))
    for name in ("dq", "dk", "dv"):
        assert g[name]["exact"].dtype == np.bool_, name
    # dV = Pᵀ·dO = [1/2, 1/2] in each column: exact.
    assert g["dv"]["exact"].all() and g["dv"]["values"].tolist() == [[0.5, 0.5], [0.5, 0.5]]


@pytest.mark.parametrize("bound", ["running-ordered", "probabilistic-ordered"])
def test_a_large_bias_is_in_the_declared_orders_bounds(bound):
    # Scores c·q·k near 0 plus a bias near 100: the kernel's rounding of s + b (u·100 in the
    # exponential's argument, fifty times the exponential's own 2u) dominates its error, and a
    # bound of the declared order that left it out failed correct kernels (1.8 to 2.7 times over).
    for seed in range(6):
        rng = np.random.default_rng(seed)
        q = (rng.standard_normal((4, 4)) * 0.01).astype(np.float32)
        k = (rng.standard_normal((32, 4)) * 0.01).astype(np.float32)
        v = rng.standard_normal((32, 4)).astype(np.float32)
        bias = (100 + rng.uniform(0, 3, (4, 32))).astype(np.float32).astype(np.float64)
        for cap in (None, 4.0):
            out = oracle.emulate(q, k, v, algorithm="safe", accumulate="float32", bias=bias, softcap=cap)["out"]
            j = oracle.judge(out.astype(np.float32), q, k, v, algorithm="safe", accumulate="float32", bias=bias,
                             bound=bound, softcap=cap)
            assert j["passed"] and j["unbounded"] == 0, (seed, cap, j["max_bound_fraction"])
