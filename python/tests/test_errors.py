# SPDX-License-Identifier: MIT
"""Every error kind: the Python class, its built-in base, and the CLI's message and place."""

from __future__ import annotations

import builtins
import json

import pytest

import exactattn
from exactattn import Value, a

MEMORY = [["a", 0], [0, "a"], [0, 0]]


def cli_message(cli, *args: str) -> str:
    code, out, err = cli(*args)
    assert code == 2 and out == ""
    assert err.startswith("exactattn: ") and err.count("\n") == 1
    return err[len("exactattn: "):-1]


def test_hierarchy():
    assert issubclass(exactattn.ParseError, ValueError)
    assert issubclass(exactattn.DomainError, ArithmeticError)
    assert issubclass(exactattn.ShapeError, ValueError)
    assert issubclass(exactattn.ReferenceError, LookupError)
    assert exactattn.ReferenceError is not builtins.ReferenceError
    for name in ["ParseError", "DomainError", "LimitError", "ShapeError", "ReferenceError",
                 "UsageError", "CheckFailed"]:
        assert issubclass(getattr(exactattn, name), exactattn.Error)


def test_parse_error_has_the_cli_message(cli):
    with pytest.raises(exactattn.ParseError) as e:
        Value("2a//3")
    assert str(e.value) == cli_message(cli, "eval", "2a//3")
    assert e.value.place == "expression column 4" and e.value.kind == "ParseError"
    assert e.value.reason == str(e.value)[len("expression column 4: "):]


def test_parse_error_in_a_memory_entry_names_the_entry():
    with pytest.raises(exactattn.ParseError) as e:
        exactattn.read([["a", 0], [0, "2a//3"]], [1, 0])
    assert e.value.place == "memory[1][1] column 4"


def test_domain_error(cli):
    with pytest.raises(exactattn.DomainError) as e:
        exactattn.exp(1)
    # The CLI's place is the expression; the reason is the engine's, word for word.
    assert cli_message(cli, "eval", "exp(1)") == "expression column 1: " + str(e.value)
    with pytest.raises(exactattn.DomainError, match="division"):
        Value(1) / a
    with pytest.raises(ZeroDivisionError if False else exactattn.DomainError):
        Value(1) / 0


def test_limit_error():
    with exactattn.limits(max_exponent=100):
        with pytest.raises(exactattn.LimitError, match="max_exponent"):
            exactattn.exp(200 * a)
    assert exactattn.exp(200 * a) == 2**200
    # The work bound of an elimination (odd m) is a limit like the others.
    with exactattn.limits(max_work=1000):
        with pytest.raises(exactattn.LimitError, match="max_work"):
            exactattn.Value("1/(3^50+2^(1/3))")


def test_each_call_has_one_work_budget():
    # Issue 27 item 1: a Python call is one job. Measured by its refusal: under a budget that
    # one power of (1 + 2^(1/3)) fits and two do not, each call alone succeeds, and one
    # expression holding two is refused, naming the budget and the keyword that raises it.
    power = "(1+2^(1/3))^3000"
    with exactattn.limits(max_work=10_000_000):
        first = exactattn.Value(power)
        second = exactattn.Value(power)
        assert first == second
        with pytest.raises(exactattn.LimitError) as e:
            exactattn.Value(power + "+" + power)
    assert "spent already by this job" in str(e.value)
    assert "(limits: max_work; exactattn.limits(max_work=...) raises it)" in str(e.value)
    assert exactattn.Value(power + "+" + power) == 2 * first


def test_shape_error(cli):
    with pytest.raises(exactattn.ShapeError) as e:
        exactattn.read(MEMORY, [1, 0, 0])
    # The command line places the read's refusal at the memory option; the reason is the same.
    assert "--memory: " + str(e.value) == cli_message(cli, "read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0,0]")
    with pytest.raises(exactattn.ShapeError, match="no rows"):
        exactattn.read([], [1])


def test_reference_error(cli):
    with pytest.raises(exactattn.ReferenceError) as e:
        exactattn.read(MEMORY, [1, 0], remove=[4])
    cli_text = cli_message(cli, "read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]", "--remove", "4")
    assert str(e.value) == cli_text.replace("--remove", "remove")
    with pytest.raises(exactattn.ReferenceError) as e:
        exactattn.read(MEMORY, [1, 0], remove=[1, 2, 3])
    assert "every one of the 3 positions is removed" in str(e.value)
    with pytest.raises(exactattn.ReferenceError) as e:
        exactattn.encode("红色 钥匙 绿色")
    assert str(e.value) == cli_message(cli, "encode", "--tokens", "红色 钥匙 绿色").replace("--tokens", "tokens")
    with pytest.raises(exactattn.ReferenceError) as e:
        exactattn.Scenario.chapter14().check(target="/reads/nothing/weights", proposed="1")
    assert str(e.value) == cli_message(cli, "check", "chapter14", "--target", "/reads/nothing/weights",
                                       "--proposed", "1").replace("--target", "target")
    with pytest.raises(exactattn.ReferenceError) as e:
        exactattn.Scenario.chapter14().check("nope")
    assert str(e.value) == cli_message(cli, "check", "chapter14", "--answer", "nope").replace("--answer", "answer")


def test_usage_error(cli, tmp_path):
    with pytest.raises(exactattn.UsageError, match="both remove and zero"):
        exactattn.read(MEMORY, [1, 0], remove=[1], zero=[1])
    with pytest.raises(exactattn.UsageError, match="unknown limit"):
        exactattn.limits(max_everything=3)
    with pytest.raises(exactattn.UsageError) as e:
        exactattn.Scenario.load(tmp_path)  # a directory given as a file
    assert str(e.value) == cli_message(cli, "run", str(tmp_path))


def test_scenario_errors_carry_file_and_pointer(cli, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"title": "t", "sources": {"s": {"states": [["a", "0"], ["0"]]}}}))
    with pytest.raises(exactattn.Error) as e:
        exactattn.Scenario.load(path)
    assert str(e.value) == cli_message(cli, "run", str(path))
    assert e.value.place.startswith(str(path))


def test_check_failed():
    text = json.dumps({
        "title": "one read",
        "sources": {"s": {"memory": [["a", "0"], ["0", "a"], ["0", "0"]]}},
        "queries": {"q": ["1", "0"]},
        "reads": {"r": {"source": "s", "query": "q"}},
        # Wrong on purpose: the chapter's weights are [1/2, 1/4, 1/4].
        "expect": {"/reads/r/weights": ["1/3", "1/3", "1/3"]},
    })
    s = exactattn.Scenario.from_json(text, "wrong.json")
    assert s.verify()["failed"] == 1
    with pytest.raises(exactattn.CheckFailed) as e:
        s.verify(strict=True)
    assert str(e.value).startswith("wrong.json: /reads/r/weights: expected")
