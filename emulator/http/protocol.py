"""The HTTP/1.1 connection: httptools parses, the site answers, in the connection's own callbacks.

uvicorn runs the server (the loop, the socket, signals, a graceful stop) and its httptools
protocol is the base of this one, which reads and answers every request itself:

* **the head's bytes, and only those, count against** ``max_header_bytes``, however they
  arrive: each read is cut where a head ends (its ``CRLF CRLF``) and where a body ends (its
  ``Content-Length``, or the next ``CRLF CRLF`` of a chunked body), so a body that shares a
  read with its head, or a request pipelined after others, is never counted as head. A head
  over the limit is a 431 (an endless header line too, as soon as it passes the limit);
* **a body over** ``max_body_bytes`` is a 413 however it arrives: at once from its
  ``Content-Length`` (before it is read; ``Expect: 100-continue`` gets no ``100``), or as a
  chunked body passes the limit, or as its bytes on the wire (sizes, extensions, trailers)
  pass twice the limit. A POST with neither length nor chunks is a 400;
* every answer the protocol makes itself is the API's JSON error shape: a request that does not
  parse is a 400, a protocol upgrade too;
* a read timeout: a head must arrive whole within ``read_timeout_s`` of its first byte (a
  slowloris head is cut off), and each read of a body within ``read_timeout_s`` of the one
  before: else 408 and the connection closed; an idle timeout from the first byte on, so a
  connection that never sends a request is closed too;
* a connection limit: past ``max_connections`` a new connection gets a 503;
* a refusal closes with a *lingering close*: the answer, then the write side shut, then what
  the client still sends is read and dropped until it closes (or ``LINGER_S``), so a client
  that sent its whole body before reading reads the answer instead of a reset;
* a request whose body is here is answered at once, in ``data_received``, one write an
  answer, with no task, no ASGI messages and no header validation of our own answers (the
  ASGI app, ``asgi.py``, is for hosting the emulator in another server; ``docs/wire.md``).
"""

from __future__ import annotations

import asyncio
import sys
import traceback
import urllib.parse
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from ..ground.errors import INTERNAL, INVALID_ARGUMENT, RESOURCE_EXHAUSTED, UNAVAILABLE
from .answers import answer_bytes
from .asgi import length_refusal, too_large
from .options import WireOptions
from .site import Answer, Site, error_answer

DEADLINE_EXCEEDED = 4
END = b"\r\n\r\n"  # where a head ends, and where a chunked body ends (llhttp wants CRLF)
LINGER_S = 2.0  # how long a refused connection's late bytes are read and dropped
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


class HeadTooLarge(Exception):
    """The request's head passed the limit."""


class BodyTooLarge(Exception):
    """A chunked body's bytes on the wire (framing and trailers too) passed their cap."""


class _Stopped(Exception):
    """Raised in a parser callback once the connection is answered for good: stop reading."""


class ConnectionCount:
    """How many connections one server has accepted (for tests of keep-alive and load)."""

    def __init__(self) -> None:
        self.opened = 0


def protocol_class(
    options: WireOptions, count: ConnectionCount, site: Site | None = None
) -> type[HttpToolsProtocol]:
    """The protocol class for ``options`` (uvicorn builds one instance per connection)."""
    namespace = {"options": options, "count": count, "site": site}
    return type("EmulatorHttpProtocol", (EmulatorHttpProtocol,), namespace)


def _end_after(data: bytes, pos: int, tail: bytes) -> int:
    """The index in ``data`` just past the first ``CRLF CRLF`` that ends after ``pos``, or -1
    (``tail``: the bytes that came just before ``data``, when ``pos`` is 0)."""
    if pos == 0:
        if tail:
            found = (tail + data[:3]).find(END)
            if found >= 0:
                return found + 4 - len(tail)
        found = data.find(END)
    else:
        found = data.find(END, max(pos - 3, 0))
        while found >= 0 and found + 4 <= pos:
            found = data.find(END, found + 1)
    return -1 if found < 0 else found + 4


