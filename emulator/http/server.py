"""The API over HTTP/1.1: uvicorn (httptools, the standard asyncio loop) in this process.

Chosen by measurement (``bench/wire_servers.py``, the README's "The server"): of
the servers that can host one in-memory world in one process, uvicorn with
httptools answered fastest after granian, whose WSGI mode runs only in a worker
process of its own and reads bodies whole. One event loop carries every
connection (keep-alive, HTTP/1.0 clients too) and runs the engine, which admits one
request at a time under the world lock anyway. The socket is bound here, before
serving, so that a port in use or an unknown host is one clear error, and port 0
says which port it picked. A stop (SIGINT, SIGTERM or ``shutdown()``) stops
accepting, lets requests in flight finish (up to ``graceful_timeout_s``), closes
idle connections and returns. The standard asyncio loop, not uvloop: with uvloop the
throughput was the same and the slowest answers at 32 connections were five to ten times
slower (``bench/wire.py``).
"""

from __future__ import annotations

import contextlib
import errno
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..engine_state.world import World
from .asgi import AsgiApp
from .control import Control
from .options import WireOptions
from .polling import loop_factory
from .protocol import ConnectionCount, protocol_class
from .site import Site


class StartupError(Exception):
    """The server cannot start: one line that says why."""


def bind(host: str, port: int, backlog: int) -> socket.socket:
    """A listening socket on ``host:port``, or a ``StartupError`` saying why not."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        raise StartupError(
            f"unknown host {host!r}: give a name or address of this machine"
        ) from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise StartupError(
                f"port {port} on {host} is in use: stop what holds it, or pass --port 0"
            ) from None
        if error.errno == errno.EADDRNOTAVAIL:
            raise StartupError(f"{host} is not an address of this machine") from None
        if error.errno == errno.EACCES:
            raise StartupError(f"no permission to listen on {host}:{port}") from None
        raise StartupError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    sock.setblocking(False)
    return sock


class ApiServer:
    """The API (and, with ``control``, the control plane) served on one bound socket:
    bound at construction (port 0 picks a free one), serving from ``serve_forever``.
    ``on_change`` runs after a request that may have changed state; ``on_second`` on the
    server's loop once a second (``serve``: the garbage-collection step)."""

    def __init__(
        self,
        world: World,
        host: str = "127.0.0.1",
        port: int = 8787,
        control: Control | None = None,
        *,
        options: WireOptions | None = None,
        on_change: Callable[[], None] | None = None,
        on_second: Callable[[], None] | None = None,
    ) -> None:

        base = options or WireOptions(bound_host=host)
        self.options = WireOptions(**{**base.__dict__, "bound_host": host})
        self.socket = bind(host, port, self.options.backlog)
        self.site = Site(world, control, self.options, on_change, port=self.server_address[1])
        if world.settings.onramp_site_url is None:  # the on-ramp's provider pages are ours
            world.settings.onramp_site_url = self.base_url
        self.app = AsgiApp(self.site)
        self.connections = ConnectionCount()
        config = _config_class()(
            self.app,
            http=protocol_class(self.options, self.connections, self.site),
            loop="asyncio",  # uvloop measured: no faster here, and a far worse tail
            lifespan="off",
            log_config=None,
            log_level="critical",
            access_log=False,
            server_header=False,
            proxy_headers=False,  # a local server: the peer is the client
            timeout_keep_alive=self.options.idle_timeout_s,  # type: ignore[arg-type]
            timeout_graceful_shutdown=self.options.graceful_timeout_s,  # type: ignore[arg-type]
            backlog=self.options.backlog,
        )
        if self.options.busy_poll_us:
            config.loop_factory = loop_factory(self.options.busy_poll_us)
        self._server = _GracefulServer(config)
        self._server.on_second = on_second

    @property
    def server_address(self) -> tuple[str, int]:
        host, port = self.socket.getsockname()[:2]
        return host, port

    @property
    def base_url(self) -> str:
        host, port = self.server_address
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def serve_forever(self) -> None:
        """Serve until a signal (in the main thread) or ``shutdown()``; then stop gracefully."""
        try:
            self._server.run(sockets=[self.socket])
        finally:
            self.socket.close()

    def shutdown(self) -> None:
        """Ask the server to stop (from any thread); ``serve_forever`` returns once it has."""
        self._server.should_exit = True

    @property
    def started(self) -> bool:
        return self._server.started


def _graceful_server_class() -> type:
    import uvicorn

    class GracefulServer(uvicorn.Server):
        """uvicorn's server, whose stop on SIGINT/SIGTERM is the end of ``serve_forever``
        (uvicorn raises the signal again once stopped, which would end the process)."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            signals = (signal.SIGINT, signal.SIGTERM)
            before = {sig: signal.signal(sig, self.handle_exit) for sig in signals}
            try:
                yield
            finally:
                for sig, handler in before.items():
                    signal.signal(sig, handler)

        on_second: Callable[[], None] | None = None

        async def on_tick(self, counter: int) -> bool:
            if counter % 10 == 0 and self.on_second is not None:  # ten ticks a second
                self.on_second()
            return await super().on_tick(counter)

    return GracefulServer


def _config_class() -> type:
    import uvicorn

    class Config(uvicorn.Config):
        """uvicorn's configuration, with a loop factory of ours when one is set (busy
        polling, ``polling.py``)."""

        loop_factory: Callable[[], Any] | None = None

        def get_loop_factory(self) -> Callable[[], Any] | None:
            return self.loop_factory or super().get_loop_factory()

    return Config


def _GracefulServer(config: Any) -> Any:
    return _graceful_server_class()(config)


# The name earlier versions made servers by: a server (bound, not yet serving).
make_api_server = ApiServer


@contextmanager
def serving(
    world: World,
    host: str = "127.0.0.1",
    port: int = 0,
    control: Control | None = None,
    *,
    options: WireOptions | None = None,
) -> Iterator[str]:
    """Serve ``world`` from a background thread for the block; yields the base URL."""
    server = make_api_server(world, host, port, control, options=options)
    thread = threading.Thread(target=server.serve_forever, name="emulator-server", daemon=True)
    thread.start()
    try:
        yield server.base_url
    finally:
        server.shutdown()
        thread.join(timeout=15)
