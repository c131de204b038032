# SPDX-License-Identifier: MIT
"""exactattn: exact arithmetic for the mathematics of attention, as a textbook teaches it.

``a`` is ln 2, so exp(k·a) = 2^k and a softmax over scores that are rational multiples of
``a`` has exact weights. Values live in Q(2^(1/m))[a]; everything outside is refused with a
:class:`DomainError` that says why. Every call here is a thin binding of the C++ library the
``exactattn`` command line uses (no second implementation); the tutorial is docs/python.md.

>>> import exactattn
>>> exactattn.read([["a", 0], [0, "a"], [0, 0]], [1, 0]).weights
[1/2, 1/4, 1/4]
"""

from __future__ import annotations

import html
import json
import os
import shutil
import tempfile
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

from . import _exactattn as _ext
from ._errors import (CheckFailed, DomainError, Error, ExactattnWarning, LimitError, OutOfMemoryError,
                      ParseError, ReferenceError, ShapeError, UsageError)

__all__ = [
    "Value", "a", "exp", "ln", "pow", "Vector", "Trace", "read", "Layer", "attend", "encode", "Scenario",
    "Figure", "limits",
    "current_limits", "Error", "ParseError", "DomainError", "LimitError", "OutOfMemoryError", "ShapeError",
    "ReferenceError", "UsageError", "CheckFailed", "ExactattnWarning", "manuscript_check", "manuscript_fill", "manuscript_audit",
]
__version__ = _ext.__version__

Value = _ext.Value


# ---- arguments: a wrong type is the module's ShapeError, never a builtin TypeError -------------
# pybind11 refuses an argument its C++ type cannot take with a builtin TypeError listing the
# signatures; each argument is checked here first, by the keyword the caller wrote.

def _wrong_type(place: str, expected: str, got: Any) -> ShapeError:
    reason = f"expected {expected}, got {type(got).__name__} {got!r:.80}"
    return ShapeError(f"{place}: {reason}", place=place, reason=reason)


def _path(place: str, value: Any) -> str:
    """A file name: a str or an os.PathLike naming a str (bytes paths are not taken)."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise _wrong_type(place, "a path (str or os.PathLike)", value)
    return value


def _text(place: str, value: Any, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _wrong_type(place, "a str" + (" or None" if optional else ""), value)
    return value


def _whole(place: str, value: Any, low: int, high: int, optional: bool = False) -> int | None:
    """A whole number from low to high (a bool is not one); UsageError outside the range."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise _wrong_type(place, "a whole number" + (" or None" if optional else ""), value)
    n = value.__index__()
    if not low <= n <= high:
        reason = f"{n} is out of range: a whole number from {low} to {high}"
        raise UsageError(f"{place}: {reason}", place=place, reason=reason)
    return n


def _flag(place: str, value: Any) -> bool:
    if isinstance(value, bool) or type(value).__name__ == "bool_":  # NumPy's bool too
        return bool(value)
    raise _wrong_type(place, "True or False", value)


