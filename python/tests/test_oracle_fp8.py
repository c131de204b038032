# SPDX-License-Identifier: MIT
"""8-bit floats through exactattn.oracle (docs/oracle.md, "8-bit floats"): P cast to E4M3 with a
descale, P-collapse named, and an out-of-range E4M3 input refused at its argument and entry."""

import numpy as np
import pytest

import exactattn
from exactattn import oracle

# Base 2, no scale: scores 0 and -18, P = (1, 2^-18); with σ = 256 the second P·σ = 2^-10 is half
# E4M3's least subnormal and rounds to 0 (ties to even).
Q = np.array([[1.0]], np.float32)
K = np.array([[0.0], [-18.0]], np.float32)
V = np.array([[0.0], [1.0]], np.float32)


def test_p_collapse_is_counted_and_the_collapsed_output_passes_its_bound():
    e = oracle.emulate(Q, K, V, fmt="float32", algorithm="online", p_fmt="float8_e4m3fn", p_descale=256,
                       scale="none", base=2, in_fmt="float8_e4m3fn")
    assert e["out"][0, 0] == 0.0
    assert e["fp8"]["p_collapse"] == {"count": 1, "largest_lost": 2.0**-18, "row": 0, "key": 1}
    j = oracle.judge(e["out"].astype(np.float32), Q, K, V, algorithm="online", p_fmt="float8_e4m3fn",
                     p_descale=256, scale="none", base=2)
    assert j["over"] == 0


def test_an_e4m3_value_past_448_is_refused_unless_saturation_is_declared():
    v = np.array([[0.0], [500.0]], np.float32)
    with pytest.raises(exactattn.Error, match=r"v\[1, 0\]: 500 is out of float8_e4m3fn's range"):
        oracle.reference(Q, K, v, in_fmt="float8_e4m3fn", scale="none", base=2)
    e = oracle.emulate(Q, K, v, fmt="float32", algorithm="online", p_fmt="float8_e4m3fn", p_descale="block",
                       scale="none", base=2, in_fmt="float8_e4m3fn", fp8_overflow="saturate")
    assert e["fp8"]["saturated"] == {"count": 1, "first": "v[1, 0]"}


def test_bad_fp8_options_are_refused_at_their_keywords():
    with pytest.raises(exactattn.UsageError, match="p_descale"):
        oracle.emulate(Q, K, V, algorithm="online", p_descale=-1)
    with pytest.raises(exactattn.UsageError, match="fp8_overflow"):
        oracle.emulate(Q, K, V, algorithm="online", fp8_overflow="clamp")
