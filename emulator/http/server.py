"""A threaded HTTP server for the WSGI app: TCP_NODELAY, quiet, clean shutdown."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from ..world import World
from .app import WsgiApp
from .control import Control


class _Handler(WSGIRequestHandler):
    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: object) -> None:
        pass


class ThreadingWsgiServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


def make_api_server(
    world: World,
    host: str = "127.0.0.1",
    port: int = 8787,
    control: Control | None = None,
    *,
    on_change: Callable[[], None] | None = None,
) -> ThreadingWsgiServer:
    """A server (not yet serving) bound to ``host:port``; port 0 picks a free one.

    With ``control``, the control endpoints (``/emulator/v1/...``) are served too;
    ``on_change`` runs after each request that may have changed state, before
    the answer is sent (``serve --state`` saves there).
    """
    app = WsgiApp(world, control, on_change)
    server = make_server(host, port, app, server_class=ThreadingWsgiServer, handler_class=_Handler)
    return server  # type: ignore[return-value]


def base_url(server: ThreadingWsgiServer) -> str:
    host, port = server.server_address[:2]
    if ":" in str(host):
        host = f"[{host}]"
    return f"http://{host}:{port}"


@contextmanager
def serving(
    world: World, host: str = "127.0.0.1", port: int = 0, control: Control | None = None
) -> Iterator[str]:
    """Serve ``world`` from a background thread for the block; yields the base URL."""
    server = make_api_server(world, host, port, control)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield base_url(server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
