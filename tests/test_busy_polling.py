"""Busy polling (``emulator/http/polling.py``): the server's loop polls for the next request
before it sleeps. What it answers does not change; it is on in ``serve`` with two CPUs or
more, off in ``serving()``, and its budget is checked."""

from __future__ import annotations

import socket
import threading

import pytest
import requests

from emulator.http.options import WireOptions
from emulator.http.polling import SERVE_BUDGET_US, BusyPollSelector, default_budget_us
from emulator.http.server import make_api_server

from .test_cli import serve_fails
from .wire import served


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
