"""Bad state files are refused with one clear line, and never written; only a missing path
starts a new world. JSON documents (``Emulator.load``) get the same care."""

from __future__ import annotations

import contextlib
import copy
import json
import random
import sqlite3
import subprocess
import sys

import pytest

from emulator import Emulator
from emulator.state.persistence import StateFile, StateFileError

from .test_state_document import busy_emulator


def good_file(path) -> None:
    emu = Emulator(seed=3)
    emu.create_organization("Acme")
    state = StateFile.create(path, emu.to_document())
    state.close()


def empty(path) -> None:
    path.write_bytes(b"")


def not_sqlite(path) -> None:
    path.write_text('{"format": "turnkey-emulator-state"}')


def truncated(path) -> None:
    good_file(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def truncated_header(path) -> None:
    good_file(path)
    path.write_bytes(path.read_bytes()[:40])


def corrupt(path) -> None:
    good_file(path)
    data = bytearray(path.read_bytes())
    for offset in range(100, len(data), 97):
        data[offset] ^= 0x5A
    path.write_bytes(bytes(data))


def foreign(path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    db.commit()
    db.close()


def version_one(path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE state (id INTEGER PRIMARY KEY, document TEXT NOT NULL)")
    db.commit()
    db.close()


def newer(path) -> None:
    good_file(path)
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '99' WHERE key = 'version'")
    db.commit()
    db.close()


def base_row_deleted(path) -> None:
    good_file(path)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM base")
    db.commit()
    db.close()


def bad_journal_row(path) -> None:
    good_file(path)
    db = sqlite3.connect(path)
    db.execute('INSERT INTO journal (seq, changes) VALUES (1, \'{"c": [["rec"]]}\')')
    db.commit()
    db.close()


BAD = {
    "empty": (empty, "empty"),
    "not SQLite": (not_sqlite, "not a SQLite file"),
    "truncated": (truncated, ""),
    "truncated header": (truncated_header, "truncated"),
    "corrupt": (corrupt, ""),
    "foreign SQLite": (foreign, "not a state file"),
    "version 1 without its state row": (version_one, "older state file (version 1) that holds no"),
    "newer": (newer, "newer version (99)"),
    "base row deleted": (base_row_deleted, "holds no state"),
    "bad journal row": (bad_journal_row, "journal row 1"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_state_file_is_refused_and_left_alone(tmp_path, name):
    make, words = BAD[name]
    path = tmp_path / "state.sqlite"
    make(path)
    before = path.read_bytes()
    with pytest.raises(StateFileError) as caught:
        StateFile.open(path).read()
    message = str(caught.value)
    assert message.startswith(str(path)) and words in message and "\n" not in message
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) in (
        ["state.sqlite"],
        ["state.sqlite", "state.sqlite-shm", "state.sqlite-wal"],
    )


@pytest.mark.parametrize("name", ["empty", "foreign SQLite", "newer", "corrupt"])
def test_serve_refuses_a_bad_state_file_with_one_line(tmp_path, name):
    make, words = BAD[name]
    path = tmp_path / "state.sqlite"
    make(path)
    before = path.read_bytes()
    completed = subprocess.run(
        [sys.executable, "-m", "emulator", "serve", "--port", "0", "--state", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 2 and completed.stdout == ""
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0]
    assert path.read_bytes() == before


def test_a_new_state_file_is_private_and_complete(tmp_path):
    path = tmp_path / "state.sqlite"
    good_file(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir() if ".new-" in p.name] == []
    with pytest.raises(StateFileError, match="not replacing"):
        StateFile.create(path, Emulator().to_document())  # never over an existing file
    document = StateFile.open(path).read()
    assert Emulator.from_document(document).organization().organization_name == "Acme"


# ----- JSON documents --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("{", "not a JSON state document"),
        ("[]", "a state document is a JSON object"),
        ('{"format": "other"}', "not a turnkey-emulator-state document"),
        ('{"format": "turnkey-emulator-state", "version": 2}', "version 2 is not supported"),
    ],
)
def test_a_bad_json_document_is_a_clear_value_error(tmp_path, text, words):
    path = tmp_path / "state.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=words):
        Emulator.load(path)


def test_a_binary_file_is_not_a_json_document(tmp_path):
    path = tmp_path / "state.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="not UTF-8"):
        Emulator.load(path)


def test_a_damaged_document_is_a_value_error_never_a_crash(tmp_path):
    document = busy_emulator().to_document()
    places = []

    def walk(value, path):
        places.append(path)
        if isinstance(value, dict | list):
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                walk(item, (*path, key))

    walk(document, ())
    rng = random.Random(13)
    values = [None, 1, -1, "x", [], {}, True, 1.5, [1], {"a": 1}, 2**70]
    for _ in range(400):
        damaged = copy.deepcopy(document)
        place = rng.choice(places[1:])
        holder = damaged
        for key in place[:-1]:
            holder = holder[key]
        if isinstance(holder, dict) and rng.random() < 0.2:
            del holder[place[-1]]
        else:
            holder[place[-1]] = rng.choice(values)
        with contextlib.suppress(ValueError):
            Emulator.from_document(damaged)
    text = json.dumps(document)
    for cut in (1, len(text) // 3, len(text) - 1):
        (tmp_path / "cut.json").write_text(text[:cut])
        with pytest.raises(ValueError, match="not a JSON state document"):
            Emulator.load(tmp_path / "cut.json")


def test_a_version_1_state_file_is_upgraded_in_place(tmp_path):
    emu = Emulator(seed=8)
    org = emu.create_organization("Acme")
    emu.create_wallet(wallet_name="kept", accounts=[])
    path = tmp_path / "state.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE state (id INTEGER PRIMARY KEY CHECK (id = 1), document TEXT NOT NULL)")
    db.execute("INSERT INTO state (id, document) VALUES (1, ?)", (json.dumps(emu.to_document()),))
    db.commit()
    db.close()
    state = StateFile.open(path)
    loaded = Emulator.from_document(state.read())
    state.close()
    assert loaded.organization().organization_id == org.organization_id
    assert [w["walletName"] for w in loaded.get_wallets()["wallets"]] == ["kept"]
    db = sqlite3.connect(path)
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    db.close()
    assert tables == {"meta", "base", "journal"}
