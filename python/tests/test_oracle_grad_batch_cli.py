# SPDX-License-Identifier: MIT
"""The gradients of a batch of heads from the library (docs/oracle.md, "Gradients of a batch of
heads"): the command line's `grad-reference` takes 4-D .npy files in either layout and judges them
as Python does (the same verdict, counts and worst entry); bad shapes are one placed line and
exit 2; a kv head's summed dK and dV are correctly rounded in float64 too, checked against exact
sums computed here with fractions on problems whose softmax is rational (K = 0); a group's
mistake is diagnosed from its dK and dV when dQ names nothing."""

import json
import re
from fractions import Fraction

import exactattn
import numpy as np
import pytest

from exactattn import oracle


def exact_group_grads(q, v, do, h_kv, causal, c):
    """dK and dV of every kv head of a (B, H_q, N, D) problem with K = 0 (every score 0, so row i's
    weights are 1/n over the n keys it sees: all keys, or j ≤ i under a top-left causal mask),
    as fractions: O_i = Σ_j P_ij V_j, D_i = dO_i·O_i, dS_ij = P_ij (dO_i·V_j − D_i),
    dK_j = c Σ_i dS_ij Q_i and dV_j = Σ_i P_ij dO_i over every query head of the kv head's group."""
    b_, h_q, n, d = q.shape
    group = h_q // h_kv
    fr = np.vectorize(Fraction, otypes=[object])
    Q, V, dO = fr(q), fr(v), fr(do)
    dk = np.full((b_, h_kv, n, d), Fraction(0), dtype=object)
    dv = np.full((b_, h_kv, n, v.shape[3]), Fraction(0), dtype=object)
    for b in range(b_):
        for h in range(h_q):
            kv = h // group
            for i in range(n):
                keys = range(i + 1) if causal else range(n)
                p = Fraction(1, len(keys))
                o = sum(V[b, kv, j] for j in keys) * p
                delta = sum(dO[b, h, i] * o)
                for j in keys:
                    ds = p * (sum(dO[b, h, i] * V[b, kv, j]) - delta)
                    dk[b, kv, j] += c * ds * Q[b, h, i]
                    dv[b, kv, j] += p * dO[b, h, i]
    return dk, dv


@pytest.mark.parametrize("h_kv,causal,layout", [(2, False, "bhnd"), (2, True, "bnhd"), (1, True, "bhnd")])
def test_summed_float64_gradients_are_the_correctly_rounded_exact_sums(h_kv, causal, layout):
    rng = np.random.default_rng(7 + h_kv + 2 * causal)
    b, h_q, n, d = 2, 4, 6, 4  # d = 4: the default scale 1/√d = 1/2 is rational
    q = rng.standard_normal((b, h_q, n, d))
    k = np.zeros((b, h_kv, n, d))
    v = rng.standard_normal((b, h_kv, n, d))
    do = rng.standard_normal((b, h_q, n, d))
    dk_exact, dv_exact = exact_group_grads(q, v, do, h_kv, causal, Fraction(1, 2))
    t = (lambda x: np.ascontiguousarray(x.transpose(0, 2, 1, 3))) if layout == "bnhd" else (lambda x: x)
    g = oracle.grad_reference(t(q), t(k), t(v), t(do), causal=causal, layout=layout)
    for name, exact in (("dk", dk_exact), ("dv", dv_exact)):
        f = {key: (np.swapaxes(x, 1, 2) if layout == "bnhd" else x) for key, x in g[name].items()}
        for at in np.ndindex(exact.shape):
            x = exact[at]
            assert Fraction(f["lo"][at]) <= x <= Fraction(f["hi"][at]), (name, at)
            # float(Fraction) is the correctly rounded double (integer true division rounds once)
            assert f["values"][at] == float(x), (name, at, f["values"][at], float(x))
            assert f["rounded"][at] == 1 and f["exact"][at] == 1, (name, at)
    # the heads' enclosures summed straddled a float64 rounding boundary somewhere: the group's own
    # problem decided those entries (the check above holds them to the exact sums)
    assert g["straddled"] > 0 and g["refined"] == g["straddled"]


