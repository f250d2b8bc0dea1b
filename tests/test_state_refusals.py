"""No refusal changes a state file, and acknowledged rows are never lost (issue 23, item 2).

A state file is three files: the database, its write-ahead log (``-wal``, where the rows a
killed server acknowledged are) and the log's index (``-shm``). Each damage a disk or a
person can do is made here to a copy of a state file as a killed server leaves it (or as
a server that stopped cleanly leaves it), and every refusal is checked to be one line
naming the file, with every byte, name and mode in its folder as before. Where a damage
cannot be told from an ordinary state (a page of free space zeroed), opening must give
the whole state the file held: refused or whole, never a wrong state.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from emulator import Emulator
from emulator.state import opening
from emulator.state.journal import Journal
from emulator.state.opening import is_new
from emulator.state.persistence import StateFile, StateFileError

NAME = "state.sqlite"
WALLETS = 6


def _make_live(folder: Path, seed: int, wallets: int = WALLETS) -> dict:
    """A state file as a killed server leaves it: its database, a log holding ``wallets``
    acknowledged rows and the log's index; the state it holds."""
    work = folder / "work"
    work.mkdir(parents=True)
    emu = Emulator(seed=seed)
    emu.create_organization("Acme")
    state = StateFile.create(work / NAME, emu.to_document())
    journal = Journal(emu, state, compact_every=10**9).attach()
    for index in range(wallets):
        emu.create_wallet(wallet_name=f"w{index}", accounts=[])
    for suffix in ("", "-wal", "-shm"):  # what is on disk at this moment: a kill -9
        shutil.copyfile(work / (NAME + suffix), folder / (NAME + suffix))
    document = emu.to_document()
    journal.detach()
    state.close()
    shutil.rmtree(work)
    return document


@pytest.fixture(scope="module")
def templates(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("templates")
    made = {}
    for name, seed, wallets in (("live", 1, WALLETS), ("other", 2, WALLETS + 3)):
        made[name] = (root / name, _make_live(root / name, seed, wallets))
    closed = root / "closed"
    closed.mkdir()
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(root / "live" / (NAME + suffix), closed / (NAME + suffix))
    StateFile.open(closed / NAME).close()  # a clean stop folds the log in
    assert sorted(os.listdir(closed)) == [NAME]
    made["closed"] = (closed, made["live"][1])
    return made


def _copy(templates, kind: str, folder: Path) -> Path:
    source, _ = templates[kind]
    for name in os.listdir(source):
        shutil.copyfile(source / name, folder / name)
    return folder / NAME


def _folder_state(folder: Path) -> dict:
    """Every entry of the folder: its kind, mode and the hash of its bytes."""
    out = {}
    for entry in sorted(folder.iterdir()):
        st = entry.lstat()
        if entry.is_file() and not entry.is_symlink():
            content = hashlib.sha256(entry.read_bytes()).hexdigest()
        else:
            content = os.readlink(entry) if entry.is_symlink() else "dir"
        out[entry.name] = (st.st_mode, content)
    return out


def _refused(path: Path, words: str = "") -> str:
    folder = path.parent
    before = _folder_state(folder)
    with pytest.raises(StateFileError) as caught:
        StateFile.open(path).close()
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(path)), message
    assert words in message, message
    assert _folder_state(folder) == before, f"a refusal changed the files ({message})"
    return message


def _refused_or_whole(path: Path, document: dict) -> str:
    """Refused with nothing changed, or opened holding exactly ``document``."""
    before = _folder_state(path.parent)
    try:
        state = StateFile.open(path)
    except StateFileError as exc:
        message = str(exc)
        assert "\n" not in message and message.startswith(str(path))
        assert _folder_state(path.parent) == before, message
        return "refused"
    try:
        assert state.read() == document
    finally:
        state.close()
    return "whole"


def _write_at(path: Path, offset: int, data: bytes) -> None:
    with open(path, "r+b") as file:
        file.seek(offset)
        file.write(data)


def _sql(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path)
    try:
        for statement in statements:
            db.execute(statement)
        db.commit()
    finally:
        db.close()


