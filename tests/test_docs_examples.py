"""Every runnable block of ``docs/`` runs as written (the markers: ``tests/docs_blocks.py``).

One test per page and kind: a page's ``run`` blocks in order in one namespace, its ``pytest``
blocks as test files, its ``shell`` and ``node`` blocks against a live server whose
credentials are in the environment (``BASE_URL``, ``ORGANIZATION_ID``, ``API_PUBLIC_KEY``,
``API_PRIVATE_KEY``). ``node`` blocks skip, saying why, without node and npm.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from .docs_blocks import DOCS, ROOT, Block, blocks, pages

CASES = [
    pytest.param(page, kind, id=f"{page.relative_to(DOCS)}:{kind}")
    for page in pages()
    for kind in sorted({block.kind for block in blocks(page)})
]


def test_there_are_runnable_blocks_of_every_kind():
    kinds = {kind for _, kind in (case.values for case in CASES)}
    assert {"run", "pytest", "shell", "node"} <= kinds


@pytest.mark.parametrize(("page", "kind"), CASES)
def test_the_page_runs(page: Path, kind: str, request, monkeypatch, tmp_path):
    found = [block for block in blocks(page) if block.kind == kind]
    name = str(page.relative_to(ROOT))
    if kind == "run":
        _run(found, name, monkeypatch)
    elif kind == "pytest":
        # pytester only here: it forgets, after the test, the modules imported during it
        _pytest(found, request.getfixturevalue("pytester"), monkeypatch)
    elif kind == "shell":
        _shell(found, name, tmp_path)
    elif kind == "node":
        _node(found, name)
    else:
        pytest.fail(f"{name}: <!-- {kind} --> blocks are the README's only")


def _run(found: list[Block], name: str, monkeypatch) -> None:
    if any("turnkey_sdk_types" in block.code for block in found):
        pytest.importorskip("turnkey_http")
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": "docs_example"}
    for block in found:
        exec(compile(block.code, name, "exec"), namespace)


def _pytest(found: list[Block], pytester: pytest.Pytester, monkeypatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # this checkout's code, not the installed one
    if any("turnkey_sdk_types" in block.code for block in found):
        pytest.importorskip("turnkey_http")
    tests = 0
    for index, block in enumerate(found):
        pytester.makepyfile(**{f"test_docs_{index}": block.code.lstrip("\n")})
        tests += len(re.findall(r"^(?:def test_|class Test)", block.code, re.M))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert set(outcomes) <= {"passed", "warnings", "warning"}, outcomes
    assert outcomes["passed"] >= tests


@contextmanager
def _served() -> Iterator[dict[str, str]]:
    """A served emulator (API, control plane, dashboard) and the environment naming it."""
    from emulator import Emulator
    from emulator.http.control import Control
    from emulator.http.server import serving

    emu = Emulator(seed=11)
    org = emu.create_organization("Docs")
    with serving(emu.world, control=Control(emu)) as base_url:
        yield {
            "BASE_URL": base_url,
            "ORGANIZATION_ID": org.organization_id,
            "API_PUBLIC_KEY": org.api_public_key,
            "API_PRIVATE_KEY": org.api_private_key,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
    emu.close()


def _shell(found: list[Block], name: str, tmp_path: Path) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is needed for the shell examples")
    with _served() as env:
        for block in found:
            done = subprocess.run(
                [bash, "-euo", "pipefail", "-c", block.code],
                env={**os.environ, **env},
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert done.returncode == 0, f"{name}:{block.line}: {done.stdout}{done.stderr}"


def _node(found: list[Block], name: str) -> None:
    from .typescript import INTEROP, typescript_or_skip

    node = typescript_or_skip().node
    with _served() as env:
        for block in found:
            script = INTEROP / f".docs-{uuid.uuid4().hex}.mjs"  # beside the packages it imports
            script.write_text(block.code)
            try:
                done = subprocess.run(
                    [node, str(script)],
                    env={**os.environ, **env},
                    cwd=INTEROP,
                    capture_output=True,
                    text=True,
                    timeout=120,
                    check=False,
                )
            finally:
                script.unlink()
            assert done.returncode == 0, f"{name}:{block.line}: {done.stdout}{done.stderr}"