def gqa_problem(seed=3):
    """A (2, 4, 5, 4) float32 problem with two kv heads, in the layout bnhd: q, k, v, dO."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((2, 5, 4, 4)).astype(np.float32)
    k = rng.standard_normal((2, 5, 2, 4)).astype(np.float32)
    v = rng.standard_normal((2, 5, 2, 4)).astype(np.float32)
    do = rng.standard_normal((2, 5, 4, 4)).astype(np.float32)
    return q, k, v, do


def save(tmp_path, **arrays):
    paths = {}
    for name, a in arrays.items():
        paths[name] = str(tmp_path / f"{name}.npy")
        np.save(paths[name], a)
    return paths


def test_the_command_line_judges_a_4d_batch_as_python_does(cli, tmp_path):
    q, k, v, do = gqa_problem()
    ref = oracle.grad_reference(q, k, v, do, layout="bnhd")
    dq, dk, dv = (ref[n]["values"].astype(np.float32) for n in ("dq", "dk", "dv"))
    # a kernel's dK off by 1/1024 at one entry, (b=1, kv head 0, key 3, column 2): far past a bound
    # of a few float32 ulps of gradients of about 1; dQ and dV correctly rounded
    dk[1, 3, 0, 2] += np.float32(2.0**-10)
    p = save(tmp_path, q=q, k=k, v=v, do=do, dq=dq, dk=dk, dv=dv)
    args = ["oracle", "grad-reference", "--q", p["q"], "--k", p["k"], "--v", p["v"], "--do", p["do"], "--layout",
            "bnhd", "--actual-dq", p["dq"], "--actual-dk", p["dk"], "--actual-dv", p["dv"]]
    code, out, err = cli(*args, "--format", "json")
    assert code == 1 and err == "", err
    r = json.loads(out)
    py = oracle.judge_grads(dq, dk, dv, q, k, v, do, layout="bnhd")
    assert r["verdict"] == "fail" and not py["passed"]
    assert (r["batch"], r["heads"], r["kv_heads"], r["layout"]) == (2, 4, 2, "bnhd")
    for name in ("dq", "dk", "dv"):
        c, x = r["judged"][name], py["judged"][name]
        for key in ("entries", "over", "unbounded", "differing"):
            assert c[key] == x[key], (name, key)
        assert c["max_bound_fraction"] == x["max_bound_fraction"]
        assert (c["worst_fraction"] is None) == (x["worst_fraction"] is None)
        if c["worst_fraction"] is not None:
            assert tuple(c["worst_fraction"]) == x["worst_fraction"]
    assert r["judged"]["dk"]["over"] == 1 and r["judged"]["dk"]["first_over"] == [1, 0, 3, 2]
    assert r["judged"]["dq"]["over"] == 0 and r["judged"]["dv"]["over"] == 0
    assert r["diagnosis"] == py["diagnosis"]
    # the fields: dk in the caller's layout, each kv head's sum, the values Python returns
    assert r["fields"]["dk"]["shape"] == [2, 5, 2, 4]
    assert r["fields"]["dk"]["values"] == py["dk"]["values"].ravel().tolist()
    # the text ends with Python's summary, which names the entry (b, h, i, j)
    code, text, err = cli(*args)
    assert code == 1 and text.endswith(py["text"]), text[-600:]
    assert "dk: 1 of 80 entries over their bound; worst dk[b=1, h=0, i=3, j=2]" in text
    assert "dk[b=1, h=0, i=3, j=2] = " in text
    # the correct gradients pass in both front ends
    dk[1, 3, 0, 2] = ref["dk"]["values"][1, 3, 0, 2]
    np.save(p["dk"], dk)
    code, out, err = cli(*args, "--format", "json")
    assert code == 0 and json.loads(out)["verdict"] == "pass", err
    assert oracle.judge_grads(dq, dk, dv, q, k, v, do, layout="bnhd")["passed"]


@pytest.mark.parametrize("option,replace", [("--do", "do_short"), ("--actual-dk", "dk_heads"),
                                            ("--actual-dq", "dq_bhnd"), ("--layout", "nbhd")])
def test_a_4d_gradient_of_the_wrong_shape_is_one_line_naming_the_option(cli, tmp_path, option, replace):
    q, k, v, do = gqa_problem()
    bad = {"do_short": do[:, :4], "dk_heads": np.zeros((2, 5, 4, 4), np.float32),
           "dq_bhnd": np.zeros((2, 4, 5, 4), np.float32)}
    p = save(tmp_path, q=q, k=k, v=v, do=do, dk=np.zeros((2, 5, 2, 4), np.float32),
             dq=np.zeros((2, 5, 4, 4), np.float32), **({replace: bad[replace]} if replace in bad else {}))
    opts = {"--do": p["do"], "--actual-dk": p["dk"], "--actual-dq": p["dq"], "--layout": "bnhd"}
    opts[option] = p[replace] if replace in bad else replace
    args = ["oracle", "grad-reference", "--q", p["q"], "--k", p["k"], "--v", p["v"]]
    for o, x in opts.items():
        args += [o, x]
    code, out, err = cli(*args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and option in err, err


def test_grad_emulate_refuses_a_4d_batch_at_q(cli, tmp_path):
    q, k, v, do = gqa_problem()
    p = save(tmp_path, q=q, k=k, v=v, do=do)
    code, out, err = cli("oracle", "grad-emulate", "--q", p["q"], "--k", p["k"], "--v", p["v"], "--do", p["do"])
    assert code == 2 and err.count("\n") == 1 and "--q" in err and "4-D" in err, err


def test_the_command_line_emulates_a_4d_batch_as_python_does(cli, tmp_path):
    q, k, v, _ = gqa_problem()
    p = save(tmp_path, q=q, k=k, v=v)
    out = str(tmp_path / "out.npy")
    code, text, err = cli("oracle", "emulate", "--q", p["q"], "--k", p["k"], "--v", p["v"], "--layout", "bnhd",
                          "--algorithm", "safe", "--accumulate", "float16", "--causal", "-j", "2", "--npy", out)
    assert code == 0, err
    py = oracle.emulate(q, k, v, layout="bnhd", algorithm="safe", accumulate="float16", causal=True, report=True)
    assert np.array_equal(np.load(out), py["out"].astype(np.float32)) and py["out"].shape == (2, 5, 4, 4)
    assert text == py["text"] and "out[1, 4, 3, 3] = " in text


def numpy_gqa_backward(q, k, v, do, causal=False, scale_in_ds=True):
    """A GQA backward in float64 (k, v repeated to the query heads, each query head's dK and dV
    summed over its group), rounded to float32: dq, dk, dv. scale_in_ds=False drops the softmax
    scale from dS (dQ = dS K, dK = dSᵀ Q), a planted mistake."""
    group = q.shape[1] // k.shape[1]
    q, k, v, do = (x.astype(np.float64) for x in (q, k, v, do))
    kk, vv = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    c = 1 / np.sqrt(q.shape[-1])
    s = c * q @ np.swapaxes(kk, -1, -2)
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = p @ vv
    ds = p * (do @ np.swapaxes(vv, -1, -2) - (do * o).sum(-1, keepdims=True))
    if scale_in_ds:
        ds = c * ds
    dq = ds @ kk
    b, h_kv, n, d = k.shape
    dk = (np.swapaxes(ds, -1, -2) @ q).reshape(b, h_kv, group, n, d).sum(2)
    dv = (np.swapaxes(p, -1, -2) @ do).reshape(b, h_kv, group, n, v.shape[-1]).sum(2)
    return tuple(x.astype(np.float32) for x in (dq, dk, dv))


def gqa_bhnd(seed=11):
    """A (2, 4, 8, 4) float32 problem with two kv heads (groups of two), layout bhnd."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((2, 4, 8, 4)).astype(np.float32), rng.standard_normal((2, 2, 8, 4)).astype(np.float32),
            rng.standard_normal((2, 2, 8, 4)).astype(np.float32), rng.standard_normal((2, 4, 8, 4)).astype(np.float32))


