# SPDX-License-Identifier: MIT
"""Shared fixtures: the CLI built beside the module (EXACTATTN_CLI, set by ctest)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    """Runs the exactattn binary: returns (exit code, stdout, stderr)."""
    binary = os.environ.get("EXACTATTN_CLI") or str(ROOT / "build" / "exactattn")
    if not Path(binary).exists():
        pytest.fail(f"the exactattn binary is not at {binary} (set EXACTATTN_CLI)")

    def run(*args: str) -> tuple[int, str, str]:
        p = subprocess.run([binary, *args], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    def run(*args: str):
        code, out, err = cli(*args)
        assert code == 0, err
        return json.loads(out)

    return run
