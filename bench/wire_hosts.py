"""The servers ``bench/wire.py`` compares, each hosted in a process of its own: ``host(name,
port)`` serves the seeded world of ``wire_load.bench_world()`` (or, for ``bare``, a canned
answer with no HTTP library and no engine; for ``ideal``, the same after the time the engine
takes) until the process is stopped."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import threading
from collections.abc import Callable, Iterator

import wire_load

# uvicorn's settings for the candidates it hosts: the emulator's own server's choices
UVICORN = {
    "host": "127.0.0.1",
    "http": "httptools",
    "loop": "asyncio",
    "lifespan": "off",
    "access_log": False,
    "log_level": "warning",
}

# ----- hosting (in the server's own process) -----------------------------------------


def _asgi(world):
    from emulator.http.app import handle

    async def app(scope, receive, send):
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        status, payload = handle(world, scope["method"], scope["path"], headers, body)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    return app


def wsgi_factory():
    return wire_load.bench_world()[0].wsgi_app


def bare(port: int) -> None:
    """Answer every request with a canned answer: reads, writes, nothing else."""

    answer = b'{"organizationId": "' + b"0" * 36 + b'", "userId": "' + b"0" * 36 + b'"}'
    canned = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
        + str(len(answer)).encode()
        + b"\r\n\r\n"
        + answer
    )

    def serve(sock: socket.socket) -> None:
        for _ in _requests(lambda: sock.recv(65536)):
            sock.sendall(canned)

    _accepting(port, serve)


def ideal(port: int, real: bool = False) -> None:
    """A server whose whole cost is the engine's: each request spins for the median in-process
    ``handle()`` of its kind (measured in this process at start), then gets that kind's real
    answer, canned; between requests it polls its socket for ``serve``'s busy-poll budget
    before it sleeps, as ``serve`` does. One client at a time (a thread a connection, each
    holding the GIL while it spins): what the machine's round trip leaves for any server.
    ``real`` (``minimal``): the request is answered by ``handle()`` itself instead, with no
    HTTP library: the engine running between network events, as in any server."""
    import select
    import statistics
    import time

    from emulator.http.app import handle
    from emulator.http.polling import SERVE_BUDGET_US

    emu, org, sign_with = wire_load.bench_world()
    kinds = {}
    for kind, made in (
        (b"whoami", wire_load.whoami_requests(org, 1001)),
        (b"sign_raw_payload", wire_load.sign_requests(org, sign_with, 1001)),
    ):
        work_s = statistics.median(wire_load.handle_floor(emu, made[1:])) / 1e6
        first = made[0]
        headers = {k.lower(): v for k, v in first.headers.items()}
        status, payload = handle(emu.world, "POST", first.path, headers, first.body)
        head = f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\n"
        kinds[kind] = (work_s, f"{head}Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
    print("ready", flush=True)
    clock = time.perf_counter

    def read(sock: socket.socket) -> bytes:
        end = clock() + SERVE_BUDGET_US / 1e6
        while clock() < end:
            try:
                return sock.recv(65536)
            except BlockingIOError:
                pass
        select.select([sock], [], [])
        return sock.recv(65536)

    def serve(sock: socket.socket) -> None:
        sock.setblocking(False)
        for head, body in _requests(lambda: read(sock)):
            work_s, answer = kinds[b"whoami" if b"whoami" in head else b"sign_raw_payload"]
            if real:
                answer = _answered(emu.world, handle, head, body)
            else:
                end = clock() + work_s
                while clock() < end:
                    pass
            sock.setblocking(True)
            sock.sendall(answer)
            sock.setblocking(False)

    _accepting(port, serve)


def _requests(read: Callable[[], bytes]) -> Iterator[tuple[bytes, bytes]]:
    """Each request's head and body, from ``read()`` (a socket's next bytes, ``b""`` at its end)."""
    buffer = b""
    while True:
        while b"\r\n\r\n" not in buffer:
            chunk = read()
            if not chunk:
                return
            buffer += chunk
        head, _, rest = buffer.partition(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        while len(rest) < length:
            rest += read()
        yield head, rest[:length]
        buffer = rest[length:]


def _accepting(port: int, serve: Callable[[socket.socket], None]) -> None:
    """Accept connections on ``port`` for ever, each served by ``serve`` in a thread."""
    listener = socket.create_server(("127.0.0.1", port), backlog=1024)
    while True:
        sock, _ = listener.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(sock,), daemon=True).start()


def _answered(world, handle, head: bytes, body: bytes) -> bytes:
    """``handle()``'s answer to a request of ``head`` and ``body``, as HTTP bytes."""
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    status, payload = handle(world, "POST", lines[0].split(" ")[1], headers, body)
    return (
        f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n".encode()
        + payload
    )


