# SPDX-License-Identifier: MIT
"""Limits are per thread: two threads compute at once under different limits."""

from __future__ import annotations

import threading

import pytest

import exactattn
from exactattn import a


def test_two_threads_with_different_limits():
    barrier = threading.Barrier(2, timeout=60)
    results: dict[str, object] = {}

    def strict() -> None:
        with exactattn.limits(max_exponent=100):
            barrier.wait()  # both threads are inside their own limits now
            results["strict_limits"] = exactattn.current_limits()["max_exponent"]
            try:
                exactattn.read([[200 * a], [0]], [1])
            except exactattn.LimitError as e:
                results["strict"] = e
            barrier.wait()

    def generous() -> None:
        with exactattn.limits(max_exponent=1000):
            barrier.wait()
            results["generous_limits"] = exactattn.current_limits()["max_exponent"]
            # By hand: scores [200a, 0], exponentials [2^200, 1], weights [2^200/(2^200+1), …].
            results["generous"] = exactattn.read([[200 * a], [0]], [1]).weights[1]
            barrier.wait()

    threads = [threading.Thread(target=strict), threading.Thread(target=generous)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["strict_limits"] == 100 and results["generous_limits"] == 1000
    assert isinstance(results["strict"], exactattn.LimitError)
    assert results["generous"] == exactattn.Value(1) / (2**200 + 1)
    assert exactattn.current_limits()["max_exponent"] == 2**20  # the default, untouched


def test_limits_keyword_and_nesting():
    with pytest.raises(exactattn.LimitError):
        exactattn.read([[200 * a], [0]], [1], limits={"max_exponent": 100})
    with exactattn.limits(max_exponent=100):
        with exactattn.limits(max_root=8):
            assert exactattn.current_limits()["max_exponent"] == 100
            assert exactattn.current_limits()["max_root"] == 8
        assert exactattn.current_limits()["max_root"] == 64
    assert exactattn.current_limits()["max_exponent"] == 2**20


def test_every_documented_limit_can_be_read_and_set():
    # docs/limits.md's table is the one list of the limits: each is in current_limits() (once:
    # it is a dict) and settable; max_figure_positions was missing, max_report_cells listed twice.
    from pathlib import Path
    rows = (Path(__file__).resolve().parents[2] / "docs" / "limits.md").read_text().splitlines()
    documented = {r.split("`")[1] for r in rows if r.startswith("| `max_")}
    assert set(exactattn.current_limits()) == documented
    assert exactattn.current_limits()["max_figure_positions"] == 32  # the default in the table
    with exactattn.limits(max_figure_positions=64):
        assert exactattn.current_limits()["max_figure_positions"] == 64