def _items(place: str, value: Any) -> list[Any]:
    """A list of an iterable argument (positions, heads); not a str, which iterates characters."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise _wrong_type(place, "a list", value)
    return list(value)


def _mapping(place: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise _wrong_type(place, "a dict", value)
    return dict(value)


def _write_files(directory: Any, files: Sequence[tuple[str, str]]) -> None:
    """Writes `files` into `directory` (created when missing) as `exactattn variants -o DIR` does:
    all or nothing. They are written into a fresh temporary directory inside it, synced, and only
    then renamed into place, the earlier files of the same names first moved aside and put back
    if a rename fails; any failure is a :class:`UsageError` naming the file, and leaves the
    directory's earlier files as they were."""
    root = _path("directory", directory)
    created = not os.path.exists(root)

    def refuse(path: str, what: str, e: OSError) -> UsageError:
        reason = f"cannot write {path}: {what}: {e.strerror or e}"
        return UsageError(f"directory: {reason}", place="directory", reason=reason)

    def abandon(tmp: str | None) -> None:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if created:
            try:
                os.rmdir(root)  # only if empty: nothing of the caller's is removed
            except OSError:
                pass

    try:
        os.makedirs(root, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".exactattn-", dir=root)
    except OSError as e:
        abandon(None)
        raise refuse(root, "cannot create the directory", e) from None
    try:
        for name, text in files:
            dest = os.path.join(root, name)
            if os.path.isdir(dest):
                raise IsADirectoryError(21, "Is a directory", dest)
            with open(os.path.join(tmp, name), "w", encoding="utf-8", newline="") as f:
                f.write(text)
        os.sync()  # one sync for the set, as the command line's syncfs
    except OSError as e:
        abandon(tmp)
        raise refuse(e.filename.replace(tmp, root) if isinstance(e.filename, str) else root, "write failed",
                     e) from None
    old = os.path.join(tmp, ".old")
    os.mkdir(old)
    aside: list[int] = []
    moved: list[int] = []
    try:
        for i, (name, _) in enumerate(files):
            if os.path.lexists(os.path.join(root, name)):
                os.rename(os.path.join(root, name), os.path.join(old, str(i)))
                aside.append(i)
        for i, (name, _) in enumerate(files):
            os.rename(os.path.join(tmp, name), os.path.join(root, name))
            moved.append(i)
    except OSError as e:
        try:
            for i in moved:
                os.remove(os.path.join(root, files[i][0]))
            for i in aside:
                os.rename(os.path.join(old, str(i)), os.path.join(root, files[i][0]))
            abandon(tmp)
        except OSError:
            pass  # the earlier files stay in the temporary directory rather than be lost
        raise refuse(root, "rename failed", e) from None
    shutil.rmtree(tmp, ignore_errors=True)

#: a = ln 2.
a: Value = Value.ln2()


def exp(x: Any) -> Value:
    """exp(x) when it is in the domain: x = r·a (r rational) gives 2^r.

    Anything else raises :class:`DomainError` with the engine's reason (e is transcendental,
    2^√2 by Gelfond–Schneider, exp(a²)).
    """
    return _ext.exp(_ext.to_value(x))


def ln(x: Any) -> Value:
    """ln(x) for x = 2^r (r rational): r·a. :class:`DomainError` otherwise."""
    return _ext.ln(_ext.to_value(x))


def pow(x: Any, y: Any) -> Value:  # noqa: A001 (exactattn.pow, the engine's power)
    """x^y for rational y: an integer y is a power; a fractional y is taken of one positive
    term c·2^(i/m)·a^k when the result is in the domain (√9 = 3, √18 = 3·√2).
    :class:`DomainError` otherwise (√3, (-2)^(1/2), 2^a)."""
    return _ext.pow(_ext.to_value(x), _ext.to_value(y))


# ---- Value conveniences written in Python (SymPy and fractions interop) ----------------------

def _as_fraction(self: Value) -> Fraction:
    """The value as a fractions.Fraction; :class:`DomainError` when it is not rational."""
    p, q = self._rational()
    return Fraction(p, q)


def _to_sympy(self: Value) -> Any:
    """The same number as a SymPy expression (a becomes log(2), 2^(1/m) a SymPy power)."""
    import sympy

    total = sympy.Integer(0)
    for k, (m, coeffs) in enumerate(self._terms()):
        for i, (p, q) in enumerate(coeffs):
            if p:
                total += sympy.Rational(p, q) * sympy.Integer(2) ** sympy.Rational(i, m) * sympy.log(2) ** k
    return total


def _from_sympy(expr: Any) -> Value:
    """The exact value of a SymPy expression built from rationals, log(2) (or the symbol a),
    +, −, ×, ÷, powers, exp and log. What lies outside the domain is refused with the engine's
    reason (``exp(1)``, ``sqrt(3)``) as :class:`DomainError`."""
    import sympy

    def refuse(reason: str) -> DomainError:
        return DomainError(f"from_sympy: {reason}", place="from_sympy", reason=reason)

    def walk(e: Any) -> Value:
        if e.is_Rational:
            return Value(Fraction(int(e.p), int(e.q)))
        if e.is_Float:
            raise refuse(f"the SymPy Float {e} is not exact: give a Rational")
        if e is sympy.E:
            return _ext.exp(Value(1))  # the engine says why e is outside the domain
        if isinstance(e, sympy.Symbol):
            if e.name == "a":
                return a
            raise refuse(f"the symbol {e} is not a number (only a, meaning ln 2, is known)")
        if isinstance(e, sympy.Add):
            total = Value(0)
            for t in e.args:
                total = total + walk(t)
            return total
        if isinstance(e, sympy.Mul):
            product = Value(1)
            for t in e.args:
                product = product * walk(t)
            return product
        if isinstance(e, sympy.Pow):
            return _ext.pow(walk(e.base), walk(e.exp))
        if isinstance(e, sympy.exp):
            return _ext.exp(walk(e.args[0]))
        if isinstance(e, sympy.log) and len(e.args) == 1:
            return _ext.ln(walk(e.args[0]))
        if e == sympy.pi:
            raise refuse("pi is transcendental, so in no Q(2^(1/m)), with no known form as a "
                         "polynomial in a")
        raise refuse(f"{e} is not a form exactattn reads (it knows rationals, a = ln 2, "
                     "+, -, *, /, powers, exp and log)")

    return walk(sympy.sympify(expr))


