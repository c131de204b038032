# SPDX-License-Identifier: MIT
"""Shared by the render checks: what the CLI offers (read from its --help), every output of a
scenario, the values of Chapter 14 typed by hand, a pool of at most two workers, the skip
convention and the report. Standard library only (Debian's /usr/bin/python3)."""
import argparse
import concurrent.futures
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77  # ctest SKIP_RETURN_CODE of every render test
SETUP_HINT = "install with EXACTATTN_WITH_RENDER=1 bash scripts/setup.sh"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILTIN = "chapter14"  # the CLI's built-in scenario; its JSON twin is data/chapter14/chapter14.json
CHAPTER_TOKENS = ["红色", "钥匙", "。"]

# Values of Chapter 14, typed by hand from the chapter (never from the program's output), by the
# output they must appear in. A vector is written as the chapter writes it.
CHAPTER_VALUES = {
    "run": {"Example 14.1 weights": "[1/2, 1/4, 1/4]", "Example 14.1 context": "[a/2, a/4]",
            "Example 14.2 weights": "[1/4, 1/2, 1/4]", "Section 14.4 blue context": "[0, a/3]",
            "Exercise 1 weights": "[2/5, 2/5, 1/5]"},
    "answers": {"Exercise 1 weights": "[2/5, 2/5, 1/5]", "Exercise 1 context": "[2a/5, 2a/5]"},
    "encode-red": {"Example 14.1 states": "[a, 0] [0, a] [0, 0]"},
    "read-example-14.1": {"Example 14.1 weights": "[1/2, 1/4, 1/4]"},
}


def skip(reason):
    print(f"SKIPPED: {reason}")
    sys.exit(SKIP)


def absent(what):
    """A tool is missing: skipped, except where scripts/setup.sh was asked to install the render
    tools (EXACTATTN_WITH_RENDER=1, as scripts/test.sh and so CI do): there it is a failure, so
    that CI never passes with the render checks silently skipped."""
    if os.environ.get("EXACTATTN_WITH_RENDER") == "1":
        print(f"FAIL: {what} not found, though EXACTATTN_WITH_RENDER=1 (scripts/setup.sh installs it)")
        sys.exit(1)
    skip(f"{what} not found ({SETUP_HINT})")


def require_tool(name):
    path = shutil.which(name)
    if path is None:
        absent(name)
    return path


def jobs():
    """At most two compiles or browsers at once (the machine this runs on has two cores)."""
    return max(1, int(os.environ.get("EXACTATTN_RENDER_JOBS", "2")))


def parallel(function, items):
    """function(item) for every item, at most jobs() at once, results in the order of items."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs()) as pool:
        return list(pool.map(function, items))


class Capabilities:
    """What each subcommand of the CLI accepts, read from its --help (CLI11 prints the --format
    choices as `--format TEXT:{text,markdown,...}` and every flag by name)."""
    COMMANDS = ("run", "answers", "read", "encode", "crosscheck")

    def __init__(self, cli):
        self.formats, self.flags = {}, {}
        for command in self.COMMANDS:
            done = subprocess.run([cli, command, "--help"], capture_output=True, text=True,
                                  timeout=60)
            match = re.search(r"--format\s+TEXT:\{([^}]*)\}", done.stdout)
            self.formats[command] = set(match.group(1).split(",")) if match else set()
            self.flags[command] = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", done.stdout))

    def missing(self, command, fmt, flags=()):
        """Why `command --format fmt flags` cannot be asked for yet, or None when it can."""
        if fmt not in self.formats[command]:
            offered = ",".join(sorted(self.formats[command])) or "none"
            return f"`{command}` has no --format {fmt} yet (its --help offers {offered})"
        absent = [f for f in flags if f not in self.flags[command]]
        if absent:
            return f"`{command}` has no {' '.join(absent)} yet"
        return None


class Output:
    """One CLI invocation: argv without --format; run() returns (text, error)."""

    def __init__(self, name, argv):
        self.name, self.argv = name, argv
        self.command = argv[0]

    def run(self, cli, fmt, flags=()):
        done = subprocess.run([cli, *self.argv, "--format", fmt, *flags], capture_output=True,
                              text=True, timeout=120)
        if done.returncode != 0:
            return None, f"the CLI failed: exit {done.returncode}: {done.stderr.strip()}"
        return done.stdout, None


def _row(values):
    return "[" + ",".join(str(v) for v in values) + "]"


def load_scenario(arg):
    """The scenario's JSON (the built-in chapter14 is data/chapter14/chapter14.json)."""
    path = os.path.join(REPO, "data", "chapter14", "chapter14.json") if arg == BUILTIN else arg
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def scenario_name(arg):
    return "builtin-chapter14" if arg == BUILTIN else os.path.splitext(os.path.basename(arg))[0]