class EmulatorHttpProtocol(HttpToolsProtocol):
    options: WireOptions = WireOptions()
    count: ConnectionCount = ConnectionCount()
    site: Site | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.site is None:  # hosted by a plain uvicorn config: the app's site
            self.site = self.app.site
        self._reading_head = True  # between requests, or inside a request's head
        self._head_bytes = 0
        self._tail = b""  # the last bytes read, where a CRLF CRLF may have begun
        self._available = 0  # bytes of the current read after the head being fed
        self._body_left = -1  # Content-Length bytes still to come; -1: chunked (or none)
        self._in_request = False
        self._request: tuple[str, str, dict[str, str], bool] | None = None
        self._body: list[bytes] = []
        self._body_size = 0
        self._chunked_bytes = 0  # a chunked body's bytes on the wire
        self._read_timer: asyncio.TimerHandle | None = None
        self._linger_timer: asyncio.TimerHandle | None = None
        self._lingering = False
        self._stopping = False  # a graceful stop: close after the request being read
        self._idle_since = 0.0  # when the connection last answered (or opened)

    # ----- connections ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.count.opened += 1
        if len(self.connections) >= self.options.max_connections:
            self.transport = transport
            self._refuse(error_answer(503, UNAVAILABLE, "too many connections: try again later"))
            return
        super().connection_made(transport)
        self._idle_since = self.loop.time()
        self.timeout_keep_alive_task = self.loop.call_later(
            self.options.idle_timeout_s, self.timeout_keep_alive_handler
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_read_timer()
        if self._linger_timer is not None:
            self._linger_timer.cancel()
            self._linger_timer = None
        self.cycle = None  # type: ignore[assignment]
        super().connection_lost(exc)

    def eof_received(self) -> bool | None:
        return None  # the transport closes (a lingering close ends here)

    def shutdown(self) -> None:
        """A graceful stop: close now if no request is being read, else after its answer."""
        if self._in_request and not self._lingering:
            self._stopping = True
        elif not self.transport.is_closing():
            self.transport.close()

    def pause_writing(self) -> None:
        """The client does not read its answers: read no more requests until it does."""
        super().pause_writing()
        if not self.transport.is_closing():
            self.transport.pause_reading()

    def resume_writing(self) -> None:
        super().resume_writing()
        if not self.transport.is_closing():
            self.transport.resume_reading()

    # ----- reading ----------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return  # a refused connection's late bytes: dropped
        try:
            self._feed(data)
        except _Stopped:
            return
        except HeadTooLarge:
            self._refuse(self._head_too_large())
            return
        except BodyTooLarge:
            assert self._request is not None and self.site is not None
            _, path, headers, _ = self._request
            self._answer(too_large(self.options.max_body_bytes, self.site, path, headers), False)
            return
        except httptools.HttpParserUpgrade:
            self._refuse(error_answer(400, INVALID_ARGUMENT, "protocol upgrades are not served"))
            return
        except httptools.HttpParserError as error:
            if isinstance(error.__context__, _Stopped):
                return
            self._refuse(error_answer(400, INVALID_ARGUMENT, f"malformed HTTP request: {error}"))
            return
        self._tail = data[-3:] if len(data) >= 3 else (self._tail + data)[-3:]
        if self._in_request and (self._read_timer is None or not self._reading_head):
            self._arm_read_timer()  # a head's deadline runs from its first byte

    def _feed(self, data: bytes) -> None:
        """Feed ``data`` to the parser in pieces cut where a head or a body ends, counting
        the head's bytes (only those) against the limit."""
        size = len(data)
        pos = 0
        feed = self.parser.feed_data
        while pos < size:
            if self._reading_head:
                end = _end_after(data, pos, self._tail)
                stop = size if end < 0 else end
                self._head_bytes += stop - pos
                if self._head_bytes > self.options.max_header_bytes:
                    raise HeadTooLarge
                self._available = size - stop
            elif self._body_left >= 0:
                stop = min(size, pos + self._body_left)
                self._body_left -= stop - pos
            else:  # chunked: its framing and trailers may add as much again as the body
                end = _end_after(data, pos, self._tail)
                stop = size if end < 0 else end
                self._chunked_bytes += stop - pos
                if self._chunked_bytes > 2 * self.options.max_body_bytes:
                    raise BodyTooLarge
            if stop <= pos:  # the parser and the cut disagree: let the parser have the rest
                stop = size
            feed(data if pos == 0 and stop == size else memoryview(data)[pos:stop])
            pos = stop

    def on_message_begin(self) -> None:
        self.url = b""
        self.headers = []
        self.expect_100_continue = False
        self._in_request = True
        self._reading_head = True
        self._body = []
        self._body_size = 0
        self._chunked_bytes = 0

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self._reading_head = False
        self._head_bytes = 0
        parser = self.parser
        if parser.should_upgrade():
            return  # the parser raises HttpParserUpgrade: refused
        method = parser.get_method().decode("ascii")
        path = httptools.parse_url(self.url).path.decode("ascii")
        if "%" in path:
            path = urllib.parse.unquote(path)
        headers: dict[str, str] = {}
        for raw_name, raw_value in self.headers:
            name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        keep_alive = parser.get_http_version() != "1.0" and parser.should_keep_alive()
        self._request = (method, path, headers, keep_alive)
        site = self.site
        assert site is not None
        refusal = length_refusal(method, headers, self.options.max_body_bytes, site, path)
        if refusal is not None:
            self._answer(refusal, keep_alive=False)
            raise _Stopped
        declared = headers.get("content-length")
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        self._body_left = int(declared) if declared is not None and not chunked else -1
        if "100-continue" in headers.get("expect", "").lower():
            missing = self._available == 0 if chunked else self._available < self._body_left
            if missing:  # the body is not all here: the client may wait for the 100
                self.transport.write(CONTINUE)

    def on_body(self, body: bytes) -> None:
        self._body_size += len(body)
        if self._body_size > self.options.max_body_bytes:
            assert self._request is not None and self.site is not None
            _, path, headers, _ = self._request
            self._answer(too_large(self.options.max_body_bytes, self.site, path, headers), False)
            raise _Stopped
        self._body.append(body)

    def on_message_complete(self) -> None:
        self._in_request = False
        self._reading_head = True
        self._cancel_read_timer()
        request, self._request = self._request, None
        if request is None:
            return
        method, path, headers, keep_alive = request
        body = b"".join(self._body) if len(self._body) != 1 else self._body[0]
        self._body = []
        site = self.site
        assert site is not None
        peer = self.client[0] if self.client else None
        young = site.world.young if self.options.compact_after_answer else None
        if young is not None:
            young.deferring = True  # the answer first, then the compaction it made due
        try:
            try:
                answer = site.respond(method, path, headers, body, peer)
            except Exception:  # a bug of ours: the API's 500, the trace on stderr
                traceback.print_exc(file=sys.stderr)
                answer = error_answer(500, INTERNAL, "internal server error")
            stays = self._answer(answer, keep_alive and not self._stopping, head=method == "HEAD")
        finally:
            if young is not None:
                young.deferring = False
                with site.world.lock:
                    young.settle()
        if not stays:
            raise _Stopped
        self.server_state.total_requests += 1
        self._idle_since = self.loop.time()  # the idle timer, armed once, reads it

    # ----- answering --------------------------------------------------------------------

    def _answer(self, answer: Answer, keep_alive: bool, *, head: bool = False) -> bool:
        """Write ``answer`` in one write (uvicorn's status line and default headers, then
        ours); close (lingering) unless the connection stays. Whether it stays."""
        status, headers, payload = answer
        parts = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            parts += [name, b": ", value, b"\r\n"]
        for name, value in headers:
            lower = name.lower()
            if lower == "connection":
                keep_alive = False
            parts.append(f"{lower}: {value}\r\n".encode("latin-1"))
        parts.append(b"content-length: %d\r\n" % len(payload))
        if not keep_alive and not any(name.lower() == "connection" for name, _ in headers):
            parts.append(b"connection: close\r\n")
        parts.append(b"\r\n")
        if not head:
            parts.append(payload)
        self.transport.write(b"".join(parts))
        if not keep_alive:
            self._close_lingering()
        return keep_alive

    def _refuse(self, answer: Answer) -> None:
        """Write ``answer`` (an answer of the HTTP layer) and close, lingering."""
        self.transport.write(answer_bytes(*answer))
        self._close_lingering()

    def _close_lingering(self) -> None:
        self._lingering = True
        self._in_request = False
        self._cancel_read_timer()
        self._unset_keepalive_if_required()
        transport = self.transport
        if transport.is_closing():
            return
        if transport.can_write_eof():
            transport.write_eof()  # after what is buffered: the client reads the answer, then EOF
        transport.resume_reading()  # late bytes are read (and dropped) until the client closes
        self._linger_timer = self.loop.call_later(LINGER_S, transport.close)

    # ----- timeouts ------------------------------------------------------------------------

    def timeout_keep_alive_handler(self) -> None:
        """The idle timer: one a connection, armed at its start and again when it fires
        (not once a request): close when no request has come for ``idle_timeout_s``."""
        self.timeout_keep_alive_task = None
        if self.transport.is_closing() or self._lingering:
            return
        idle = self.options.idle_timeout_s
        now = self.loop.time()
        if self._in_request:  # the read timer governs a request being read
            due = now + idle
        else:
            due = self._idle_since + idle
            if now >= due:
                self.transport.close()
                return
        self.timeout_keep_alive_task = self.loop.call_at(due, self.timeout_keep_alive_handler)

    def _arm_read_timer(self) -> None:
        self._cancel_read_timer()
        self._read_timer = self.loop.call_later(self.options.read_timeout_s, self._read_timed_out)

    def _cancel_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing() or self._lingering:
            return
        self._refuse(
            error_answer(
                408,
                DEADLINE_EXCEEDED,
                f"request not received within {self.options.read_timeout_s:g} s",
            )
        )

    def _head_too_large(self) -> Answer:
        return error_answer(
            431,
            RESOURCE_EXHAUSTED,
            f"request head larger than {self.options.max_header_bytes} bytes",
        )

    def send_400_response(self, msg: str) -> None:  # uvicorn's own, should it call it
        self._refuse(error_answer(400, INVALID_ARGUMENT, msg))
