"""The whole reading path, property-based: however a stream of requests is cut into reads, each
answer is the one the stream sent in one write gets.

Hypothesis chooses one to three requests pipelined on one keep-alive connection (method, path,
extra headers up to past the head limit, a body from empty to past the body limit, sent with a
``Content-Length``, chunked, or with neither, ``Expect: 100-continue``) and the points where
the byte stream is cut into separate writes (TCP_NODELAY, a short pause after each) to a real
server. The answers (status, ``Content-Type``, body; an interim ``100 Continue`` aside) must
equal those of the same stream sent in one write.

CI runs ``WIRE_EXAMPLES`` (default 25) examples, a few seconds; a longer run:
``WIRE_EXAMPLES=2000 python -m pytest tests/test_wire_property.py``.
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.http.options import WireOptions
from emulator.http.polling import SERVE_BUDGET_US

from .wire import Answer, read_answer, served

HEAD_LIMIT = 1024
BODY_LIMIT = 4096
EXAMPLES = int(os.environ.get("WIRE_EXAMPLES", "25"))
WHOAMI = "/public/v1/query/whoami"


@pytest.fixture(scope="module", params=[0, SERVE_BUDGET_US], ids=["sleeps", "polls"])
def server(request):
    options = WireOptions(
        max_header_bytes=HEAD_LIMIT,
        max_body_bytes=BODY_LIMIT,
        read_timeout_s=5.0,
        busy_poll_us=request.param,  # serve's loop, which polls before it sleeps, reads alike
    )
    with served(options) as s:
        yield s


@dataclass(frozen=True)
class Wanted:
    method: str
    path: str
    stamped: bool
    body_size: int
    framing: str  # "length", "chunked", "none"
    chunk: int
    expect: bool
    extra: tuple[tuple[str, str], ...]


token = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)
wanted = st.builds(
    Wanted,
    method=st.sampled_from(["POST", "POST", "POST", "GET", "PUT", "OPTIONS"]),
    path=st.sampled_from([WHOAMI, WHOAMI, "/public/v1/query/nope", "/nowhere"]),
    stamped=st.booleans(),
    body_size=st.one_of(
        st.integers(0, BODY_LIMIT),
        st.sampled_from([0, BODY_LIMIT, BODY_LIMIT + 1]),
        st.integers(BODY_LIMIT + 1, 2 * BODY_LIMIT),
    ),
    framing=st.sampled_from(["length", "length", "chunked", "none"]),
    chunk=st.integers(1, 2000),
    expect=st.booleans(),
    extra=st.lists(
        st.tuples(token.map(lambda t: f"X-{t}"), st.one_of(token, st.just("v" * 900))),
        max_size=4,
    ).map(tuple),
)


def encode(server, w: Wanted) -> bytes:
    """The request's bytes: a whoami body padded with JSON whitespace to its size (stamped or
    not), or bytes of that size elsewhere."""
    core = server.whoami_body()
    if w.path == WHOAMI and w.body_size >= len(core):
        body = core + b" " * (w.body_size - len(core))
    else:
        body = b"x" * w.body_size
    lines = [f"{w.method} {w.path} HTTP/1.1", "Host: 127.0.0.1"]
    if w.stamped:
        lines.append(f"X-Stamp: {server.stamp(body)}")
    if w.expect:
        lines.append("Expect: 100-continue")
    lines += [f"{name}: {value}" for name, value in w.extra]
    if w.framing == "length":
        lines.append(f"Content-Length: {len(body)}")
        payload = body
    elif w.framing == "chunked":
        lines.append("Transfer-Encoding: chunked")
        pieces = [body[i : i + w.chunk] for i in range(0, len(body), w.chunk)]
        payload = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
    else:
        payload = b""
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


def exchange(address, data: bytes, cuts: list[int], count: int) -> list[tuple]:
    """Send ``data`` cut at ``cuts``; the final answers (up to ``count``, or to the close)."""
    with socket.create_connection(address, timeout=10) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        last = 0
        try:
            for cut in [*cuts, len(data)]:
                if cut > last:
                    sock.sendall(data[last:cut])
                    time.sleep(0.001)
                    last = cut
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused and closed: the answers read below say why
        answers: list[tuple] = []
        buffer = bytearray()
        while len(answers) < count:
            try:
                answer = read_answer(sock, buffer)
            except (ConnectionError, TimeoutError):
                break
            if answer.status != 100:
                answers.append(summary(answer))
        return answers


def summary(answer: Answer) -> tuple:
    body = json.loads(answer.body) if answer.body else None
    if answer.status == 200:
        body.pop("activity", None)  # whoami's record of the call: its id and time differ
    return answer.status, answer.headers.get("content-type"), body


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(requests=st.lists(wanted, min_size=1, max_size=3), data=st.data())
def test_any_cut_of_the_stream_gets_the_answers_of_one_write(server, requests, data):
    stream = b"".join(encode(server, w) for w in requests)
    # where to cut, as fractions of the stream (its length varies with the stamp's signature)
    fractions = data.draw(st.lists(st.integers(0, 10**6), max_size=12), label="cuts")
    cuts = sorted({1 + f * (len(stream) - 2) // 10**6 for f in fractions})
    whole = exchange(server.address, stream, [], len(requests))
    split = exchange(server.address, stream, cuts, len(requests))
    assert split == whole
    assert whole, "every stream gets at least one answer"
    for status, content_type, body in whole:
        assert content_type == "application/json" or status == 204
        if status >= 400:
            assert set(body) == {"code", "message", "details", "turnkeyErrorCode"}