Value.as_fraction = _as_fraction
Value.to_sympy = _to_sympy
Value.from_sympy = staticmethod(_from_sympy)


# ---- vectors and traces ---------------------------------------------------------------------

class Vector(list):
    """A list of :class:`Value` (``None`` where a position is removed) that prints in the
    chapter's notation: ``[1/2, 1/4, 1/4]``. It compares like a list."""

    def __str__(self) -> str:
        return "[" + ", ".join("None" if x is None else str(x) for x in self) + "]"

    __repr__ = __str__

    def unicode(self) -> str:
        """``[√2 − 1, a²]``."""
        return "[" + ", ".join("—" if x is None else x.unicode() for x in self) + "]"

    def _repr_latex_(self) -> str:
        return "$[" + ", ".join(r"\text{—}" if x is None else x.latex() for x in self) + "]$"


def _vector(items: Iterable[Any]) -> Vector:
    return Vector(items)


_HEAD_ROWS = 20  # rows shown at each end of a long read's HTML table


class Trace:
    """One attention read, with the fields of ``exactattn read --format json``.

    ``query``, ``scores`` (``None`` where removed), ``exponentials`` (``None`` where removed),
    ``denominator``, ``weights`` (0 where removed), ``context`` and ``readout`` (``None``
    without a readout) are exact :class:`Value` objects; ``memory`` is a list of rows;
    ``included``, ``removed`` and ``zeroed`` are 1-based positions; ``context_decimal`` and
    ``readout_decimal`` are 6-place decimals. ``to_dict()`` is the CLI's JSON object, ``str()``
    its text table, and Jupyter shows the Table 14.1 layout (``_repr_html_``).
    """

    def __init__(self, trace: Any) -> None:
        self._t = trace
        self._cache: dict[str, Any] = {}

    def _get(self, name: str, make: Any) -> Any:
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]

    @property
    def query(self) -> Vector:
        return self._get("query", lambda: _vector(self._t.query()))

    @property
    def memory(self) -> list[Vector]:
        return self._get("memory", lambda: [_vector(r) for r in self._t.memory()])

    def _positions(self, mark: int) -> list[int]:
        return [j + 1 for j, m in enumerate(self._t.marks()) if m == mark or (mark < 0 and m != 1)]

    @property
    def included(self) -> list[int]:
        """Positions scored and summed, or zeroed (1-based)."""
        return self._positions(-1)

    @property
    def removed(self) -> list[int]:
        return self._positions(1)

    @property
    def zeroed(self) -> list[int]:
        return self._positions(2)

    @property
    def scores(self) -> Vector:
        return self._get("scores", lambda: _vector(self._t.scores()))

    @property
    def exponentials(self) -> Vector:
        return self._get("exponentials", lambda: _vector(self._t.exponentials()))

    @property
    def denominator(self) -> Value:
        return self._t.denominator()

    @property
    def weights(self) -> Vector:
        return self._get("weights", lambda: _vector(self._t.weights()))

    @property
    def context(self) -> Vector:
        return self._get("context", lambda: _vector(self._t.context()))

    @property
    def readout(self) -> Value | None:
        return self._t.readout()

    @property
    def context_decimal(self) -> list[str]:
        return [v.fixed(6) for v in self.context]

    @property
    def readout_decimal(self) -> str | None:
        r = self.readout
        return None if r is None else r.fixed(6)

    @property
    def fast_path(self) -> bool:
        """True when the shifted-integer fast path computed this read."""
        return self._t.fast_path()

    def to_json(self) -> str:
        """The JSON text of ``exactattn read --format json`` (one line and a newline)."""
        return self._t.json()

    def to_dict(self) -> dict[str, Any]:
        """The object of ``exactattn read --format json``: values as ascii strings."""
        return json.loads(self._t.json())

    def __str__(self) -> str:
        return self._t.text()

    def __repr__(self) -> str:
        n = self._t.rows()
        if n <= 8:
            return f"<exactattn.Trace weights={self.weights} context={self.context}>"
        return f"<exactattn.Trace of {n} positions, context={self.context}>"

    def _repr_html_(self) -> str:
        headers, rows, cut = self._t.table(_HEAD_ROWS)
        e = html.escape
        out = ['<table class="exactattn-read">', "<thead><tr>"]
        out += [f'<th style="text-align:left">{e(h)}</th>' for h in headers]
        out.append("</tr></thead><tbody>")
        for i, row in enumerate(rows):
            if cut and i == _HEAD_ROWS:
                out.append(f'<tr><td colspan="{len(headers)}">⋮ ({self._t.rows() - 2 * _HEAD_ROWS} '
                           "more positions)</td></tr>")
            out.append("<tr>" + "".join(f'<td style="text-align:left">{e(c)}</td>' for c in row) + "</tr>")
        out.append("</tbody></table>")
        lines = [f"Divide by {self.denominator.unicode()}."]
        if not cut:
            lines.append(f"Weights {self.weights.unicode()}.")
        approx = ", ".join(self.context_decimal)
        lines.append(f"Context {self.context.unicode()} ≈ [{approx}].")
        if self.readout is not None:
            lines.append(f"Readout {self.readout.unicode()} ≈ {self.readout_decimal}.")
        out.append("<p>" + "<br>".join(e(s) for s in lines) + "</p>")
        return "\n".join(out)