def is_chapter(arg):
    return scenario_name(arg) in ("builtin-chapter14", "chapter14")


def scenario_outputs(arg):
    """Every output of a scenario (a file, or the built-in chapter14) a format applies to: the
    report, the answer key (when the scenario has exercises), the crosscheck, the encoder states
    of each token source, one read per declared read whose source is a literal memory, and for
    the chapter the read of Example 14.1."""
    scenario = load_scenario(arg)
    outputs = [Output("run", ["run", arg])]
    if scenario.get("exercises"):
        outputs.append(Output("answers", ["answers", arg]))
    outputs.append(Output("crosscheck", ["crosscheck", arg]))
    for name, source in scenario.get("sources", {}).items():
        tokens = source if isinstance(source, list) else source.get("tokens")
        if tokens is not None and "encoder" in scenario:
            outputs.append(Output(f"encode-{name}", ["encode", "--scenario", arg,
                                                     "--tokens", " ".join(tokens)]))
    for name, read in scenario.get("reads", {}).items():
        source = scenario["sources"][read["source"]]
        if isinstance(source, dict) and "memory" in source:
            memory = "[" + ",".join(_row(r) for r in source["memory"]) + "]"
            argv = ["read", "--memory", memory, "--query", _row(scenario["queries"][read["query"]])]
            if "readout" in read:
                argv += ["--readout", _row(scenario["readouts"][read["readout"]])]
            outputs.append(Output(f"read-{name}", argv))
    if is_chapter(arg):
        # Example 14.1 by hand: h1 = relu([a,0]) = [a,0], h2 = relu([a,0]+[-a,a]) = [0,a],
        # h3 = relu([0,a]+[0,-a]) = [0,0]; query q1 = [1,0], readout r = [1,2].
        outputs.append(Output("read-example-14.1", ["read", "--memory", "[[a,0],[0,a],[0,0]]",
                                                    "--query", "[1,0]", "--readout", "[1,2]"]))
    return outputs


class Document:
    """One output of one scenario in one format and variant, with what it must show."""

    def __init__(self, arg, output, variant, flags):
        self.name = f"{scenario_name(arg)}.{output.name}.{variant}"
        self.output, self.flags = output, flags
        chapter = is_chapter(arg)
        self.values = CHAPTER_VALUES.get(output.name, {}) if chapter else {}
        # The chapter's tokens must render in its report (a CJK font that has them).
        self.tokens = CHAPTER_TOKENS if chapter and output.name == "run" else []

    def text(self, cli, fmt):
        return self.output.run(cli, fmt, self.flags)


class FileDocument:
    """A file given on the command line, with the values and tokens it must show."""

    def __init__(self, path, values, tokens):
        self.name, self.path, self.values, self.tokens = os.path.basename(path), path, values, tokens

    def text(self, cli, fmt):
        with open(self.path, encoding="utf-8") as f:
            return f.read(), None


def require_pil():
    try:
        import PIL  # noqa: F401
    except ImportError:
        absent("python3-pil")


def blank(png):
    """A PNG in one colour: nothing was drawn."""
    from PIL import Image  # python3-pil
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return all(low == high for low, high in image.getextrema())


