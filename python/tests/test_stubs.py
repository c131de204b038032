# SPDX-License-Identifier: MIT
"""The type stubs (__init__.pyi) name every public call, and only calls that exist."""

from __future__ import annotations

import ast
from pathlib import Path

import exactattn

STUBS = ast.parse((Path(exactattn.__file__).parent / "__init__.pyi").read_text(encoding="utf-8"))


def stub_members(node: ast.AST) -> set[str]:
    return {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | {
        n.target.id for n in node.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}


def test_module_level_names():
    errors = {"Error", "ParseError", "DomainError", "LimitError", "OutOfMemoryError", "ShapeError", "ReferenceError",
              "UsageError", "CheckFailed", "ExactattnWarning"}  # re-exported from _errors
    assert set(exactattn.__all__) - errors <= stub_members(STUBS)


def test_classes_match_their_stubs():
    classes = {n.name: n for n in STUBS.body if isinstance(n, ast.ClassDef)}
    for name in ["Value", "Vector", "Trace", "Scenario"]:
        public = {m for m in dir(getattr(exactattn, name)) if not m.startswith("_")} - set(dir(list))
        stubbed = {m for m in stub_members(classes[name]) if not m.startswith("_")}
        assert public == stubbed, name
        for member in stub_members(classes[name]):
            assert hasattr(getattr(exactattn, name), member), (name, member)
