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
    checkpoint of the whole world can roll back to an earlier state (``World.checkpoint``).

    What must happen only if the change sticks, and is not state itself, hooks on
    ``on_commit``: the outbox (``testing/outbox.py``) delivers a message when the activity
    that sent it commits, never when it rolls back. Hooks run after the commit, in order."""

    __slots__ = ("_commit_hooks", "_journal", "_undo")

    def __init__(self, journal: list[Callable[[], None]] | None = None) -> None:
        self._undo: list[Callable[[], None]] = []
        self._commit_hooks: list[Callable[[], None]] = []
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

    def on_commit(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` once this transaction commits (never if it rolls back)."""
        self._commit_hooks.append(hook)

    def savepoint(self) -> tuple[int, int]:
        """A point inside this transaction that ``rollback_to`` can return to."""
        return len(self._undo), len(self._commit_hooks)

    def rollback_to(self, savepoint: tuple[int, int]) -> None:
        """Undo the changes made since ``savepoint`` and drop their hooks; the earlier ones
        stay."""
        undo_steps, hooks = savepoint
        while len(self._undo) > undo_steps:
            self._undo.pop()()
        del self._commit_hooks[hooks:]

    def rollback(self) -> None:
        self.rollback_to((0, 0))

    def commit(self) -> None:
        if self._journal is not None:
            self._journal.extend(self._undo)
        self._undo = []
        hooks, self._commit_hooks = self._commit_hooks, []
        for hook in hooks:
            hook()
