"""A lean keep-alive load client for the wire benchmarks, and the requests it sends.

Requests are stamped before the clock starts (one P-256 signature each), so the
client's own cost per request is a ``sendall`` and a ``recv`` or two: the
figures are the server's. Each of ``clients`` threads keeps one connection open
and sends the next request as soon as the previous answer is read (a closed
loop). Every request body is distinct, so no activity is answered from the
idempotency cache.
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from emulator import Emulator, OrganizationHandle
from emulator.accounts import account_spec
from emulator.crypto.stamps import sign_stamp

SEED = 7
SIGN_WITH_NAME = "bench"


@dataclass(frozen=True)
class Stamped:
    path: str
    body: bytes
    headers: dict[str, str]

    def wire(self, host: str) -> bytes:
        lines = [
            f"POST {self.path} HTTP/1.1",
            f"Host: {host}",
            "Content-Type: application/json",
            f"Content-Length: {len(self.body)}",
            *(f"{k}: {v}" for k, v in self.headers.items()),
        ]
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + self.body


def bench_world() -> tuple[Emulator, OrganizationHandle, str]:
    """The benchmark's world, the same in every process (seeded): an organization and
    one Ethereum account to sign with."""
    emu = Emulator(seed=SEED)
    org = emu.create_organization("Bench")
    wallet = emu.create_wallet(
        wallet_name=SIGN_WITH_NAME, accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )
    return emu, org, wallet["addresses"][0]


def whoami_requests(org: OrganizationHandle, count: int) -> list[Stamped]:
    key = org.api_key
    body = json.dumps({"organizationId": org.organization_id}).encode()
    stamp = sign_stamp(body, key).header_value()
    return [Stamped("/public/v1/query/whoami", body, {"X-Stamp": stamp})] * count


def sign_requests(org: OrganizationHandle, sign_with: str, count: int) -> list[Stamped]:
    key = org.api_key
    base = int(time.time() * 1000)
    made = []
    for i in range(count):
        body = json.dumps(
            {
                "type": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                "timestampMs": str(base + i),
                "organizationId": org.organization_id,
                "parameters": {
                    "signWith": sign_with,
                    "payload": f"{i:064x}",
                    "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                    "hashFunction": "HASH_FUNCTION_NO_OP",
                },
            }
        ).encode()
        stamp = sign_stamp(body, key).header_value()
        made.append(Stamped("/public/v1/submit/sign_raw_payload", body, {"X-Stamp": stamp}))
    return made


@dataclass
class LoadResult:
    clients: int
    latencies_us: list[float]
    elapsed_s: float
    errors: list[str]

    @property
    def throughput(self) -> float:
        return len(self.latencies_us) / self.elapsed_s if self.elapsed_s else 0.0

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies_us)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.latencies_us) if self.latencies_us else 0.0

    @property
    def mean(self) -> float:
        return statistics.fmean(self.latencies_us) if self.latencies_us else 0.0


class _SpinningReads:
    """A socket whose ``recv`` polls without blocking until bytes come (or ``timeout``): a
    client that never sleeps waiting for its answer (``run_load(spin=True)``), to measure
    the client's own wake-up apart from the server's."""

    def __init__(self, sock: socket.socket, timeout: float) -> None:
        self.sock = sock
        self.timeout = timeout

    def recv(self, size: int) -> bytes:
        deadline = time.perf_counter() + self.timeout
        fd = self.sock.fileno()  # a socket with a timeout is non-blocking underneath; its
        while True:  # own recv would wait in poll() first
            try:
                return os.read(fd, size)
            except BlockingIOError:
                if time.perf_counter() > deadline:
                    raise TimeoutError("no answer") from None


def _read_answer(sock: socket.socket | _SpinningReads, buffer: bytearray) -> tuple[int, bool]:
    """Read one HTTP answer from ``sock``: its status and whether the server keeps the
    connection open. Leftover bytes stay in ``buffer``."""
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            break
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the answer's headers")
        buffer += chunk
    head = bytes(buffer[:end]).decode("latin-1")
    status = int(head.split(" ", 2)[1])
    keep = head.startswith("HTTP/1.1")
    length = 0
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
        if name.strip().lower() == "connection":
            keep = value.strip().lower() != "close"
    total = end + 4 + length
    while len(buffer) < total:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed inside the answer's body")
        buffer += chunk
    del buffer[:total]
    return status, keep


def run_load(
    address: tuple[str, int],
    requests: Sequence[Stamped],
    clients: int,
    *,
    timeout: float = 5.0,
    spin: bool = False,
) -> LoadResult:
    """Send every request once, from ``clients`` keep-alive connections in a closed loop
    (``spin``: each client polls for its answer rather than sleeping until it comes)."""
    host = f"{address[0]}:{address[1]}"
    wires = [r.wire(host) for r in requests]
    counter = itertools.count()
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors: list[str] = []
    start_gate = threading.Barrier(clients + 1)

    def connect() -> socket.socket:
        sock = socket.create_connection(address, timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def worker(slot: int) -> None:
        mine = latencies[slot]
        sock: socket.socket | None = None
        buffer = bytearray()
        clock = time.perf_counter
        start_gate.wait()
        try:
            while True:
                i = next(counter)
                if i >= len(wires):
                    break
                began = clock()
                if sock is None:  # a server that closes after each answer: a new connection
                    sock = connect()
                sock.sendall(wires[i])
                status, keep = _read_answer(_SpinningReads(sock, timeout) if spin else sock, buffer)
                mine.append((clock() - began) * 1e6)
                if not keep:
                    sock.close()
                    sock, buffer = None, bytearray()
                if status != 200:
                    errors.append(f"HTTP {status}")
        except OSError as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            if sock is not None:
                sock.close()

    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(clients)]
    for thread in threads:
        thread.start()
    start_gate.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    return LoadResult(clients, [x for part in latencies for x in part], elapsed, errors)


def handle_floor(emu: Emulator, requests: Sequence[Stamped]) -> list[float]:
    """The in-process ``handle()`` of each stamped request, in µs: the emulator's own share."""
    from emulator.http.app import handle

    world = emu.world
    samples = []
    clock = time.perf_counter
    for request in requests:
        headers = {k.lower(): v for k, v in request.headers.items()}
        headers["content-type"] = "application/json"
        began = clock()
        status, _ = handle(world, "POST", request.path, headers, request.body)
        samples.append((clock() - began) * 1e6)
        assert status == 200, status
    return samples


def in_turn_floor(make: Callable[[int], list[Stamped]], emu: Emulator, count: int) -> float:
    """The median ``handle()`` time of ``count`` fresh requests."""
    return statistics.median(handle_floor(emu, make(count)))
