"""The durable journal: every committed transaction written to the state file first.

``Journal.attach`` sets the world's ``commit_hook``. Each transaction then hands
what it touched to ``_committed`` as it commits, under the world's lock and
before the commit is final: the journal writes one row with only the records it
changed (``state/changes.py``), the id stream's counters and the clock, and returns
once SQLite has committed it. The lock makes commit order and write order one and
the same, whatever the number of threads; a write that fails rolls the transaction
back, so nothing is answered that is not written.

"Acknowledged" means: a request that changed state was answered only after its row
was committed to the state file's write-ahead log (and fsynced, with ``sync="full"``;
see ``state/persistence.py``). A crash of the process at any moment loses nothing
acknowledged (with ``sync="full"``, neither does one of the machine), and replays no
half transaction: a row is whole or absent.

The whole document is written only to compact: once the rows written since the
last base add up to four times its bytes (``COMPACTION_RATIO``; or ``compact_every``
rows, when given), and at ``close``. So a write costs what it changed, plus an amortized
share of the compaction that stays flat as the state grows. Changes made outside
transactions (``reset``, ``restore``, a checkpoint rollback: a new store, id stream or
generation) are caught at the next commit or ``sync`` and written as a whole
document; ``sync`` also writes a clock that was moved (the control endpoint).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .archive import ActivityArchive
from .changes import changed_units, entries
from .persistence import StateFile

if TYPE_CHECKING:
    from ..engine_state.world import World


class StateFileClosed(RuntimeError):
    """A commit after the journal's state file was closed (the server is stopping)."""


def _closed(touched: list) -> None:
    raise StateFileClosed("the state file is closed: the server is stopping")


Json = dict[str, Any]
# Compact once the rows since the last whole document add up to COMPACTION_RATIO times its
# bytes (at least MIN_COMPACTION_BYTES): a write's share of the compactions is then about a
# quarter of the cost of writing its own row as a document would, and a restart replays at
# most four documents' worth of rows.
COMPACTION_RATIO = 4
MIN_COMPACTION_BYTES = 1024 * 1024


class Journaled(Protocol):
    """What the journal needs of the emulator it writes (``Emulator`` is one): its world and
    its documents (the state layer names the facade through this, never by import)."""

    @property
    def world(self) -> World: ...

    def to_document(self, *, archived: bool = True) -> Json: ...

    def facade_document(self) -> Json: ...


def _digest(document: Json) -> bytes:
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


class Journal:
    """Writes an emulator's commits to a ``StateFile``."""

    def __init__(
        self,
        emulator: Journaled,
        state: StateFile,
        *,
        compact_every: int | None = None,
        on_compacted: Callable[[], None] | None = None,
    ) -> None:
        self.world = emulator.world
        self.state = state
        # The whole document holds the activities in memory; the others are in the archive.
        self._dump = lambda: emulator.to_document(archived=False)
        self.archive = ActivityArchive(state)
        self.archive.rewinder = self.rewind
        self._facade = emulator.facade_document
        self.compact_every = compact_every
        self._on_compacted = on_compacted  # serve freezes the survivors there (gc_tuning.py)
        self._marks: tuple = ()
        self._clock: tuple = ()
        # A digest of the facade state last written (it holds the root API private keys:
        # kept as a digest, so that no repr of the journal shows one).
        self._facade_saved = b""
        self.compactions = 0

    def attach(self) -> Journal:
        """From now on every commit of the world is written first. The state file must hold
        the world's present state (just read from it, or just compacted)."""
        with self.world.lock:
            self._remember()
            self.world.commit_hook = self._committed
            self.world.archive = self.archive
            self.archive.adopt(self.world.store)
            self.archive.after_commit(self.world, [])  # a loaded state above the bound
        return self

    def detach(self) -> None:
        with self.world.lock:
            if self.world.commit_hook == self._committed:
                self.world.commit_hook = None

    def sync(self) -> None:
        """Write what changed outside transactions: a new store (reset, restore), a rollback,
        a moved clock. Cheap when nothing did."""
        with self.world.lock:
            if self._stale():
                self.compact()
            elif self.world.clock.getstate() != self._clock:
                self._append([])

    def compact(self) -> None:
        """Write the whole state as the new base document."""
        self._compact(None)

    def rewind(self, last: int) -> None:
        """Write the whole state (a restored snapshot's, or a reset one) and drop the
        archive's rows after ``last`` in the same SQLite transaction."""
        self._compact(last)

    def _compact(self, archived_through: int | None) -> None:
        also = None
        if archived_through is not None:
            archive = self.archive
            also = lambda db: archive.drop_after(db, archived_through)  # noqa: E731
        with self.world.lock:
            self.state.compact(self._dump(), also)
            self._remember()
            self.compactions += 1
            if self._on_compacted is not None:
                self._on_compacted()

    def close(self) -> None:
        """Compact (the shutdown step) and close the file. A commit after that fails (and
        rolls back): a request still in flight when the server stops is not answered as if
        it had been written."""
        with self.world.lock:
            try:
                self.compact()
            finally:
                self.world.commit_hook = _closed
                self.state.close()

    # ----- the commit hook -------------------------------------------------------------

    def _committed(self, touched: list) -> None:
        world = self.world
        with world.lock:
            if self._stale():
                self.compact()  # the dump holds this commit too
            else:
                self._append(entries(world.store, changed_units(world.store, touched)))
            # Before a compaction: the activities that leave memory leave its document too.
            self.archive.after_commit(world, touched)
            if self._due():
                try:
                    self.compact()
                except Exception as exc:  # the rows hold everything: compact again later
                    print(f"state file: compaction failed, will retry ({exc})", file=sys.stderr)

    def _append(self, changes: list) -> None:
        world = self.world
        clock = world.clock.getstate()
        row = {"c": changes, "ids": list(world.ids.getstate()), "clock": list(clock)}
        facade = self._facade()
        digest = _digest(facade)
        if digest != self._facade_saved:
            row["facade"] = facade
        self.state.append(row)
        self._clock = clock
        self._facade_saved = digest

    def _due(self) -> bool:
        state = self.state
        if self.compact_every is not None:
            return state.rows_since_base >= self.compact_every
        return state.journal_bytes >= max(COMPACTION_RATIO * state.base_bytes, MIN_COMPACTION_BYTES)

    def _remember(self) -> None:
        world = self.world
        self._marks = (world.store, world.ids, world.generation)
        self._clock = world.clock.getstate()
        self._facade_saved = _digest(self._facade())

    def _stale(self) -> bool:
        world = self.world
        store, ids, generation = self._marks
        return world.store is not store or world.ids is not ids or world.generation != generation
