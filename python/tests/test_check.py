# SPDX-License-Identifier: MIT
"""`check` from Python and from the command line judge an ad-hoc answer alike: both call the
library's check_request, so an ad-hoc target takes the rules of the exercise that lists it."""

from __future__ import annotations

import json

import exactattn


# Exercise 3 of the chapter lists Table 14.2's row 2 (remove the key state) and accepts
# `remaining-weights`: the weights listed for the remaining positions only. Removing the key
# leaves exponentials 2 and 1, so the row's weights are [2/3, 0, 1/3] (Table 14.2); the answer
# [2/3, 1/3] lists positions 1 and 3 only, which that exercise accepts.
TARGET = "/interventions/table-14.2/rows/2/weights"


def test_ad_hoc_answer_takes_the_exercises_accepted_mistake_in_both_front_ends(cli):
    code, out, _ = cli("check", "chapter14", "--target", TARGET, "--proposed", "[2/3, 1/3]", "--format", "json")
    assert code == 0
    from_cli = json.loads(out)
    [from_python] = exactattn.Scenario.load("chapter14").check(target=TARGET, proposed="[2/3, 1/3]")
    assert from_python["correct"] is True
    assert from_python["mistake_id"] == "remaining-weights"
    [verdict] = from_cli["judgements"]
    assert verdict["correct"] is True
    assert verdict["exact"] == ["2/3", "0", "1/3"]
    assert verdict["mistake_id"] == from_python["mistake_id"]


def test_an_answer_outside_every_exercise_is_judged_alike(cli):
    # Table 14.2's row 1 (remove color): weights [0, 1/2, 1/2]; no exercise lists that row, so
    # [1/2, 1/2] is wrong in both front ends.
    target = "/interventions/table-14.2/rows/1/weights"
    code, _, _ = cli("check", "chapter14", "--target", target, "--proposed", "[1/2, 1/2]")
    assert code == 1
    [j] = exactattn.Scenario.load("chapter14").check(target=target, proposed="[1/2, 1/2]")
    assert j["correct"] is False


def test_the_version_is_written_once():
    # include/exactattn/version.hpp is the one place: the module, the wheel's metadata (the
    # in-tree build backend) and the command line all read it.
    import re
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    header = (root / "include" / "exactattn" / "version.hpp").read_text(encoding="utf-8")
    parts = [re.search(rf"^#define EXACTATTN_VERSION_{p} ([0-9]+)", header, re.M).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    assert exactattn.__version__ == ".".join(parts)
    backend = subprocess.run([sys.executable, "-c", "import exactattn_build as b; print(b._version())"],
                             cwd=root / "python" / "build_backend", capture_output=True, text=True, check=True)
    assert backend.stdout.strip() == exactattn.__version__
