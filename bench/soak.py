"""Soak: a long run of sign_raw_payload against a real ``python -m emulator serve``.

The server runs as a subprocess (``--port 0``, a fresh ``--state`` file in a temporary
directory, ``--timestamp-window 0``); 16 client threads, each with its own keep-alive
``http.client`` connection, send ``sign_raw_payload`` requests stamped with the root API
key (``X-Stamp``, signed per request), each a new payload (so a new activity), signing with
one Ethereum wallet account made first. After each slice of requests the run reads the
server's resident set size (``VmRSS`` of ``/proc/PID/status``) and the 99th percentile of
the slice's round trips (client side, ``time.perf_counter``).

It passes when the RSS after the last slice is at most 1.2x the RSS after the first, and the
last slice's p99 at most 1.5x the first's: the memory of a long run is bounded (activities
beyond ``--activities-in-memory`` live in the state file) and requests do not slow down.

The same run without ``--state`` (``--requests-in-memory`` requests, the activities all
kept) reports the growth per activity: (RSS after the last slice - RSS after the first) /
the activities made in between.

    python bench/soak.py                 # 1,000,000 requests, reported per 100,000
    python bench/soak.py --short         # 200,000 per 20,000
    python bench/soak.py --quick         # 4,000 per 1,000 (a smoke run)
    python bench/soak.py --json          # one JSON object on stdout
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any

from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair
from emulator.crypto.stamps import sign_stamp

CLIENTS = 16
RSS_GOAL = 1.2
P99_GOAL = 1.5


@dataclass(frozen=True)
class Plan:
    requests: int
    slice: int
    in_memory_requests: int  # the run without --state


FULL = Plan(1_000_000, 100_000, 200_000)
SHORT = Plan(200_000, 20_000, 40_000)
QUICK = Plan(4_000, 1_000, 2_000)


class Server:
    """``python -m emulator serve`` in a subprocess, and a client of it."""

    def __init__(self, state: str | None, extra: list[str]) -> None:
        command = [sys.executable, "-m", "emulator", "serve", "--port", "0"]
        command += ["--timestamp-window", "0", *extra]
        if state is not None:
            command += ["--state", state]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"soak: the server did not start ({self.process.wait()})")
        info = json.loads(line)
        self.host, port = info["baseUrl"].removeprefix("http://").rsplit(":", 1)
        self.port = int(port)
        self.org_id = info["organizationId"]
        self.key = ApiKeyPair(info["apiPublicKey"], info["apiPrivateKey"], "API_KEY_CURVE_P256")

    def rss_bytes(self) -> int:
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS")

    def cpu_seconds(self) -> float:
        """The server process's CPU time so far (user + system, ``/proc/PID/stat``)."""
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def body(self, activity_type: str, params: dict[str, Any], n: int) -> bytes:
        return json.dumps(
            {
                "type": activity_type,
                "timestampMs": str(1_700_000_000_000 + n),
                "organizationId": self.org_id,
                "parameters": params,
            }
        ).encode()

    def post(self, conn: http.client.HTTPConnection, path: str, raw: bytes) -> dict[str, Any]:
        stamp = sign_stamp(raw, self.key).header_value()
        conn.request("POST", path, raw, {"X-Stamp": stamp, "Content-Type": "application/json"})
        response = conn.getresponse()
        answer = json.loads(response.read())
        if response.status != 200:
            raise RuntimeError(f"{path}: HTTP {response.status} {answer}")
        return answer

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def drive(server: Server, plan_requests: int, slice_size: int, progress: Any) -> list[dict]:
    """Send ``plan_requests`` signatures through CLIENTS threads; one row per slice."""
    setup = http.client.HTTPConnection(server.host, server.port)
    wallet = server.post(
        setup,
        "/public/v1/submit/create_wallet",
        server.body(
            "ACTIVITY_TYPE_CREATE_WALLET",
            {"walletName": "soak", "accounts": [account_spec("ADDRESS_FORMAT_ETHEREUM")]},
            0,
        ),
    )
    address = wallet["activity"]["result"]["createWalletResult"]["addresses"][0]
    setup.close()

    lock = threading.Lock()
    state = {"next": 0, "end": 0, "errors": 0}
    latencies: list[float] = []
    barrier = threading.Barrier(CLIENTS + 1)
    stop = threading.Event()

    def client() -> None:
        conn = http.client.HTTPConnection(server.host, server.port)
        while True:
            barrier.wait()
            if stop.is_set():
                conn.close()
                return
            mine: list[float] = []
            while True:
                with lock:
                    n = state["next"]
                    if n >= state["end"]:
                        break
                    state["next"] = n + 1
                raw = server.body(
                    "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                    {
                        "signWith": address,
                        "payload": f"{n + 1:064x}",
                        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                        "hashFunction": "HASH_FUNCTION_NO_OP",
                    },
                    n + 1,
                )
                stamp = sign_stamp(raw, server.key).header_value()
                headers = {"X-Stamp": stamp, "Content-Type": "application/json"}
                started = time.perf_counter()
                conn.request("POST", "/public/v1/submit/sign_raw_payload", raw, headers)
                response = conn.getresponse()
                response.read()
                mine.append(time.perf_counter() - started)
                if response.status != 200:
                    with lock:
                        state["errors"] += 1
            with lock:
                latencies.extend(mine)
            barrier.wait()

    threads = [threading.Thread(target=client, daemon=True) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    rows = []
    started = time.perf_counter()
    for index in range(plan_requests // slice_size):
        latencies.clear()
        slice_started = time.perf_counter()
        cpu_before = server.cpu_seconds()
        with lock:
            state["end"] = (index + 1) * slice_size
        barrier.wait()  # go
        barrier.wait()  # the slice is done
        seconds = time.perf_counter() - slice_started
        row = {
            "requests": (index + 1) * slice_size,
            "rss_mib": round(server.rss_bytes() / 2**20, 1),
            "p50_ms": round(quantile(latencies, 0.50) * 1000, 2),
            "p99_ms": round(quantile(latencies, 0.99) * 1000, 2),
            "per_second": round(slice_size / seconds),
            # the server's CPU a request: its own work, whatever the machine's load
            "cpu_us": round((server.cpu_seconds() - cpu_before) / slice_size * 1e6, 1),
        }
        rows.append(row)
        progress(
            f"  {row['requests']:>9,}  RSS {row['rss_mib']:8.1f} MiB  p50 {row['p50_ms']:6.2f} ms"
            f"  p99 {row['p99_ms']:6.2f} ms  {row['per_second']:,}/s  cpu {row['cpu_us']:.0f} µs"
            f"  ({time.perf_counter() - started:.0f} s)"
        )
    stop.set()
    barrier.wait()
    if state["errors"]:
        raise SystemExit(f"soak: {state['errors']} requests failed")
    return rows


def run(plan: Plan, progress: Any, in_memory: int | None = None) -> dict[str, Any]:
    extra = [] if in_memory is None else ["--activities-in-memory", str(in_memory)]
    with tempfile.TemporaryDirectory() as directory:
        progress(f"soak with --state: {plan.requests:,} sign_raw_payload, {CLIENTS} clients")
        server = Server(os.path.join(directory, "state.sqlite"), extra)
        try:
            rows = drive(server, plan.requests, plan.slice, progress)
        finally:
            server.stop()
    first, last = rows[0], rows[-1]
    progress(f"soak without --state: {plan.in_memory_requests:,} sign_raw_payload")
    server = Server(None, [])
    try:
        memory_rows = drive(server, plan.in_memory_requests, plan.slice, progress)
    finally:
        server.stop()
    grown = (memory_rows[-1]["rss_mib"] - memory_rows[0]["rss_mib"]) * 2**20
    between = memory_rows[-1]["requests"] - memory_rows[0]["requests"]
    return {
        "plan": {"requests": plan.requests, "slice": plan.slice, "clients": CLIENTS},
        "with_state": rows,
        "rss_last_over_first": round(last["rss_mib"] / first["rss_mib"], 3),
        "p99_last_over_first": round(last["p99_ms"] / first["p99_ms"], 3),
        "cpu_last_over_first": round(last["cpu_us"] / first["cpu_us"], 3),
        "load_average": os.getloadavg(),
        "without_state": memory_rows,
        "bytes_per_activity_without_state": round(grown / between) if between else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="4,000 requests per 1,000")
    parser.add_argument("--short", action="store_true", help="200,000 requests per 20,000")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--activities-in-memory", type=int, help="the server's bound")
    parser.add_argument(
        "--plan", metavar="REQUESTS,SLICE,IN_MEMORY", help="another plan: three numbers"
    )
    args = parser.parse_args()
    plan = QUICK if args.quick else SHORT if args.short else FULL
    if args.plan:
        plan = Plan(*(int(n) for n in args.plan.split(",")))

    def progress(line: str) -> None:
        print(line, file=sys.stderr if args.json else sys.stdout, flush=True)

    result = run(plan, progress, args.activities_in_memory)
    rss, p99 = result["rss_last_over_first"], result["p99_last_over_first"]
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"with --state: RSS last/first slice {rss:.3f}x (goal <= {RSS_GOAL}x), "
            f"p99 last/first slice {p99:.3f}x (goal <= {P99_GOAL}x), "
            f"server CPU a request last/first slice {result['cpu_last_over_first']:.3f}x; "
            f"load average {result['load_average'][0]:.2f}"
        )
        grown = result["bytes_per_activity_without_state"]
        if grown is not None:  # needs two slices
            print(f"without --state: {grown:,} bytes of RSS per activity")
    return 0 if (rss <= RSS_GOAL and p99 <= P99_GOAL) or args.quick else 1


if __name__ == "__main__":
    sys.exit(main())
