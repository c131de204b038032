#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The PrairieLearn export of `exactattn variants` (docs/variants.md, "PrairieLearn"), run for real.

    check_prairielearn.py CLI SEED7_DIR WORKDIR FIXTURE

SEED7_DIR is the output of `variants chapter14 --exercise exercise-1 --count 30 --seed 7` (the
ctest fixture variants_seed7); FIXTURE is tests/variants/terminating-weights.json, whose answers
are 1/2 and 4/5, so that the tolerance's boundary is a decimal a learner can type. server.py is
imported from each directory and its generate(), parse() and grade() are called on the data
dicts PrairieLearn passes; info.json is checked against the fields of PrairieLearn's question
schema (apps/prairielearn/src/schemas/infoQuestion.ts: QuestionJsonSchema, strict). Every
expected value is worked by hand below, and every verdict is compared with `exactattn check`.
Exit 0 when all hold, 1 with one line per failure.
"""
import ast
import importlib.util
import json
import math
import os
import re
import subprocess
import sys

FAILURES = []


def expect(cond, what):
    if not cond:
        FAILURES.append(what)


def load_server(directory, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(directory, "server.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def new_data(variant_seed):
    return {"variant_seed": variant_seed, "params": {}, "correct_answers": {}, "submitted_answers": {},
            "raw_submitted_answers": {}, "format_errors": {}, "partial_scores": {}, "score": 0, "feedback": {}}


def submit(server, data, text):
    """PrairieLearn's order: parse(), then grade() only when parse() found no format error."""
    data = dict(data, raw_submitted_answers={"answer": text}, format_errors={}, partial_scores={}, feedback={},
                score=0)
    server.parse(data)
    if data["format_errors"]:
        return data
    server.grade(data)
    return data


def generated(server, variant_seed):
    data = new_data(variant_seed)
    server.generate(data)
    return data


# ---- info.json against PrairieLearn's QuestionJsonSchema --------------------------------------------
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
INFO_FIELDS = {  # the schema's keys and the JSON types of those the export may write
    "comment": None, "uuid": str, "type": str, "title": str, "topic": str, "tags": list, "authors": list,
    "clientFiles": list, "clientTemplates": list, "template": str, "gradingMethod": str,
    "singleVariant": bool, "showCorrectAnswer": bool, "partialCredit": bool, "options": dict,
    "externalGradingOptions": dict, "dependencies": dict, "workspaceOptions": dict, "sharingSets": list,
    "sharePublicly": bool, "shareSourcePublicly": bool, "preferences": dict,
}


def check_info(directory, count):
    with open(os.path.join(directory, "info.json"), encoding="utf-8") as f:
        info = json.load(f)
    for key in ("uuid", "type", "title", "topic"):  # required by the schema
        expect(key in info, f"{directory}/info.json: required field {key} missing")
    for key, value in info.items():
        expect(key in INFO_FIELDS, f"{directory}/info.json: {key} is not a field of PrairieLearn's schema (strict)")
        if INFO_FIELDS.get(key) is not None:
            expect(isinstance(value, INFO_FIELDS[key]), f"{directory}/info.json: {key} has the wrong type")
    expect(UUID.match(info.get("uuid", "")) is not None, f"{directory}/info.json: uuid {info.get('uuid')!r}")
    expect(info.get("uuid", "")[14:15] == "4", f"{directory}/info.json: uuid is not a version 4 layout")
    expect(info.get("type") == "v3", f"{directory}/info.json: type {info.get('type')!r}, not v3")
    expect(info.get("gradingMethod") in ("Internal", "External", "Manual"), f"{directory}/info.json: gradingMethod")
    expect(info.get("gradingMethod") == "Internal", f"{directory}/info.json: server.py grades, so Internal")
    expect(all(isinstance(t, str) for t in info.get("tags", [])), f"{directory}/info.json: tags are strings")
    expect(info.get("singleVariant") is (count == 1), f"{directory}/info.json: singleVariant for {count} variants")
    return info


def check_question_html(directory):
    with open(os.path.join(directory, "question.html"), encoding="utf-8") as f:
        html = f.read()
    expect('<pl-number-input answers-name="answer"' in html, "question.html: no pl-number-input named answer")
    expect("{{{params.prompt}}}" in html and "<pl-question-panel>" in html, "question.html: no prompt panel")
    expect("{{feedback.answer}}" in html, "question.html: the submission panel shows no feedback")


