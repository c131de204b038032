# SPDX-License-Identifier: MIT
"""exactattn.oracle: the exact oracle for float attention kernels (docs/oracle.md).

The true attention output softmax(c·Q·Kᵀ)·V of float inputs, certified and correctly rounded
to the kernel's format, and a kernel's output judged in ULPs against the a-priori error bound
of its algorithm (naive, safe or online softmax) instead of a fudge factor:

>>> import numpy as np
>>> from exactattn import oracle
>>> q = np.zeros((1, 4), np.float32); k = np.ones((3, 4), np.float32)
>>> v = np.array([[3], [0], [0]], np.float32)
>>> oracle.reference(q, k, v)["out"]           # equal scores: weights 1/3, output exactly 1
array([[1.]])
>>> oracle.assert_close(np.array([[1.0]], np.float32), q, k, v, fmt="float32", algorithm="safe")
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _exactattn as _ext
from ._errors import Error, ShapeError, UsageError

__all__ = ["reference", "judge", "emulate", "assert_close", "OracleMismatch", "grad_reference", "judge_grads",
           "grad_emulate", "assert_grads_close"]

_DTYPES = {"float16": "float16", "float32": "float32", "float64": "float64"}


class OracleMismatch(AssertionError):
    """An output outside the bound of its algorithm; ``judgement`` holds the whole judgement."""

    def __init__(self, message: str, judgement: dict) -> None:
        super().__init__(message)
        self.judgement = judgement


def _usage(place: str, reason: str) -> Exception:
    return UsageError(f"{place}: {reason}", "UsageError", place, reason)


def _shape(place: str, reason: str) -> Exception:
    return ShapeError(f"{place}: {reason}", "ShapeError", place, reason)


def _name(x: Any, place: str, allowed: str) -> str:
    """An option string, as the library parses it (it refuses what it does not name)."""
    if place == "base" and isinstance(x, int) and not isinstance(x, bool):
        return str(x)  # base=2
    if not isinstance(x, str):
        raise _usage(place, f"expected {allowed}, got {type(x).__name__} {x!r}")
    return x


def _accumulate(x: Any) -> str | None:
    """The claim's accumulator, or None: the library's default (float32, float64 for float64)."""
    return None if x is None else _name(x, "accumulate", "a format name")


def _options(scale: Any, base: Any, masked_rows: Any) -> tuple:
    if isinstance(scale, bool) or not isinstance(scale, (str, int, float, np.floating, np.integer)):
        raise _usage("scale", f"expected 'sqrt-dk', 'none' or a number, got {type(scale).__name__} {scale!r}")
    if isinstance(scale, (np.floating, np.integer)):
        scale = float(scale)
    return (scale, _name(base, "base", "'e' or 2"),
            _name(masked_rows, "masked_rows", "'error', 'nan' or 'zeros'"))


def _block(block: Any) -> int:
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or not 1 <= block < 2**63:
        raise _usage("block", f"expected a whole number from 1 to 2^63 - 1, got {block!r}")
    return int(block)


def _as_float64(x: Any, name: str) -> tuple[np.ndarray, str]:
    """A NumPy array or torch tensor as float64 (exact) and the name of the format it was in."""
    mod = type(x).__module__
    if mod.startswith("torch"):
        import torch  # only when a tensor is given
        t = x.detach().cpu()
        fmt = {torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float32: "float32",
               torch.float64: "float64"}.get(t.dtype)
        if fmt is None:
            raise _shape(name, f"torch dtype {t.dtype} is not a float format of the oracle")
        return t.to(torch.float64).numpy(), fmt
    try:
        a = np.asarray(x)
    except (TypeError, ValueError) as e:  # ragged nested lists
        raise _shape(name, f"not an array ({e})") from None
    fmt = _DTYPES.get(a.dtype.name)
    if fmt is None:
        if a.dtype.kind in "iub":
            return a.astype(np.float64), "float64"
        raise _shape(name, f"dtype {a.dtype} is not a float format of the oracle "
                     "(bfloat16 arrays: pass a torch tensor)")
    return a.astype(np.float64), fmt


def _mask(mask: Any) -> np.ndarray:
    """A mask (nonzero = masked) as float64: NumPy arrays, nested lists and torch tensors,
    boolean ones included (torch.bool has no float conversion of its own in the converter above)."""
    if type(mask).__module__.startswith("torch"):
        import torch  # only when a tensor is given
        t = mask.detach().cpu()
        if t.dtype == torch.bool or not t.dtype.is_floating_point:
            return t.to(torch.float64).numpy()
    return _as_float64(mask, "mask")[0]


def _problem(q: Any, k: Any, v: Any, mask: Any, bias: Any, dtype: str | None) -> tuple:
    arrays, fmts = zip(*(_as_float64(x, n) for x, n in ((q, "q"), (k, "k"), (v, "v"))))
    m = None if mask is None else _mask(mask)
    b = None if bias is None else _as_float64(bias, "bias")[0]
    if dtype is not None and not isinstance(dtype, str):
        raise _usage("fmt", f"expected a format name such as 'float32', got {type(dtype).__name__} {dtype!r}")
    return arrays, list(fmts), m, b, dtype or fmts[0]


def _window(window: Any) -> tuple[int, int]:
    """(left, right) keys around the diagonal; None or -1 on a side: all (FlashAttention's window_size)."""
    if window is None:
        return -1, -1
    if isinstance(window, (str, bytes)) or not hasattr(window, "__len__") or len(window) != 2:
        raise _usage("window", f"expected (left, right), got {window!r}")
    sides = []
    for x in window:
        if x is None:
            x = -1
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
            raise _usage("window", f"expected whole numbers (or None, -1: all), got {window!r}")
        sides.append(int(x))
    return sides[0], sides[1]


def _threads(threads: Any) -> int:
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 0 <= threads <= 1024:
        raise _usage("threads", f"expected a whole number from 0 (all cores) to 1024, got {threads!r}")
    return int(threads)


def _softcap(softcap: Any) -> float:
    """The logit softcap as a float (0 or None: none); its range is checked by the library."""
    if softcap is None:
        return 0.0
    if isinstance(softcap, bool) or not isinstance(softcap, (int, float, np.integer, np.floating)):
        raise _usage("softcap", f"expected a number > 0 (or 0 or None: none), got {softcap!r}")
    return float(softcap)


def _opts(scale: Any, base: Any, masked_rows: Any, masked_lse: Any, causal: Any, align: Any, window: Any,
          layout: Any, fp8: tuple = (None, 1, "error"), softcap: Any = None) -> dict:
    scale, base, masked_rows = _options(scale, base, masked_rows)
    left, right = _window(window)
    in_fmt, p_descale, fp8_overflow = fp8
    if isinstance(p_descale, bool) or not isinstance(p_descale, (str, int, float, np.integer, np.floating)):
        raise _usage("p_descale", f"expected a positive number or 'block', got {p_descale!r}")
    return {"in_fmt": None if in_fmt is None else _name(in_fmt, "in_fmt", "a format name"),
            "p_descale": p_descale if isinstance(p_descale, str) else repr(float(p_descale)),
            "fp8_overflow": _name(fp8_overflow, "fp8_overflow", "'error' or 'saturate'"),
            "scale": scale, "base": base, "masked_rows": masked_rows,
            "masked_lse": _name(masked_lse, "masked_lse", "'-inf' or 'inf'"), "causal": bool(causal),
            "align": _name(align, "align", "'top-left' or 'bottom-right'"), "window_left": left,
            "window_right": right, "layout": _name(layout, "layout", "'bhnd' or 'bnhd'"),
            "softcap": _softcap(softcap)}


def _in_layout(d: dict | None, layout: str, batched: bool) -> dict | None:
    """A batch's arrays come in (b, h, i, j) order: outputs go back in the caller's layout, an lse
    is (B, H, n_q) as FlashAttention's softmax_lse, weights stay (B, H, n_q, n_k)."""
    if d is None or not batched:
        return d
    outputs = ("out", "out_lo", "out_hi", "out_exact") if "tensor" not in d else \
        tuple(key for key, x in d.items() if isinstance(x, np.ndarray))
    for key in outputs:
        x = d[key]
        if d.get("tensor") == "lse" or key == "lse":
            d[key] = x[..., 0]
        elif layout == "bnhd":
            d[key] = np.ascontiguousarray(np.swapaxes(x, 1, 2))
    if "tensor" not in d and isinstance(d.get("lse"), np.ndarray):
        d["lse"] = d["lse"][..., 0]
    return d


def reference(q: Any, k: Any, v: Any, *, fmt: str | None = None, mask: Any = None, bias: Any = None,
              causal: bool = False, align: str = "top-left", window: Any = None, scale: str | float = "sqrt-dk",
              base: str = "e", masked_rows: str = "error", masked_lse: str = "-inf", weights: bool = False,
              layout: str = "bhnd", threads: int = 0, report: bool = False, in_fmt: str | None = None,
              fp8_overflow: str = "error", softcap: float | None = None) -> dict:
    """The certified reference, each entry correctly rounded to ``fmt`` (default: q's format).

    Returns ``out``, ``out_lo``/``out_hi`` (the enclosure), ``out_exact`` (a bool array: True where
    the value is a known rational), ``lse`` and, with ``weights=True``, ``weights``; with ``report=True`` also
    ``text`` and ``json``, the command line's report. ``mask`` is n_q × n_k, 1 (or True) = masked;
    ``bias`` is added to the scores (-inf = masked); ``causal`` masks key j for query i when
    j > i (``align="bottom-right"``: j > i + n_k - n_q); ``window=(left, right)`` a sliding
    window. 4-D q, k, v are a batch of heads in ``layout`` ``"bhnd"`` or ``"bnhd"``, judged on
    ``threads`` threads (0: every core). ``in_fmt`` declares the format of q, k and v (8-bit
    values held in float arrays: ``"float8_e4m3fn"``, ``"float8_e5m2"``); an 8-bit value past the
    range is refused unless ``fp8_overflow="saturate"`` (docs/oracle.md, "8-bit floats").
    ``softcap`` (> 0; 0 or None: none) caps the scaled scores as FlashAttention and Gemma 2 do,
    cap·tanh(c·q·k/cap), before the mask and the bias (docs/oracle.md, "The logit softcap").
    """
    (qa, ka, va), fmts, m, b, dtype = _problem(q, k, v, mask, bias, fmt)
    if fmt is None and in_fmt is not None:
        dtype = in_fmt
    o = _opts(scale, base, masked_rows, masked_lse, causal, align, window, layout, (in_fmt, 1, fp8_overflow),
              softcap)
    d = _ext._oracle_reference(qa, ka, va, fmts, dtype, m, b, o, bool(weights), _threads(threads), bool(report))
    return _in_layout(d, o["layout"], qa.ndim == 4)


def judge(out: Any, q: Any, k: Any, v: Any, *, fmt: str | None = None, algorithm: str = "safe",
          block: int = 64, accumulate: str | None = None, p_fmt: str | None = None, mask: Any = None,
          bias: Any = None, causal: bool = False, align: str = "top-left", window: Any = None,
          scale: str | float = "sqrt-dk", base: str = "e", masked_rows: str = "error", masked_lse: str = "-inf",
          tolerance_ulps: float | None = None, weights: Any = None, lse: Any = None, bound: str = "running",
          layout: str = "bhnd", threads: int = 0, stored: str | None = None, in_fmt: str | None = None,
          p_descale: str | float = 1, fp8_overflow: str = "error", softcap: float | None = None) -> dict:
    """The judgement of a kernel's ``out`` (n_q × d_v, or 4-D) in format ``fmt`` (default: out's).

    ``accumulate`` is the format of its sums (default float32, float64 for float64),
    ``p_fmt`` the format of P before P·V in the online algorithm (default ``fmt``); ``stored``,
    for naive and safe, the format an unfused kernel stores its scores and P in (PyTorch's math
    attention in bfloat16: ``stored="bfloat16"``). The
    kernel's ``weights`` (n_q × n_k) and ``lse`` (n_q; (B, H, n_q) for a batch) are judged too
    when given: the result's ``"weights"`` and ``"lse"`` hold their judgements (else None).
    ``bound`` is ``"running"`` (the default: from the actual scores, weights and values of each
    row), ``"running-ordered"`` (the same for a kernel that sums in the declared order),
    ``"a-priori"``, or ``"probabilistic"`` / ``"probabilistic-ordered"`` / ``"probabilistic-ulp"``
    (Higham and Mary's model, failing with probability at most ``"failure_probability"`` = 2^-40
    per entry; ``"probabilistic-ulp"`` bounds each rounding by half an ulp of its result); the
    result names it (``"bound_name"``) and says how much of it the worst entry uses
    (``"max_bound_fraction"``). ``"systematic"`` is the statistical verdict over all entries
    (sign tests for a rounding bias and a temperature error, family-wise false-alarm rate 1e-6;
    empty when none rejects), ``"systematic_tests"`` their counts and p-values; a verdict fails
    the judgement. The summary keys are the command line's JSON
    keys (``"worst"`` is [i, j], or [b, h, i, j] for a batch); ``"text"`` and ``"json"`` are the
    command line's report, byte for byte. The problem's keywords are reference()'s; an 8-bit P
    (``p_fmt="float8_e4m3fn"``) is cast as P·``p_descale`` (a number, or ``"block"``) and past
    its range as ``fp8_overflow`` says (docs/oracle.md, "8-bit floats").
    """
    oa, ofmt = _as_float64(out, "out")
    (qa, ka, va), fmts, m, b, _ = _problem(q, k, v, mask, bias, fmt)
    dtype = fmt or ofmt
    block = _block(block)
    o = _opts(scale, base, masked_rows, masked_lse, causal, align, window, layout, (in_fmt, p_descale, fp8_overflow),
              softcap)
    if tolerance_ulps is not None:
        if isinstance(tolerance_ulps, bool) or not isinstance(tolerance_ulps, (int, float, np.integer, np.floating)):
            raise _usage("tolerance_ulps", f"expected a number, got {type(tolerance_ulps).__name__} {tolerance_ulps!r}")
        tolerance_ulps = float(tolerance_ulps)  # finite and not negative: checked by the library
    wa = None if weights is None else _as_float64(weights, "weights")[0]
    la = None if lse is None else _as_float64(lse, "lse")[0]
    if la is not None and qa.ndim != 4:
        la = la.reshape(-1, 1)
    d = _ext._oracle_judge(oa, qa, ka, va, fmts, _name(dtype, "fmt", "a format name"), m, b, o,
                           _name(algorithm, "algorithm", "'naive', 'safe' or 'online'"),
                           _accumulate(accumulate), _name(p_fmt or dtype, "p_fmt", "a format name"),
                           block, tolerance_ulps, wa, la, _name(bound, "bound", "'running', 'running-ordered', 'a-priori', "
                                                          "'probabilistic', 'probabilistic-ordered' or "
                                                          "'probabilistic-ulp'"),
                           _threads(threads), None if stored is None else _name(stored, "stored", "a format name"))
    batched = qa.ndim == 4
    _in_layout(d, o["layout"], batched)
    _in_layout(d["lse"], o["layout"], batched)
    return d


def emulate(q: Any, k: Any, v: Any, *, fmt: str | None = None, algorithm: str = "safe", block: int = 64,
            accumulate: str | None = None, p_fmt: str | None = None, mask: Any = None, bias: Any = None,
            causal: bool = False, align: str = "top-left", window: Any = None, scale: str | float = "sqrt-dk",
            base: str = "e", masked_rows: str = "error", masked_lse: str = "-inf", trace: bool = False,
            report: bool = False, stored: str | None = None, in_fmt: str | None = None,
            p_descale: str | float = 1, fp8_overflow: str = "error", softcap: float | None = None,
            layout: str = "bhnd", threads: int = 0) -> dict:
    """``algorithm`` emulated with every operation correctly rounded in ``accumulate`` (default
    float32, float64 for float64, as judge()'s claim; never 8-bit), P in ``p_fmt`` (online; an 8-bit P cast as
    P·``p_descale``, past its range as ``fp8_overflow`` says), the output rounded to ``fmt``:
    ``out``, ``trace`` and ``fp8`` (P-collapse and saturation counted: docs/oracle.md, "8-bit
    floats"); with ``report=True`` the command line's ``text`` and ``json``. 4-D q, k, v are a
    batch of heads in ``layout`` (``"bhnd"`` or ``"bnhd"``), as reference()'s, emulated on
    ``threads`` threads: ``out`` is 4-D in that layout, each trace line names its head."""
    (qa, ka, va), fmts, m, b, dtype = _problem(q, k, v, mask, bias, fmt)
    if fmt is None and in_fmt is not None:
        dtype = in_fmt
    block = _block(block)
    o = _opts(scale, base, masked_rows, masked_lse, causal, align, window, layout, (in_fmt, p_descale, fp8_overflow),
              softcap)
    return _ext._oracle_emulate(qa, ka, va, fmts, dtype, m, b, o,
                                _name(algorithm, "algorithm", "'naive', 'safe' or 'online'"),
                                _accumulate(accumulate),
                                _name(p_fmt or dtype, "p_fmt", "a format name"), block, bool(trace), bool(report),
                                None if stored is None else _name(stored, "stored", "a format name"),
                                _threads(threads))


def _entry(j: dict, idx: tuple) -> str:
    kind = "exact" if j["exact"][idx] else "certified"
    ulp_err, abs_err, bound = j["ulp_error"][idx], j["abs_error"][idx], j["bound"][idx]
    # ulp = abs_error / |ulp_error| for this entry, so the bound in ULPs follows.
    in_ulps = f" = {bound * abs(ulp_err) / abs_err:.3g} ULP" if abs_err and np.isfinite(abs_err) else ""
    return (f"{j['tensor']}[{', '.join(str(int(x)) for x in idx)}] = {j['value'][idx]!r}, exact value in [{j['lo'][idx]!r}, {j['hi'][idx]!r}] "
            f"({kind}), correctly rounded {j['rounded'][idx]!r}; error {ulp_err:.3g} ULP "
            f"(abs {abs_err:.3g}), bound {bound:.3g}{in_ulps}")


def assert_close(out: Any, q: Any, k: Any, v: Any, *, fmt: str | None = None, algorithm: str = "safe",
                 block: int = 64, **options: Any) -> dict:
    """Raises :class:`OracleMismatch` (an AssertionError) unless every entry of ``out`` is within
    the a-priori bound of ``algorithm`` in ``fmt``; the message names the worst entry over the
    bound, its exact value, its ULP error, the bound and a diagnosis. Returns the judgement."""
    whole = judge(out, q, k, v, fmt=fmt, algorithm=algorithm, block=block, **options)
    lines = []
    for j in (whole, whole["weights"], whole["lse"]):
        if j is None or j["passed"]:
            continue
        over = np.argwhere(~j["within"])
        if len(over):
            worst = max((tuple(i) for i in over), key=lambda i: abs(j["ulp_error"][i]))
            lines.append(f"{j['over']} of {j['count']} {j['tensor']} entries over the bound of {algorithm} softmax "
                         f"attention in {fmt or 'the output format'} ({j['bound_name']}); worst {_entry(j, worst)}")
        if j.get("systematic"):
            lines.append(f"systematic: {j['systematic']}")
        if j["unbounded"]:
            lines.append(f"unbounded: {j['unbounded_reason']}")
        if j["diagnosis"]:
            lines.append(f"diagnosis: {j['diagnosis']}")
    if lines:
        raise OracleMismatch("\n".join(lines), whole)
    return whole


# --- gradients (docs/oracle.md, "Certified gradients", "Bounds for the backward") -------------

def _grad_call(fn, q: Any, k: Any, v: Any, d_out: Any, fmt: str | None, mask: Any, bias: Any, problem: dict,
               *rest: Any) -> dict:
    """Calls the library with the problem and ``d_out``; a refusal placed at the library's ``do``
    is placed at this module's keyword ``d_out``."""
    (qa, ka, va), fmts, m, b, dtype = _problem(q, k, v, mask, bias, fmt)
    da, dfmt = _as_float64(d_out, "d_out")
    o = _opts(problem.get("scale", "sqrt-dk"), problem.get("base", "e"), problem.get("masked_rows", "error"),
              problem.get("masked_lse", "-inf"), problem.get("causal", False), problem.get("align", "top-left"),
              problem.get("window"), problem.get("layout", "bhnd"),
              (problem.get("in_fmt"), problem.get("p_descale", 1), problem.get("fp8_overflow", "error")),
              problem.get("softcap"))
    for key in ("p_fmt", "ds_fmt"):
        f = problem.get(key)
        o[key] = None if f is None else _name(f, key, "a format name")
    ds = problem.get("ds_descale", 1)
    if isinstance(ds, bool) or not isinstance(ds, (str, int, float, np.integer, np.floating)):
        raise _usage("ds_descale", f"expected a positive number or 'block', got {ds!r}")
    o["ds_descale"] = ds if isinstance(ds, str) else repr(float(ds))
    try:
        d = fn(qa, ka, va, fmts, _name(dtype, "fmt", "a format name"), m, b, o, da, dfmt, *rest)
    except Error as e:
        if e.place != "do":
            raise
        raise type(e)(f"d_out: {e.reason}", e.kind, "d_out", e.reason) from None
    return d


def _at4(name: str, at: tuple) -> str:
    """An entry of a batch's tensor, named (b, h, i, j)."""
    return f"{name}[b={at[0]}, h={at[1]}, i={at[2]}, j={at[3]}]"


_PROBLEM_KEYS = ("scale", "base", "masked_rows", "masked_lse", "causal", "align", "window", "in_fmt", "fp8_overflow",
                 "softcap")
_BATCH_KEYS = ("layout", "threads")


def _problem_options(options: dict, batch: bool = True) -> dict:
    keys = _PROBLEM_KEYS + (_BATCH_KEYS if batch else ())
    unknown = sorted(set(options) - set(keys))
    if unknown:
        raise _usage(unknown[0], f"not an option of the gradients (the problem's: {', '.join(keys)})")
    return options


def _claim(backward: Any, accumulate: Any, storage: Any, delta_from: Any, block: Any) -> tuple:
    return (_name(backward, "backward", "'standard' or 'flash2'"), _accumulate(accumulate),
            None if storage is None else _name(storage, "storage", "a format name"),
            None if delta_from is None else _name(delta_from, "delta_from", "'o' or 'p'"), _block(block))


def grad_reference(q: Any, k: Any, v: Any, d_out: Any, *, fmt: str | None = None, mask: Any = None,
                   bias: Any = None, **problem: Any) -> dict:
    """The certified gradients of attention under the upstream gradient ``d_out`` (n_q × d_v):
    a dict of ``dq``, ``dk``, ``dv``, ``out``, ``lse``, ``d``, ``p``, ``dp``, ``ds``, each with
    ``values`` (correctly rounded to ``fmt``, default q's format), ``lo``/``hi`` (the enclosure of
    the true value) and ``exact`` (bool); ``text`` and ``json`` are the command line's report. The
    problem's keywords (``scale``, ``base``, ``causal``, ``align``, ``window``, ``masked_rows``,
    ``masked_lse``, ``mask``, ``bias``, ``softcap``) are reference()'s; under a softcap ``ds`` is
    the gradient with respect to the scaled scores, P ∘ (dP − D) ∘ (1 − tanh²). 4-D arrays are a batch of heads in
    ``layout`` (``"bhnd"`` or ``"bnhd"``), on ``threads`` threads: dk and dv then the kv heads'
    (the sums over each group of query heads; docs/oracle.md, "Gradients of a batch of heads")."""
    fmt_ = fmt or _as_float64(q, "q")[1]
    return _grad_call(_ext._oracle_grad, q, k, v, d_out, fmt_, mask, bias, _problem_options(problem), {},
                      *_claim("standard", None, None, None, 64), _threads(problem.get("threads", 0)))


def judge_grads(dq: Any, dk: Any, dv: Any, q: Any, k: Any, v: Any, d_out: Any, *, fmt: str | None = None,
                backward: str = "standard", accumulate: str | None = None, storage: str | None = None,
                delta_from: str | None = None, block: int = 64, mask: Any = None, bias: Any = None,
                p_fmt: str | None = None, p_descale: str | float = 1, ds_fmt: str | None = None,
                ds_descale: str | float = 1, **problem: Any) -> dict:
    """A kernel's gradients (any of ``dq``, ``dk``, ``dv`` may be None: not judged) judged against
    the running bound of its backward (docs/oracle.md, "Bounds for the backward"): ``backward``
    ``"standard"`` (P materialised) or ``"flash2"`` (P recomputed from the saved LSE, D from O),
    every operation in ``accumulate`` (default float32, float64 for float64), tensors stored in
    ``storage`` (default ``fmt``, the gradients' format, default dq's), D from ``delta_from``
    (``"p"``: rowsum(P∘dP), the standard default; ``"o"``: rowsum(dO∘O)). Returns grad_reference()'s
    fields, ``judged`` (per tensor: ``over``, ``unbounded``, ``max_bound_fraction``, ``worst_fraction``,
    ``first_over``, ``bound``, the array of bounds), ``passed``, ``diagnosis`` (after a failure, the
    backward mistake the gradients fit, or ""), ``text`` and ``json``. ``p_fmt`` claims P cast to
    that format before dV = Pᵀ·dO, as P·``p_descale`` (a number or ``"block"``), past an 8-bit range
    as ``fp8_overflow`` says, ``ds_fmt`` and ``ds_descale`` the same for dS before dQ and dK;
    ``in_fmt`` declares q, k, v and d_out's format; ``fp8`` then holds the
    8-bit events of the claim's emulation (docs/oracle.md, "8-bit floats"). 4-D arrays are a batch of
    heads in ``layout`` (``"bhnd"`` or ``"bnhd"``), judged on ``threads`` threads: dk and dv (B,
    H_kv, n_k, ·) judged against the exact sums over each kv head's group of query heads, entries
    named (b, h, i, j), ``fp8`` every head's events summed, the largest P-collapse named by its
    ``batch`` and ``head`` and the first saturated value by its head (docs/oracle.md, "Gradients
    of a batch of heads"). For a batch ``text`` is the command line's summary lines and ``json``
    is None: the command line's per-entry report of a batch runs to about 100 bytes an entry,
    and every entry is already in the arrays."""
    given = {n: x for n, x in (("dq", dq), ("dk", dk), ("dv", dv)) if x is not None}
    if not given:
        raise _usage("dq", "no gradient to judge (dq, dk and dv are all None)")
    arrays = {n: _as_float64(x, n) for n, x in given.items()}
    dtype = fmt or next(iter(arrays.values()))[1]
    opts = dict(_problem_options(problem), p_fmt=p_fmt, p_descale=p_descale, ds_fmt=ds_fmt, ds_descale=ds_descale)
    return _grad_call(_ext._oracle_grad, q, k, v, d_out, dtype, mask, bias, opts,
                      {n: a for n, (a, _) in arrays.items()}, *_claim(backward, accumulate, storage,
                                                                       delta_from, block),
                      _threads(problem.get("threads", 0)))


def grad_emulate(q: Any, k: Any, v: Any, d_out: Any, *, fmt: str | None = None, backward: str = "standard",
                 accumulate: str | None = None, storage: str | None = None, delta_from: str | None = None,
                 block: int = 64, trace: bool = False, mask: Any = None, bias: Any = None,
                 p_fmt: str | None = None, p_descale: str | float = 1, ds_fmt: str | None = None,
                 ds_descale: str | float = 1, **problem: Any) -> dict:
    """The backward emulated with every operation correctly rounded in ``accumulate``, stored
    tensors in ``storage``, gradients rounded to ``fmt`` (default q's; cast past an 8-bit range as
    ``fp8_overflow`` says): ``dq``, ``dk``, ``dv``, the forward's stored ``out`` and its ``lse``,
    ``trace``, ``text`` and ``fp8`` (P-collapse and saturation counted). ``p_fmt``: P cast to that
    format as P·``p_descale`` (a number or ``"block"``) before dV = Pᵀ·dO, the descale divided out
    (docs/oracle.md, "8-bit floats"); ``ds_fmt``, ``ds_descale``: the same for dS before dQ and dK;
    ``in_fmt``: the format of q, k, v and d_out."""
    dtype = fmt or _as_float64(q, "q")[1]
    opts = dict(_problem_options(problem, False), p_fmt=p_fmt, p_descale=p_descale, ds_fmt=ds_fmt,
                ds_descale=ds_descale)
    return _grad_call(_ext._oracle_grad_emulate, q, k, v, d_out, dtype, mask, bias, opts,
                      *_claim(backward, accumulate, storage, delta_from, block), bool(trace))


def assert_grads_close(dq: Any, dk: Any, dv: Any, q: Any, k: Any, v: Any, d_out: Any, **options: Any) -> dict:
    """Raises :class:`OracleMismatch` (an AssertionError) unless every entry of the gradients
    given is within the running bound of the claimed backward (judge_grads()'s keywords; default
    the standard backward with float32 accumulation in the gradients' format). The message names,
    per failing tensor, how many entries are over, the worst entry's value, its exact enclosure,
    its bound and its share of it, and the diagnosis when one fits. Returns the judgement."""
    j = judge_grads(dq, dk, dv, q, k, v, d_out, **options)
    if j["passed"]:
        return j
    lines = []
    for name, x in j["judged"].items():
        if x["over"] == 0:
            continue
        line = f"{x['over']} of {x['entries']} {name} entries over their bound"
        at = x["worst_fraction"] if x["worst_fraction"] is not None else x["first_over"]
        if at is not None:
            f = j[name]
            given = {"dq": dq, "dk": dk, "dv": dv}[name]
            # a batch's (b, h, i, j) is (b, i, h, j) in the layout bnhd
            idx = (at[0], at[2], at[1], at[3]) if len(at) == 4 and options.get("layout") == "bnhd" else at
            actual = _as_float64(given, name)[0][idx]
            where = _at4(name, at) if len(at) == 4 else f"{name}[{at[0]}, {at[1]}]"
            line += (f"; worst {where} = {actual!r}, exact value in [{f['lo'][idx]!r}, "
                     f"{f['hi'][idx]!r}], bound {x['bound'][idx]:.3g}, {x['max_bound_fraction']:.3g} × the bound")
        if x["unbounded"]:
            line += f"; {x['unbounded']} unbounded: {x['unbounded_reason']}"
        lines.append(line)
    if j["diagnosis"]:
        lines.append(f"diagnosis: {j['diagnosis']}")
    raise OracleMismatch("\n".join(lines), j)
