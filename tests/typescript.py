"""Running the official TypeScript packages (``tests/interop``) from the tests.

``TypeScript.run([...])`` hands a batch of commands to ``tests/interop/turnkey.cjs``
in one node process and answers their results; a command that threw answers
``TypeScriptError``. The packages are installed on first use with ``npm ci``
(pinned by ``package-lock.json``); without node or npm, or when the install
fails (no registry), the tests that need them skip.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

INTEROP = Path(__file__).parent / "interop"
INSTALL_TIMEOUT_S = 300
RUN_TIMEOUT_S = 120


class TypeScriptError(RuntimeError):
    """A command the TypeScript package refused (its error message)."""


class TypeScript:
    def __init__(self, node: str) -> None:
        self.node = node

    def run(self, commands: list[dict[str, Any]]) -> list[Any]:
        """Each command's result, or a ``TypeScriptError`` in its place."""
        return node_batch(self.node, INTEROP / "turnkey.cjs", commands, TypeScriptError)

    def one(self, op: str, **args: Any) -> Any:
        """One command's result; raise its ``TypeScriptError``."""
        (result,) = self.run([{"op": op, **args}])
        if isinstance(result, TypeScriptError):
            raise result
        return result


def node_batch(node: str, script: Path, payload: Any, error: type[Exception]) -> list[Any]:
    """Run ``script`` (in its folder, so it resolves that folder's ``node_modules``) on
    ``payload``, handed over as a JSON file named by its first argument; it prints a JSON
    list of ``{"ok": result}`` or ``{"error": message}``: the results, an ``error`` in the
    place of each message."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(payload, handle)
    try:
        done = subprocess.run(
            [node, script.name, handle.name],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            cwd=script.parent,
            check=False,
        )
    finally:
        Path(handle.name).unlink()
    if done.returncode != 0:
        raise RuntimeError(f"node failed: {done.stderr}")
    return [error(r["error"]) if "error" in r else r["ok"] for r in json.loads(done.stdout)]


def typescript_or_skip() -> TypeScript:
    """The TypeScript runner, installing the packages once; skip when it cannot."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed for the TypeScript interop tests")
    with open(INTEROP / ".install.lock", "w") as lock:  # one install across xdist workers
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install(npm)
    return TypeScript(node)


def _install(npm: str) -> None:
    npm_ci_or_skip(npm, INTEROP, INTEROP / "node_modules" / "@turnkey" / "crypto")


def npm_ci_or_skip(
    npm: str, directory: Path, installed: Path, timeout_s: float = INSTALL_TIMEOUT_S
) -> None:
    """``npm ci`` in ``directory`` (pinned by its lock) unless ``installed`` exists already;
    skip the test, saying why, when it fails (no registry) or takes too long."""
    if installed.is_dir():
        return
    try:
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm ci in {directory.name} timed out (no registry?)")
    if done.returncode != 0:
        pytest.skip(
            f"npm ci in {directory.name} failed (no registry?): {done.stderr.strip()[-300:]}"
        )


def client_calls(
    ts: TypeScript, world: Any, key: Any, calls: list[tuple[str, dict]], *, op: str = "call"
) -> list[Any]:
    """Serve ``world`` on a socket and run ``(method, body)`` calls of ``@turnkey/http``'s
    ``TurnkeyClient`` against it, stamped with ``key`` (an ``ApiKeyPair``); their results.
    ``op="poll"`` runs each through the package's ``createActivityPoller``."""
    from emulator.http.server import serving

    with serving(world) as base_url:
        common = {
            "op": op,
            "baseUrl": base_url,
            "apiPublicKey": key.public_key,
            "apiPrivateKey": key.private_key,
        }
        return ts.run([{**common, "method": method, "body": body} for method, body in calls])