def read(memory: Any, query: Any, readout: Any = None, remove: Iterable[int] = (),
         zero: Iterable[int] = (), *, unit: Any = None,
         limits: Mapping[str, int] | None = None) -> Trace:
    """One attention read: scores q·h_j, exponentials, their sum, weights and the context.

    ``memory`` is a list of rows of ints, Fractions, Values or strings in the engine's notation
    (``[["a", 0], [0, "a"]]``), a string such as ``"[[a,0],[0,a]]"`` or ``"@file.json"`` (the
    CLI's ``--memory``), or a 2-D integer NumPy array; every entry is multiplied by ``unit``
    when it is given (``memory=np_array, unit="a"``: the integers go to the fast path without a
    Python object per entry). ``query`` and ``readout`` are vectors alike. ``remove`` and
    ``zero`` are 1-based positions to drop (remove-state) or to give score 0 (zero-score).
    ``limits`` applies other resource limits to this call only. The GIL is released while the
    library computes.
    """
    remove, zero = _items("remove", remove), _items("zero", zero)
    if limits is not None:
        with _ext._LimitsScope(_mapping("limits", limits)):
            return Trace(_ext.read(memory, query, readout, remove, zero, unit))
    return Trace(_ext.read(memory, query, readout, remove, zero, unit))


def _layer_values(node: Any) -> Any:
    if isinstance(node, str):
        return Value(node)
    if isinstance(node, list):
        return [_layer_values(x) for x in node]
    if isinstance(node, dict):
        return {k: _layer_values(v) for k, v in node.items()}
    return node  # None (a masked score) and the booleans of "masked"


def _labels(tokens: str | Sequence[str] | None) -> list[str]:
    if tokens is None:
        return []
    return tokens.split() if isinstance(tokens, str) else [str(t) for t in _items("tokens", tokens)]


