"""The server as HTTP/1.1: keep-alive, HTTP/1.0 clients, many connections, a graceful stop."""

from __future__ import annotations

import http.client
import json
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest
import requests

from emulator.http.options import WireOptions
from emulator.http.server import ApiServer, StartupError, make_api_server

from .wire import raw, read_answer, request_bytes, served


def test_many_requests_over_one_connection_with_http_client():
    with served() as s:
        connection = http.client.HTTPConnection(*s.address, timeout=10)
        body = s.whoami_body()
        ports = set()
        for _ in range(50):
            connection.request(
                "POST",
                "/public/v1/query/whoami",
                body=body,
                headers={"X-Stamp": s.stamp(body), "Content-Type": "application/json"},
            )
            answer = connection.getresponse()
            assert answer.status == 200 and answer.version == 11
            assert json.loads(answer.read())["userId"] == s.org.user_id
            ports.add(connection.sock.getsockname()[1])
        assert len(ports) == 1  # one connection carried all fifty
        connection.close()


def test_the_official_sdks_stamped_requests_over_one_requests_session():
    """The SDK's ``stamp_*`` methods sign a request without sending it; a ``requests``
    session sends them all over one kept-alive connection."""
    pytest.importorskip("turnkey_http")
    with served() as s:
        client = s.emu.client(s.org, base_url=s.url)
        session = requests.Session()
        for _ in range(20):
            signed = client.stamp_get_whoami()
            answer = session.post(
                signed.url,
                data=signed.body,
                headers={
                    signed.stamp.stamp_header_name: signed.stamp.stamp_header_value,
                    "Content-Type": "application/json",
                },
                timeout=10,
            )
            assert answer.status_code == 200 and answer.json()["userId"] == s.org.user_id
        pools = session.get_adapter(s.url).poolmanager.pools
        keys = pools.keys()  # the container is not iterable itself
        assert [pools[key].num_connections for key in keys] == [1]
        session.close()


def test_pipelined_requests_are_answered_in_order():
    with served() as s:
        body = s.whoami_body()
        one = request_bytes("POST", "/public/v1/query/whoami", body, {"X-Stamp": s.stamp(body)})
        nope = request_bytes("POST", "/public/v1/query/nope", b"{}")
        with socket.create_connection(s.address, timeout=10) as sock:
            sock.sendall(one + nope + one)
            buffer = bytearray()
            statuses = [read_answer(sock, buffer).status for _ in range(3)]
        assert statuses == [200, 404, 200]


def test_an_http_1_0_client_is_served_and_the_connection_closed():
    with served() as s:
        body = s.whoami_body()
        data = request_bytes(
            "POST", "/public/v1/query/whoami", body, {"X-Stamp": s.stamp(body)}, version="HTTP/1.0"
        )
        with socket.create_connection(s.address, timeout=10) as sock:
            sock.sendall(data)
            answer = read_answer(sock)
            assert answer.status == 200 and answer.json()["userId"] == s.org.user_id
            assert sock.recv(1) == b""  # closed after the answer


