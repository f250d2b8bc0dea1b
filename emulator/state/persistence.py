"""The state file of ``python -m emulator serve --state PATH``: SQLite in WAL mode.

Three tables: ``meta`` (``format`` = ``turnkey-emulator-state``, ``version`` = 2),
``base`` (one whole state document, ``state/document.py``, and the sequence number of
the last journal row folded into it) and ``journal`` (one row per committed
transaction after that: only what it changed, ``state/changes.py``). Reading is the
base with the rows replayed over it (``state/replay.py``); compaction writes a new
base and drops the rows it holds, in one SQLite transaction.

Durability: each ``append`` is its own SQLite transaction, committed to the
write-ahead log before the caller goes on. ``sync="normal"`` (the default,
``PRAGMA synchronous=NORMAL``) leaves the fsync to SQLite's checkpoints: a row that
was appended survives the process being killed at any moment (``kill -9``, a crash:
it is in the operating system's hands), but the last rows may be lost if the machine
itself stops; the file is never corrupted either way. ``sync="full"``
(``PRAGMA synchronous=FULL``) fsyncs the log at every commit, so a row survives a
power cut too, at an fsync per write (about 0.4 ms on the benchmark machine, more
than the request itself; see ``bench/durability.py``). The emulator is a test double:
the failure its users meet is a killed process, so the default is ``normal``.

Opening (``docs/state-files.md``, ``state/opening.py``): the file and its log are read
whole on a private copy first, so that a file that cannot be read as ours (empty,
truncated, damaged, foreign, a log without its database or of another one, a newer
version, read-only) is refused with a one-line ``StateFileError`` and not one byte of it,
its ``-wal`` or ``-shm`` changes. Only a path where none of the three exists gets a new
file, made beside it and linked into place complete. A file of the first layout (version
1: one row holding the whole document) is checked whole, then upgraded into a copy that
replaces it once it reads back whole. The file holds secrets of the emulated world, so it
is readable by its owner only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from typing import Any

from ..ground import jsontext
from . import layout, opening
from .document import FORMAT
from .document import load as load_document
from .opening import StateFileError
from .records import DocumentError
from .replay import Replay

__all__ = ["SYNC_MODES", "StateFile", "StateFileError"]

Json = dict[str, Any]
SYNC_MODES = ("full", "normal")


class StateFile:
    """One server's state file: open an existing one with ``open``, make one with ``create``."""

    def __init__(self, path: str, db: sqlite3.Connection, through: int, last: int) -> None:
        self.path = path
        self._db = db
        self._lock = threading.Lock()
        self._through = through  # the last journal row folded into the base document
        self._last = last  # the last journal row written
        self.base_bytes = 0
        self.journal_bytes = 0  # written since the base
        self.loaded: Any = None  # what ``open``'s ``load`` made of the state

    # ----- opening -------------------------------------------------------------------

    @classmethod
    def create(
        cls, path: str | os.PathLike[str], document: Json, *, sync: str = "normal"
    ) -> StateFile:
        """A new state file at ``path`` holding ``document``; an existing file (or a
        ``-wal``/``-shm`` left of one) is an error."""
        path = os.fspath(path)
        if not opening.is_new(path):
            raise StateFileError(f"{path}: a file appeared there; not replacing it")
        text = _dumps(document)
        temporary = _build(f"{path}.new-{os.getpid()}", text)
        try:
            try:
                os.link(temporary, path)  # never over a file that appeared meanwhile
            except FileExistsError:
                raise StateFileError(f"{path}: a file appeared there; not replacing it") from None
            opening.fsync_directory(path)
        finally:
            os.unlink(temporary)
        state = cls.open(path, sync=sync)
        state.base_bytes = len(text)
        return state

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        sync: str = "normal",
        load: Callable[[Json], Any] | None = None,
    ) -> StateFile:
        """The state file at ``path``, checked whole; ``StateFileError`` (one line) if it is
        not ours or not whole, and then not one byte of it, its ``-wal`` or ``-shm`` changed.

        Everything is read from a private copy first (``state/opening.py``): the database's
        pages, its layout, the base document and every journal row. ``load``, when given, is
        called on the state read there (to build the emulator: its ``ValueError`` is a
        refusal too) and its answer kept as ``loaded``. Only then is the file opened for
        real, or, of an older layout, upgraded by a copy that replaces it once it reads
        back whole.
        """
        path = os.fspath(path)
        if sync not in SYNC_MODES:
            raise ValueError(f"sync is one of {SYNC_MODES}, not {sync!r}")
        opening.check_files(path)
        _finish_upgrade(path)
        before = opening.fingerprint(path)
        version, document, loaded = _inspect(path, load)
        opening.check_writable(path)
        if opening.fingerprint(path) != before:
            raise StateFileError(f"{path}: it changed while it was being checked (another server?)")
        if version == 1:
            _upgrade(path, document)
        try:
            db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise StateFileError(f"{path}: cannot open it as SQLite ({exc})") from None
        try:
            through, last = layout.check_layout(path, db)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={sync.upper()}")
            # The log is folded into the database at each compaction, not every 1,000 pages
            # in the middle of some request (``compact``).
            db.execute("PRAGMA wal_autocheckpoint=0")
        except sqlite3.Error as exc:
            db.close()
            raise StateFileError(f"{path}: not a readable SQLite database ({exc})") from None
        except BaseException:
            db.close()
            raise
        state = cls(path, db, through, last)
        state.loaded = loaded
        return state

    # ----- reading -------------------------------------------------------------------

    def read(self) -> Json:
        """The state as of the last journal row: the base document with the rows replayed."""
        with self._lock:
            try:
                (text,) = self._db.execute("SELECT document FROM base WHERE id = 1").fetchone()
                _check_digest(self._db, text)
                base = jsontext.loads(text)
                replay = Replay(base)
                self.base_bytes, self.journal_bytes = len(text), 0
                rows = self._db.execute(
                    "SELECT seq, changes FROM journal WHERE seq > ? ORDER BY seq", (self._through,)
                )
                expected = self._through + 1
                for seq, changes in rows:
                    if seq != expected:
                        raise DocumentError(f"journal row {expected} is missing")
                    replay.apply(jsontext.loads(changes), f"journal row {seq}")
                    self.journal_bytes += len(changes)
                    expected += 1
            except (sqlite3.Error, ValueError, TypeError) as exc:
                raise StateFileError(f"{self.path}: its state cannot be read ({exc})") from None
            return replay.document()

    # ----- writing -------------------------------------------------------------------

    def append(self, row: Json) -> int:
        """Write one journal row in its own SQLite transaction; its sequence number."""
        text = _dumps(row)
        with self._lock:
            seq = self._last + 1
            # One statement in autocommit mode: its own SQLite transaction, committed (and
            # with sync="full" fsynced) when execute returns.
            self._db.execute("INSERT INTO journal (seq, changes) VALUES (?, ?)", (seq, text))
            self._last = seq
            self.journal_bytes += len(text)
            return seq

    def compact(
        self, document: Json, also: Callable[[sqlite3.Connection], None] | None = None
    ) -> None:
        """Make ``document`` (the state as of the last row written) the new base; ``also``
        runs in the same SQLite transaction (the archive's rows after a restored mark)."""
        text = _dumps(document)
        with self._lock:
            through = self._last
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "UPDATE base SET document = ?, through = ? WHERE id = 1", (text, through)
                )
                self._db.execute(_SET_DIGEST, (_digest(text),))
                self._db.execute("DELETE FROM journal WHERE seq <= ?", (through,))
                if also is not None:
                    also(self._db)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            self._through = through
            self.base_bytes, self.journal_bytes = len(text), 0
            # Fold the write-ahead log into the database and start it again (busy, with
            # another reader: the next compaction will).
            with contextlib.suppress(sqlite3.OperationalError):
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    @contextlib.contextmanager
    def using(self) -> Iterator[sqlite3.Connection]:
        """The connection, for the other tables of the file (``state/archive.py``)."""
        with self._lock:
            yield self._db

    @property
    def rows_since_base(self) -> int:
        return self._last - self._through

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"StateFile({self.path!r})"


