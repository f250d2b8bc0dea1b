"""Set-up as the README says: the commands, the extras, the first line, seeds by name."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from emulator import Emulator

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()


def _setup_block() -> list[str]:
    section = README[README.index("## Set-up") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    return block.group(1).splitlines()


def test_ci_runs_exactly_the_readme_test_command():
    test_command = _setup_block()[0]
    assert test_command.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert test_command.endswith("python -m pip install -e '.[test]' && python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert ci[-1] == test_command


def test_the_serve_command_uses_the_virtual_environment():
    assert _setup_block()[1].startswith(".venv/bin/python -m emulator serve ")


def test_the_readme_shows_every_key_of_the_first_line():
    process = subprocess.Popen(
        [sys.executable, "-m", "emulator", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = json.loads(process.stdout.readline())
    finally:
        process.terminate()
        process.wait(timeout=30)
    example = re.search(r"```json\n(.*?)```", README, re.S)
    assert example is not None
    shown = json.loads(example.group(1))
    assert list(shown) == list(first) and len(first) == 17


def test_the_console_script_names_itself():
    script = Path(sys.executable).parent / "turnkey-emulator"
    if not script.exists():
        script = Path(shutil.which("turnkey-emulator") or "")
    if not script.is_file():
        pytest.skip("the turnkey-emulator console script is not installed here")
    usage = subprocess.run([str(script), "--help"], capture_output=True, text=True).stdout
    assert usage.startswith("usage: turnkey-emulator ")
    usage = subprocess.run(
        [sys.executable, "-m", "emulator", "--help"], capture_output=True, text=True
    ).stdout
    assert usage.startswith("usage: python -m emulator ")


def test_client_without_the_sdk_names_the_extra(monkeypatch):
    emu = Emulator()
    org = emu.create_organization()
    monkeypatch.setitem(sys.modules, "turnkey_api_key_stamper", None)
    with pytest.raises(ModuleNotFoundError) as caught:
        emu.client(org)
    assert "pip install 'turnkey-emulator[sdk]'" in str(caught.value)
    assert caught.value.name == "turnkey_api_key_stamper"


def test_the_sdk_extra_brings_what_client_imports():
    extras = (ROOT / "pyproject.toml").read_text()
    sdk = re.search(r"^sdk = \[(.*)\]$", extras, re.M)
    assert sdk is not None
    assert '"turnkey-http' in sdk.group(1) and '"turnkey-api-key-stamper' in sdk.group(1)


def test_shipped_seed_files_load_by_name_from_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    by_name = Emulator(seed=1).seed("basic")
    by_file_name = Emulator(seed=1).seed("basic.json")
    assert sorted(by_name.organizations) == sorted(by_file_name.organizations) != []
    (tmp_path / "mine.json").write_text((ROOT / "emulator" / "seeds" / "basic.json").read_text())
    assert sorted(Emulator(seed=1).seed("mine.json").organizations) == sorted(by_name.organizations)
    with pytest.raises(FileNotFoundError) as caught:
        Emulator().seed("nope")
    assert "basic.json" in str(caught.value) and "'nope'" in str(caught.value)
