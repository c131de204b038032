# SPDX-License-Identifier: MIT
"""The exceptions of exactattn: one per kind of the library's exactattn::Error.

``str(e)`` is the library's one-line message ``place: reason``: the line the command line
prints after ``exactattn: ``. ``e.kind`` is the kind's name, ``e.place`` the place and
``e.reason`` the message without it. Catch :class:`Error` for all of them; each also derives
from the built-in exception a Python user would expect (a parse error is a ``ValueError``, a
value outside the domain an ``ArithmeticError``, an argument of the wrong type a ``ShapeError``,
which is a ``TypeError`` as well as a ``ValueError``).
"""

from __future__ import annotations

import builtins

__all__ = ["Error", "ParseError", "DomainError", "LimitError", "OutOfMemoryError", "ShapeError",
           "ReferenceError", "UsageError", "CheckFailed", "ExactattnWarning"]


class Error(Exception):
    """Base of every exactattn error (the library's ``exactattn::Error``)."""

    def __init__(self, message: str, kind: str | None = None, place: str = "",
                 reason: str | None = None) -> None:
        super().__init__(message)
        self.kind: str = kind or type(self).__name__
        self.place: str = place
        self.reason: str = message if reason is None else reason


class ParseError(Error, ValueError):
    """Text that does not follow the grammar (expression, JSON, UTF-8)."""


class DomainError(Error, ArithmeticError):
    """A value outside the exact domain: exp(1), sqrt(3), division by a value containing a."""


class LimitError(Error):
    """Past a resource limit (see :func:`exactattn.limits`)."""


class OutOfMemoryError(LimitError, MemoryError):
    """Memory ran out inside a call despite the limits (an allocation of the library's, or GMP's
    own inside a product or a power): a :class:`LimitError` with the command line's message
    (``out of memory: …``), and a MemoryError, as Python's own failures to allocate are. The
    interpreter goes on."""


class ShapeError(Error, ValueError, TypeError):
    """Wrong vector or matrix shape, width mismatch, empty memory; an argument of the wrong
    type (``encode(123)``, a float where an exact value belongs), hence also a TypeError."""


class ReferenceError(Error, LookupError):  # noqa: A001 (exactattn.ReferenceError, not the builtin)
    """Unknown name, token, position or JSON pointer."""


class UsageError(Error):
    """A call's arguments: unknown options, positions given twice, unreadable files."""


class CheckFailed(Error):
    """A check failed (``Scenario.verify(strict=True)``, ``Scenario.crosscheck(strict=True)``)."""


class ExactattnWarning(UserWarning):
    """Input the library accepted and rendered, but not as well as documented: author TeX
    outside the MathML subset, kept verbatim in HTML. ``str(w)`` is ``place: reason``, the line
    the command line prints after ``exactattn: warning: ``; ``w.place`` and ``w.reason`` as for
    :class:`Error`. Turn it into an exception with ``warnings.simplefilter("error",
    exactattn.ExactattnWarning)``."""

    def __init__(self, message: str, place: str = "", reason: str | None = None) -> None:
        super().__init__(message)
        self.place: str = place
        self.reason: str = message if reason is None else reason


assert builtins.ReferenceError is not ReferenceError
for _cls in (Error, ParseError, DomainError, LimitError, OutOfMemoryError, ShapeError, ReferenceError,
             UsageError, CheckFailed):
    _cls.__module__ = "exactattn"  # shown as exactattn.ParseError in tracebacks