# The SHA-256 of the base document, beside it: SQLite keeps no checksum of its pages, and a
# damaged page inside a JSON string still reads as JSON. (A file without it, from before
# it was kept, is read without the check; its next compaction writes it.)
_SET_DIGEST = "INSERT OR REPLACE INTO meta (key, value) VALUES ('baseSha256', ?)"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _check_digest(db: sqlite3.Connection, text: str) -> None:
    row = db.execute("SELECT value FROM meta WHERE key = 'baseSha256'").fetchone()
    if row is not None and row[0] != _digest(text):
        raise DocumentError("the base document is damaged (its SHA-256 differs)")


# The emulator's own values (JSON already, no cycles): the checks cost without finding.
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False).encode


def _build(temporary: str, text: str) -> str:
    """A new state file of this layout at ``temporary`` (which must not exist) holding the
    document ``text``, private to its owner and fsynced; its path."""
    fd = os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    os.close(fd)
    try:
        db = sqlite3.connect(temporary, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=DELETE")
            db.execute("BEGIN")
            for statement in layout.SCHEMA:
                db.execute(statement)
            db.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [("format", FORMAT), ("version", str(layout.VERSION))],
            )
            db.execute("INSERT INTO base (id, document, through) VALUES (1, ?, 0)", (text,))
            db.execute(_SET_DIGEST, (_digest(text),))
            db.execute("COMMIT")
        finally:
            db.close()
        opening.fsync_file(temporary)
    except BaseException:
        os.unlink(temporary)
        raise
    return temporary