def test_64_concurrent_connections_all_get_their_answers():
    with served() as s:
        body = s.whoami_body()
        data = request_bytes("POST", "/public/v1/query/whoami", body, {"X-Stamp": s.stamp(body)})
        results: list[int] = []
        errors: list[BaseException] = []
        gate = threading.Barrier(64)

        def client() -> None:
            try:
                with socket.create_connection(s.address, timeout=20) as sock:
                    gate.wait()
                    buffer = bytearray()
                    for _ in range(5):
                        sock.sendall(data)
                        results.append(read_answer(sock, buffer).status)
            except BaseException as error:
                errors.append(error)

        threads = [threading.Thread(target=client) for _ in range(64)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert errors == [] and results == [200] * 320


def test_a_graceful_stop_lets_the_request_in_flight_finish():
    with served(WireOptions(read_timeout_s=10)):
        server_thread = next(t for t in threading.enumerate() if t.name == "emulator-server")
    assert not server_thread.is_alive()
    # in a process: a request whose body is still arriving when SIGTERM comes is answered
    process = subprocess.Popen(
        [sys.executable, "-m", "emulator", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        info = json.loads(process.stdout.readline())
        host, port = info["baseUrl"].removeprefix("http://").split(":")
        body = json.dumps({"organizationId": info["organizationId"]}).encode()
        from emulator import ApiKeyPair
        from emulator.crypto.stamps import sign_stamp

        key = ApiKeyPair(info["apiPublicKey"], info["apiPrivateKey"])
        data = request_bytes(
            "POST",
            "/public/v1/query/whoami",
            body,
            {"X-Stamp": sign_stamp(body, key).header_value()},
        )
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(data[:-5])  # the request is in flight: its last bytes are still to come
            time.sleep(0.3)
            process.send_signal(signal.SIGTERM)
            time.sleep(0.3)
            sock.sendall(data[-5:])
            answer = read_answer(sock)
        assert answer.status == 200 and answer.json()["userId"] == info["userId"]
        assert answer.headers.get("connection") == "close"
        assert process.wait(timeout=15) == 0
        # and once stopped, nothing listens any more
        with pytest.raises(OSError):
            socket.create_connection((host, int(port)), timeout=2).close()
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def test_the_listen_backlog_is_configurable_and_at_least_128_by_default():
    assert WireOptions().backlog >= 128
    emu_server = make_api_server(_world(), port=0, options=WireOptions(backlog=200))
    try:
        assert emu_server.options.backlog == 200
    finally:
        emu_server.socket.close()


def test_start_up_errors_name_the_problem():
    first = make_api_server(_world(), port=0)
    try:
        port = first.server_address[1]
        with pytest.raises(StartupError, match=f"port {port} on 127.0.0.1 is in use"):
            ApiServer(_world(), port=port)
    finally:
        first.socket.close()
    with pytest.raises(StartupError, match=r"unknown host 'no-such-host\.invalid'"):
        ApiServer(_world(), host="no-such-host.invalid", port=0, options=_token())


def _world():
    from emulator import Emulator

    return Emulator().world


def _token() -> WireOptions:
    return WireOptions(control_token="t", bound_host="no-such-host.invalid")


def test_a_bare_socket_that_never_sends_is_closed_after_the_idle_timeout():
    with (
        served(WireOptions(idle_timeout_s=0.3)) as s,
        socket.create_connection(s.address, timeout=5) as sock,
    ):
        assert sock.recv(1) == b""


def test_an_idle_keep_alive_connection_is_closed_after_the_idle_timeout():
    with served(WireOptions(idle_timeout_s=0.3)) as s:
        body = s.whoami_body()
        data = request_bytes("POST", "/public/v1/query/whoami", body, {"X-Stamp": s.stamp(body)})
        with socket.create_connection(s.address, timeout=5) as sock:
            sock.sendall(data)
            assert read_answer(sock).status == 200
            assert sock.recv(1) == b""


def test_a_connection_past_the_limit_gets_a_503_in_the_api_shape():
    with served(WireOptions(max_connections=2)) as s:
        held = [socket.create_connection(s.address, timeout=5) for _ in range(2)]
        try:
            time.sleep(0.2)
            answer = raw(s.address, request_bytes("POST", "/public/v1/query/whoami", b"{}"))
            assert answer.status == 503 and answer.json()["code"] == 14
        finally:
            for sock in held:
                sock.close()


def test_on_second_runs_on_the_servers_loop_again_and_again():
    seen: list[float] = []
    server = make_api_server(_world(), port=0, on_second=lambda: seen.append(time.monotonic()))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while len(seen) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        server.shutdown()
        thread.join(timeout=15)
    assert len(seen) >= 3


def test_freeze_young_collects_the_young_cycles_and_freezes_the_rest():
    import gc

    from emulator.ground.gc_tuning import freeze_young

    class Node:
        pass

    cycle = Node()
    cycle.me = cycle  # garbage once dropped: collected, not frozen
    del cycle
    kept = [Node() for _ in range(100)]
    before = gc.get_freeze_count()
    try:
        freeze_young()
        assert gc.get_freeze_count() > before
        assert not any(type(o) is Node and getattr(o, "me", None) is o for o in gc.get_objects())
        assert len(kept) == 100
    finally:
        gc.unfreeze()
