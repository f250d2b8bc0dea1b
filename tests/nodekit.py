"""Running the Node test kit (``js/``, the npm package ``turnkey-emulator``) from the tests.

``kit_or_skip()`` installs ``js/``'s pinned development packages (``npm ci`` from its lock,
once; one install across xdist workers), and builds the package with its pinned ``tsup``
into ``js/dist`` when the sources changed since the last build (a marker named by their
hash). ``kit_env()`` is the environment a kit run gets: this interpreter as
``TURNKEY_EMULATOR_PYTHON``, this checkout first on ``PYTHONPATH``. Without node or npm, or
when the registry cannot be reached, the tests skip, saying why.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .typescript import npm_ci_or_skip

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "js"
BUILD_TIMEOUT_S = 180
INSTALL_TIMEOUT_S = 600
_BUILD_INPUTS = ("package.json", "package-lock.json", "tsup.config.ts", "tsconfig.json")


def kit_or_skip() -> str:
    """``node``, once the kit is installed and built; skip when it cannot be here."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed for the Node test kit (js/)")
    with open(JS / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        npm_ci_or_skip(npm, JS, JS / "node_modules" / "vitest", timeout_s=INSTALL_TIMEOUT_S)
        _build(node)
    return node


def _digest() -> str:
    sources = sorted((JS / "src").glob("*.ts"))
    data = b"".join(p.read_bytes() for p in [*sources, *(JS / n for n in _BUILD_INPUTS)])
    return hashlib.sha256(data).hexdigest()[:16]


def _build(node: str) -> None:
    marker = JS / f".built-{_digest()}"
    if marker.exists() and (JS / "dist" / "index.js").exists():
        return
    for step in (["tsc", "--noEmit", "-p", "."], ["tsup"]):
        done = run_bin(node, step, cwd=JS, timeout_s=BUILD_TIMEOUT_S)
        if done.returncode != 0:
            raise RuntimeError(f"{step[0]} failed: {done.stdout[-3000:]}{done.stderr[-3000:]}")
    for old in JS.glob(".built-*"):
        old.unlink()
    marker.touch()


def kit_env(**extra: str) -> dict[str, str]:
    """This process's environment for a kit run: no emulator to attach to, this interpreter
    and this checkout's ``emulator`` for the ones it starts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNKEY_EMULATOR_")}
    env["TURNKEY_EMULATOR_PYTHON"] = sys.executable
    # plain text for the tests that read a runner's summary (a CI machine's CI=true turns
    # vitest's colours on)
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def run_bin(
    node: str, args: list[str], *, cwd: Path, timeout_s: float = 300, env: dict | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``js/node_modules/.bin/<args[0]>`` (a package's command) with ``node``."""
    command = JS / "node_modules" / ".bin" / args[0]
    return subprocess.run(
        [str(command), *args[1:]],
        cwd=cwd,
        env=env if env is not None else kit_env(),
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
