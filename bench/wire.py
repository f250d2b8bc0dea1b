"""The wire under load: ``serve``'s server beside today's and beside the candidates.

Each server serves the same seeded world from a process of its own (one process: the
state is in memory), and ``wire_load`` drives it with keep-alive clients at 1, 2, 4, 8
and 32 connections, with ``get_whoami`` and ``sign_raw_payload``. Every figure is set
beside two floors measured in the same run: the in-process ``handle()`` of the same kind
of request (the engine's own share), and ``bare``, a socket loop that answers a canned
HTTP answer with no HTTP library and no engine (the round trip through the kernel that
no server can avoid). "Server adds" is a median minus both floors, over ``handle()``.
``ideal`` is a third reference, at one client: a socket loop that spends the median
``handle()`` time of the request's kind spinning, then sends that kind's real answer, and polls
between requests as ``serve`` does: no HTTP library and no engine, so its ratio is the least
any server could reach on this machine (``wire_hosts.ideal``). ``minimal`` is the same loop
answering each request with ``handle()`` itself: the engine running between network events, with
no HTTP library.

    python bench/wire.py                      # serve's server (emulator), wsgiref, bare, ideal
    python bench/wire.py --candidates         # the choice: waitress, cheroot, uvicorn, granian too
    python bench/wire.py emulator uvicorn     # any list of them
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import wire_load
from wire_hosts import host

DEFAULT = ("bare", "ideal", "minimal", "emulator", "emulator-sleeping", "wsgiref")
CANDIDATES = (
    "bare",
    "ideal",
    "minimal",
    "wsgiref",
    "waitress",
    "cheroot",
    "uvicorn",
    "uvicorn-null",
    "granian",
    "emulator",
    "emulator-sleeping",
)
LEVELS = (1, 2, 4, 8, 32)
POLLING = "1-polling"  # one client that polls for its answer (wire_load.run_load(spin=True))
HERE = os.path.dirname(os.path.abspath(__file__))  # the server runs this checkout's emulator


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


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` and its waited-for children (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    ticks = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def _pythonpath() -> str:
    """This directory, this checkout's root (its emulator, not an installed one), then the
    caller's own PYTHONPATH."""
    return os.pathsep.join(
        p for p in (HERE, os.path.dirname(HERE), os.environ.get("PYTHONPATH")) if p
    )


