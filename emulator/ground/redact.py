"""Containers whose values are secrets: their ``repr`` and ``str`` show how many, not what.

The engine's records hide their secret fields themselves (``field(repr=False)``, or a
``__repr__`` of their own); the mappings that hold bare secrets (the vault's keys, the
enclave's scalars, the fields of a message carrying a code) are ``Sealed``, so that a
traceback, a log line or a debugger's view of any object of the engine shows none.
"""

from __future__ import annotations

from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Sealed(dict[K, V]):
    """A ``dict`` like any other, but for its ``repr`` and ``str``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} hidden>"

    __str__ = __repr__

    def copy(self) -> Sealed[K, V]:
        return Sealed(self)

    def __reduce__(self) -> tuple[Any, ...]:  # copy and deepcopy keep it sealed
        return (Sealed, (dict(self),))