def test_a_group_is_diagnosed_from_its_dk_and_dv_when_dq_is_not_given():
    q, k, v, do = gqa_bhnd()
    _, dk, dv = numpy_gqa_backward(q, k, v, do, scale_in_ds=False)
    j = oracle.judge_grads(None, dk, dv, q, k, v, do)
    assert not j["passed"] and j["judged"]["dk"]["over"] > 0 and j["judged"]["dv"]["over"] == 0
    assert j["diagnosis"].startswith("kv head (b=0, h=0) and its query heads h = 0 to 1: "), j["diagnosis"]
    assert "scale" in j["diagnosis"]


def test_a_causal_mask_dropped_in_a_gqa_backward_is_named_from_dk_and_dv():
    q, k, v, do = gqa_bhnd(12)
    _, dk, dv = numpy_gqa_backward(q, k, v, do, causal=False)  # the forward was causal
    j = oracle.judge_grads(None, dk, dv, q, k, v, do, causal=True)
    assert not j["passed"]
    assert j["diagnosis"].startswith("kv head (b=0, h=0) and its query heads h = 0 to 1: the mask is applied in "
                                     "the forward but dropped in the backward"), j["diagnosis"]


def test_correct_gqa_gradients_pass_and_an_unrelated_bug_is_not_named():
    q, k, v, do = gqa_bhnd(13)
    dq, dk, dv = numpy_gqa_backward(q, k, v, do, causal=True)
    assert oracle.judge_grads(dq, dk, dv, q, k, v, do, causal=True)["passed"]
    j = oracle.judge_grads(dq, dk, 2 * dv, q, k, v, do, causal=True)  # dV doubled: no mistake of the list
    assert not j["passed"] and j["judged"]["dv"]["over"] > 0 and j["diagnosis"] == ""


