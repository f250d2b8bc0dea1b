"""The HTTP/1.1 connection: uvicorn's httptools protocol, with the emulator's limits.

uvicorn parses and writes; this subclass adds what it leaves to the deployment:

* every answer the protocol makes itself is the API's JSON error shape (uvicorn's
  own are ``text/plain``): a request that does not parse is a 400 (a non-numeric or
  negative ``Content-Length`` among them), a head over ``max_header_bytes`` a 431;
* a read timeout: a request whose next bytes do not come within ``read_timeout_s``
  is answered 408 and its connection closed (a stalled client holds nothing);
* an idle timeout from the first byte on (uvicorn starts it only after a first
  answer), so a connection that never sends a request is closed too;
* a connection limit: past ``max_connections`` a new connection gets a 503;
* one write per answer: uvicorn writes an answer's head and body apart (two system
  calls, two TCP segments); the head waits for the body here and both leave together.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ..ground.errors import INVALID_ARGUMENT, RESOURCE_EXHAUSTED, UNAVAILABLE
from .app import status_line
from .options import WireOptions
from .site import error_answer

DEADLINE_EXCEEDED = 4


class HeadTooLarge(Exception):
    """The request's head passed the limit (raised inside a parser callback)."""


def answer_bytes(status: int, headers: list[tuple[str, str]], payload: bytes) -> bytes:
    lines = [f"HTTP/1.1 {status_line(status)}"]
    lines += [f"{name}: {value}" for name, value in headers]
    lines += [f"Content-Length: {len(payload)}", "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload


class ConnectionCount:
    """How many connections one server has accepted (for tests of keep-alive and load)."""

    def __init__(self) -> None:
        self.opened = 0


def protocol_class(options: WireOptions, count: ConnectionCount) -> type[HttpToolsProtocol]:
    """The protocol class for ``options`` (uvicorn builds one instance per connection)."""
    return type(
        "EmulatorHttpProtocol", (EmulatorHttpProtocol,), {"options": options, "count": count}
    )


class _OneWritePerAnswer:
    """The transport as a request's cycle sees it: once the answer has started, writes wait
    for its end and leave in one. (A ``100 Continue`` comes before the answer starts and
    goes at once.)"""

    def __init__(self, transport: asyncio.Transport, cycle: Any) -> None:
        self._transport = transport
        self._cycle = cycle
        self._held: list[bytes] = []

    def write(self, data: bytes) -> None:
        if self._cycle.response_started and not self._cycle.response_complete:
            self._held.append(data)
        else:
            self.flush()
            self._transport.write(data)

    @property
    def finished(self) -> bool:
        return bool(self._cycle.response_complete)

    def flush(self) -> None:
        if self._held:
            data = b"".join(self._held)
            self._held.clear()
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class EmulatorHttpProtocol(HttpToolsProtocol):
    options: WireOptions = WireOptions()
    count: ConnectionCount = ConnectionCount()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._reading_head = True  # between requests, or inside a request's head
        self._head_bytes = 0
        self._in_request = False
        self._read_timer: asyncio.TimerHandle | None = None
        self._corked: list[_OneWritePerAnswer] = []

    # ----- connections ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.count.opened += 1
        if len(self.connections) >= self.options.max_connections:
            self.transport = transport
            self._refuse(error_answer(503, UNAVAILABLE, "too many connections: try again later"))
            return
        super().connection_made(transport)
        self.timeout_keep_alive_task = self.loop.call_later(
            self.options.idle_timeout_s, self.timeout_keep_alive_handler
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_read_timer()
        super().connection_lost(exc)

    # ----- reading ----------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        self._unset_keepalive_if_required()
        if self._reading_head:
            self._head_bytes += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._refuse(error_answer(400, INVALID_ARGUMENT, "protocol upgrades are not served"))
            return
        except httptools.HttpParserError as error:
            if isinstance(error.__context__, HeadTooLarge):  # raised in our on_header
                self._refuse(self._head_too_large())
            else:
                self._refuse(
                    error_answer(400, INVALID_ARGUMENT, f"malformed HTTP request: {error}")
                )
            return
        if self._reading_head and self._head_bytes > self.options.max_header_bytes:
            self._refuse(self._head_too_large())
            return
        if self._in_request:
            self._arm_read_timer()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_request = True
        self._reading_head = True

    def on_header(self, name: bytes, value: bytes) -> None:
        super().on_header(name, value)
        if self._head_bytes > self.options.max_header_bytes:
            raise HeadTooLarge

    def on_headers_complete(self) -> None:
        self._reading_head = False
        self._head_bytes = 0
        super().on_headers_complete()
        if self.cycle is not None:
            corked = _OneWritePerAnswer(self.transport, self.cycle)
            self.cycle.transport = corked
            self._corked.append(corked)

    def on_response_complete(self) -> None:
        # Pipelined answers complete in order: every finished one leaves now.
        while self._corked and self._corked[0].finished:
            self._corked.pop(0).flush()
        super().on_response_complete()

    def on_message_complete(self) -> None:
        self._in_request = False
        self._reading_head = True
        self._cancel_read_timer()
        super().on_message_complete()

    # ----- timeouts and refusals ------------------------------------------------------------

    def _arm_read_timer(self) -> None:
        self._cancel_read_timer()
        self._read_timer = self.loop.call_later(self.options.read_timeout_s, self._read_timed_out)

    def _cancel_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        started = self.cycle is not None and self.cycle.response_started
        if started:
            self.transport.close()
            return
        self._refuse(
            error_answer(
                408,
                DEADLINE_EXCEEDED,
                f"request not received within {self.options.read_timeout_s:g} s",
            )
        )

    def _head_too_large(self) -> tuple[int, list[tuple[str, str]], bytes]:
        return error_answer(
            431,
            RESOURCE_EXHAUSTED,
            f"request head larger than {self.options.max_header_bytes} bytes",
        )

    def _refuse(self, answer: tuple[int, list[tuple[str, str]], bytes]) -> None:
        """Write ``answer`` and close the connection."""
        self._cancel_read_timer()
        self.transport.write(answer_bytes(*answer))
        self.transport.close()

    def send_400_response(self, msg: str) -> None:  # uvicorn's own, should it call it
        self._refuse(error_answer(400, INVALID_ARGUMENT, msg))
