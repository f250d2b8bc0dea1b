"""The servers ``bench/wire.py`` compares, each hosted in a process of its own: ``host(name,
port)`` serves the seeded world of ``wire_load.bench_world()`` (or, for ``bare``, a canned
answer with no HTTP library and no engine) until the process is stopped."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import threading

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
    listener = socket.create_server(("127.0.0.1", port), backlog=1024)

    def serve(sock: socket.socket) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buffer = b""
        while True:
            while b"\r\n\r\n" not in buffer:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            head, _, rest = buffer.partition(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            while len(rest) < length:
                rest += sock.recv(65536)
            buffer = rest[length:]
            sock.sendall(canned)

    while True:
        sock, _ = listener.accept()
        threading.Thread(target=serve, args=(sock,), daemon=True).start()


def host(name: str, port: int) -> None:
    if name == "bare":
        print("ready", flush=True)
        bare(port)
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