class Layer(dict):
    """One attention layer's result (docs/attention.md): the object of ``exactattn attend
    --format json`` (``layer["heads"][0]["weights"]``, every exact entry a Value, masked scores
    None) with attributes for its parts, and its tables: ``str(layer)`` prints them, a notebook
    shows them as HTML with MathML (rows and columns labelled by ``tokens``)."""

    def __init__(self, text: str, render: Any, tokens: Sequence[str] = ()) -> None:
        super().__init__(_layer_values(json.loads(text)))
        self._render = render  # format -> the layer's tables, computed again when asked for
        self._labels = list(tokens)

    @property
    def tokens(self) -> list[str]:
        """The labels of the query rows (empty: numbered 1, 2, …)."""
        return list(self._labels)

    @property
    def heads(self) -> list[dict[str, Any]]:
        """Per head: ``queries``, ``keys``, ``values``, ``scores``, ``denominators``,
        ``weights`` and ``outputs``."""
        return self["heads"]

    def weights(self, head: int = 0) -> list[Vector]:
        """The attention weights of a head, one row per query (a masked key has weight 0)."""
        return [_vector(r) for r in self["heads"][head]["weights"]]

    @property
    def output(self) -> list[Vector]:
        """concat · W_O (+ X with the residual), or the concatenation itself."""
        return [_vector(r) for r in self["output"]]

    def table(self, format: str = "text") -> str:  # noqa: A002
        """The layer's tables as ``exactattn attend --format FORMAT`` prints them (text,
        markdown, latex, html, rst, csv); ``html`` is the body of the page, for a notebook."""
        return self._render(format)

    def __str__(self) -> str:
        return self.table("text")

    def __repr__(self) -> str:
        return f"<exactattn.Layer of {len(self['heads'])} head(s), output={self.output}>"

    def _repr_html_(self) -> str:
        return self.table("html")


def attend(x: Any, heads: Iterable[tuple[Any, Any, Any]], *, wo: Any = None, causal: bool = False,
           padding: Iterable[int] = (), mask: Any = None, scale: Any = "none", memory: Any = None,
           residual: bool = False, tokens: str | Sequence[str] | None = None,
           memory_tokens: str | Sequence[str] | None = None) -> Layer:
    """One attention layer (docs/attention.md), exactly.

    ``x`` is the sequence (rows, as ``read``'s memory); ``heads`` a list of ``(W_Q, W_K, W_V)``
    triples; ``scale`` is ``"none"``, ``"sqrt-dk"`` or an exact value (``"1/2"``); ``padding``
    1-based key positions masked for every query; ``mask`` rows of booleans (True = masked);
    ``memory`` the key/value sequence of cross-attention. ``tokens`` label the rows of ``x``
    (``"the cat sat"`` or a list; the keys too in self-attention), ``memory_tokens`` the rows of
    ``memory``. Returns a :class:`Layer`: the object of ``exactattn attend --format json`` with
    every exact entry a Value (masked scores None), and its tables.
    """
    labels = _labels(tokens)
    key_labels = _labels(memory_tokens) if memory is not None else labels
    causal, residual = _flag("causal", causal), _flag("residual", residual)
    rows = len(x) if isinstance(x, (list, tuple)) else None
    if labels and rows is not None and len(labels) != rows:
        raise ShapeError(f"tokens: {len(labels)} tokens label {rows} rows of x", place="tokens",
                         reason=f"{len(labels)} tokens label {rows} rows of x")
    args = (x, _items("heads", heads), wo, causal, _items("padding", padding), mask, scale, memory, residual)

    def render(format: str) -> str:  # noqa: A002
        # The tables are computed again from the same inputs when asked for: the layer's trace
        # is not kept beside the values, so a large layer costs its memory once.
        return _ext._attend(*args, format, labels, key_labels)

    return Layer(_ext._attend(*args, "json", [], []), render, labels)


def encode(tokens: str | Sequence[str], scenario: Scenario | str | None = None) -> list[Vector]:
    """Encoder states h_1..h_n of a token list (``"红色 。"`` or a list), under a scenario's
    encoder and vocabulary (default: the built-in Chapter 14 scenario)."""
    if scenario is None:
        scenario = Scenario.chapter14()
    elif not isinstance(scenario, Scenario):
        if not isinstance(scenario, (str, os.PathLike)):
            raise _wrong_type("scenario", "a Scenario or a path", scenario)
        scenario = Scenario.load(scenario)
    return scenario.encode(tokens)


# ---- scenarios ------------------------------------------------------------------------------