def collapse_batch():
    """A (1, 2, 4, 8) batch (B, H, N, D), base 2, no scale, every value an E4M3 one: Q = 0 but
    Q[0, 1, 0, 0] = 1, K = 0 but K[0, 1, 1, 0] = -20 (1.01b·2^4), V[., ., j, 0] = j, dO = 1. By
    hand: every row's scores are 0 and P = 1/4 (P·256 = 64, an E4M3 value) but head 1's query 0,
    whose scores are (0, -20, 0, 0): the backward's P_1 = 2^-20/(3 + 2^-20), the forward's
    unnormalised P_1 = 2^-20, and P_1·256 ≤ 2^-12 is below half E4M3's least subnormal 2^-9, so
    the cast flushes it: one collapse, at (b=0, h=1), query 0, key 1."""
    q = np.zeros((1, 2, 4, 8), np.float32)
    k = np.zeros((1, 2, 4, 8), np.float32)
    v = np.zeros((1, 2, 4, 8), np.float32)
    q[0, 1, 0, 0] = 1
    k[0, 1, 1, 0] = -20
    v[:, :, :, 0] = np.arange(4)
    return q, k, v, np.ones((1, 2, 4, 8), np.float32)


FP8_CLAIM = {"p_fmt": "float8_e4m3fn", "p_descale": 256, "in_fmt": "float8_e4m3fn", "scale": "none", "base": 2}


def test_a_heads_p_collapse_is_counted_and_named_by_its_head_in_both_front_ends(cli, tmp_path):
    q, k, v, do = collapse_batch()
    dv = oracle.grad_reference(q, k, v, do, fmt="float32", scale="none", base=2)["dv"]["values"].astype(np.float32)
    py = oracle.judge_grads(None, None, dv, q, k, v, do, fmt="float32", **FP8_CLAIM)
    c = py["fp8"]["p_collapse"]
    assert (c["count"], c["batch"], c["head"], c["row"], c["key"]) == (1, 0, 1, 0, 1)
    assert 2.0**-20 / 3 * (1 - 2.0**-16) < c["largest_lost"] < 2.0**-20 / 3
    assert py["fp8"]["saturated"]["count"] == 0 and py["fp8"]["overflowed"]["count"] == 0
    assert "at head (b=0, h=1), query 0, key 1)" in py["text"]
    p = save(tmp_path, q=q, k=k, v=v, do=do, dv=dv)
    args = ["oracle", "grad-reference", "--q", p["q"], "--k", p["k"], "--v", p["v"], "--do", p["do"],
            "--actual-dv", p["dv"], "--dtype", "float32", "--input-dtype", "float8_e4m3fn", "--scale", "none",
            "--base", "2", "--p-dtype", "float8_e4m3fn", "--p-descale", "256"]
    code, out, err = cli(*args, "--format", "json")
    assert err == "" and code in (0, 1), err
    r = json.loads(out)
    assert r["fp8"]["p_collapse"] == c
    assert r["claim"]["p_dtype"] == "float8_e4m3fn" and r["claim"]["p_descale"] == 256
    code, text, err = cli(*args)
    assert "fp8: P-collapse: 1 probabilities flushed to zero" in text
    assert "at head (b=0, h=1), query 0, key 1)" in text


