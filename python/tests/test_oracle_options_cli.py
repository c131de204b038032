# SPDX-License-Identifier: MIT
"""A kernel's claim and the problem's options are parsed by one library function for both front
ends (parse_claim, parse_grad_claim, problem_options and problem_inputs): the same bad option is
refused with the same reason by exactattn.oracle and by `exactattn oracle`, each placing it at its
own name for the option (the keyword, the --option)."""

import json

import numpy as np
import pytest

import exactattn
from exactattn import oracle

Q = np.array([[1.0, 0.5], [0.25, -1.0]], np.float32)
K = np.array([[0.5, 1.0], [-0.5, 2.0], [1.0, 0.0]], np.float32)
V = np.array([[1.0, 0.0], [0.5, 0.25], [2.0, -1.0]], np.float32)
DO = np.array([[1.0, -0.5], [0.25, 2.0]], np.float32)
OUT = np.zeros((2, 2), np.float32)  # an actual output (or dQ): judged only after the claim is parsed

# (the call, the keyword, its value, the command line's option); every claim and problem option
# the library parses
CASES = [
    ("reference", "fp8_overflow", "wrap", "--fp8-overflow"),
    ("reference", "scale", "big", "--scale"),
    ("reference", "base", "10", "--base"),
    ("reference", "masked_rows", "drop", "--masked-rows"),
    ("reference", "masked_lse", "0", "--masked-lse"),
    ("reference", "align", "middle", "--align"),
    ("judge", "algorithm", "quick", "--algorithm"),
    ("judge", "accumulate", "float7", "--accumulate"),
    ("judge", "accumulate", "float8_e4m3fn", "--accumulate"),  # no kernel accumulates in 8 bits
    ("judge", "p_fmt", "int8", "--p-dtype"),
    ("judge", "stored", "x", "--stored-dtype"),
    ("judge", "bound", "wild", "--bound"),
    ("judge", "p_descale", "zz", "--p-descale"),
    ("emulate", "algorithm", "fast", "--algorithm"),
    ("emulate", "p_fmt", "float7", "--p-dtype"),
    ("emulate", "p_descale", "-2", "--p-descale"),
    ("emulate", "accumulate", "float8_e5m2", "--accumulate"),
    ("judge_grads", "backward", "fast", "--backward"),
    ("judge_grads", "accumulate", "float8_e4m3fn", "--accumulate"),
    ("judge_grads", "storage", "x", "--stored-dtype"),
    ("judge_grads", "delta_from", "q", "--delta-from"),
    ("judge_grads", "p_fmt", "int8", "--p-dtype"),
    ("judge_grads", "ds_fmt", "x", "--ds-dtype"),
    ("judge_grads", "ds_descale", "0", "--ds-descale"),
    ("grad_emulate", "accumulate", "float8_e5m2", "--accumulate"),
    ("grad_emulate", "p_descale", "zz", "--p-descale"),
]


def inputs(tmp_path, call):
    """The command line's files of the problem for `call`, with what it judges (--actual, --actual-dq)
    or differentiates (--do)."""
    wanted = {"reference": [], "judge": ["actual"], "emulate": [], "judge_grads": ["do", "actual-dq"], "grad_emulate": ["do"]}
    files = []
    for name, a in (("q", Q), ("k", K), ("v", V), ("do", DO), ("actual", OUT), ("actual-dq", OUT)):
        if name in ("q", "k", "v") or name in wanted[call]:
            np.save(tmp_path / f"{name}.npy", a)
            files += [f"--{name}", str(tmp_path / f"{name}.npy")]
    return files


def cli_refusal(cli, tmp_path, call, option, value):
    action = {"judge_grads": "grad-reference"}.get(call, call.replace("_", "-"))
    code, out, err = cli("oracle", action, *inputs(tmp_path, call), option, value)
    assert code == 2, out + err
    line = err.rstrip("\n")
    assert "\n" not in line, line
    prefix = f"exactattn: {option}: "
    assert line.startswith(prefix), line
    return line[len(prefix):]


def python_refusal(call, keyword, value):
    with pytest.raises(exactattn.UsageError) as e:
        if call == "reference":
            oracle.reference(Q, K, V, **{keyword: value})
        elif call == "judge":
            oracle.judge(OUT, Q, K, V, **{keyword: value})
        elif call == "emulate":
            oracle.emulate(Q, K, V, **{keyword: value})
        elif call == "judge_grads":
            oracle.judge_grads(OUT, None, None, Q, K, V, DO, **{keyword: value})
        else:
            oracle.grad_emulate(Q, K, V, DO, **{keyword: value})
    assert e.value.place == keyword, (e.value.place, str(e.value))
    return e.value.reason


@pytest.mark.parametrize("call,keyword,value,option", CASES)
def test_a_bad_claim_option_has_the_same_reason_in_python_and_on_the_command_line(cli, tmp_path, call, keyword,
                                                                                    value, option):
    assert python_refusal(call, keyword, value) == cli_refusal(cli, tmp_path, call, option, value)


