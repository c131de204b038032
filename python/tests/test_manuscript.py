# SPDX-License-Identifier: MIT
"""Manuscripts from Python: the same results as `exactattn manuscript check|fill|audit`.

Expected values are the chapter's: Example 14.1's weights are [1/2, 1/4, 1/4] and its
denominator 2 + 1 + 1 = 4."""

from __future__ import annotations

from pathlib import Path

import pytest

import exactattn

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "data" / "chapter14" / "chapter14.md"


def test_chapter_checks_clean():
    r = exactattn.manuscript_check(CHAPTER)
    assert r["wrong"] == 0
    assert len(r["claims"]) == 148
    assert all(c["passed"] for c in r["claims"])


def test_a_planted_weight_is_the_command_s_line(tmp_path, cli):
    text = CHAPTER.read_text(encoding="utf-8")
    planted = '[1/4]{.exact ref="/reads/example-14.1/weights/1"}'
    line = text[: text.index(planted)].count("\n") + 1
    bad = tmp_path / "bad.md"
    bad.write_text(text.replace(planted, planted.replace("1/4", "1/3"), 1), encoding="utf-8")
    (tmp_path / "chapter14.json").write_text((CHAPTER.parent / "chapter14.json").read_text(encoding="utf-8"),
                                            encoding="utf-8")
    r = exactattn.manuscript_check(bad)
    wrong = [c for c in r["claims"] if not c["passed"]]
    assert [(c["line"], c["written"], c["exact"]) for c in wrong] == [(line, "1/3", "1/4")]
    code, out, _ = cli("manuscript", "check", str(bad))
    assert code == 1
    assert out.splitlines()[0] == wrong[0]["message"]


def test_fill_and_audit_match_the_command(tmp_path, cli):
    f = tmp_path / "f.md"
    f.write_text("---\nexactattn-scenario: chapter14\n---\nw {{/reads/example-14.1/weights}}, "
                 "[a/2, a/4] unmarked\n", encoding="utf-8")
    filled = exactattn.manuscript_fill(f)
    assert filled.endswith("w [1/2, 1/4, 1/4], [a/2, a/4] unmarked\n")
    assert cli("manuscript", "fill", str(f))[1] == filled
    audit = exactattn.manuscript_audit(f)
    assert audit["marked"] == 0
    assert audit["unmarked"][0]["text"] == "[a/2, a/4]"
    assert "/reads/example-14.1/context" in audit["unmarked"][0]["equals"]


def test_unknown_pointer_raises_the_command_s_error(tmp_path):
    f = tmp_path / "u.md"
    f.write_text("[1]{.exact ref=/reads/example-14.1/wieghts}\n", encoding="utf-8")
    with pytest.raises(exactattn.ReferenceError, match="nearest: /reads/example-14.1/weights"):
        exactattn.manuscript_check(f, scenario="chapter14")
