"""The README's examples run as written: ``<!-- run -->``, ``<!-- pytest -->``, ``<!-- server -->``
and ``<!-- node -->`` (the markers: ``tests/docs_blocks.py``; the docs' blocks run in
``tests/test_docs_examples.py``)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
BLOCK = re.compile(r"<!-- (run|pytest|server) -->\n```(?:python|sh)\n(.*?)```", re.S)


def blocks(kind: str) -> list[str]:
    """The blocks of ``kind``, each padded with newlines so tracebacks give README lines."""
    found = [
        "\n" * README.count("\n", 0, match.start(2)) + match.group(2)
        for match in BLOCK.finditer(README)
        if match.group(1) == kind
    ]
    assert found, f"no <!-- {kind} --> block in the README"
    return found


def test_the_python_examples_run_in_order(monkeypatch):
    pytest.importorskip("turnkey_http")
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    for code in blocks("run"):
        exec(compile(code, "README.md", "exec"), namespace)


def test_the_pytest_example_passes(pytester: pytest.Pytester):
    pytest.importorskip("turnkey_http")
    for index, code in enumerate(blocks("pytest")):
        pytester.makepyfile(**{f"test_readme_{index}": code.lstrip("\n")})
    tests = sum(len(re.findall(r"^def test_", code, re.M)) for code in blocks("pytest"))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=tests)


def test_the_server_example_starts_and_answers(tmp_path):
    (command,) = blocks("server")
    args = shlex.split(command.strip())
    assert args[:3] == ["python", "-m", "emulator"]
    args[args.index("--port") + 1] = "0"
    args[args.index("--state") + 1] = str(tmp_path / "state.sqlite")
    process = subprocess.Popen(
        [sys.executable, *args[1:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        info = json.loads(process.stdout.readline())
        health = requests.post(info["baseUrl"] + "/emulator/v1/health", json={}, timeout=10)
        assert health.json() == {"ok": True, "organizationId": info["organizationId"]}
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0


def test_the_typescript_example_runs():
    from .docs_blocks import blocks as marked
    from .test_docs_examples import _node

    found = [block for block in marked(ROOT / "README.md") if block.kind == "node"]
    assert found, "no <!-- node --> block in the README"
    _node(found, "README.md")


def test_the_readme_is_short():
    assert README.count("\n") <= 200, "the README is a page: the rest goes to docs/"