def check_standard_library_only(directory):
    with open(os.path.join(directory, "server.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module.split(".")[0])
    expect(imported <= set(sys.stdlib_module_names), f"server.py imports outside the standard library: {imported}")
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    expect({"generate", "parse", "grade"} <= names, f"server.py lacks generate/parse/grade: {names}")


def verdict(server, data, text):
    out = submit(server, data, text)
    if out["format_errors"]:
        return None, out["format_errors"]["answer"], None
    part = out["partial_scores"]["answer"]
    expect(part["score"] == out["score"], f"{text}: partial score {part['score']} but score {out['score']}")
    expect(part["feedback"] == out["feedback"]["answer"], f"{text}: two feedbacks")
    return out["score"], out["feedback"]["answer"], out["feedback"].get("mistake")


def same_as_check(cli, scenario, target, tolerance, text, got):
    """`exactattn check` on the variant's own file gives the same verdict, mistake and feedback."""
    run = subprocess.run([cli, "check", scenario, "--target", target, "--proposed", text, "--tolerance",
                          "absolute:" + tolerance, "--format", "json"], capture_output=True, text=True)
    j = json.loads(run.stdout)["judgements"][0]
    score, feedback, mistake = got
    expect((score == 1) == j["correct"], f"{scenario} {text}: server.py score {score}, check correct={j['correct']}")
    expect(mistake == j["mistake_id"], f"{scenario} {text}: server.py names {mistake}, check {j['mistake_id']}")
    expect(feedback == j["feedback"], f"{scenario} {text}: server.py says {feedback!r}, check {j['feedback']!r}")


def main(argv):
    cli, seed7, workdir, fixture = argv[1:5]

    # ---- Exercise 1 of the chapter, 30 variants of seed 7 ------------------------------------------
    info = check_info(seed7, 30)
    check_question_html(seed7)
    check_standard_library_only(seed7)
    server = load_server(seed7, "seed7_server")
    # generate(): variant index = variant_seed mod 30. (2^63 + 5) mod 30, by hand: 2^63 is even,
    # 2 mod 3 (an odd power of 2) and 3 mod 5 (2^4 = 1 mod 5, 63 = 3 mod 4: 2^3 = 8), so 2^63 = 8
    # mod 30 and 2^63 + 5 = 13 mod 30: variant 14.
    for variant_seed, number in ((0, 1), (30, 1), (31, 2), (59, 30), (2**63 + 5, 14)):
        data = generated(server, variant_seed)
        expect(data["params"]["number"] == number, f"variant_seed {variant_seed}: variant {data['params']['number']}")
    data = generated(server, 0)
    # Variant 1 of seed 7 (docs/variants.md): seed 7191089600892374487, query [-1, 2], readout
    # [2, 2] over [a, 0], [0, a], [0, 0]: scores -a, 2a, 0; exponentials 1/2, 4, 1 (total 11/2);
    # weights 1/11, 8/11, 2/11; context [a/11, 8a/11]; readout 2(a/11) + 2(8a/11) = 18a/11.
    a = math.log(2)
    expect(data["params"]["seed"] == "7191089600892374487", f"variant 1 seed {data['params']['seed']}")
    expect("\\([-1, 2]\\)" in data["params"]["prompt"], f"variant 1 prompt: {data['params']['prompt']}")
    expect(abs(data["correct_answers"]["answer"] - 18 * a / 11) < 1e-12, "variant 1: correct answer is not 18a/11")
    expect(data["params"]["exact"].startswith("18a/11 with a = ln 2"), f"variant 1 exact: {data['params']['exact']}")
    # The mistakes, by hand on the same trace (docs/check.md's registry):
    #   divide-by-count: weights = exponentials / 3 = [1/6, 4/3, 1/3], readout 2(a/6) + 2(4a/3) = 3a
    #   forget-exp: k = [-1, 2, 0] over their sum 1: weights [-1, 2, 0], readout -2a + 4a = 2a
    #   e-instead-of-2: weights e^k / S, S = e^-1 + e^2 + 1, readout 2a(e^-1 + e^2)/S
    #   equal-weights: [1/3, 1/3, 1/3], readout 2(a/3) + 2(a/3) = 4a/3
    #   unnormalized-exponentials: [1/2, 4, 1], readout 2(a/2) + 2(4a) = 9a
    #   drop-a: 18/11
    s = math.exp(-1) + math.exp(2) + 1
    mistakes = {"divide-by-count": 3 * a, "forget-exp": 2 * a, "e-instead-of-2": 2 * a * (math.exp(-1) + math.exp(2)) / s,
                "equal-weights": 4 * a / 3, "unnormalized-exponentials": 9 * a, "drop-a": 18 / 11}
    target, tolerance = "/reads/exercise-1/readout", "0.001"
    scenario = os.path.join(seed7, "variant-01.json")
    for text in ("1.134", "1.1342408409", "1.135", "1.1333"):  # within 0.001 of 1.1342408
        got = verdict(server, data, text)
        expect(got[0] == 1 and got[1] == "Right (absolute tolerance 1/1000).", f"variant 1 {text}: {got}")
        same_as_check(cli, scenario, target, tolerance, text, got)
    for mistake, value in mistakes.items():
        for text in ("%.6f" % value, "%.3f" % value):
            got = verdict(server, data, text)
            expect(got[0] == 0 and got[2] == mistake, f"variant 1 {text}: {got}, expected {mistake}")
            same_as_check(cli, scenario, target, tolerance, text, got)
    # 1.136 is 0.0018 from 18a/11 and 0.09 or more from every mistake: wrong, no mistake named;
    # |1.136 − 1.1342408| = 0.0017592, 0.00176 to 3 figures.
    # and 1.133 is 1.1342408 − 1.133 = 0.0012408 below it, 0.00124.
    for text, far in (("1.136", "0.00176"), ("1.133", "0.00124")):
        got = verdict(server, data, text)
        expect(got == (0, f"Wrong: no known mistake reproduces it; it is {far} from the exact value.", None),
               f"variant 1 {text}: {got}")
        same_as_check(cli, scenario, target, tolerance, text, got)
    for text, why in (("3a", "decimal number"), ("1,134", "decimal number"), ("", "decimal number"),
                      ("1e-41", "at most 40")):
        out = submit(server, data, text)
        expect(why in out["format_errors"].get("answer", ""), f"variant 1 {text!r}: no format error ({out})")

    # ---- the tolerance's boundary: answers 1/2 and 4/5 ---------------------------------------------
    out = os.path.join(workdir, "terminating")
    cmd = [cli, "variants", fixture, "--exercise", "w", "--count", "2", "--seed", "1", "-o", out]
    subprocess.run(cmd, check=True, capture_output=True)
    check_info(out, 2)
    check_question_html(out)
    check_standard_library_only(out)
    server = load_server(out, "terminating_server")
    # Query [k] over [a], [0], [0], [0], [0]: scores ka, 0, 0, 0, 0; exponentials 2^k, 1, 1, 1, 1;
    # first weight 2^k/(2^k + 4): k = 2 gives 4/8 = 1/2, k = 4 gives 16/20 = 4/5.
    by_answer = {}
    for variant_seed in (0, 1):
        data = generated(server, variant_seed)
        by_answer[round(data["correct_answers"]["answer"], 6)] = data
    expect(set(by_answer) == {0.5, 0.8}, f"terminating: answers {sorted(by_answer)}, expected 1/2 and 4/5")
    half = by_answer.get(0.5)
    if half is not None:
        files = {1: "variant-01.json", 2: "variant-02.json"}
        scenario = os.path.join(out, files[half["params"]["number"]])
        target = "/reads/r1/weights/0"
        # |s − 1/2| ≤ 1/1000, the boundary included, decided exactly.
        cases = [("0.501", 1, None), ("0.499", 1, None), ("0.5010", 1, None), ("50.1%", 1, None),
                 ("5.01e-1", 1, None), ("1/2", 1, None), ("2/4", 1, None), ("0.5011", 0, None),
                 ("0.4989", 0, None), ("0.50100000000000000000000000000000000001", 0, None),
                 # k = 2: exponentials 4, 1, 1, 1, 1 (total 8).
                 ("0.8", 0, "divide-by-count"),            # 4/5: divided by 5 positions
                 ("4/5", 0, "divide-by-count"),
                 ("0.801", 0, "divide-by-count"),          # the boundary of the mistake too
                 ("1", 0, "forget-exp"),                   # 2/(2 + 0 + 0 + 0 + 0)
                 ("0.2", 0, "equal-weights"),              # 1/5
                 ("4", 0, "unnormalized-exponentials"),    # the exponential 4 itself
                 ("%.4f" % (math.exp(2) / (math.exp(2) + 4)), 0, "e-instead-of-2"),  # 0.6488
                 ("0.7", 0, None)]
        for text, score, mistake in cases:
            got = verdict(server, half, text)
            expect(got[0] == score and got[2] == mistake, f"answer 1/2, {text}: {got}, expected {score} {mistake}")
            same_as_check(cli, scenario, target, "0.001", text, got)
        got = verdict(server, half, "0.7")  # 0.7 − 1/2 = 1/5: "0.2"
        expect(got[1] == "Wrong: no known mistake reproduces it; it is 0.2 from the exact value.", f"0.7: {got}")

    # ---- the same seed gives the same bytes; another seed another question ------------------------
    again = os.path.join(workdir, "terminating-again")
    subprocess.run(cmd[:-1] + [again], check=True, capture_output=True)
    other = os.path.join(workdir, "terminating-seed2")
    subprocess.run(cmd[:-3] + ["2", "-o", other], check=True, capture_output=True)
    for name in ("info.json", "question.html", "server.py"):
        with open(os.path.join(out, name), "rb") as f1, open(os.path.join(again, name), "rb") as f2:
            expect(f1.read() == f2.read(), f"{name}: the same seed wrote different bytes")
    with open(os.path.join(other, "info.json"), encoding="utf-8") as f:
        expect(json.load(f)["uuid"] != check_info(out, 2)["uuid"], "two seeds gave one uuid")
    expect(info["uuid"] != check_info(out, 2)["uuid"], "two exercises gave one uuid")

    for line in FAILURES:
        print("FAIL:", line)
    print(f"check_prairielearn: {'failed' if FAILURES else 'passed'} ({len(FAILURES)} failures)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
