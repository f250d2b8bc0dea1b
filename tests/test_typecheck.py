"""The typed facade holds for type checkers: mypy --strict and pyright pass the README's
typical calls and flag each mistake of ``typecheck/typos.py`` (both from the test extra;
skipped, with the reason, when one is missing or cannot run here)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
TYPICAL = "tests/typecheck/typical_calls.py"
TYPOS = "tests/typecheck/typos.py"
# The lines of typos.py that hold a mistake, each flagged.
MISTAKES = {9, 10, 11, 15, 18, 19, 20}


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


def _mypy(path: str, cache: Path) -> tuple[set[int], str]:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    done = _run(
        [
            sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
            "--python-executable", sys.executable, "--cache-dir", str(cache), path,
        ]
    )  # fmt: skip
    lines = {int(n) for n in re.findall(rf"{re.escape(path)}:(\d+): error", done.stdout)}
    return lines, done.stdout + done.stderr


def _pyright(path: str) -> tuple[set[int], str]:
    if importlib.util.find_spec("pyright") is None:
        pytest.skip("pyright is not installed (pip install -e '.[test]')")
    done = _run([sys.executable, "-m", "pyright", "--pythonpath", sys.executable, path])
    output = done.stdout + done.stderr
    if not re.search(r"\d+ errors?, \d+ warnings?", output):
        # The PyPI wrapper fetches pyright itself from the npm registry on first use.
        pytest.skip(f"pyright could not run here: {output.strip()[-300:]}")
    lines = {int(n) for n in re.findall(rf"{re.escape(Path(path).name)}:(\d+):\d+ - error", output)}
    return lines, output


def test_mypy_strict_passes_the_typical_calls(tmp_path):
    lines, output = _mypy(TYPICAL, tmp_path)
    assert lines == set(), output
    assert "Success: no issues found" in output


def test_mypy_flags_each_mistake(tmp_path):
    lines, output = _mypy(TYPOS, tmp_path)
    assert lines == MISTAKES, output
    assert 'did you mean "accounts"?' in output


def test_pyright_passes_the_typical_calls():
    lines, output = _pyright(TYPICAL)
    assert lines == set(), output
    assert "0 errors" in output


def test_pyright_flags_each_mistake():
    lines, output = _pyright(TYPOS)
    assert lines == MISTAKES, output
    assert 'No parameter named "acounts"' in output
