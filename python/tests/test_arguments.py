# SPDX-License-Identifier: MIT
"""Every argument of every public call, given a value of the wrong type or out of range, raises
the module's own error (docs/python.md, "Errors and limits"): never pybind11's builtin TypeError
("incompatible function arguments"), nor os's FileExistsError or TypeError from a path, nor
json's TypeError. Files that cannot be written are a UsageError, and a set of files is written
all or nothing, as the command line writes it."""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import numpy as np
import pytest

import exactattn
from exactattn import oracle

ROOT = Path(__file__).resolve().parents[2]
BAD = [object(), 1.5, "x", None, -1, 2**70, b"\xff", [], {}, ("a",), float("nan"), True]


def calls() -> dict[str, tuple]:
    """Each public call with arguments that it accepts."""
    ch = exactattn.Scenario.chapter14()
    rollouts = exactattn.Scenario.load(ROOT / "data" / "chapter14" / "decoder-rollout.json")
    manuscript = str(ROOT / "data" / "chapter14" / "chapter14.md")
    q = np.array([[1.0, 0.0]], dtype=np.float32)
    k = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    return {
        "Value": (exactattn.Value, ["1"]),
        "exp": (exactattn.exp, ["a"]),
        "ln": (exactattn.ln, ["2"]),
        "pow": (exactattn.pow, ["2", "1/2"]),
        "read": (exactattn.read, [[["a", 0], [0, "a"]], [1, 0]]),
        "attend": (exactattn.attend, [[[1, 0], [0, 1]], [([[1, 0], [0, 1]],) * 3]]),
        "encode": (exactattn.encode, ["红色 钥匙"]),
        "Scenario.load": (exactattn.Scenario.load, ["chapter14"]),
        "Scenario.from_json": (exactattn.Scenario.from_json, ["{}"]),
        "Scenario.from_dict": (exactattn.Scenario.from_dict, [{}]),
        "Scenario.report": (ch.report, ["text"]),
        "Scenario.verify": (ch.verify, [False]),
        "Scenario.answers": (ch.answers, ["markdown"]),
        "Scenario.check": (ch.check, [None]),
        "Scenario.crosscheck": (ch.crosscheck, ["json"]),
        "Scenario.encode": (ch.encode, ["红色"]),
        "Scenario.rollout": (rollouts.rollout, [None]),
        "Scenario.figure": (ch.figure, ["14.1"]),
        "Scenario.variants": (ch.variants, ["exercise-1", 1, 0]),
        "manuscript_check": (exactattn.manuscript_check, [manuscript]),
        "manuscript_fill": (exactattn.manuscript_fill, [manuscript]),
        "manuscript_audit": (exactattn.manuscript_audit, [manuscript]),
        "oracle.reference": (oracle.reference, [q, k, k]),
        "oracle.judge": (oracle.judge, [q, q, k, k]),
    }


def test_every_argument_of_a_wrong_type_or_range_raises_the_modules_error(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # directory="x" is a directory name: written here
    leaks = []
    tried = 0
    for name, (call, good) in calls().items():
        try:
            params = [p.name for p in inspect.signature(call).parameters.values()
                      if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
        except ValueError:  # a pybind11 constructor (Value): its positional arguments
            params = [f"argument {i}" for i in range(len(good))]
        assert params, name
        for i, p in enumerate(params):
            for bad in BAD:
                args, kwargs = list(good), {}
                if i < len(good):
                    args[i] = bad
                else:
                    kwargs[p] = bad
                tried += 1
                try:
                    with exactattn.limits(max_work=10**9):
                        call(*args, **kwargs)
                except exactattn.Error:
                    pass
                except Exception as e:  # noqa: BLE001 (any other class is the failure)
                    leaks.append(f"{name}({p}={bad!r:.20}): {type(e).__name__}: {str(e)[:100]}")
    assert tried > 500
    assert leaks == []


def test_limits_of_a_wrong_type_raise_the_modules_error():
    for changes in [{"max_work": "x"}, {"max_work": 2**70}, {"max_work": None}, {"bogus": 1}]:
        with pytest.raises(exactattn.UsageError):
            with exactattn.limits(**changes):
                pass
    with pytest.raises(exactattn.ShapeError) as e:
        exactattn.read([["a"]], [1], limits=5)
    assert e.value.place == "limits" and str(e.value) == "limits: expected a dict, got int 5"


def test_a_wrong_type_names_the_keyword():
    ch = exactattn.Scenario.chapter14()
    with pytest.raises(exactattn.ShapeError) as e:
        ch.variants("exercise-1", count=1.5)
    assert str(e.value) == "count: expected a whole number, got float 1.5"
    assert isinstance(e.value, TypeError)  # a ShapeError is also a TypeError
    with pytest.raises(exactattn.UsageError) as e:
        ch.variants("exercise-1", seed=-1)
    assert str(e.value) == "seed: -1 is out of range: a whole number from 0 to 18446744073709551615"
    with pytest.raises(exactattn.ShapeError) as e:
        exactattn.manuscript_check(7)
    assert str(e.value) == "path: expected a path (str or os.PathLike), got int 7"
    with pytest.raises(exactattn.ShapeError) as e:
        exactattn.attend([[1]], [([[1]], [[1]], [[1]])], padding=2)
    assert e.value.place == "padding"
    with pytest.raises(exactattn.ShapeError) as e:
        exactattn.Scenario.from_dict({"title": object()})
    assert e.value.place == "data"


def read_dir(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def test_variants_into_a_directory_that_cannot_be_written_is_a_usage_error(tmp_path: Path):
    ch = exactattn.Scenario.chapter14()
    a_file = tmp_path / "file"
    a_file.write_text("kept")
    for where in [a_file, a_file / "sub"]:  # FileExistsError and NotADirectoryError before
        with pytest.raises(exactattn.UsageError) as e:
            ch.variants("exercise-1", 1, 0, directory=where)
        assert e.value.place == "directory" and str(where) in str(e.value)
    assert a_file.read_text() == "kept"


def test_variants_into_a_directory_are_all_or_nothing(tmp_path: Path):
    ch = exactattn.Scenario.chapter14()
    out = tmp_path / "out"
    ch.variants("exercise-1", 2, 7, directory=out)
    before = read_dir(out)
    assert "variant-01.json" in before and "moodle.xml" in before
    # A destination that is a directory: refused before any file of the set replaces one.
    os.remove(out / "sheet.md")
    os.mkdir(out / "sheet.md")
    before = read_dir_without(out, "sheet.md")
    with pytest.raises(exactattn.UsageError) as e:
        ch.variants("exercise-1", 2, 8, directory=out)
    assert "sheet.md" in str(e.value)
    assert read_dir_without(out, "sheet.md") == before
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []  # no temporary left


def read_dir_without(d: Path, skip: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.name != skip}
