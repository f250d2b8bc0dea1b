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
    ``on_commit``: the outbox (``recorders/outbox.py``) delivers a message when the activity
    that sent it commits, never when it rolls back. Hooks run after the commit, in order.

    ``durable``, when given, makes the transaction note what it touches (``touched``: the
    mapping and key of each ``put``/``pop`` with the value, the record and attribute of each
    ``set``) and hands that list to ``durable`` at ``commit``, before the commit is final: the
    durable journal (``state/journal.py``) writes the changed records there. If ``durable``
    raises, the transaction rolls back and the error goes on: nothing is answered that is not
    written."""

    __slots__ = ("_commit_hooks", "_durable", "_journal", "_undo", "touched")

    def __init__(
        self,
        journal: list[Callable[[], None]] | None = None,
        durable: Callable[[list[tuple[Any, Any, Any]]], None] | None = None,
    ) -> None:
        self._undo: list[Callable[[], None]] = []
        self._commit_hooks: list[Callable[[], None]] = []
        self._journal = journal
        self._durable = durable
        self.touched: list[tuple[Any, Any, Any]] | None = [] if durable is not None else None

    def put(self, mapping: MutableMapping[Any, Any], key: Any, value: Any) -> None:
        """``mapping[key] = value``, undoable."""
        previous = mapping.get(key, _ABSENT)
        mapping[key] = value
        if self.touched is not None:
            self.touched.append((mapping, key, value))
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
        if self.touched is not None:
            self.touched.append((mapping, key, value))

        def undo() -> None:
            mapping.clear()
            mapping.update(before)

        self._undo.append(undo)
        return value

    def set(self, obj: object, attribute: str, value: Any) -> None:
        """``setattr(obj, attribute, value)``, undoable."""
        previous = getattr(obj, attribute)
        setattr(obj, attribute, value)
        if self.touched is not None:
            self.touched.append((obj, attribute, value))
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
        # ``touched`` keeps the undone entries: the journal writes the live values, which
        # are as they were there.

    def rollback(self) -> None:
        self.rollback_to((0, 0))

    def commit(self) -> None:
        if self._durable is not None and self.touched:
            try:
                self._durable(self.touched)
            except BaseException:
                self.rollback()
                raise
            self.touched = []
        if self._journal is not None:
            self._journal.extend(self._undo)
        self._undo = []
        hooks, self._commit_hooks = self._commit_hooks, []
        for hook in hooks:
            hook()
