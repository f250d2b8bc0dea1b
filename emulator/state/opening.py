"""Opening a state file without ever changing it on a refusal (``docs/state-files.md``).

A state file is three files: the database at ``PATH`` and SQLite's write-ahead log
``PATH-wal`` (acknowledged rows not yet folded into the database) and its index
``PATH-shm``. The rules kept here:

- ``PATH`` is new (a new world is made there) only when none of the three exists. A
  ``-wal`` or ``-shm`` without its database is refused: the log may hold acknowledged
  rows, and SQLite would delete it (or replay it into a new file).
- A database with its ``-shm`` but without its ``-wal`` is refused: SQLite removes the
  ``-shm`` before the ``-wal`` when it closes cleanly, so the log was lost or moved.
- A read-only database is refused (every change is written to it).
- Everything is checked on a private copy of the database and its log
  (``private_copy``), so that nothing SQLite does while reading (rebuilding the log's
  index, folding the log in when the last connection closes) touches the user's files.
  The files are opened for real only once the copy was read whole, and only if they
  did not change meanwhile (``fingerprint``).
- A file of an older layout is upgraded into a new file beside it that replaces it only
  once it reads back whole (``replace_by_upgrade``: fsync, atomic rename).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import struct
import tempfile
from collections.abc import Iterator

WAL, SHM = "-wal", "-shm"
UPGRADED = ".upgraded"  # a finished upgrade copy waiting to replace its database
_WAL_MAGIC = (0x377F0682, 0x377F0683)


class StateFileError(ValueError):
    """A state file that is not ours, or not whole; the message says which and why."""


def is_new(path: str) -> bool:
    """Whether ``path`` is a new state file: nothing there, nor its ``-wal`` or ``-shm``.
    A log without its database is a ``StateFileError``, and is left as it is."""
    if os.path.lexists(path):
        return False
    left = [suffix for suffix in (WAL, SHM) if os.path.lexists(path + suffix)]
    if left:
        raise StateFileError(
            f"{path}: no such file, but its {' and '.join(left)} (the write-ahead log of its"
            " acknowledged changes) is there; refusing to start a new world over it: put the"
            f" database back, or move {path}{left[0]} away to start anew"
        )
    return True


def check_files(path: str) -> None:
    """The refusals decided by which files exist and what they are, before reading any."""
    if not os.path.lexists(path):
        is_new(path)  # a log without its database: its own message
        raise StateFileError(f"{path}: no such file")
    if os.path.isdir(path):
        raise StateFileError(f"{path}: a directory, not a state file")
    if not os.path.isfile(path):
        raise StateFileError(f"{path}: not a regular file, so not a state file")
    for suffix in (WAL, SHM):
        side = path + suffix
        if os.path.lexists(side) and not os.path.isfile(side):
            raise StateFileError(f"{side}: not a regular file; a state file's log must be one")
    if os.path.lexists(path + SHM) and not os.path.lexists(path + WAL):
        raise StateFileError(
            f"{path}: its {SHM} is there but its write-ahead log ({WAL}) is not, so acknowledged"
            f" rows may be missing; put the {WAL} back, or remove the {SHM} to accept the file"
            " as it is"
        )


def check_writable(path: str) -> None:
    """A database the server could not write to is refused before it is opened for real."""
    mode = os.stat(path).st_mode
    if not mode & stat.S_IWUSR or not os.access(path, os.W_OK):
        raise StateFileError(
            f"{path}: the state file is read-only (mode {stat.S_IMODE(mode):o}); the server"
            " writes every change to it: make it writable, or serve a copy"
        )
    folder = os.path.dirname(os.path.abspath(path))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StateFileError(
            f"{path}: its folder is not writable, and SQLite keeps its log ({WAL}) beside it"
        )


def check_wal_header(path: str) -> None:
    """A log whose header is not a SQLite log's is refused: SQLite would pass over it, and
    the acknowledged rows in it with it."""
    side = path + WAL
    try:
        with open(side, "rb") as file:
            header = file.read(32)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StateFileError(f"{side}: cannot read it ({exc.strerror})") from None
    if not header:
        return  # an empty log: SQLite's own after a compaction
    if len(header) < 32:
        raise StateFileError(f"{side}: the write-ahead log is truncated (shorter than its header)")
    magic, version = struct.unpack(">II", header[:8])
    if magic not in _WAL_MAGIC or version != 3007000:
        raise StateFileError(f"{side}: not a SQLite write-ahead log")
    if _checksum(header[:24], big_endian=magic & 1 == 1) != struct.unpack(">II", header[24:]):
        raise StateFileError(f"{side}: the write-ahead log's header is damaged")
    (page_size,) = struct.unpack(">I", header[8:12])
    size = os.path.getsize(side)
    if (size - 32) % (page_size + 24):  # SQLite writes whole frames
        raise StateFileError(
            f"{side}: the write-ahead log is truncated ({size} bytes, not a whole number of frames)"
        )


def _checksum(data: bytes, *, big_endian: bool) -> tuple[int, int]:
    """SQLite's log checksum (https://www.sqlite.org/fileformat2.html#walformat)."""
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    s0 = s1 = 0
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def check_size(path: str, header: bytes) -> None:
    """A database is a whole number of pages (the page size from its 100-byte header)."""
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    size = os.path.getsize(path)
    if page_size < 512 or page_size & (page_size - 1) or size % page_size:
        raise StateFileError(
            f"{path}: truncated or damaged ({size} bytes, not a whole number of"
            f" {page_size}-byte pages)"
        )