def parse_arguments(doc, kind, extension, add_options=lambda parser: None):
    """The command line every checker shares; `add_options` adds a checker's own."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("inputs", nargs="+",
                        help=f"scenario files or {BUILTIN} (with --cli), or .{extension} files")
    parser.add_argument("--cli", help="the exactattn binary: check the outputs of scenarios")
    parser.add_argument("--workdir", help="keep the files written and made here")
    parser.add_argument("--expect-value", action="append", default=[], metavar="NAME=VECTOR",
                        help="a file must show this value, e.g. 'weights=[1/2, 1/4, 1/4]'")
    parser.add_argument("--expect-token", action="append", default=[], metavar="TOKEN",
                        help="a file must show this token")
    parser.add_argument("--expect-reject", action="append", default=[], metavar="REASON",
                        help="pass only if every document fails with this reason (a fixture)")
    parser.add_argument("--known-fault", action="append", default=[], metavar="NAME: REASON",
                        help="a fault of the CLI being fixed: reported, not counted, until fixed")
    add_options(parser)
    return parser.parse_args()


def inputs(args, fmt, variants):
    """The documents to check: the scenarios' outputs with --cli, else the files given."""
    if args.cli:
        return documents(args.cli, args.inputs, fmt, variants)
    values = dict(v.split("=", 1) for v in args.expect_value)
    return [FileDocument(path, values, args.expect_token) for path in args.inputs]


class WorkDir:
    """--workdir, or a temporary directory removed at exit."""

    def __init__(self, args, kind):
        self._scratch = None if args.workdir else tempfile.TemporaryDirectory(prefix=f"exactattn-{kind}-")
        self.path = args.workdir or self._scratch.name
        os.makedirs(self.path, exist_ok=True)
        print(f"{kind}: files in {self.path}")

    def file(self, name, extension):
        stem = re.sub(r"[^\w.-]", "_", name.removesuffix("." + extension))
        return os.path.join(self.path, f"{stem}.{extension}")


def documents(cli, args, fmt, variants):
    """Every Document of the scenarios in `args` that the CLI offers in `fmt` with the flags of
    a variant; prints one line for each that it does not offer yet, so that the switch-on is
    visible in the test's output."""
    caps = Capabilities(cli)
    found = []
    for arg in args:
        for output in scenario_outputs(arg):
            for variant, flags in variants:
                document = Document(arg, output, variant, flags)
                why_not = caps.missing(output.command, fmt, flags)
                if why_not:
                    print(f"skipped {document.name}: {why_not}")
                else:
                    found.append(document)
    return found