@pytest.mark.parametrize("name,value,clamped", [("do", 500, 448), ("q", -500, -448)])
def test_a_4d_e4m3_input_past_the_range_is_refused_naming_the_entry_or_saturated(cli, tmp_path, name, value,
                                                                                 clamped):
    # E4M3's largest finite value is 448: ±500 at (b=0, h=1, i=2, j=3) is refused, naming the head
    # and the entry within it, or clamped to ±448 under the declared saturation and counted.
    arrays = dict(zip(("q", "k", "v", "do"), collapse_batch()))
    arrays[name][0, 1, 2, 3] = value
    q, k, v, do = arrays.values()
    opts = {"in_fmt": "float8_e4m3fn", "scale": "none", "base": 2}
    message = f"head (b=0, h=1): {name}[2, 3]: {value} is out of float8_e4m3fn's range"
    with pytest.raises(exactattn.Error, match=re.escape(message)):
        oracle.grad_reference(q, k, v, do, fmt="float32", **opts)
    g = oracle.grad_reference(q, k, v, do, fmt="float32", fp8_overflow="saturate", **opts)
    saturated = {"count": 1, "first": f"{name}[0, 1, 2, 3]"}
    assert g["fp8"]["saturated"] == saturated
    arrays[name] = arrays[name].copy()
    arrays[name][0, 1, 2, 3] = clamped
    ref = oracle.grad_reference(*arrays.values(), fmt="float32", **opts)
    for field in ("dq", "dk", "dv"):  # the gradients of the clamped input
        assert np.array_equal(g[field]["values"], ref[field]["values"]), field
    p = save(tmp_path, q=q, k=k, v=v, do=do)
    args = ["oracle", "grad-reference", "--q", p["q"], "--k", p["k"], "--v", p["v"], "--do", p["do"],
            "--dtype", "float32", "--input-dtype", "float8_e4m3fn", "--scale", "none", "--base", "2"]
    code, out, err = cli(*args)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert message in err
    code, out, err = cli(*args, "--fp8-overflow", "saturate", "--format", "json")
    assert code == 0 and err == "", err
    r = json.loads(out)
    assert r["fp8"]["saturated"] == saturated
    assert r["fields"]["dq"]["values"] == ref["dq"]["values"].ravel().tolist()


def test_the_forward_batch_reports_its_heads_p_collapse_in_both_front_ends(cli, tmp_path):
    # The online forward with P·256 cast to E4M3: head 1's query 0 loses P_1 = 2^-20 exactly (its
    # row's maximum 0 is key 0's; 2^-20·256 = 2^-12 is flushed), nothing else (issue 35).
    q, k, v, _ = collapse_batch()
    out = oracle.reference(q, k, v, fmt="float32", scale="none", base=2)["out"].astype(np.float32)
    claim = {"algorithm": "online", "p_fmt": "float8_e4m3fn", "p_descale": 256, "in_fmt": "float8_e4m3fn",
             "scale": "none", "base": 2}
    j = oracle.judge(out, q, k, v, fmt="float32", **claim)
    c = j["fp8"]["p_collapse"]
    assert c == {"count": 1, "largest_lost": 2.0**-20, "row": 0, "key": 1, "batch": 0, "head": 1}
    p = save(tmp_path, q=q, k=k, v=v, out=out)
    args = ["oracle", "judge", "--q", p["q"], "--k", p["k"], "--v", p["v"], "--actual", p["out"], "--dtype",
            "float32", "--input-dtype", "float8_e4m3fn", "--scale", "none", "--base", "2", "--algorithm", "online",
            "--p-dtype", "float8_e4m3fn", "--p-descale", "256"]
    code, text, err = cli(*args, "--format", "json")
    assert err == "" and code in (0, 1), err
    assert json.loads(text)["fp8"]["p_collapse"] == c
    code, text, err = cli(*args)
    assert "at head (b=0, h=1), query 0, key 1)" in text, text
