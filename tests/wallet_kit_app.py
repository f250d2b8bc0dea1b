"""The React app of ``tests/wallet_kit_app``: ``@turnkey/react-wallet-kit`` built with Vite
and served from a local origin.

``app_build_or_skip()`` installs the packages pinned by ``package-lock.json`` (``npm ci``,
once; one install across xdist workers) and builds the app with the pinned Vite into
``.build-<hash>/``, rebuilt only when a source, the configuration or the lock changes.
Without node or npm, or when the registry cannot be reached, the tests that need it skip and
say why. ``app_origin(build)`` serves the build on ``http://localhost:<port>`` (a host name:
WebAuthn takes no IP address as its relying party).
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from .typescript import npm_ci_or_skip

APP = Path(__file__).parent / "wallet_kit_app"
BUILD_TIMEOUT_S = 600
_SOURCES = ("index.html", "export-frame.html", "vite.config.js", "package-lock.json")


def app_build_or_skip() -> Path:
    """The built app's folder; skip when it cannot be built here."""
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        pytest.skip("node and npm are needed to build the @turnkey/react-wallet-kit app")
    with open(APP / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        npm_ci_or_skip(
            npm, APP, APP / "node_modules" / "@turnkey" / "react-wallet-kit", timeout_s=600
        )
        return _build()


def _build() -> Path:
    files = [APP / name for name in _SOURCES] + sorted((APP / "src").iterdir())
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()[:16]
    out = APP / f".build-{digest}"
    if (out / "index.html").exists():
        return out
    done = subprocess.run(
        [str(APP / "node_modules" / ".bin" / "vite"), "build", "--outDir", str(out),
         "--emptyOutDir"],
        cwd=APP,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )  # fmt: skip
    if done.returncode != 0:
        shutil.rmtree(out, ignore_errors=True)
        raise RuntimeError(f"vite build failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    for old in APP.glob(".build-*"):
        if old != out:
            shutil.rmtree(old, ignore_errors=True)
    return out


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def app_origin(build: Path) -> Iterator[str]:
    """Serve the built app on ``http://localhost:<port>``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=build))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://localhost:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