def figure_arguments(description, files):
    """The command line of a figure checker (check_svg, check_layout, check_tikz): `files` given,
    or with --cli every figure of the scenarios; --expect-reject for a broken fixture."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("inputs", nargs="+", help=f"{files}, or scenarios with --cli")
    parser.add_argument("--cli", help="the exactattn binary: the inputs are scenarios")
    parser.add_argument("--workdir", help="where the figures are written (with --cli) or compiled")
    parser.add_argument("--expect-reject", action="append", default=[], metavar="REASON",
                        help="pass only if every file fails with this reason (a fixture)")
    return parser.parse_args()


def short_text(text):
    """A label for a message: whitespace runs as one space, at most 50 characters."""
    text = re.sub(r"\s+", " ", text)
    return text if len(text) <= 50 else text[:47] + "…"


def text_box_failures(boxes, x_min, y_min, width, height, where, tolerance=0.05):
    """boxes: (x0, y0, x1, y1, text) of a figure's labels, y down. Each must lie within the
    canvas (x_min, y_min, width, height), called `where` in the message, and no two may overlap
    by more than `tolerance` either way (boxes touching at a rounded coordinate do not)."""
    failures = []
    for x0, y0, x1, y1, t in boxes:
        if (x0 < x_min - tolerance or y0 < y_min - tolerance or x1 > x_min + width + tolerance
                or y1 > y_min + height + tolerance):
            failures.append(f"text leaves the {where}: \"{short_text(t)}\" spans x {x0:.1f}..{x1:.1f}, "
                            f"y {y0:.1f}..{y1:.1f} of {width:g} × {height:g}")
    ordered = sorted(boxes)
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            if b[0] >= a[2] - tolerance:
                break
            if (min(a[2], b[2]) - max(a[0], b[0]) > tolerance
                    and min(a[3], b[3]) - max(a[1], b[1]) > tolerance):
                failures.append(f"texts overlap: \"{short_text(a[4])}\" and \"{short_text(b[4])}\"")
    return failures


def report(kind, results, expect_reject=(), known_faults=()):
    """Prints each (name, failures) and returns the exit code. With `expect_reject` (the checker
    run on a deliberately broken fixture) it passes only if every document failed and every
    expected reason is among the failures. A known fault "NAME: REASON" (a fault of the CLI
    that its owner is fixing) is reported but not counted; once NAME no longer fails for REASON
    the check fails until the known fault is deleted, so that the fix is seen."""
    known = [fault.split(": ", 1) for fault in known_faults]
    fixed = [f"{n}: {r}" for n, r in known
             if not any(name == n and any(r in f for f in failures) for name, failures in results)]
    counted = []
    for name, failures in results:
        excused = [f for f in failures if any(name == n and r in f for n, r in known)]
        kept = [f for f in failures if f not in excused]
        print(f"{'FAIL' if kept else 'ok  '} {name}")
        for failure in kept:
            print(f"     {failure}")
        for failure in excused:
            print(f"     known fault, not counted: {failure}")
        counted.append((name, kept))
    for fault in fixed:
        print(f"FIXED known fault \"{fault}\": delete its --known-fault in tests/render/CMakeLists.txt")
    if not results:
        skip(f"no {kind} output was checked: the CLI offers none yet (each is listed above "
             f"with the reason); the checker itself is tested on tests/render/fixtures")
    failed = sum(1 for _, failures in counted if failures)
    print(f"{kind}: {len(results) - failed} passed, {failed} failed"
          + (f", {len(known) - len(fixed)} known faults" if known else ""))
    if not expect_reject:
        return 1 if failed or fixed else 0
    text = "\n".join(f for _, failures in results for f in failures)
    missed = [reason for reason in expect_reject if reason not in text]
    if failed < len(results) or missed:
        print(f"{kind}: the checker accepted what it must reject; reasons not reported: {missed}")
        return 1
    print(f"{kind}: rejected as expected ({', '.join(expect_reject)})")
    return 0


VECTOR = re.compile(r"\[[^\]]*\]")


def value_forms(value, stacked):
    """The ways a hand-typed value can read once typeset, whitespace removed: as typed and, when
    `stacked` (text extracted from a PDF, where \\tfrac{1}{2} reads "12"), without its slashes."""
    typed = re.sub(r"\s+", "", value)
    return [typed, typed.replace("/", "")] if stacked else [typed]


def missing_values(text, expected, stacked=False, columns=()):
    """The expected values (name -> one or more vectors) absent from `text` (whitespace removed,
    U+2212 read as '-'). A vector also counts as present when its entries are consecutive cells
    of one of `columns` (lists of cell texts, for a vector a table lists down a column)."""
    flat = re.sub(r"\s+", "", text).replace("\u2212", "-")
    absent = []
    for name, value in expected.items():
        for vector in VECTOR.findall(value):
            if any(form in flat for form in value_forms(vector, stacked)):
                continue
            entries = [e.strip() for e in vector.strip("[]").split(",")]
            if any(_consecutive(column, entries) for column in columns):
                continue
            absent.append(f"{name} {vector}")
    return absent


def _consecutive(column, entries):
    cells = [re.sub(r"\s+", "", c).replace("\u2212", "-") for c in column]
    for start in range(len(cells) - len(entries) + 1):
        # A derivation cell such as "2/4 = 1/2" ends with the value.
        if all(c == e or c.endswith("=" + e)
               for c, e in zip(cells[start:], [e.replace(" ", "") for e in entries])):
            return True
    return False
