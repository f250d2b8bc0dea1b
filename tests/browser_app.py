"""The test page of ``tests/browser_app``: ``@turnkey/core`` bundled for a browser, served
from a local origin.

``page_bundle_or_skip()`` installs the packages pinned by ``package-lock.json`` (``npm
ci``, once; one install across xdist workers) and bundles ``app.js`` with the pinned
esbuild into ``.bundle/app.js``, rebuilt only when ``app.js`` or the lock changes (the
bundle's name carries their hash). Without node or npm, or when the registry cannot be
reached, the tests that need the page skip and say why. ``page_origin(bundle)`` serves
the page on ``http://localhost:<port>`` (a host name, not an address: WebAuthn takes no
IP address as its relying party).
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from .typescript import npm_ci_or_skip

APP = Path(__file__).parent / "browser_app"

BUNDLE_TIMEOUT_S = 180
INDEX = b"""<!doctype html>
<meta charset="utf-8"><title>turnkey-emulator test page</title>
<p>@turnkey/core against a served emulator</p>
<script src="/app.js"></script>
"""


def page_bundle_or_skip() -> bytes:
    """The bundled page script; skip when it cannot be built here."""
    core_modules_or_skip()
    with open(APP / ".install.lock", "w") as lock:  # one bundle across xdist workers
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _bundle().read_bytes()


def core_modules_or_skip() -> Path:
    """The folder whose ``node_modules`` hold ``@turnkey/core`` (installed once, as for the
    page), for node scripts placed in it; skip when node or npm is absent."""
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        pytest.skip("node and npm are needed to run @turnkey/core")
    with open(APP / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install(npm)
    return APP


def _install(npm: str) -> None:
    npm_ci_or_skip(npm, APP, APP / "node_modules" / "@turnkey" / "core", timeout_s=600)


def _bundle() -> Path:
    digest = hashlib.sha256(
        (APP / "app.js").read_bytes() + (APP / "package-lock.json").read_bytes()
    ).hexdigest()[:16]
    out = APP / ".bundle" / f"app-{digest}.js"
    if out.exists():
        return out
    esbuild = (
        APP / "node_modules" / ".bin" / "esbuild"
    )  # the platform's binary, as npm installed it
    done = subprocess.run(
        [
            str(esbuild), "app.js", "--bundle", "--format=iife", "--platform=browser",
            "--target=chrome110", "--define:global=globalThis", "--log-level=error",
            f"--outfile={out}",
        ],
        cwd=APP,
        capture_output=True,
        text=True,
        timeout=BUNDLE_TIMEOUT_S,
        check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"esbuild failed: {done.stderr}")
    return out


@contextmanager
def page_origin(script: bytes) -> Iterator[str]:
    """Serve the test page (``/``) and its script (``/app.js``) on ``http://localhost:<port>``."""
    files = {"/": (INDEX, "text/html"), "/app.js": (script, "text/javascript")}

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body, kind = files.get(self.path.split("?")[0], (b"not found", "text/plain"))
            self.send_response(200 if self.path.split("?")[0] in files else 404)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://localhost:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
