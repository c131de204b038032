# SPDX-License-Identifier: MIT
"""exactattn.attend: one attention layer, against values worked by hand (docs/attention.md)."""

from __future__ import annotations

import pytest

import exactattn
from exactattn import Value


def test_causal_layer_by_hand():
    # X = I, W_Q = I, W_K = a·I, W_V = I: row 2 has scores 0 and a, exponentials 1 and 2.
    out = exactattn.attend([[1, 0], [0, 1]], [([[1, 0], [0, 1]], [["a", 0], [0, "a"]], [[1, 0], [0, 1]])],
                           causal=True)
    head = out["heads"][0]
    assert head["scores"] == [[Value("a"), None], [Value(0), Value("a")]]
    assert head["weights"][1] == [Value("1/3"), Value("2/3")]
    assert out["output"] == [[1, 0], [Value("1/3"), Value("2/3")]]
    assert out["masked"] == [[False, True], [False, False]]


def test_scale_and_refusal():
    # d_k = 2 with a plain q·k = a: a/√2 has no exact exponential (Gelfond–Schneider).
    with pytest.raises(exactattn.DomainError, match="q_1·k_1/√2 = a/√2"):
        exactattn.attend([[1, 0]], [([[1, 0], [0, 1]], [["a", 0], [0, "a"]], [[1], [1]])], scale="sqrt-dk")
    # A declared scale 1/2: the score a·1/2 = a/2 of one key gives weight 1.
    out = exactattn.attend([[1, 0]], [([[1, 0], [0, 1]], [["a", 0], [0, "a"]], [[1], [1]])], scale="1/2")
    assert out["heads"][0]["scores"] == [[Value("a/2")]]


def test_shape_errors_name_their_keyword():
    # Two queries and keys (X = I) and one head of width 1 (W_V is 2×1, so d_v = 1).
    x = [[1, 0], [0, 1]]
    head = ([[1], [0]], [["a"], [0]], [[1], [1]])
    with pytest.raises(exactattn.ShapeError) as e:
        exactattn.attend(x, [head], mask=[[False, False]])
    assert e.value.place == "mask" and e.value.reason == "the mask has 1 rows; there are 2 queries"
    with pytest.raises(exactattn.ShapeError) as e:
        exactattn.attend(x, [head], wo=[[1], [1]])  # the concatenation is 2×1, W_O 2×1
    assert e.value.place == "wo"
    with pytest.raises(exactattn.ShapeError) as e:
        exactattn.attend(x, [head], residual=True)  # a 2×1 output plus the 2×2 X
    assert e.value.place == "residual"
    with pytest.raises(exactattn.ShapeError) as e:
        exactattn.attend(x, [head], memory=[[1, 0, 0]])  # memory rows of width 3 against W_K's 2 rows
    assert e.value.place == "memory"
    with pytest.raises(exactattn.ReferenceError) as e:
        exactattn.attend(x, [head], padding=[3])
    assert str(e.value) == "padding: padding position 3 is out of range 1..2"


def test_trace_size_is_predicted_before_the_work():
    # By hand: one head over 1000 queries and keys holds 3·1000² scores, exponentials and
    # weights plus (1000 + 1000)·4 projection entries: 3008000 values, over 2^21.
    with pytest.raises(exactattn.LimitError) as e:
        exactattn.attend([[1]] * 1000, [([[1]], [["a"]], [[1]])])
    assert e.value.place == "x"
    assert e.value.reason.startswith("the layer's trace would hold about 3008000 exact values")
    assert "(limits: max_report_cells; exactattn.limits(max_report_cells=...) raises it)" in e.value.reason
