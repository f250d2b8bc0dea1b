"""Busy polling (``emulator/http/polling.py``): the server's loop polls for the next request
before it sleeps. What it answers does not change; it is on in ``serve`` with two CPUs or
more, off in ``serving()``, and its budget is checked."""

from __future__ import annotations

import asyncio
import json
import socket
import threading

import pytest
import requests

from emulator.http.options import WireOptions
from emulator.http.polling import (
    SERVE_BUDGET_US,
    BusyPollSelector,
    default_budget_us,
    loop_factory,
)
from emulator.http.server import make_api_server, serving

from .test_cli import serve_fails
from .wire import Answer, read_answer, request_bytes, served

WHOAMI = "/public/v1/query/whoami"


def test_a_ready_socket_is_returned_at_once_and_a_quiet_one_after_the_timeout():
    left, right = socket.socketpair()
    selector = BusyPollSelector(0.0005)
    try:
        selector.register(left, 1)  # EVENT_READ
        assert selector.select(0.01) == []  # nothing to read: the spin, then the wait
        assert selector.select(0) == []
        right.send(b"x")
        ((key, events),) = selector.select(None)
        assert key.fileobj is left and events == 1
    finally:
        selector.close()
        left.close()
        right.close()


def test_data_arriving_during_the_spin_is_taken():
    left, right = socket.socketpair()
    selector = BusyPollSelector(0.5)  # a long budget: the write lands inside it
    timer = threading.Timer(0.01, right.send, args=(b"x",))
    try:
        selector.register(left, 1)
        timer.start()
        ((key, _),) = selector.select(None)
        assert key.fileobj is left
    finally:
        timer.cancel()
        selector.close()
        left.close()
        right.close()


def test_a_busy_polling_server_answers_a_keep_alive_client_like_a_sleeping_one():
    answers = {}
    for budget in (0, SERVE_BUDGET_US):
        with served(WireOptions(busy_poll_us=budget)) as s, requests.Session() as session:
            got = []
            for _ in range(20):  # one keep-alive connection, one request after another
                body = s.whoami_body()
                response = session.post(
                    s.url + "/public/v1/query/whoami",
                    data=body,
                    headers={"X-Stamp": s.stamp(body), "Content-Type": "application/json"},
                )
                got.append((response.status_code, response.json()["organizationId"]))
            answers[budget] = got
    assert answers[0] == answers[SERVE_BUDGET_US]
    assert {status for status, _ in answers[0]} == {200}


def test_serving_sleeps_and_serve_polls_where_there_are_two_cpus():
    from emulator import Emulator

    emu = Emulator(seed=3)
    server = make_api_server(emu.world, "127.0.0.1", 0)
    try:
        assert server.options.busy_poll_us == 0
        assert server._server.config.loop_factory is None
    finally:
        server.socket.close()
    polled = make_api_server(emu.world, "127.0.0.1", 0, options=WireOptions(busy_poll_us=300))
    try:
        assert polled._server.config.loop_factory is not None
    finally:
        polled.socket.close()
    assert default_budget_us() in (0, SERVE_BUDGET_US)


@pytest.mark.parametrize("value", ["-1", "100001"])
def test_a_budget_out_of_range_is_refused(value):
    assert "busy_poll_us must be between 0 and 100000" in serve_fails(
        "--port", "0", "--busy-poll-us", value
    )


def test_the_loop_factory_makes_a_working_loop():
    """Run in a thread of its own, as ``serve`` runs its loop: whatever loop an earlier test
    left set in this thread does not matter."""
    got: dict[str, object] = {}

    def run() -> None:
        loop = loop_factory(100)()
        try:
            got["kind"] = isinstance(loop, asyncio.SelectorEventLoop)
            got["value"] = loop.run_until_complete(asyncio.sleep(0.01, "slept"))
        finally:
            loop.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=10)
    assert got == {"kind": True, "value": "slept"}


def exchange(address: tuple[str, int], writes: list[bytes], answers: int) -> list[tuple]:
    """Send ``writes`` on one keep-alive connection; the first ``answers`` answers, each as
    status, the headers that do not vary, and the JSON body."""
    got = []
    with socket.create_connection(address, timeout=10) as sock:
        for data in writes:
            sock.sendall(data)
        buffer = bytearray()
        for _ in range(answers):
            answer: Answer = read_answer(sock, buffer)
            if answer.status == 100:
                answer = read_answer(sock, buffer)
            headers = {k: v for k, v in answer.headers.items() if k != "date"}
            body = json.loads(answer.body) if answer.body else None
            if answer.status == 200:
                body.pop("activity")  # whoami's record of the call: its id and time differ
            got.append((answer.status, headers, body))
    return got


def test_a_polling_server_answers_exactly_as_a_sleeping_one():
    """Keep-alive, pipelining, a chunked body, ``Expect: 100-continue``, a head and a body
    over their limits, a malformed request: the same answers, byte for byte but the date
    (adapted from a test of the wire1b branch)."""
    limits = {"max_header_bytes": 2048, "max_body_bytes": 8192}
    with served(WireOptions(**limits)) as s:
        body = s.whoami_body()
        stamped = {"X-Stamp": s.stamp(body), "Content-Type": "application/json"}
        whoami = request_bytes("POST", WHOAMI, body, stamped)
        chunked = request_bytes(
            "POST", WHOAMI, b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body), stamped, length=False
        ).replace(b"\r\nX-Stamp", b"\r\nTransfer-Encoding: chunked\r\nX-Stamp", 1)
        expect = request_bytes("POST", WHOAMI, b"", {**stamped, "Expect": "100-continue"})
        expect = expect.replace(b"Content-Length: 0", b"Content-Length: %d" % len(body))
        streams = [
            ([whoami, whoami + whoami + chunked], 4),  # alone, then three pipelined
            ([expect, body, whoami], 2),  # the body after the head, as curl sends it
            ([request_bytes("POST", WHOAMI, b"{}", {"X-Big": "x" * 3000})], 1),  # 431
            ([request_bytes("POST", WHOAMI, b"x" * 9000, stamped)], 1),  # 413
            ([b"POST / HTTP/1.1\r\nContent-Length: nope\r\n\r\n"], 1),  # 400
            ([request_bytes("POST", WHOAMI, body)], 1),  # no stamp: the API's own 401
        ]
        plain = [exchange(s.address, writes, n) for writes, n in streams]
        options = WireOptions(**limits, busy_poll_us=SERVE_BUDGET_US)
        with serving(s.emu.world, options=options) as url:
            port = int(url.rsplit(":", 1)[1])
            polled = [exchange(("127.0.0.1", port), writes, n) for writes, n in streams]
    assert polled == plain
    statuses = [[status for status, _, _ in answers] for answers in plain]
    assert statuses == [[200] * 4, [200, 200], [431], [413], [400], [401]]
    assert plain[0][0][2]["organizationId"] == s.org.organization_id
