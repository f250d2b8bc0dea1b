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

A file of the first layout (version 1: one row holding the whole document) is
upgraded in place, in one SQLite transaction. A file that cannot be read as ours
(empty, truncated, corrupt, another program's SQLite file, not SQLite at all, or a
newer version) is refused with a ``StateFileError`` naming the reason, and never
written: only a path where nothing
exists yet gets a new file, made beside it and linked into place complete. The file
holds secrets of the emulated world, so it is readable by its owner only.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from typing import Any

from ..ground import jsontext
from .document import FORMAT
from .records import DocumentError
from .replay import Replay

Json = dict[str, Any]
VERSION = 2
SYNC_MODES = ("full", "normal")
_SQLITE_MAGIC = b"SQLite format 3\x00"
_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE base (id INTEGER PRIMARY KEY CHECK (id = 1), document TEXT NOT NULL,"
    " through INTEGER NOT NULL)",
    "CREATE TABLE journal (seq INTEGER PRIMARY KEY, changes TEXT NOT NULL)",
)


class StateFileError(ValueError):
    """A state file that is not ours, or not whole; the message says which and why."""


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

    # ----- opening -------------------------------------------------------------------

    @classmethod
    def create(
        cls, path: str | os.PathLike[str], document: Json, *, sync: str = "normal"
    ) -> StateFile:
        """A new state file at ``path`` holding ``document``; an existing file is an error."""
        path = os.fspath(path)
        temporary = f"{path}.new-{os.getpid()}"
        fd = os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        os.close(fd)
        try:
            db = sqlite3.connect(temporary, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=DELETE")
                db.execute("BEGIN")
                for statement in _SCHEMA:
                    db.execute(statement)
                db.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [("format", FORMAT), ("version", str(VERSION))],
                )
                text = _dumps(document)
                db.execute("INSERT INTO base (id, document, through) VALUES (1, ?, 0)", (text,))
                db.execute("COMMIT")
            finally:
                db.close()
            _fsync_file(temporary)
            try:
                os.link(temporary, path)  # never over a file that appeared meanwhile
            except FileExistsError:
                raise StateFileError(f"{path}: a file appeared there; not replacing it") from None
            _fsync_directory(path)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
        state = cls.open(path, sync=sync)
        state.base_bytes = len(text)
        return state

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, sync: str = "normal") -> StateFile:
        """The state file at ``path``, checked; ``StateFileError`` if it is not ours or not
        whole (nothing is written to such a file)."""
        path = os.fspath(path)
        if sync not in SYNC_MODES:
            raise ValueError(f"sync is one of {SYNC_MODES}, not {sync!r}")
        _check_header(path)
        try:
            db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise StateFileError(f"{path}: cannot open it as SQLite ({exc})") from None
        try:
            through, last = _check_database(path, db)
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
        return cls(path, db, through, last)

    # ----- reading -------------------------------------------------------------------

    def read(self) -> Json:
        """The state as of the last journal row: the base document with the rows replayed."""
        with self._lock:
            try:
                (text,) = self._db.execute("SELECT document FROM base WHERE id = 1").fetchone()
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

    def compact(self, document: Json) -> None:
        """Make ``document`` (the state as of the last row written) the new base."""
        text = _dumps(document)
        with self._lock:
            through = self._last
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "UPDATE base SET document = ?, through = ? WHERE id = 1", (text, through)
                )
                self._db.execute("DELETE FROM journal WHERE seq <= ?", (through,))
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

    @property
    def rows_since_base(self) -> int:
        return self._last - self._through

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"StateFile({self.path!r})"


# The emulator's own values (JSON already, no cycles): the checks cost without finding.
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False).encode


def _check_header(path: str) -> None:
    try:
        with open(path, "rb") as file:
            header = file.read(100)
    except FileNotFoundError:
        raise StateFileError(f"{path}: no such file") from None
    except OSError as exc:
        raise StateFileError(f"{path}: cannot read it ({exc.strerror})") from None
    if not header:
        raise StateFileError(f"{path}: the file is empty, not a state file")
    if not header.startswith(_SQLITE_MAGIC):
        raise StateFileError(f"{path}: not a SQLite file, so not a state file")
    if len(header) < 100:
        raise StateFileError(f"{path}: truncated (shorter than a SQLite header)")


def _check_database(path: str, db: sqlite3.Connection) -> tuple[int, int]:
    """The base's ``through`` and the last journal row of a state file of ours."""
    (verdict,) = db.execute("PRAGMA quick_check(1)").fetchone()
    if verdict != "ok":
        raise StateFileError(f"{path}: the SQLite file is damaged ({verdict})")
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if tables == {"state"}:
        _upgrade_version_1(path, db)
        tables = {"meta", "base", "journal"}
    if "meta" not in tables:
        raise StateFileError(f"{path}: a SQLite file, but not a state file of this emulator")
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("format") != FORMAT:
        raise StateFileError(f"{path}: a SQLite file, but not a {FORMAT} file")
    version = meta.get("version", "")
    if not version.isdigit() or int(version) != VERSION:
        newer = version.isdigit() and int(version) > VERSION
        detail = "a newer version" if newer else "an unknown version"
        raise StateFileError(
            f"{path}: {detail} ({version}) of the state file; this emulator reads version {VERSION}"
        )
    if not {"base", "journal"} <= tables:
        raise StateFileError(f"{path}: the state file lacks its base or journal table")
    row = db.execute("SELECT through FROM base WHERE id = 1").fetchone()
    if row is None or not isinstance(row[0], int):
        raise StateFileError(f"{path}: the state file holds no state (its base row is gone)")
    (last,) = db.execute("SELECT COALESCE(MAX(seq), ?) FROM journal", (row[0],)).fetchone()
    return row[0], max(last, row[0])


def _upgrade_version_1(path: str, db: sqlite3.Connection) -> None:
    """A state file of the first layout (one ``state`` row holding the whole document) becomes
    the base of this one, in one SQLite transaction: whole or not at all."""
    row = db.execute("SELECT document FROM state WHERE id = 1").fetchone()
    if row is None or not isinstance(row[0], str):
        raise StateFileError(f"{path}: an older state file (version 1) that holds no state")
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA:
            db.execute(statement)
        db.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [("format", FORMAT), ("version", str(VERSION))],
        )
        db.execute("INSERT INTO base (id, document, through) VALUES (1, ?, 0)", (row[0],))
        db.execute("DROP TABLE state")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _fsync_file(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_directory(path: str) -> None:
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