def host(name: str, port: int) -> None:
    if name == "bare":
        print("ready", flush=True)
        bare(port)
        return
    if name in ("ideal", "minimal"):
        ideal(port, real=name == "minimal")
        return
    emu, _, _ = wire_load.bench_world()
    app = emu.wsgi_app
    print("ready", flush=True)
    if name == "wsgiref":  # the emulator's server before uvicorn: HTTP/1.0, a thread a request
        from socketserver import ThreadingMixIn
        from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

        class Quiet(WSGIRequestHandler):
            def log_message(self, *args):
                pass

        class Threading(ThreadingMixIn, WSGIServer):
            daemon_threads = True

        make_server("127.0.0.1", port, app, Threading, Quiet).serve_forever()
    elif name == "waitress":
        import waitress

        waitress.serve(app, host="127.0.0.1", port=port, threads=4, backlog=1024, _quiet=True)
    elif name == "cheroot":
        from cheroot import wsgi

        server = wsgi.Server(("127.0.0.1", port), app, numthreads=8, request_queue_size=1024)
        server.start()
    elif name == "uvicorn":
        import uvicorn

        config = uvicorn.Config(_asgi(emu.world), port=port, backlog=1024, **UVICORN)
        asyncio.run(uvicorn.Server(config).serve())
    elif name == "granian":  # its WSGI runs only from an import string, in a worker process
        os.execvp(
            sys.executable,
            [
                sys.executable,
                "-m",
                "granian",
                "--interface",
                "wsgi",
                "--workers",
                "1",
                "--blocking-threads",
                "1",
                "--backlog",
                "1024",
                "--no-ws",
                "--log-level",
                "warning",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--factory",
                "wire_hosts:wsgi_factory",
            ],
        )
    elif name == "granian-asgi":
        from granian.server.embed import Server

        server = Server(target=_asgi(emu.world), address="127.0.0.1", port=port)
        asyncio.run(server.serve())
    elif name == "uvicorn-null":  # uvicorn's own cost: a canned answer, no engine
        import uvicorn

        async def null(scope, receive, send):
            if scope["type"] != "http":
                return
            await receive()
            payload = b'{"userId": "' + b"0" * 36 + b'"}'
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(payload)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": payload})

        uvicorn.run(null, port=port, proxy_headers=False, **UVICORN)
    elif name in ("emulator", "emulator-sleeping"):
        # what `serve` runs, its garbage-collection step and busy polling included;
        # "emulator-sleeping": the same without busy polling (its loop sleeps at once)
        from emulator.ground.gc_tuning import freeze_survivors, freeze_young
        from emulator.http.options import WireOptions
        from emulator.http.polling import default_budget_us
        from emulator.http.server import make_api_server

        budget = default_budget_us() if name == "emulator" else 0
        options = WireOptions(busy_poll_us=budget, compact_after_answer=True)  # as `serve`
        server = make_api_server(
            emu.world, "127.0.0.1", port, on_second=freeze_young, options=options
        )
        freeze_survivors()
        server.serve_forever()
    else:
        raise SystemExit(f"unknown candidate {name}")