def wal_frames(path: str, page_size: int) -> int:
    """How many whole frames the log at ``path + WAL`` holds by its size (0 without one)."""
    try:
        size = os.path.getsize(path + WAL)
    except FileNotFoundError:
        return 0
    return max(0, (size - 32) // (page_size + 24))


def wal_tail_uncommitted(path: str, page_size: int, frames: int) -> bool:
    """Whether the log's frames after the first ``frames`` hold no commit of the log's
    present run: an interrupted write (never acknowledged) or an earlier run's leftovers."""
    with open(path + WAL, "rb") as file:
        salts = file.read(32)[16:24]
        offset = 32 + frames * (page_size + 24)
        while True:
            file.seek(offset)
            header = file.read(24)
            if len(header) < 24:
                return True
            if header[8:16] == salts and int.from_bytes(header[4:8], "big") != 0:
                return False  # a commit of this run that SQLite could not read
            offset += page_size + 24


def fingerprint(path: str) -> tuple:
    """What would show that the database or its log changed (size and times)."""
    marks = []
    for name in (path, path + WAL):
        try:
            st = os.stat(name)
        except FileNotFoundError:
            marks.append(None)
            continue
        marks.append((st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(marks)


@contextlib.contextmanager
def private_copy(path: str) -> Iterator[str]:
    """A copy of the database and its log in a private temporary folder, removed after.

    The folder is made beside the file (the same disk, and not a memory-backed ``/tmp``:
    the file may be large), mode 0700 (the copy holds the world's secrets); in the system's
    temporary folder when the file's own is not writable."""
    try:
        folder = tempfile.mkdtemp(
            prefix=f".{os.path.basename(path)}.check-", dir=os.path.dirname(os.path.abspath(path))
        )
    except OSError:
        folder = tempfile.mkdtemp(prefix="emulator-state-check-")
    try:
        copy = os.path.join(folder, "state.sqlite")
        try:
            shutil.copyfile(path, copy)
            if os.path.exists(path + WAL):
                shutil.copyfile(path + WAL, copy + WAL)
        except OSError as exc:
            raise StateFileError(f"{path}: cannot read it ({exc.strerror})") from None
        yield copy
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def replace_by_upgrade(path: str, upgraded: str) -> None:
    """Put the upgrade copy ``upgraded`` (fsynced, read back whole) in place of ``path``.

    Without a log beside ``path`` that is one atomic rename. With one, the log belongs to
    the old database and must not meet the new one, so the copy first waits under
    ``PATH.upgraded``, then the old log goes, then the rename: a crash at any step leaves
    either the old database with its log or a whole upgrade copy (``finish_upgrade``).
    """
    if not os.path.lexists(path + WAL) and not os.path.lexists(path + SHM):
        os.replace(upgraded, path)
        fsync_directory(path)
        return
    os.replace(upgraded, path + UPGRADED)
    fsync_directory(path)
    for suffix in (SHM, WAL):  # the -shm first: a -shm alone would be refused
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path + suffix)
    fsync_directory(path)
    os.replace(path + UPGRADED, path)
    fsync_directory(path)


def pending_upgrade(path: str) -> str | None:
    """A finished upgrade copy whose database's log is already gone (a crash between the
    steps of ``replace_by_upgrade``): the copy holds the state, and replaces the database."""
    waiting = path + UPGRADED
    if os.path.isfile(waiting) and not os.path.lexists(path + WAL):
        return waiting
    return None


def fsync_file(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_directory(path: str) -> None:
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
