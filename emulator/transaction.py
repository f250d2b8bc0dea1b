"""All-or-nothing changes to the in-memory state.

Handlers change state only through a ``Transaction``. Each change records how
to undo itself; if the handler fails, ``rollback`` replays the undo log in
reverse and the state is exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

_ABSENT = object()


class Transaction:
    """An undo log. ``journal``, when given, keeps the undo steps of every commit so that a
    checkpoint of the whole world can roll back to an earlier state (``World.checkpoint``)."""

    __slots__ = ("_journal", "_undo")

    def __init__(self, journal: list[Callable[[], None]] | None = None) -> None:
        self._undo: list[Callable[[], None]] = []
        self._journal = journal

    def put(self, mapping: MutableMapping[Any, Any], key: Any, value: Any) -> None:
        """``mapping[key] = value``, undoable."""
        previous = mapping.get(key, _ABSENT)
        mapping[key] = value
        if previous is _ABSENT:
            self._undo.append(lambda: mapping.pop(key, None))
        else:
            self._undo.append(lambda: mapping.__setitem__(key, previous))

    def pop(self, mapping: MutableMapping[Any, Any], key: Any) -> Any:
        """Remove ``key`` from ``mapping`` (if there), undoable; returns the old value."""
        if key not in mapping:
            return None
        # Rebuild the order on undo: dicts keep insertion order, and listings read it.
        before = list(mapping.items())
        value = mapping.pop(key)

        def undo() -> None:
            mapping.clear()
            mapping.update(before)

        self._undo.append(undo)
        return value

    def set(self, obj: object, attribute: str, value: Any) -> None:
        """``setattr(obj, attribute, value)``, undoable."""
        previous = getattr(obj, attribute)
        setattr(obj, attribute, value)
        self._undo.append(lambda: setattr(obj, attribute, previous))

    def on_rollback(self, undo: Callable[[], None]) -> None:
        """Register a custom undo step."""
        self._undo.append(undo)

    def rollback(self) -> None:
        while self._undo:
            self._undo.pop()()

    def commit(self) -> None:
        if self._journal is not None:
            self._journal.extend(self._undo)
        self._undo = []
