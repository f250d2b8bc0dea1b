"""A state file for ``python -m emulator serve --state PATH``: SQLite in WAL mode.

The server writes the whole state document (``state/document.py``) after every
request that may change state and before it answers, in one SQLite
transaction: an acknowledged activity is on disk even if the process is then
killed with ``kill -9`` (WAL with ``synchronous=NORMAL`` survives a process
crash; ``durable=True`` asks for ``FULL``, which survives a power cut too, at
an fsync per write). A restart loads the document back: the same
organizations, keys, wallets and ids.

The cost per write grows with the state (the whole document is written); the
benchmarks report it. The file holds secrets of the emulated world (mnemonics,
private keys), so it is created readable by its owner only.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from typing import Any

Json = dict[str, Any]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    document TEXT NOT NULL
)
"""


class StateFile:
    """The one saved state document of a server, in a SQLite database."""

    def __init__(self, path: str | os.PathLike[str], *, durable: bool = False) -> None:
        self.path = os.fspath(path)
        fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        os.close(fd)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._db.execute(_SCHEMA)

    def read(self) -> Json | None:
        with self._lock:
            row = self._db.execute("SELECT document FROM state WHERE id = 1").fetchone()
        return json.loads(row[0]) if row else None

    def write(self, document: Json) -> None:
        text = json.dumps(document, separators=(",", ":"))
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO state (id, document) VALUES (1, ?)", (text,)
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"StateFile({self.path!r})"