def _inspect(path: str, load: Callable[[Json], Any] | None) -> tuple[int, Json, Any]:
    """The layout version, the whole state and what ``load`` made of it, all read from a
    private copy of the file and its log: ``StateFileError`` if any of it cannot be read."""
    layout.check_header(path)
    opening.check_wal_header(path)
    with opening.private_copy(path) as copy:
        try:
            db = sqlite3.connect(copy, isolation_level=None)
        except sqlite3.Error as exc:
            raise StateFileError(f"{path}: cannot open it as SQLite ({exc})") from None
        try:
            layout.check_pages(path, db)
            version = layout.layout_version(path, db)
            if version == 1:
                document = layout.version_1_document(path, db)
            else:
                through, last = layout.check_layout(path, db)
                document = StateFile(path, db, through, last).read()
        except sqlite3.Error as exc:
            raise StateFileError(f"{path}: not a readable SQLite database ({exc})") from None
        finally:
            db.close()
    try:
        if load is not None:
            return version, document, load(document)
        # Every record checked (a damaged page can still read as JSON); the caller's
        # ``load`` does that itself.
        load_document(document, exact_order=False)
    except (ValueError, TypeError) as exc:
        raise StateFileError(f"{path}: its state cannot be read ({layout.one_line(exc)})") from None
    return version, document, None


def _upgrade(path: str, document: Json) -> None:
    """A file of the first layout becomes one of this layout: a new file beside it, read
    back whole, then put in its place (``opening.replace_by_upgrade``)."""
    temporary = _build(f"{path}.upgrade-{os.getpid()}", _dumps(document))
    try:
        db = sqlite3.connect(temporary, isolation_level=None)
        try:
            through, last = layout.check_layout(temporary, db)
            if StateFile(temporary, db, through, last).read() != document:
                raise StateFileError(f"{path}: its upgrade did not read back whole; left as it is")
        finally:
            db.close()
        opening.replace_by_upgrade(path, temporary)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _finish_upgrade(path: str) -> None:
    """An upgrade interrupted after the old log was removed: its whole copy takes the old
    database's place (a database of the first layout, or one that cannot be read without
    the log it lost; never a whole state file of this layout)."""
    waiting = opening.pending_upgrade(path)
    if waiting is None:
        return
    try:
        version = _inspect(path, None)[0]
    except StateFileError:
        version = 1  # the old database, behind the log it lost
    if version != 1 or _inspect(waiting, None)[0] != layout.VERSION:
        raise StateFileError(f"{path}: a leftover {waiting} is beside it; move one of them away")
    os.replace(waiting, path)
    opening.fsync_directory(path)
