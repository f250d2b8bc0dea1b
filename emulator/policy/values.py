"""The values an expression works on, and the ``Lazy`` wrapper that defers them.

Values are plain Python: ``bool``, ``int`` (both i128 and u256 fit), ``str``,
``list``/``tuple``, any ``Mapping`` (a struct or a map: ``x.f`` and ``x['f']``
both look the key up) and :class:`~emulator.policy.timefns.Timestamp`.  The
engine builds environments out of these without converting anything, and wraps
what is costly to compute (a decoded transaction, say) in :class:`Lazy` so that
policies that never read it never pay for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from emulator.policy.errors import PolicyEvaluationError
from emulator.policy.timefns import Timestamp

_UNSET: Any = object()


class Lazy:
    """A value computed on first read, at most once.

    ``fn`` takes no arguments.  Its result is cached on this object; if it
    raises ``PolicyEvaluationError`` that error is cached too and raised again
    on every later read, so a failing computation is not retried.  Any other
    exception is a bug in the caller and passes through uncached.
    """

    __slots__ = ("_error", "_fn", "_value")

    def __init__(self, fn: Callable[[], object]) -> None:
        self._fn = fn
        self._value = _UNSET
        self._error: PolicyEvaluationError | None = None

    @property
    def evaluated(self) -> bool:
        """Whether the value (or its error) has been computed."""
        return self._value is not _UNSET or self._error is not None

    def get(self) -> object:
        value = self._value
        if value is not _UNSET:
            return value
        if self._error is not None:
            raise PolicyEvaluationError(self._error.message)
        try:
            value = self._fn()
        except PolicyEvaluationError as exc:
            self._error = exc
            self._fn = None  # type: ignore[assignment]  # let the closure go
            raise
        while type(value) is Lazy:
            value = value.get()
        self._value = value
        self._fn = None  # type: ignore[assignment]
        return value

    def __repr__(self) -> str:
        if self._value is not _UNSET:
            return f"Lazy(<evaluated: {self._value!r}>)"
        return "Lazy(<pending>)"


def kind_of(value: object) -> str:
    """The policy-language type name of a value, for type checks and messages."""
    kind = _KINDS.get(type(value))
    if kind is not None:
        return kind
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "struct"
    if isinstance(value, Timestamp):
        return "timestamp"
    return type(value).__name__


_KINDS: dict[type, str] = {
    bool: "bool",
    int: "int",
    str: "string",
    list: "list",
    tuple: "list",
    dict: "struct",
    Timestamp: "timestamp",
}
