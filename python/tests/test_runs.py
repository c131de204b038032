# SPDX-License-Identifier: MIT
"""What a run makes besides its report, from Python (#24 item 10): rollouts, figures, variants,
attention layers as objects with their tables, Value.latex() in the display form and
Scenario.from_dict. Expected values are worked by hand in the comments, or are the command
line's own output for the same call (the contract is that both print the same)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import exactattn
from exactattn import Value

# The decoder of data/examples/decoder-refused-tie.json (derived by hand in its notes): step 1
# scores [0, a, 0, 0] choose maybe, distribution [1, 2, 1, 1]/5; step 2 scores [0, 0, a, a] tie
# yes and no, which the rule refuses; teacher forcing goes on with yes and chooses maybe again.
TIE = {
    "sources": {"m": {"memory": [["a", 0], [0, "a"]]}},
    "decoder": {"activation": "identity", "recurrent": [[0, 0], [0, 0]], "input": [[1, 0], [0, 1]],
                "context": [[0, 0], [0, 0]], "bias": [0, 0], "initial": [0, 0], "output_reads": "state",
                "output": [[0, "a", 0, 0], [0, 0, "a", "a"]], "start": "<s>", "ties": "refuse",
                "vocabulary": {"<s>": [1, 0], "maybe": [0, 1], "yes": [1, 0], "no": [0, 1]}},
    "rollouts": {"r": {"source": "m", "reference": ["maybe", "yes", "no"], "cross_entropy": True}},
}


def test_scenario_from_dict_runs_like_a_file():
    # Memory [[a, 0], [0, a]], query [1, 0]: exponentials 2 and 1, weights 2/3 and 1/3.
    s = exactattn.Scenario.from_dict({"sources": {"m": {"memory": [["a", 0], [0, "a"]]}},
                                      "reads": {"r": {"source": "m", "query": [1, 0]}}})
    assert s.run()["reads"]["r"]["weights"] == ["2/3", "1/3"]
    assert s.file == "<dict>"


def test_author_tex_outside_the_mathml_subset_is_a_python_warning():
    # Issue 24 item 5: \widehat is outside the MathML subset, kept verbatim in HTML, and each such
    # command is an ExactattnWarning placed at the key that holds the text; \frac is inside it.
    # LaTeX keeps the TeX as written and warns of nothing. Weights 2/3 and 1/3 as above.
    s = exactattn.Scenario.from_dict({"sources": {"m": {"memory": [["a", 0], [0, "a"]]}},
                                      "reads": {"r": {"source": "m", "query": [1, 0],
                                                      "note": "$\\frac{2}{3}$ is $\\widehat{w}_1$."}}},
                                     file="notes.json")
    with pytest.warns(exactattn.ExactattnWarning) as caught:
        page = s.report("html")
    assert "<mtext>\\widehat</mtext>" in page
    assert [str(w.message) for w in caught] == [
        "notes.json: /reads/r/note: TeX \\widehat is outside the MathML subset, kept verbatim"]
    assert caught[0].message.place == "notes.json: /reads/r/note"
    assert caught[0].filename == __file__  # attributed to the caller, not to the module
    with warnings.catch_warnings():
        warnings.simplefilter("error", exactattn.ExactattnWarning)
        s.report("latex")
        with pytest.raises(exactattn.ExactattnWarning):
            s.report("html")


def test_rollout_from_python():
    s = exactattn.Scenario.from_dict(TIE)
    r = s.rollout()
    assert r["generation"]["tokens"] == ["maybe", None]
    assert r["teacher-forcing"]["tokens"] == ["maybe", None, "maybe"]
    assert r["divergence"]["generated_prefix"] == ["maybe", None]
    assert "generation refused the tie {yes, no} at step 2" in s.rollout("r", format="text")
    # p(maybe) = 2/5 at step 1: −ln(2/5) = ln 5 − ln 2 = 1.6094379124… − 0.6931471805… = 0.9162907318…
    assert r["generation"]["steps"][1]["cross_entropy_decimal"] == "0.916291"
    ten = s.rollout(digits=10)
    assert ten["generation"]["steps"][1]["cross_entropy_decimal"] == "0.9162907319"
    with pytest.raises(exactattn.ReferenceError):
        s.rollout("nope")
    with pytest.raises(exactattn.UsageError):
        s.rollout(digits=0)


def test_figure_from_python_is_the_commands(cli):
    ch = exactattn.Scenario.chapter14()
    svg = ch.figure("14.1")
    assert svg.format == "svg" and svg._repr_svg_() == svg
    code, out, err = cli("figure", "chapter14", "--figure", "14.1")
    assert code == 0, err
    assert svg == out
    tikz = ch.figure("14.1", "tikz")
    assert "\\begin{tikzpicture}" in tikz and tikz._repr_svg_() is None
    with pytest.raises(exactattn.UsageError):
        ch.figure("14.1", "png")


def test_variants_from_python_write_the_commands_bytes(cli, tmp_path: Path):
    ch = exactattn.Scenario.chapter14()
    variants = ch.variants("1", count=2, seed=7, directory=tmp_path / "py")
    assert [v["number"] for v in variants] == [1, 2]
    for v in variants:
        assert v["scenario"].verify()["failed"] == 0
        assert v["key"].startswith(f"# Answer key: exercise 1, variant {v['number']}")
    code, _, err = cli("variants", "chapter14", "--exercise", "1", "--count", "2", "--seed", "7",
                       "-o", str(tmp_path / "cli"))
    assert code == 0, err
    names = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "py").iterdir())
    for name in names:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name


def test_variants_warn_of_author_tex_their_sheet_keeps_verbatim():
    # Issue 24 item 5: the exam sheet's HTML keeps \vec (outside the MathML subset) verbatim and
    # warns once, placed at the variation's prompt that holds it.
    data = json.loads((Path(__file__).parents[2] / "data" / "chapter14" / "chapter14.json").read_text("utf-8"))
    data["exercises"][0]["variation"]["prompt"] += " Write $\\vec{w}$ for the weights."
    s = exactattn.Scenario.from_dict(data, file="var.json")
    with pytest.warns(exactattn.ExactattnWarning) as caught:
        s.variants("1", count=2, seed=7)
    assert sorted({str(w.message) for w in caught}) == [
        "var.json: /exercises/0/variation/prompt: TeX \\vec is outside the MathML subset, kept verbatim"]


def test_layer_is_an_object_with_its_tables(cli):
    # X = [[1, 0], [0, 1], [1, 1]], W_Q = I, W_K = a·I, W_V = I, key 2 padded: query 2 keeps
    # keys 1 and 3 with scores 0 and a, exponentials 1 and 2: weights [1/3, 0, 2/3]; its output
    # 1/3 [1, 0] + 2/3 [1, 1] = [1, 2/3].
    x = [[1, 0], [0, 1], [1, 1]]
    heads = [([[1, 0], [0, 1]], [["a", 0], [0, "a"]], [[1, 0], [0, 1]])]
    layer = exactattn.attend(x, heads, padding=[2], tokens="p q r")
    assert isinstance(layer, dict) and layer.tokens == ["p", "q", "r"]
    assert layer.weights(0)[1] == [Value("1/3"), 0, Value("2/3")]
    assert layer["heads"][0]["scores"][1] == [Value(0), None, Value("a")]
    assert layer.output[1] == [1, Value("2/3")]
    html = layer._repr_html_()
    assert '<th scope="row">q</th>' in html and "<mfrac>" in html and "<body>" not in html
    code, out, err = cli("attend", "--x", "[[1,0],[0,1],[1,1]]", "--wq", "[[1,0],[0,1]]", "--wk", "[[a,0],[0,a]]",
                         "--wv", "[[1,0],[0,1]]", "--padding", "2", "--tokens", "p q r")
    assert code == 0, err
    assert str(layer) == out


def test_value_latex_is_the_display_form():
    # (√2 − 1)a/3 as an author prints it, not the canonical terms −a/3 + √2·a/3.
    v = Value("(2^(1/2) - 1)*a/3")
    assert v.latex() == "\\tfrac{\\left(\\sqrt{2} - 1\\right)a}{3}"
    assert v._repr_latex_() == "$" + v.latex() + "$"


def test_errors_name_the_python_argument_not_a_cli_option():
    ch = exactattn.Scenario.chapter14()
    with pytest.raises(exactattn.ReferenceError) as e:
        ch.figure("99.9")
    assert e.value.place == "name" and str(e.value).startswith("name: chapter14 declares no figure \"99.9\"")
    with pytest.raises(exactattn.UsageError) as e:
        ch.variants("1", count=0)
    assert e.value.place == "count"
    with pytest.raises(exactattn.UsageError) as e:
        ch.variants("2")
    assert e.value.place == "exercise"