def measure_candidate(name: str, per_level: int) -> dict:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, __file__, "--host-with", name, "--port", str(port)],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": _pythonpath()},
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
            wire_load.run_load(("127.0.0.1", port), make(min(200, per_level)), 4)  # warm-up
            floor = statistics.median(wire_load.handle_floor(emu, make(per_level)))
            for level in (1,) if name in ("ideal", "minimal") else LEVELS:  # one client at a time
                requests = make(per_level)
                cpu_before = cpu_seconds(process.pid)
                result = wire_load.run_load(("127.0.0.1", port), requests, level)
                cpu = (cpu_seconds(process.pid) - cpu_before) / len(requests) * 1e6
                rows[(op, level)] = {
                    "cpu": cpu,
                    "median": result.median,
                    "p99": result.quantile(0.99),
                    "max": max(result.latencies_us),
                    "mean": result.mean,
                    "rps": result.throughput,
                    "floor": floor,
                    "errors": len(result.errors),
                }
            # one client that polls for its answer rather than sleeping: the client's own
            # wake-up taken out of the round trip (docs/wire.md, "Where the time goes")
            requests = make(per_level)
            cpu_before = cpu_seconds(process.pid)
            result = wire_load.run_load(("127.0.0.1", port), requests, 1, spin=True)
            cpu = (cpu_seconds(process.pid) - cpu_before) / len(requests) * 1e6
            rows[(op, POLLING)] = {
                "cpu": cpu,
                "median": result.median,
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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("servers", nargs="*")
    parser.add_argument("--candidates", action="store_true", help="every candidate server")
    parser.add_argument("--host-with")
    parser.add_argument("--port", type=int)
    parser.add_argument("--per-level", type=int, default=1500)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: the emulator's server, the ideal and the minimal one, 64 requests a level",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.host_with:
        host(args.host_with, args.port)
        return 0
    names = args.servers or (CANDIDATES if args.candidates else DEFAULT)
    if args.quick:
        names, args.per_level = args.servers or ["ideal", "minimal", "emulator"], 64
    results = {}
    failed = []
    for name in names:
        print(f"# {name}", file=sys.stderr, flush=True)
        try:
            results[name] = measure_candidate(name, args.per_level)
        except Exception as exc:
            print(f"# {name} failed: {exc}", file=sys.stderr)
            failed.append(name)
    status = 1 if failed and not args.candidates else 0  # a candidate may not be installed
    if args.json:
        print(
            json.dumps({n: {f"{k[0]}@{k[1]}": v for k, v in r.items()} for n, r in results.items()})
        )
        return status
    print_table(results)
    if "emulator" in results:
        print_goals(
            results["emulator"], results.get("bare"), results.get("ideal"), results.get("minimal")
        )
    return status


def print_table(results: dict) -> None:
    bare = results.get("bare", {})
    print(
        f"{'server':9} {'operation':17} {'clients':>7} {'median':>7} {'×handle':>7} "
        f"{'adds':>6} {'cpu':>5} {'p99':>7} {'max':>7} {'req/s':>6} {'×1 cl.':>6} "
        f"{'p99/mean':>8} err"
    )
    for name, rows in results.items():
        for (op, level), row in rows.items():
            if level == POLLING:
                continue
            floor_rtt = bare.get((op, level), {}).get("median")
            adds = (
                f"{(row['median'] - floor_rtt - row['floor']) / row['floor']:6.2f}"
                if floor_rtt is not None and name != "bare"
                else f"{'':6}"
            )
            single = rows[(op, 1)]["rps"]
            print(
                f"{name:9} {op:17} {level:7d} {row['median']:7.0f} "
                f"{row['median'] / row['floor']:7.2f} {adds} {row['cpu'] / row['floor']:5.2f} "
                f"{row['p99']:7.0f} {row['max']:7.0f} "
                f"{row['rps']:6.0f} {row['rps'] / single:6.2f} {row['p99'] / row['mean']:8.2f} "
                f"{row['errors']}"
            )
    print("median, p99, max in µs; ×handle: median / the in-process handle() of the request;")
    print("adds: (median - bare's median - handle()) / handle(), the server's own share;")
    print("cpu: the server process's CPU time per request / handle() (load-proof);")
    print("×1 cl.: throughput / the throughput at one client.")


def print_goals(
    rows: dict, bare: dict | None, ideal: dict | None = None, minimal: dict | None = None
) -> None:
    print("\ngoals (the emulator's server):")
    for op in ("get_whoami", "sign_raw_payload"):
        one = rows[(op, 1)]
        total = one["median"] / one["floor"]
        cpu = one["cpu"] / one["floor"]
        line = f"  {op}: one client {total:.2f}× handle() (goal ≤ 1.5×), server CPU {cpu:.2f}×"
        polling = rows.get((op, POLLING))
        if polling:
            line += (
                f"; one polling client {polling['median'] / polling['floor']:.2f}×"
                f" (server CPU {polling['cpu'] / polling['floor']:.2f}×)"
            )
        if bare:
            adds = (one["median"] - bare[(op, 1)]["median"] - one["floor"]) / one["floor"]
            line += f", the server adds {adds:.2f}× handle() beyond the bare round trip (≤ 0.5×)"
        print(line)
        if ideal:
            best = ideal[(op, 1)]["median"] / ideal[(op, 1)]["floor"]
            print(
                f"  {op}: an ideal server (handle()'s time spun, then its answer; polling as"
                f" serve does) {best:.2f}× handle(): what this machine's round trip leaves"
            )
        if minimal:
            least = minimal[(op, 1)]["median"] / minimal[(op, 1)]["floor"]
            print(
                f"  {op}: a minimal server (handle() itself, no HTTP library; polling as serve"
                f" does) {least:.2f}× handle()"
            )
        for level in (8, 32):
            ratio = rows[(op, level)]["rps"] / one["rps"]
            print(f"  {op}: throughput at {level} clients {ratio:.2f}× one client's (≥ 1)")
        at32 = rows[(op, 32)]
        print(
            f"  {op}: p99 at 32 clients {at32['p99'] / at32['mean']:.2f}× the mean (≤ 3), "
            f"slowest {at32['max'] / 1000:.1f} ms (< 1000)"
        )
    errors = sum(row["errors"] for row in rows.values())
    print(f"  errors and stalls at every level: {errors}")


if __name__ == "__main__":
    sys.exit(main())
