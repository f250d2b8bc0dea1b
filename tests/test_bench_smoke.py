"""Every benchmark script runs to its end with ``--quick`` (issue 28, item 5).

A script is a ``bench/*.py`` file with an ``if __name__ == "__main__":`` block; each one
found by the glob is run in a subprocess of its own with ``--quick`` (tiny counts), with
this checkout's code first on ``PYTHONPATH``, and must exit 0 and print its table. No
timing is asserted: the figures of a smoke run mean nothing. A script that cannot run on
this machine (no browser, no npm) exits with ``measuring.UNAVAILABLE`` and is skipped, as
the tests that need the same things are. The other ``bench/*.py`` files are modules that
some script imports, so every file of the folder runs here.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
UNAVAILABLE = 77  # bench/measuring.py's exit status for "cannot run here"
TIMEOUT_S = 300  # far above any quick run, so a loaded machine does not fail it

# What each script's table starts with (its header or first row), beside the checks every
# script gets; a script not listed here still gets those.
TABLES = {
    "run.py": "benchmark",
    "chains.py": "eth_send_transaction",
    "durability.py": "| row | median | × floor | goal |",
    "events.py": "deliveries:",
    "imports.py": "import emulator (wall)",
    "velocity.py": "| sign_raw_payload, no control (floor) |",
    "onramp.py": "| get_whoami (floor) |",
    "dashboard.py": "| view | first render",
    "wire.py": "server    operation",
    "browser_flow.py": "| flow | wall (median) |",
    "latency.py": "p99 / median",
    "snapshots.py": "snapshot() + restore()",
    "signing.py": "facade sign_raw_payload",
    "node_kit.py": "| row | median | × floor | floor | n |",
    "swap.py": "| row | median | × floor | goal | status |",
}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _is_script(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.If) and "__main__" in ast.unparse(node.test) for node in tree.body
    )


def _imported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


FILES = sorted(BENCH.glob("*.py"))
SCRIPTS = [path for path in FILES if _is_script(_tree(path))]


def test_the_glob_finds_the_scripts() -> None:
    names = {path.name for path in SCRIPTS}
    assert {"run.py", "durability.py", "latency.py", "snapshots.py", "signing.py"} <= names


def test_every_module_is_run_by_a_script() -> None:
    """A bench module without a main block is imported by a script (or by a module a script
    imports), so the smoke runs it."""
    stems = {path.stem: path for path in FILES}
    reached: set[str] = set()
    todo = [path.stem for path in SCRIPTS]
    while todo:  # what the scripts import, and what those bench modules import in turn
        for name in _imported(_tree(stems[todo.pop()])) & set(stems):
            if name not in reached:
                reached.add(name)
                todo.append(name)
    modules = set(stems) - {path.stem for path in SCRIPTS}
    assert modules - reached == set()


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_script_runs_quick(script: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(BENCH)])}
    done = subprocess.run(
        [sys.executable, str(script), "--quick"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    if done.returncode == UNAVAILABLE:
        pytest.skip(done.stderr.strip().splitlines()[-1])
    assert done.returncode == 0, (
        f"exit {done.returncode}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    )
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) >= 2, done.stdout  # a table: a header and at least one row
    assert re.search(r"\d\.\d", done.stdout), done.stdout  # with figures in it
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    expected = TABLES.get(script.name)
    if expected is not None:
        assert expected in done.stdout, done.stdout[-3000:]