class Scenario:
    """A scenario file (docs/scenario.md): the declared inputs of a chapter's computations."""

    def __init__(self, scenario: Any) -> None:
        self._s = scenario

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Scenario:
        """Loads a scenario file (``"chapter14"`` names the built-in one)."""
        return cls(_ext._Scenario.load(_path("path", path)))

    @classmethod
    def chapter14(cls) -> Scenario:
        """The built-in Chapter 14 scenario (the CLI's default)."""
        return cls(_ext._Scenario.load("chapter14"))

    @classmethod
    def from_json(cls, text: str, file: str = "<string>") -> Scenario:
        """Parses scenario JSON text; ``file`` names it in error messages."""
        return cls(_ext._Scenario.parse(text, file))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], file: str = "<dict>") -> Scenario:
        """A scenario from a dict of the file's form (docs/scenario.md): numbers as ints,
        Fractions are not JSON, so exact values are strings (``"2/3"``, ``"a"``)."""
        try:
            text = json.dumps(_mapping("data", data), ensure_ascii=False)
        except (TypeError, ValueError) as e:  # a value JSON cannot hold (an object, a cycle)
            raise _wrong_type("data", f"a dict of JSON values ({e})", data) from None
        return cls.from_json(text, file)

    @property
    def file(self) -> str:
        return self._s.file

    @property
    def title(self) -> str:
        return self._s.title

    def __repr__(self) -> str:
        return f"<exactattn.Scenario {self.file!r}: {self.title}>"

    def run(self) -> dict[str, Any]:
        """Runs every read, intervention and cost case: the JSON report (``run --format json``,
        the document ``expect`` pointers address) as a dict."""
        return json.loads(self._s.report("json"))

    def report(self, format: str = "text") -> str:  # noqa: A002
        """The report as ``exactattn run --format FORMAT`` prints it (text, markdown, latex,
        html, rst, csv, json). In HTML, author TeX outside the MathML subset is kept verbatim and
        issues an :class:`ExactattnWarning` naming where it is written."""
        return self._s.report(format)

    def verify(self, strict: bool = False) -> dict[str, Any]:
        """Checks every ``expect`` entry by exact value: ``{"file", "passed", "failed",
        "failures": [{"pointer", "expected", "computed"}]}``. With ``strict``, a mismatch
        raises :class:`CheckFailed` naming the first one."""
        file, passed, failures = self._s.verify()
        result = {"file": file, "passed": passed, "failed": len(failures),
                  "failures": [{"pointer": p, "expected": x, "computed": c} for p, x, c in failures]}
        if strict and failures:
            p, x, c = failures[0]
            reason = (f"{p}: expected {x}, computed {c} (verify: {passed} passed, "
                      f"{len(failures)} failed)")
            raise CheckFailed(f"{file}: {reason}", place=file, reason=reason)
        return result

    def answers(self, format: str = "markdown") -> str:  # noqa: A002
        """The answer key of the scenario's exercises (markdown, latex, html or json text); HTML
        warns as :meth:`report` does."""
        return self._s.answers(format)

    def check(self, answer: str | None = None, *, target: str | None = None,
              proposed: Any = None) -> list[dict[str, Any]]:
        """Judges learner answers exactly, naming a known mistake: every declared answer, one
        by name, or an ad-hoc one (``target="/reads/example-14.1/weights",
        proposed=["2/3", "1/3", "1/3"]``). Each judgement is a dict with ``correct``,
        ``proposed``, ``exact``, ``findings``, ``mistake`` and ``text`` (the CLI's line)."""
        out = self._s.check(answer or "", target or "", proposed)
        for j in out:
            j["proposed"] = _vector(j["proposed"])
            j["exact"] = _vector(j["exact"])
        return out

    def crosscheck(self, format: str = "json", strict: bool = False) -> Any:  # noqa: A002
        """Every quantity recomputed by an independent double path and compared with the exact
        value: a dict (``format="json"``) or the Markdown report. With ``strict``, a result
        past the declared tolerance raises :class:`CheckFailed`."""
        text, passed = self._s.crosscheck(format)
        if strict and not passed:
            reason = "the double path is past the declared tolerance"
            raise CheckFailed(f"{self.file}: {reason}", place=self.file, reason=reason)
        return json.loads(text)[0] if format == "json" else text

    def encode(self, tokens: str | Sequence[str]) -> list[Vector]:
        """Encoder states of a token list under this scenario's encoder and vocabulary."""
        return [_vector(r) for r in self._s.encode(tokens)]

    def rollout(self, name: str | None = None, *, format: str = "json",  # noqa: A002
                digits: int | None = None) -> Any:
        """One declared decoder rollout (docs/decoder.md), as ``exactattn rollout``: a dict
        (``format="json"``, the report's ``/rollouts/<name>``; a refused tie's token is None) or
        the document in text, markdown, latex, html, rst or csv. ``name`` may be left out when the
        scenario declares one rollout; ``digits`` rounds the cross-entropy (default 6)."""
        text = _ext._rollout(self._s, _text("name", name, optional=True) or "", _text("format", format),
                             _whole("digits", digits, 1, 100, optional=True))
        return json.loads(text) if format == "json" else text

    def figure(self, name: str, format: str = "svg") -> Figure:  # noqa: A002
        """One declared figure (docs/figures.md) by its name or number (``"14.1"``), drawn from
        this scenario's run: SVG (shown by a notebook) or TikZ with its preamble comment."""
        return Figure(_ext._figure(self._s, _text("name", name), _text("format", format)), format)

    def variants(self, exercise: str, count: int = 1, seed: int = 0, *,
                 directory: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
        """``count`` seeded variants of an exercise that declares a ``variation``
        (docs/variants.md), as ``exactattn variants``: for each, its ``number``, ``seed``,
        ``draws``, ``scenario`` (a :class:`Scenario`) and answer ``key`` (Markdown). With
        ``directory``, also writes every file the command writes there (variant files, keys,
        the sheet in three formats and the Moodle XML); the same seed gives the same bytes."""
        variants, files = _ext._variants(self._s, _text("exercise", exercise),
                                         _whole("count", count, -2**63, 2**63 - 1),  # the library says why
                                         _whole("seed", seed, 0, 2**64 - 1))
        for v in variants:
            v["scenario"] = Scenario.from_json(v.pop("file_text"), f"variant-{v['number']:02d}.json")
        if directory is not None:
            _write_files(directory, files)
        return variants


class Figure(str):
    """A figure's SVG or TikZ text; a notebook shows an SVG figure as a picture."""

    def __new__(cls, text: str, format: str = "svg") -> Figure:  # noqa: A002
        obj = super().__new__(cls, text)
        obj._format = format
        return obj

    @property
    def format(self) -> str:  # noqa: A003
        return self._format

    def _repr_svg_(self) -> str | None:
        return str(self) if self._format == "svg" else None


# ---- limits ---------------------------------------------------------------------------------

def limits(**changes: int) -> Any:
    """Other resource limits for the calling thread, as a context manager::

        with exactattn.limits(max_exponent=1000):
            exactattn.read(...)

    Unnamed limits keep their current values; other threads keep theirs, so two threads may
    compute at once under different limits. Names and defaults: :func:`current_limits`.
    """
    return _ext._LimitsScope(changes)


def current_limits() -> dict[str, int]:
    """The limits in force on the calling thread."""
    return _ext.current_limits()


# ---- manuscripts (docs/manuscript.md) --------------------------------------------------------

def manuscript_check(path: str | os.PathLike[str], scenario: str | None = None) -> dict[str, Any]:
    """Checks every marked claim of a Markdown or LaTeX manuscript, as `exactattn manuscript
    check` does: {"file", "scenario", "wrong", "claims": [{"line", "column", "pointer",
    "written", "exact", "passed", "detail", "message"}]}; "message" is the command's line.
    Bad input raises the command's error (ReferenceError for an unknown pointer, …)."""
    return _ext.manuscript_check(_path("path", path), _text("scenario", scenario, optional=True))


def manuscript_fill(path: str | os.PathLike[str], scenario: str | None = None) -> str:
    """The manuscript with its placeholders filled, as `exactattn manuscript fill` prints it."""
    return _ext.manuscript_fill(_path("path", path), _text("scenario", scenario, optional=True))


def manuscript_audit(path: str | os.PathLike[str], scenario: str | None = None) -> dict[str, Any]:
    """The unmarked numeric claims and the coverage, as `exactattn manuscript audit` finds them:
    {"file", "marked", "coverage", "unmarked": [{"line", "column", "text", "equals", "message"}]}."""
    return _ext.manuscript_audit(_path("path", path), _text("scenario", scenario, optional=True))
