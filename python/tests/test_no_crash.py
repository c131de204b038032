# SPDX-License-Identifier: MIT
"""No input kills the interpreter: every binding raises the module's errors instead.

Each test runs its calls in a child interpreter and checks the child's exit status, since a
crash (std::terminate's abort, exit 134; a stack overflow's SIGSEGV, exit 139) would otherwise
take the test runner with it. The fuzz test feeds seeded random inputs to every binding and
allows only exactattn.Error (whose ShapeError is also a TypeError and a ValueError): pybind11's
``RuntimeError: Unable to cast``, the builtin TypeError it raises for a call no overload accepts,
and any other exception are failures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

SEED = int(os.environ.get("EXACTATTN_TEST_SEED", "27"))
MULTIPLIER = max(1, int(os.environ.get("EXACTATTN_TEST_MULTIPLIER", "1")))


def run_child(code: str, timeout: float = 240) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                       timeout=timeout, env=dict(os.environ))
    return p.returncode, p.stdout, p.stderr


def test_wrong_types_raise_the_modules_errors():
    # Each of these raised "RuntimeError: Unable to cast" through pybind11.
    code, out, err = run_child("""
        import json, exactattn
        seen = {}
        def kind(f):
            try:
                f()
            except Exception as e:
                return [type(e).__name__, isinstance(e, TypeError), isinstance(e, ValueError), str(e)]
            return None
        seen["encode_int"] = kind(lambda: exactattn.encode(123))
        seen["encode_list_of_int"] = kind(lambda: exactattn.encode(["红色", 5]))
        seen["encode_surrogate"] = kind(lambda: exactattn.encode("红色 \\ud800"))
        seen["value_surrogate"] = kind(lambda: exactattn.Value("1+\\udcff"))
        seen["padding_2_64"] = kind(lambda: exactattn.attend([[1, 0], [0, 1]], [([[1, 0], [0, 1]],) * 3],
                                                             padding=[2**64]))
        seen["padding_zero"] = kind(lambda: exactattn.attend([[1, 0], [0, 1]], [([[1, 0], [0, 1]],) * 3],
                                                             padding=[0]))
        seen["padding_text"] = kind(lambda: exactattn.attend([[1, 0], [0, 1]], [([[1, 0], [0, 1]],) * 3],
                                                             padding=["1"]))
        seen["scenario_text_surrogate"] = kind(lambda: exactattn.Scenario.from_json('{"title": "\\udc80"}'))
        seen["report_format_int"] = kind(lambda: exactattn.Scenario.chapter14().report(7))
        print(json.dumps(seen))
    """)
    assert code == 0, err
    seen = json.loads(out)
    # A wrong type is a ShapeError: a TypeError (and a ValueError).
    for name in ["encode_int", "encode_list_of_int", "padding_text", "report_format_int"]:
        cls, is_type, _, message = seen[name]
        assert cls == "ShapeError" and is_type, (name, seen[name])
        assert "Unable to cast" not in message
    assert seen["encode_list_of_int"][3].startswith("tokens[1]: expected a str, got int")
    # A lone surrogate is text no UTF-8 holds: a ParseError (a ValueError) naming it and its index.
    assert seen["encode_surrogate"][:3] == ["ParseError", False, True]
    assert "U+D800 at index 3" in seen["encode_surrogate"][3]
    assert seen["value_surrogate"][0] == "ParseError" and "U+DCFF at index 2" in seen["value_surrogate"][3]
    assert seen["scenario_text_surrogate"][0] == "ParseError" and "U+DC80" in seen["scenario_text_surrogate"][3]
    # Positions past the two keys, however large, are out of range (not wrapped into 64 bits).
    assert seen["padding_2_64"][0] == "ReferenceError"
    assert seen["padding_2_64"][3] == "padding: padding position 18446744073709551616 is out of range 1..2"
    assert seen["padding_zero"][3] == "padding: padding position 0 is out of range 1..2"


def test_deep_expression_past_the_stack_is_a_limit_error():
    # max_nesting raised far past what a stack holds: the parser refuses at the stack's end,
    # on the main thread (8 MiB here) and on a thread with a small stack alike, instead of
    # overflowing it (SIGSEGV, exit 139).
    code, out, err = run_child("""
        import json, threading, exactattn
        results = {}
        def parse(name, depth):
            try:
                with exactattn.limits(max_nesting=10**9):
                    v = exactattn.Value("(" * depth + "1" + ")" * depth)
                results[name] = ["value", str(v)]
            except exactattn.Error as e:
                results[name] = [type(e).__name__, str(e)]
        parse("main_shallow", 1000)
        parse("main_deep", 1000000)
        try:  # unary signs nest too
            with exactattn.limits(max_nesting=10**9):
                exactattn.Value("-" * 1000000 + "1")
            results["main_deep_signs"] = ["value", ""]
        except exactattn.Error as e:
            results["main_deep_signs"] = [type(e).__name__, str(e)]
        threading.stack_size(256 * 1024)
        t = threading.Thread(target=parse, args=("thread_deep", 1000000))
        t.start(); t.join()
        print(json.dumps(results))
    """)
    assert code == 0, (code, err[-2000:])
    results = json.loads(out)
    # 1 in a thousand pairs of parentheses is 1.
    assert results["main_shallow"] == ["value", "1"]
    for name in ["main_deep", "thread_deep", "main_deep_signs"]:
        cls, message = results[name]
        assert cls == "LimitError", (name, message)
        assert "more than this thread's stack holds" in message and "max_nesting" in message


def test_out_of_memory_is_a_memory_error_not_an_abort():
    # Under an address-space cap a few hundred MiB above what the interpreter already uses, a
    # read of 10^7 rows of 4 ints (a 320 MB compact memory) and a 2500-row attention layer (6.25
    # million exact scores, with the trace-size limit lifted) run out of memory: each must raise
    # exactattn.OutOfMemoryError (a LimitError and a MemoryError) with the command line's "out of
    # memory" message, and the interpreter must go on (the reserve is taken again, so a second
    # failure is reported the same way).
    code, out, err = run_child("""
        import json, resource, exactattn
        def vm_bytes():
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmSize:"):
                        return int(line.split()[1]) * 1024
        cap = vm_bytes() + (256 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        rows = [[1, 2, 3, 4]] * 10**7
        def attend_unbounded(x):
            # The trace-size prediction refuses this layer up front (limits: max_report_cells);
            # lifted, the layer runs until memory ends.
            with exactattn.limits(max_report_cells=2**62):
                return exactattn.attend(x, [([[1]], [["a"]], [[1]])])
        results = []
        for call in [lambda: exactattn.read(rows, [1, 0, 0, 0]),
                     lambda: attend_unbounded([[1]] * 2500),
                     lambda: exactattn.read(rows, [1, 0, 0, 0])]:
            try:
                call()
                results.append(["finished", ""])
            except exactattn.Error as e:
                results.append([type(e).__name__, str(e), isinstance(e, exactattn.LimitError),
                                isinstance(e, MemoryError), e.kind])
        print(json.dumps(results))
    """)
    assert code == 0, (code, err[-2000:])
    results = json.loads(out)
    assert len(results) == 3
    for cls, message, is_limit, is_memory, kind in results:
        assert (cls, is_limit, is_memory, kind) == ("OutOfMemoryError", True, True, "LimitError"), message
        assert message.startswith("out of memory: ")


def test_seeded_random_inputs_never_kill_the_interpreter():
    code, out, err = run_child(f"""
        import json, random, exactattn
        from fractions import Fraction
        rng = random.Random({SEED})
        ATOMS = ["a", "0", "1", "-1", "2^(1/2)", "a/3", "1/0", "exp(1)", "(", "[", "]", "[[a,0],[0,a]]",
                 "\\ud800", "\\udcff", "\\x1b[31m", "\\u2013", "", " ", "1e999999", "2^(1/100)", "@/nonexistent",
                 "红色", "。", "<script>", "\\x00", "a^65", "((((1))))", "9" * 50]
        def junk(depth=0):
            r = rng.random()
            if r < 0.2:
                return rng.choice([0, 1, -1, 2**64, -2**63, 2**200, 3, 10**30])
            if r < 0.3:
                return rng.choice([0.5, float("nan"), float("inf"), True, None, b"\\xff", object(), {{}}, set()])
            if r < 0.35:
                return Fraction(rng.randint(-9, 9), rng.randint(1, 9))
            if r < 0.6:
                return "".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 4)))
            if depth > 2:
                return "a"
            n = rng.randint(0, 4)
            return [junk(depth + 1) for _ in range(n)]
        def matrix():
            if rng.random() < 0.5:
                return junk()
            n, d = rng.randint(1, 3), rng.randint(1, 3)
            return [[rng.choice([0, 1, -1, "a", "a/2", junk(3)]) for _ in range(d)] for _ in range(n)]
        chapter = exactattn.Scenario.chapter14()
        calls = [
            lambda: exactattn.Value(junk()),
            lambda: exactattn.Value("1") + junk(),
            lambda: exactattn.Value("a") < junk(),
            lambda: exactattn.exp(junk()),
            lambda: exactattn.pow(junk(), junk()),
            lambda: exactattn.read(matrix(), junk(), readout=junk() if rng.random() < 0.3 else None,
                                   remove=junk() if rng.random() < 0.3 else (),
                                   zero=junk() if rng.random() < 0.3 else ()),
            lambda: exactattn.read(matrix(), [1, 0], unit=junk()),
            lambda: exactattn.attend(matrix(), [(matrix(), matrix(), matrix())] * rng.randint(0, 2),
                                     wo=matrix() if rng.random() < 0.3 else None,
                                     causal=rng.random() < 0.5, padding=junk() if rng.random() < 0.3 else (),
                                     mask=junk() if rng.random() < 0.3 else None,
                                     scale=rng.choice(["none", "sqrt-dk", "1/2", junk()]),
                                     memory=matrix() if rng.random() < 0.2 else None),
            lambda: exactattn.attend(matrix(), junk()),
            lambda: exactattn.encode(junk()),
            lambda: chapter.check(target=rng.choice(["/reads/example-14.1/weights", junk()]), proposed=junk()),
            lambda: chapter.check(junk()),
            lambda: chapter.report(junk()),
            lambda: chapter.crosscheck(junk()),
            lambda: exactattn.Scenario.from_json(junk(), junk()),
            lambda: exactattn.Scenario.load(junk()),
            lambda: exactattn.limits(**{{rng.choice(["max_nesting", "max_root", "bogus"]): junk()}}),
        ]
        counts = {{"calls": 0, "ok": 0, "module": 0, "operator": 0}}
        bad = []
        for i in range({300 * MULTIPLIER}):
            k = rng.randrange(len(calls))
            counts["calls"] += 1
            try:
                calls[k]()
                counts["ok"] += 1
            except exactattn.Error:
                counts["module"] += 1
            except TypeError as e:
                # An operator with an operand that is no number (Value + object()): Value declines
                # (NotImplemented) so that the other operand's reflected method may answer, and
                # Python raises its own TypeError when neither does, as for 1 + object()
                # (docs/python.md). Any other TypeError (pybind11 refusing a call) is a failure.
                operator = k in (1, 2) and ("unsupported operand" in str(e) or "not supported between" in str(e))
                if operator:
                    counts["operator"] += 1
                else:
                    bad.append([i, k, type(e).__name__, str(e)[:200]])
            except Exception as e:
                bad.append([i, k, type(e).__name__, str(e)[:200]])
        print(json.dumps({{"counts": counts, "bad": bad}}))
    """)
    assert code == 0, (code, err[-2000:])
    result = json.loads(out)
    assert result["bad"] == [], result["bad"][:5]
    counts = result["counts"]
    assert counts["calls"] == 300 * MULTIPLIER
    # The inputs are mostly junk: most calls must be refused by the module, a few must succeed.
    assert counts["module"] > counts["calls"] // 2 and counts["ok"] > 0, counts


def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path):
    # A path with byte 0xFF (os.fsencode of the surrogate U+DCFF) names a missing file: the
    # error's message shows the byte as the command line does, <0xFF>, instead of failing to
    # become a str (UnicodeDecodeError).
    missing = os.fsdecode(os.fsencode(str(tmp_path)) + b"/b\xff.json")
    code, out, err = run_child(f"""
        import exactattn
        try:
            exactattn.Scenario.load({missing!r})
        except exactattn.UsageError as e:
            print(str(e))
    """)
    assert code == 0, err
    assert f"{tmp_path}/b<0xFF>.json" in out, out


def test_gmp_running_out_of_memory_in_a_loop_is_a_memory_error_not_an_abort():
    # A loop that keeps large values, each call within every limit, until the address space
    # ends inside GMP's own allocation (the limbs of a product): "GNU MP: Cannot reallocate
    # memory" and exit 134 before, exactattn.OutOfMemoryError now (a MemoryError and a
    # LimitError: the module gives GMP its throwing allocator).
    code, out, err = run_child("""
        import resource, exactattn
        def vm_bytes():
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmSize:"):
                        return int(line.split()[1]) * 1024
        cap = vm_bytes() + (24 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        kept = []
        try:
            for _ in range(1000):
                kept.append(exactattn.Value("3^1048575*3^1048575*3^1048575*3^1048575"))
            print("finished")
        except MemoryError as e:
            kept.clear()
            print(type(e).__name__, isinstance(e, exactattn.LimitError), str(e)[:13])
    """, timeout=120)
    assert code == 0, (code, err[-2000:])
    assert out.strip() == "OutOfMemoryError True out of memory", out
