"""A local Anvil (Foundry's EVM node, from the npm package ``@foundry-rs/anvil``) for the tests
that send to a real node: installed into ``tests/anvil`` on first use (its exact version
pinned in ``package.json``; no lock file, as npm's lock of a package with per-platform optional
binaries breaks ``npm ci`` on the other platforms), started on a free port; the tests skip cleanly without node and npm, a
registry, or a binary for this platform."""

from __future__ import annotations

import contextlib
import fcntl
import json
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "anvil"
INSTALL_TIMEOUT_S = 300
START_TIMEOUT_S = 20


def anvil_binary_or_skip() -> str:
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("node and npm are needed to install Anvil (@foundry-rs/anvil)")
    with open(HERE / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = list((HERE / "node_modules" / "@foundry-rs").glob("anvil-*/bin/anvil"))
        if not found:
            try:
                done = subprocess.run(
                    [
                        npm,
                        "install",
                        "--no-package-lock",
                        "--ignore-scripts",
                        "--no-audit",
                        "--no-fund",
                        "--loglevel=error",
                    ],
                    cwd=HERE,
                    capture_output=True,
                    text=True,
                    timeout=INSTALL_TIMEOUT_S,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                pytest.skip("npm install of @foundry-rs/anvil timed out (no registry?)")
            if done.returncode != 0:
                pytest.skip(
                    f"npm install of @foundry-rs/anvil failed: {done.stderr.strip()[-300:]}"
                )
            found = list((HERE / "node_modules" / "@foundry-rs").glob("anvil-*/bin/anvil"))
    if not found:
        pytest.skip("@foundry-rs/anvil has no binary for this platform")
    return str(found[0])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(url: str) -> bool:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=1) as response:
            return "result" in json.loads(response.read())
    except OSError:
        return False


@contextlib.contextmanager
def anvil(chain_id: int) -> Iterator[str]:
    """A fresh Anvil for ``chain_id``; its JSON-RPC URL."""
    binary = anvil_binary_or_skip()
    port = _free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--chain-id", str(chain_id), "--silent"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _answers(url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.skip("anvil did not start")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
