"""Helpers for the wire-server tests: a served emulator, raw HTTP over a socket, stamped bodies."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

from emulator import Emulator, OrganizationHandle
from emulator.crypto.stamps import sign_stamp
from emulator.http.control import Control
from emulator.http.options import WireOptions
from emulator.http.server import serving


@dataclass
class Served:
    emu: Emulator
    org: OrganizationHandle
    url: str

    @property
    def address(self) -> tuple[str, int]:
        parts = urlsplit(self.url)
        return parts.hostname or "127.0.0.1", parts.port or 80

    def whoami_body(self) -> bytes:
        return json.dumps({"organizationId": self.org.organization_id}).encode()

    def stamp(self, body: bytes) -> str:
        return sign_stamp(body, self.org.api_key).header_value()


@contextmanager
def served(options: WireOptions | None = None, *, control: bool = True) -> Iterator[Served]:
    emu = Emulator(seed=21)
    org = emu.create_organization("Wire")
    with serving(
        emu.world,
        control=Control(emu, baseline=emu.snapshot()) if control else None,
        options=options,
    ) as url:
        yield Served(emu, org, url)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict:
        return json.loads(self.body)


def read_answer(sock: socket.socket, buffer: bytearray | None = None) -> Answer:
    """One HTTP answer from ``sock`` (by Content-Length)."""
    buffer = buffer if buffer is not None else bytearray()
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before the head: {bytes(buffer)!r}")
        buffer += chunk
    end = buffer.find(b"\r\n\r\n")
    lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(buffer) < end + 4 + length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed inside the body")
        buffer += chunk
    body = bytes(buffer[end + 4 : end + 4 + length])
    del buffer[: end + 4 + length]
    return Answer(status, headers, body)


def raw(address: tuple[str, int], data: bytes, *, timeout: float = 10.0) -> Answer:
    """Send ``data`` on a new connection and read one answer."""
    with socket.create_connection(address, timeout=timeout) as sock:
        sock.sendall(data)
        return read_answer(sock)


def closed_by_peer(sock: socket.socket) -> bool:
    """Whether the server has closed ``sock`` (reads EOF or a reset)."""
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True


def request_bytes(
    method: str,
    path: str,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    *,
    host: str = "127.0.0.1",
    version: str = "HTTP/1.1",
    length: bool = True,
) -> bytes:
    lines = [f"{method} {path} {version}", f"Host: {host}"]
    if length:
        lines.append(f"Content-Length: {len(body)}")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def is_api_error(answer: Answer, status: int) -> bool:
    """The API's JSON error shape with this status."""
    if answer.status != status or answer.headers.get("content-type") != "application/json":
        return False
    body = answer.json()
    return set(body) == {"code", "message", "details", "turnkeyErrorCode"} and bool(body["message"])