def test_flash2_with_d_from_p_names_the_value_as_each_front_end_writes_it(cli, tmp_path):
    with pytest.raises(exactattn.UsageError) as e:
        oracle.judge_grads(OUT, None, None, Q, K, V, DO, backward="flash2", delta_from="p")
    assert (e.value.place, e.value.reason) == ("delta_from", "flash2 computes D from O ('o')")
    code, _, err = cli("oracle", "grad-reference", *inputs(tmp_path, "judge_grads"), "--backward", "flash2",
                       "--delta-from", "p")
    assert (code, err) == (2, "exactattn: --delta-from: flash2 computes D from O (--delta-from o)\n")


def test_a_bad_layout_of_a_batch_has_the_same_reason_in_python_and_on_the_command_line(cli, tmp_path):
    q, k, v = (np.ones((1, 2, n, 2), np.float32) for n in (2, 3, 3))
    with pytest.raises(exactattn.UsageError) as e:
        oracle.reference(q, k, v, layout="nhbd")
    files = []
    for name, a in (("q", q), ("k", k), ("v", v)):
        np.save(tmp_path / f"{name}.npy", a)
        files += [f"--{name}", str(tmp_path / f"{name}.npy")]
    code, _, err = cli("oracle", "reference", *files, "--layout", "nhbd")
    assert e.value.place == "layout"
    assert (code, err) == (2, f"exactattn: --layout: {e.value.reason}\n")


def test_an_8bit_accumulator_is_refused_up_front_by_every_claim(cli, tmp_path):
    # docs/oracle.md §10: "The accumulator may not be 8-bit (no kernel accumulates there;
    # `--accumulate float8_*` is refused)": one reason, forward and backward alike.
    reasons = {python_refusal(call, "accumulate", "float8_e4m3fn") for call in ("judge", "emulate", "judge_grads",
                                                                                "grad_emulate")}
    assert reasons == {"no kernel accumulates in float8_e4m3fn (its P, inputs and output may be 8-bit)"}, reasons


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float8_e4m3fn", "float64"])
def test_emulate_defaults_to_the_claims_accumulator_in_python_and_on_the_command_line(cli, tmp_path, dtype):
    # the claim's default accumulator (docs/oracle.md §5, docs/cli.md): float32, float64 for a
    # float64 problem; the same whichever front end emulates it
    files = inputs(tmp_path, "emulate")
    py = oracle.emulate(Q, K, V, fmt=dtype, report=True)
    code, out, err = cli("oracle", "emulate", *files, "--dtype", dtype, "--format", "json")
    assert code == 0, err
    assert py["json"] == out
    assert json.loads(out)["accumulate"] == ("float64" if dtype == "float64" else "float32")


def test_grad_emulate_of_a_batch_is_refused_with_one_reason_in_python_and_on_the_command_line(cli, tmp_path):
    q, k, v, do = (np.ones((1, 2, n, 2), np.float32) for n in (2, 3, 3, 2))
    with pytest.raises(exactattn.UsageError) as e:
        oracle.grad_emulate(q, k, v, do)
    files = []
    for name, a in (("q", q), ("k", k), ("v", v), ("do", do)):
        np.save(tmp_path / f"{name}.npy", a)
        files += [f"--{name}", str(tmp_path / f"{name}.npy")]
    code, _, err = cli("oracle", "grad-emulate", *files)
    assert e.value.place == "q"
    assert (code, err) == (2, f"exactattn: --q: {e.value.reason}\n")


def test_the_command_line_and_python_print_the_same_gradient_judgement_of_a_matrix(cli, tmp_path):
    # a matrix problem's gradients, judged (one dQ entry off) and not: the same text and JSON,
    # byte for byte, from `exactattn oracle grad-reference` and oracle.judge_grads/grad_reference
    ref = oracle.grad_reference(Q, K, V, DO)
    dq, dk, dv = (ref[n]["values"].astype(np.float32) for n in ("dq", "dk", "dv"))
    dq[1, 0] += np.float32(2.0**-8)
    files = inputs(tmp_path, "reference")
    for name, a in (("do", DO), ("dq", dq), ("dk", dk), ("dv", dv)):
        np.save(tmp_path / f"{name}.npy", a)
    do = ["--do", str(tmp_path / "do.npy")]
    actual = [x for n in ("dq", "dk", "dv") for x in (f"--actual-{n}", str(tmp_path / f"{n}.npy"))]
    py = oracle.judge_grads(dq, dk, dv, Q, K, V, DO)
    assert not py["passed"]
    assert cli("oracle", "grad-reference", *files, *do, *actual) == (1, py["text"], "")
    assert cli("oracle", "grad-reference", *files, *do, *actual, "--format", "json") == (1, py["json"], "")
    assert cli("oracle", "grad-reference", *files, *do) == (0, ref["text"], "")
    assert cli("oracle", "grad-reference", *files, *do, "--format", "json") == (0, ref["json"], "")
    e = oracle.grad_emulate(Q, K, V, DO, fmt="float32")
    assert cli("oracle", "grad-emulate", *files, *do) == (0, e["text"], "")
