"""The state file's layout (``state/persistence.py``): its tables and version, and the checks
that a SQLite file is a readable state file of ours, each refusal a one-line
``StateFileError`` naming the file. Version 1 (one ``state`` row holding the whole document)
is still read, to be upgraded."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..ground import jsontext
from ..ground.numbers import integer
from . import opening
from .document import FORMAT
from .opening import StateFileError
from .replay import Replay

Json = dict[str, Any]
VERSION = 2
SQLITE_MAGIC = b"SQLite format 3\x00"
SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE base (id INTEGER PRIMARY KEY CHECK (id = 1), document TEXT NOT NULL,"
    " through INTEGER NOT NULL)",
    "CREATE TABLE journal (seq INTEGER PRIMARY KEY, changes TEXT NOT NULL)",
)


def check_header(path: str) -> None:
    try:
        with open(path, "rb") as file:
            header = file.read(100)
    except FileNotFoundError:
        raise StateFileError(f"{path}: no such file") from None
    except OSError as exc:
        raise StateFileError(f"{path}: cannot read it ({exc.strerror})") from None
    if not header:
        raise StateFileError(f"{path}: the file is empty, not a state file")
    if not header.startswith(SQLITE_MAGIC):
        raise StateFileError(f"{path}: not a SQLite file, so not a state file")
    if len(header) < 100:
        raise StateFileError(f"{path}: truncated (shorter than a SQLite header)")
    opening.check_size(path, header)


def check_pages(path: str, db: sqlite3.Connection) -> None:
    (verdict,) = db.execute("PRAGMA quick_check(1)").fetchone()
    if verdict != "ok":
        raise StateFileError(f"{path}: the SQLite file is damaged ({one_line(verdict)})")
    (page_size,) = db.execute("PRAGMA page_size").fetchone()
    # How many of the log's frames SQLite took (-1: no log in use); the rest must be an
    # interrupted write or an earlier run's leftovers, never a commit it could not read.
    (_, frames, _) = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    frames = max(frames, 0)
    whole = opening.wal_frames(path, page_size)
    if frames < whole and not opening.wal_tail_uncommitted(path, page_size, frames):
        raise StateFileError(
            f"{path}: its write-ahead log ({opening.WAL}) is damaged or not this database's:"
            f" SQLite can read {frames} of its {whole} pages"
        )


def layout_version(path: str, db: sqlite3.Connection) -> int:
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return 1 if tables == {"state"} else VERSION


def check_layout(path: str, db: sqlite3.Connection) -> tuple[int, int]:
    """The base's ``through`` and the last journal row of a state file of ours."""
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" not in tables:
        raise StateFileError(f"{path}: a SQLite file, but not a state file of this emulator")
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("format") != FORMAT:
        raise StateFileError(f"{path}: a SQLite file, but not a {FORMAT} file")
    version = meta.get("version", "")
    number = integer(version)
    if number != VERSION:
        newer = number is not None and number > VERSION
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


def version_1_document(path: str, db: sqlite3.Connection) -> Json:
    """The one document of a state file of the first layout (one ``state`` row)."""
    row = db.execute("SELECT document FROM state WHERE id = 1").fetchone()
    if row is None or not isinstance(row[0], str):
        raise StateFileError(f"{path}: an older state file (version 1) that holds no state")
    try:
        document = jsontext.loads(row[0])
        Replay(document)  # the shape a base must have
    except ValueError as exc:
        raise StateFileError(
            f"{path}: an older state file (version 1) whose state cannot be read ({exc})"
        ) from None
    return document


def one_line(value: object) -> str:
    return " ".join(str(value).split())
