# SPDX-License-Identifier: MIT
"""Reads and scenarios: the chapter's numbers, and the same fields as the CLI's JSON."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import exactattn
from exactattn import Value, a

CHAPTER = Path(__file__).resolve().parents[2] / "data" / "chapter14" / "chapter14.json"
MEMORY = [["a", 0], [0, "a"], [0, 0]]  # Table 14.1's states [a, 0], [0, a], [0, 0]


def test_example_14_1():
    # The chapter: scores [a, 0, 0], exponentials [2, 1, 1], total 4, weights [1/2, 1/4, 1/4],
    # context (1/2)[a, 0] + (1/4)[0, a] = [a/2, a/4], readout 1·a/2 + 2·a/4 = a.
    t = exactattn.read(MEMORY, [1, 0], readout=[1, 2])
    assert t.scores == [a, 0, 0]
    assert t.exponentials == [2, 1, 1]
    assert t.denominator == 4
    assert t.weights == [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)]
    assert str(t.weights) == "[1/2, 1/4, 1/4]"
    assert t.context == [a / 2, a / 4]
    assert t.readout == a
    assert t.context_decimal == ["0.346574", "0.173287"]
    assert t.fast_path


@pytest.mark.parametrize("args", [
    dict(),
    dict(readout=[1, 2]),
    dict(remove=[2]),
    dict(zero=[1], readout=[1, 2]),
    dict(remove=[1, 3]),
])
def test_trace_matches_cli_json(cli_json, args):
    cli_args = ["read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]", "--format", "json"]
    if "readout" in args:
        cli_args += ["--readout", "[1,2]"]
    for key in ("remove", "zero"):
        for p in args.get(key, []):
            cli_args += [f"--{key}", str(p)]
    expected = cli_json(*cli_args)
    t = exactattn.read(MEMORY, [1, 0], **args)
    assert t.to_dict() == expected
    # The Value fields carry the same numbers as the JSON strings.
    for field in ("query", "scores", "exponentials", "weights", "context"):
        assert [None if x is None else str(x) for x in getattr(t, field)] == expected[field]
    assert str(t.denominator) == expected["denominator"]
    assert t.included == expected["included"]
    assert t.removed == expected.get("removed", [])
    assert t.zeroed == expected.get("zeroed", [])
    assert (str(t.readout) if t.readout is not None else None) == expected.get("readout")


def test_chapter_reads_match_the_report(cli_json):
    report = cli_json("run", "chapter14", "--format", "json")
    py_report = exactattn.Scenario.chapter14().run()
    assert py_report == report
    r = report["reads"]["example-14.2"]
    t = exactattn.read(r["memory"], r["query"], readout=r["readout_coefficients"])
    for key, value in t.to_dict().items():
        assert r[key] == value


def test_html_shows_table_14_1():
    html = exactattn.read(MEMORY, [1, 0])._repr_html_()
    for cell in ["Source position", "State", "Dot product with [1, 0]", "Exponential",
                 "Normalized weight", "1 × a + 0 × 0 = a", "2/4 = 1/2", "Context [a/2, a/4]"]:
        assert cell in html
    assert "http" not in html and "<script" not in html
    long = exactattn.read(np.ones((100, 2), dtype=np.int64), [1, 0], unit="a")._repr_html_()
    assert "60 more positions" in long and "<td style=\"text-align:left\">100</td>" in long


def test_numpy_path_equals_list_path():
    rng = random.Random(141)
    rows = [[rng.randint(-8, 8) for _ in range(5)] for _ in range(300)]
    query = [rng.randint(-4, 4) for _ in range(5)]
    for unit in ["a", "a/6", Fraction(1, 3) * a]:
        listed = exactattn.read([[Value(unit) * k for k in r] for r in rows], query, readout=[1] * 5)
        arrayed = exactattn.read(np.array(rows, dtype=np.int32), query, readout=[1] * 5, unit=unit)
        ints = exactattn.read(rows, query, readout=[1] * 5, unit=unit)  # plain ints, read directly
        assert arrayed.fast_path and ints.fast_path
        assert arrayed.to_dict() == listed.to_dict() == ints.to_dict()
        assert arrayed.weights == listed.weights
    # Ragged rows of ints leave the direct path and get the library's shape error.
    with pytest.raises(exactattn.ShapeError):
        exactattn.read([[1, 2], [3]], [1, 0], unit="a")


def test_numpy_input_must_be_integer_and_2d():
    with pytest.raises(exactattn.ShapeError, match="integers"):
        exactattn.read(np.zeros((2, 2)), [1, 0], unit="a")
    with pytest.raises(exactattn.ShapeError, match="2-D"):
        exactattn.read(np.zeros(3, dtype=np.int64), [1, 0], unit="a")


def test_encode_and_scenario_calls(tmp_path):
    # The chapter's encoder on 红色 钥匙 。 gives the states of Table 14.1.
    states = exactattn.encode("红色 钥匙 。")
    assert states == [[a, 0], [0, a], [0, 0]]
    s = exactattn.Scenario.chapter14()
    v = s.verify()
    assert v["failed"] == 0 and v["passed"] > 0
    assert "1/2" in s.answers()
    assert s.report("markdown").startswith("#")
    cross = s.crosscheck()
    assert cross["file"] == "chapter14"
    assert "|" in s.crosscheck(format="markdown")
    judged = s.check(target="/reads/example-14.1/weights", proposed=["2/3", "1/3", "1/3"])
    assert not judged[0]["correct"]
    assert "number of positions (3)" in judged[0]["mistake"]
    assert judged[0]["exact"] == [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)]
    right = s.check(target="/reads/example-14.1/context", proposed=[a / 2, a / 4])
    assert right[0]["correct"]
    # The states of Table 14.1, proposed as a matrix (Python lists and the CLI's text alike).
    assert s.check(target="/sources/red/states", proposed=[["a", 0], [0, "a"], [0, 0]])[0]["correct"]
    assert s.check(target="/sources/red/states", proposed="[[a, 0], [0, a], [0, 0]]")[0]["correct"]
    # A token target (docs/check.md#token-answers): tokens as strings, compared exactly; the
    # decoder-rollout notes derive generation's a blue key . and teacher forcing's red at step 2.
    r = exactattn.Scenario.load(CHAPTER.parent / "decoder-rollout.json")
    tokens = r.check(target="/rollouts/table-14.4/generation/tokens", proposed=["a", "blue", "key", "."])[0]
    assert tokens["correct"] and tokens["tokens"] and tokens["exact"] == ["a", "blue", "key", "."]
    red = r.check(target="/rollouts/table-14.4/generation/steps/2/chosen", proposed="red")[0]
    assert not red["correct"] and red["mistake_id"] == "other-regime" and red["proposed"] == ["red"]
    assert not r.check(target="/rollouts/table-14.4/generation/tokens", proposed=["a", ",", "key", "."])[0]["correct"]
    declared = s.check()
    assert len(declared) == len(json.loads(CHAPTER.read_text(encoding="utf-8"))["learner_answers"])
    path = tmp_path / "s.json"
    path.write_text(CHAPTER.read_text(encoding="utf-8"), encoding="utf-8")
    loaded = exactattn.Scenario.load(path)
    assert loaded.file == str(path) and loaded.verify()["failed"] == 0
