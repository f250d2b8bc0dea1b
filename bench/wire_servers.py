"""Which HTTP server hosts the emulator best: candidates measured under the same load.

Each candidate serves the same seeded world from a process of its own (one
process: the state is in memory), and ``wire_load`` drives it with keep-alive
clients at 1, 2, 4, 8 and 32 connections, with ``get_whoami`` and
``sign_raw_payload``. Every figure is set beside the in-process ``handle()`` of
the same kind of request, measured in this run.

    python bench/wire_servers.py                 # every candidate installed
    python bench/wire_servers.py waitress uvicorn
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time

import wire_load

CANDIDATES = ("wsgiref", "waitress", "cheroot", "uvicorn", "granian", "emulator")
LEVELS = (1, 2, 4, 8, 32)


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


def host(name: str, port: int) -> None:
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

        config = uvicorn.Config(
            _asgi(emu.world),
            host="127.0.0.1",
            port=port,
            http="httptools",
            loop="uvloop",
            lifespan="off",
            access_log=False,
            log_level="warning",
            backlog=1024,
        )
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
                "wire_servers:wsgi_factory",
            ],
        )
    elif name == "granian-asgi":
        from granian.server.embed import Server

        server = Server(target=_asgi(emu.world), address="127.0.0.1", port=port)
        asyncio.run(server.serve())
    elif name == "emulator":  # what `serve` runs
        from emulator.http.server import make_api_server

        make_api_server(emu.world, "127.0.0.1", port).serve_forever()
    else:
        raise SystemExit(f"unknown candidate {name}")


# ----- driving (in this process) ---------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_listening(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def measure_candidate(name: str, per_level: int) -> dict:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, __file__, "--host-with", name, "--port", str(port)],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.path.dirname(__file__)},
    )
    try:
        process.stdout.readline()
        wait_listening(port)
        emu, org, sign_with = wire_load.bench_world()
        rows = {}
        for op, make in (
            ("get_whoami", lambda n: wire_load.whoami_requests(org, n)),
            ("sign_raw_payload", lambda n: wire_load.sign_requests(org, sign_with, n)),
        ):
            wire_load.run_load(("127.0.0.1", port), make(200), 4)  # warm-up
            floor = statistics.median(wire_load.handle_floor(emu, make(per_level)))
            for level in LEVELS:
                result = wire_load.run_load(("127.0.0.1", port), make(per_level), level)
                rows[(op, level)] = {
                    "median": result.median,
                    "p99": result.quantile(0.99),
                    "max": max(result.latencies_us),
                    "mean": result.mean,
                    "rps": result.throughput,
                    "floor": floor,
                    "errors": len(result.errors),
                }
        return rows
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("candidates", nargs="*", default=list(CANDIDATES))
    parser.add_argument("--host-with")
    parser.add_argument("--port", type=int)
    parser.add_argument("--per-level", type=int, default=1500)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.host_with:
        host(args.host_with, args.port)
        return
    results = {}
    for name in args.candidates:
        print(f"# {name}", file=sys.stderr, flush=True)
        try:
            results[name] = measure_candidate(name, args.per_level)
        except Exception as exc:
            print(f"# {name} failed: {exc}", file=sys.stderr)
    if args.json:
        print(
            json.dumps({n: {f"{k[0]}@{k[1]}": v for k, v in r.items()} for n, r in results.items()})
        )
        return
    print(
        f"{'server':9} {'operation':17} {'clients':>7} {'median':>8} {'×handle':>8} "
        f"{'p99':>8} {'max':>8} {'req/s':>8} {'p99/mean':>8} err"
    )
    for name, rows in results.items():
        for (op, level), row in rows.items():
            print(
                f"{name:9} {op:17} {level:7d} {row['median']:8.0f} "
                f"{row['median'] / row['floor']:8.2f} {row['p99']:8.0f} {row['max']:8.0f} "
                f"{row['rps']:8.0f} {row['p99'] / row['mean']:8.2f} {row['errors']}"
            )


if __name__ == "__main__":
    main()