# ----- truncation ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["live", "closed"])
def test_a_database_truncated_anywhere_is_refused_or_whole(tmp_path, templates, kind):
    size = (templates[kind][0] / NAME).stat().st_size
    cuts = {0, 1, 16, 99, 100, 101, 512, 1000, 4095, 4096, 4097, size // 2, size - 1}
    offsets = sorted(cuts | set(range(4096, size, 4096)))
    outcomes = {}
    for offset in offsets:
        folder = tmp_path / f"cut{offset}"
        folder.mkdir()
        path = _copy(templates, kind, folder)
        with open(path, "r+b") as file:
            file.truncate(offset)
        if offset % 4096:  # never a whole number of pages: always refused
            message = _refused(path)
            assert any(word in message for word in ("empty", "truncated")), message
        outcomes[offset] = _refused_or_whole(path, templates[kind][1])
    # Without a log, every cut loses pages the file needs; a live file's log may hold them.
    if kind == "closed":
        assert set(outcomes.values()) == {"refused"}
    assert outcomes[0] == outcomes[size // 2] == "refused"


def test_a_log_truncated_inside_a_frame_is_refused(tmp_path, templates):
    size = (templates["live"][0] / (NAME + "-wal")).stat().st_size
    frame = 4096 + 24
    for offset in sorted({1, 10, 31, 33, 100, 4000, 32 + frame + 7, size // 2 + 3, size - 1}):
        folder = tmp_path / f"cut{offset}"
        folder.mkdir()
        path = _copy(templates, "live", folder)
        with open(str(path) + "-wal", "r+b") as file:
            file.truncate(offset)
        assert "truncated" in _refused(path)


def test_a_log_cut_at_a_frame_holds_the_commits_before_the_cut(tmp_path, templates):
    """SQLite writes a transaction's frames, its commit last: a log cut between frames is
    what a crash in the middle of a write leaves. It opens as of its last whole commit."""
    size = (templates["live"][0] / (NAME + "-wal")).stat().st_size
    frame = 4096 + 24
    counts = []
    for frames in range(0, (size - 32) // frame + 1):
        folder = tmp_path / f"frames{frames}"
        folder.mkdir()
        path = _copy(templates, "live", folder)
        with open(str(path) + "-wal", "r+b") as file:
            file.truncate(32 + frames * frame)
        os.unlink(str(path) + "-shm")
        state = StateFile.open(path)
        try:
            counts.append(len(state.read()["organizations"][0].get("wallets", [])))
        finally:
            state.close()
    assert counts == sorted(counts) and counts[-1] == WALLETS


# ----- cut rows and damaged pages ---------------------------------------------------------


def test_a_journal_row_cut_out_of_the_middle_is_refused(tmp_path, templates):
    path = _copy(templates, "live", tmp_path)
    _sql(path, "DELETE FROM journal WHERE seq = 3")
    shutil.copytree(tmp_path, tmp_path.parent / "cut-rows")  # the damaged file, as left
    path = tmp_path.parent / "cut-rows" / NAME
    assert "journal row 3 is missing" in _refused(path)


def test_a_base_row_cut_out_is_refused(tmp_path, templates):
    path = _copy(templates, "closed", tmp_path)
    _sql(path, "DELETE FROM base")
    assert "holds no state" in _refused(path)


def test_a_journal_row_rewritten_as_garbage_is_refused(tmp_path, templates):
    path = _copy(templates, "closed", tmp_path)
    _sql(path, "UPDATE journal SET changes = '{\"c\": 7}' WHERE seq = 2")
    assert "journal row 2" in _refused(path)


@pytest.mark.parametrize("kind", ["live", "closed"])
@pytest.mark.parametrize("fill", [b"\x00", b"\xff", b"garbage!"])
def test_every_damaged_page_is_refused_or_whole(tmp_path, templates, kind, fill):
    source = templates[kind][0] / NAME
    pages = source.stat().st_size // 4096
    outcomes = []
    for page in range(pages):
        for start, length in ((0, 4096), (2048, 64)):
            folder = tmp_path / f"p{page}-{start}"
            folder.mkdir()
            path = _copy(templates, kind, folder)
            _write_at(path, page * 4096 + start, (fill * length)[:length])
            outcomes.append(_refused_or_whole(path, templates[kind][1]))
    assert "refused" in outcomes


def test_a_base_document_changed_inside_a_string_is_refused(tmp_path, templates):
    """Still JSON, still a document that loads (a name changed): SQLite keeps no checksum of
    its pages, the state file keeps the base document's SHA-256."""
    path = _copy(templates, "closed", tmp_path)
    data = path.read_bytes()
    at = data.index(b'"name":"Acme"') + len(b'"name":"')
    _write_at(path, at, b"Acmf")
    assert "SHA-256" in _refused(path)


@pytest.mark.parametrize("offset", [0, 8, 24, 40, 32 + 4096 + 24 + 100, -50])
def test_a_damaged_log_is_refused(tmp_path, templates, offset):
    path = _copy(templates, "live", tmp_path)
    wal = Path(str(path) + "-wal")
    at = offset if offset >= 0 else wal.stat().st_size + offset
    _write_at(wal, at, bytes(b ^ 0x5A for b in wal.read_bytes()[at : at + 4]))
    os.unlink(str(path) + "-shm")  # no index that might hide it
    message = _refused(path)
    assert "-wal" in message or "cannot be read" in message, message


# ----- foreign files ----------------------------------------------------------------------


def _foreign_sqlite(path: Path) -> None:
    _sql(
        path,
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
        "INSERT INTO notes VALUES (1, 'x')",
    )


FOREIGN = {
    "empty file": (lambda p: p.write_bytes(b""), "empty"),
    "text": (lambda p: p.write_text('{"format": "turnkey-emulator-state"}'), "not a SQLite file"),
    "JSON state document": (
        lambda p: p.write_text(json.dumps(Emulator(seed=1).to_document())),
        "not a SQLite file",
    ),
    "another SQLite database": (_foreign_sqlite, "not a state file"),
    "a directory": (lambda p: p.mkdir(), "a directory"),
    "a dangling link": (lambda p: p.symlink_to(p.parent / "nowhere"), "not a regular file"),
}


@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_a_foreign_file_is_refused(tmp_path, name):
    make, words = FOREIGN[name]
    path = tmp_path / NAME
    make(path)
    assert not is_new(str(path))
    assert words in _refused(path)


def test_a_log_that_is_a_directory_is_refused(tmp_path, templates):
    path = _copy(templates, "closed", tmp_path)
    (tmp_path / (NAME + "-wal")).mkdir()
    assert "not a regular file" in _refused(path)


def test_the_log_of_another_state_file_is_refused(tmp_path, templates):
    path = _copy(templates, "live", tmp_path)
    shutil.copyfile(templates["other"][0] / (NAME + "-wal"), str(path) + "-wal")
    _refused(path)


def test_the_log_of_another_sqlite_database_is_refused(tmp_path, templates):
    work = tmp_path / "work"
    work.mkdir()
    db = sqlite3.connect(work / "other.db")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    db.executemany("INSERT INTO notes VALUES (?, ?)", [(i, "x" * 500) for i in range(40)])
    db.commit()
    shutil.copyfile(work / "other.db-wal", tmp_path / "other-wal")
    db.close()
    folder = tmp_path / "state"
    folder.mkdir()
    path = _copy(templates, "live", folder)
    shutil.copyfile(tmp_path / "other-wal", str(path) + "-wal")
    _refused(path)


# ----- missing files ----------------------------------------------------------------------


@pytest.mark.parametrize("left", [["-wal"], ["-wal", "-shm"], ["-shm"]])
def test_a_log_without_its_database_is_refused_never_a_new_world(tmp_path, templates, left):
    path = _copy(templates, "live", tmp_path)
    path.unlink()
    for suffix in {"-wal", "-shm"} - set(left):
        os.unlink(str(path) + suffix)
    with pytest.raises(StateFileError, match="refusing to start a new world") as caught:
        is_new(str(path))
    assert "\n" not in str(caught.value)
    assert "refusing to start a new world" in _refused(path)
    with pytest.raises(StateFileError, match="refusing to start a new world"):
        StateFile.create(path, Emulator(seed=1).to_document())
    assert sorted(os.listdir(tmp_path)) == sorted(NAME + s for s in left)


def test_a_database_without_its_log_but_with_its_index_is_refused(tmp_path, templates):
    path = _copy(templates, "live", tmp_path)
    os.unlink(str(path) + "-wal")
    assert "write-ahead log (-wal) is not" in _refused(path)


def test_only_a_path_where_nothing_is_is_new(tmp_path, templates):
    assert is_new(str(tmp_path / NAME))
    path = _copy(templates, "live", tmp_path)
    assert not is_new(str(path))


# ----- older layouts ----------------------------------------------------------------------


def _version_1(path: Path, text: str | None, *, live: bool = False) -> sqlite3.Connection | None:
    """A state file of the first layout (one ``state`` row); with ``live``, as a killed
    server of that version left it (the row in its log), and the connection still open."""
    db = sqlite3.connect(path, isolation_level=None)
    if live:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE state (id INTEGER PRIMARY KEY CHECK (id = 1), document TEXT NOT NULL)")
    if text is not None:
        db.execute("INSERT INTO state (id, document) VALUES (1, ?)", (text,))
    if live:
        return db
    db.close()
    return None


def _killed_version_1(folder: Path, document: dict) -> Path:
    work = folder / "work"
    work.mkdir()
    db = _version_1(work / NAME, json.dumps(document), live=True)
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(work / (NAME + suffix), folder / (NAME + suffix))
    assert db is not None
    db.close()
    shutil.rmtree(work)
    return folder / NAME


def _document() -> dict:
    emu = Emulator(seed=8)
    emu.create_organization("Acme")
    emu.create_wallet(wallet_name="kept", accounts=[])
    return emu.to_document()


def _broken_record(document: dict) -> str:
    document = json.loads(json.dumps(document))
    document["vault"]["wallets"] = {}  # a wallet without its mnemonic
    return json.dumps(document)


OLD = {
    "cut document": (lambda d: json.dumps(d)[:-40], "version 1"),
    "not a document": (lambda d: '{"organizations": 7}', "version 1"),
    "a record that does not load": (_broken_record, "no valid mnemonic"),
    "no state row": (lambda d: None, "holds no state"),
    "another format": (lambda d: json.dumps({**d, "format": "x"}), "not a turnkey"),
}


@pytest.mark.parametrize("name", sorted(OLD))
@pytest.mark.parametrize("live", [False, True])
def test_a_damaged_file_of_the_first_layout_is_refused_before_any_upgrade(tmp_path, name, live):
    make, words = OLD[name]
    text = make(_document())
    path = tmp_path / NAME
    if live:
        work = tmp_path / "work"
        work.mkdir()
        db = _version_1(work / NAME, text, live=True)
        for suffix in ("", "-wal", "-shm"):
            shutil.copyfile(work / (NAME + suffix), tmp_path / (NAME + suffix))
        assert db is not None
        db.close()
        shutil.rmtree(work)
    else:
        _version_1(path, text)
    assert words in _refused(path)


def test_a_first_layout_file_with_a_damaged_page_is_refused(tmp_path):
    path = tmp_path / NAME
    _version_1(path, json.dumps(_document()))
    for page in range(1, path.stat().st_size // 4096):
        _write_at(path, page * 4096, b"\xff" * 4096)
    _refused(path)


def _upgraded(path: Path) -> dict:
    folder = path.parent
    assert sorted(os.listdir(folder)) == [NAME], os.listdir(folder)
    assert path.stat().st_mode & 0o777 == 0o600
    db = sqlite3.connect(path)
    try:
        tables = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        db.close()
    assert tables == {"meta", "base", "journal"}
    state = StateFile.open(path)
    try:
        return state.read()
    finally:
        state.close()


def test_a_killed_first_layout_file_is_upgraded_with_what_its_log_held(tmp_path):
    document = _document()
    path = _killed_version_1(tmp_path, document)
    assert (tmp_path / (NAME + "-wal")).stat().st_size > 0
    state = StateFile.open(path)
    state.close()
    assert _upgraded(path) == document


@pytest.mark.parametrize("step", ["copy waiting", "index gone", "log gone"])
def test_an_upgrade_interrupted_at_any_step_finishes_whole(tmp_path, step):
    """The states ``opening.replace_by_upgrade`` passes through, as a crash would leave them:
    the next open finishes the upgrade and loses nothing the log held."""
    document = _document()
    path = _killed_version_1(tmp_path, document)
    # The upgrade copy, made as the emulator makes it, waits beside the old database.
    scratch = tmp_path.parent / f"{tmp_path.name}-scratch"
    scratch.mkdir()
    _killed_version_1(scratch, document)
    StateFile.open(scratch / NAME).close()
    shutil.copyfile(scratch / NAME, str(path) + opening.UPGRADED)
    os.chmod(str(path) + opening.UPGRADED, 0o600)
    if step in ("index gone", "log gone"):
        os.unlink(str(path) + "-shm")
    if step == "log gone":
        os.unlink(str(path) + "-wal")  # the old database is now behind its log: only the copy
    StateFile.open(path).close()
    assert _upgraded(path) == document


def test_a_leftover_upgrade_copy_beside_a_file_of_this_layout_is_refused(tmp_path, templates):
    path = _copy(templates, "closed", tmp_path)
    shutil.copyfile(path, str(path) + opening.UPGRADED)
    assert "leftover" in _refused(path)


# ----- permissions and versions -----------------------------------------------------------


def test_a_read_only_file_is_refused_with_what_to_do(tmp_path, templates):
    path = _copy(templates, "live", tmp_path)
    path.chmod(0o400)
    message = _refused(path)
    assert "read-only (mode 400)" in message and "make it writable, or serve a copy" in message


def test_a_newer_version_is_refused(tmp_path, templates):
    path = _copy(templates, "closed", tmp_path)
    _sql(path, "UPDATE meta SET value = '99' WHERE key = 'version'")
    assert "a newer version (99)" in _refused(path)


def test_a_state_file_that_changes_while_it_is_checked_is_refused(tmp_path, templates, monkeypatch):
    path = _copy(templates, "live", tmp_path)
    real = opening.check_writable

    def meanwhile(name: str) -> None:
        real(name)
        with open(str(path) + "-wal", "ab") as file:
            file.write(b"\0" * (4096 + 24))

    monkeypatch.setattr(opening, "check_writable", meanwhile)
    with pytest.raises(StateFileError, match="changed while it was being checked"):
        StateFile.open(path)


def test_the_load_step_refuses_before_the_file_is_opened(tmp_path, templates):
    """``open``'s ``load`` (the CLI builds the emulator there) runs on the private copy: its
    ``ValueError`` is a refusal that changes nothing."""
    path = _copy(templates, "live", tmp_path)
    before = _folder_state(tmp_path)

    def load(document: dict) -> None:
        raise ValueError("not this one\nplease")

    with pytest.raises(StateFileError, match="its state cannot be read \\(not this one please\\)"):
        StateFile.open(path, load=load)
    assert _folder_state(tmp_path) == before


# ----- the command line -------------------------------------------------------------------


def _serve(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "emulator", "serve", "--port", "0", "--state", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("case", ["log without its database", "read-only", "old and damaged"])
def test_serve_refuses_with_one_line_and_changes_nothing(tmp_path, templates, case):
    path = _copy(templates, "live", tmp_path)
    if case == "log without its database":
        path.unlink()
        words = "refusing to start a new world"
    elif case == "read-only":
        path.chmod(0o400)
        words = "read-only"
    else:
        for name in os.listdir(tmp_path):
            os.unlink(tmp_path / name)
        _version_1(path, json.dumps(_document())[:-10])
        words = "version 1"
    before = _folder_state(tmp_path)
    completed = _serve(path)
    assert completed.returncode == 2 and completed.stdout == ""
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}") and words in lines[0]
    assert _folder_state(tmp_path) == before
