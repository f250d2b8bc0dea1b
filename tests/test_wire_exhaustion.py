"""Exhaustion keeps answering: while clients send oversized, slow (slowloris) and endless
requests (an endless chunked body, endless headers, an endless header line), a served
process keeps answering a normal client, refuses each attacker with its status, and its
memory (RSS) stays bounded. Loopback only; every loop is bounded and stops by itself."""

from __future__ import annotations

import contextlib
import json
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from emulator import ApiKeyPair
from emulator.crypto.stamps import sign_stamp

from .wire import read_answer, request_bytes

ATTACK_S = 6.0  # how long the attackers run
MIB = 1024 * 1024
RSS_GROWTH_BOUND = 64 * MIB  # the served process's resident memory may grow at most this
WHOAMI = "/public/v1/query/whoami"


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


class Attack:
    """Runs ``one`` (an attack on a new connection, answering its outcome) again and again,
    in a thread, until ``stop``; counts the outcomes."""

    def __init__(self, address: tuple[str, int], one: Callable[[socket.socket], str]) -> None:
        self.address = address
        self.one = one
        self.outcomes: Counter[str] = Counter()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                with socket.create_connection(self.address, timeout=5) as sock:
                    self.outcomes[self.one(sock, self.stop)] += 1
            except OSError as error:
                self.outcomes[type(error).__name__] += 1


def status_of(sock: socket.socket) -> str:
    try:
        return str(read_answer(sock).status)
    except (ConnectionError, TimeoutError, OSError) as error:
        return type(error).__name__


def oversized(sock: socket.socket, stop: threading.Event) -> str:
    head = request_bytes("POST", WHOAMI, length=False, headers={"Content-Length": str(50 * MIB)})
    with contextlib.suppress(OSError):
        sock.sendall(head + b"x" * (2 * MIB))  # far past the limit, sent whole
    return status_of(sock)


def slowloris(sock: socket.socket, stop: threading.Event) -> str:
    head = request_bytes("POST", WHOAMI, b"{}", headers={"X-Slow": "s" * 200})
    for byte in head[:-1]:  # never the last byte, one byte a tenth of a second
        if stop.is_set():
            break
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            break
        sock.settimeout(0.1)
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        sock.settimeout(5)
        return data.split(b" ", 2)[1].decode() if data else "closed"
    return "stopped"


def endless(first: bytes, more: bytes) -> Callable[[socket.socket, threading.Event], str]:
    def attack(sock: socket.socket, stop: threading.Event) -> str:
        sock.sendall(first)
        for _ in range(100_000):  # bounded: a 1 MiB limit is passed long before
            if stop.is_set():
                return "stopped"
            try:
                sock.sendall(more)
            except OSError:
                break
        return status_of(sock)

    return attack


endless_chunked = endless(
    request_bytes("POST", WHOAMI, length=False, headers={"Transfer-Encoding": "chunked"}),
    b"1000\r\n" + b"c" * 0x1000 + b"\r\n",
)
endless_headers = endless(
    b"POST /public/v1/query/whoami HTTP/1.1\r\n", b"X-More: " + b"h" * 50 + b"\r\n"
)
endless_line = endless(b"POST /public/v1/query/whoami HTTP/1.1\r\nX-Endless: ", b"e" * 4096)


def test_the_server_keeps_answering_and_its_memory_stays_bounded():
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "emulator",
            "serve",
            "--port",
            "0",
            "--max-body-mib",
            "1",
            "--max-header-kib",
            "8",
            "--read-timeout",
            "1",
            "--idle-timeout",
            "5",
            "--max-connections",
            "256",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        info = json.loads(process.stdout.readline())
        host, port = info["baseUrl"].removeprefix("http://").split(":")
        address = (host, int(port))
        body = json.dumps({"organizationId": info["organizationId"]}).encode()
        key = ApiKeyPair(info["apiPublicKey"], info["apiPrivateKey"])
        whoami = request_bytes(
            "POST", WHOAMI, body, {"X-Stamp": sign_stamp(body, key).header_value()}
        )

        normal = socket.create_connection(address, timeout=10)
        buffer = bytearray()

        def ask() -> tuple[int, float]:
            began = time.monotonic()
            normal.sendall(whoami)
            answer = read_answer(normal, buffer)
            return answer.status, time.monotonic() - began

        for _ in range(200):  # warm: the baseline is a served process that has answered
            assert ask()[0] == 200
        baseline = rss(process.pid)

        attacks = {
            "oversized": [Attack(address, oversized) for _ in range(2)],
            "slowloris": [Attack(address, slowloris) for _ in range(20)],
            "endless chunked body": [Attack(address, endless_chunked) for _ in range(2)],
            "endless headers": [Attack(address, endless_headers) for _ in range(2)],
            "endless header line": [Attack(address, endless_line) for _ in range(2)],
        }
        for group in attacks.values():
            for attack in group:
                attack.thread.start()
        statuses: Counter[int] = Counter()
        latencies: list[float] = []
        peak = baseline
        ends = time.monotonic() + ATTACK_S
        while time.monotonic() < ends:
            status, took = ask()
            statuses[status] += 1
            latencies.append(took)
            peak = max(peak, rss(process.pid))
            time.sleep(0.02)
        for group in attacks.values():
            for attack in group:
                attack.stop.set()
        for group in attacks.values():
            for attack in group:
                attack.thread.join(timeout=15)
        assert ask()[0] == 200  # still answering after
        normal.close()

        outcomes = {
            name: sum((a.outcomes for a in group), Counter()) for name, group in attacks.items()
        }
        # the normal client got every answer it asked for, none refused
        assert set(statuses) == {200}, statuses
        assert sum(statuses.values()) >= 20, statuses
        assert statistics.median(latencies) < 1.0  # answered, not starved (generous: shared CPU)
        # each attacker was refused with the status of what it overran
        assert outcomes["oversized"]["413"] >= 2, outcomes
        assert outcomes["slowloris"]["408"] >= 20, outcomes
        assert outcomes["endless chunked body"]["413"] >= 2, outcomes
        assert outcomes["endless headers"]["431"] >= 2, outcomes
        assert outcomes["endless header line"]["431"] >= 2, outcomes
        # and the served process's memory stayed bounded
        assert peak - baseline < RSS_GROWTH_BOUND, (baseline, peak)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
