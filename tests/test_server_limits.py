"""Every answer of the HTTP layer is the API's JSON error shape: sizes, lengths, heads, stalls."""

from __future__ import annotations

import socket
import time

import pytest

from emulator.http.options import WireOptions

from .wire import closed_by_peer, is_api_error, raw, read_answer, request_bytes, served

WHOAMI = "/public/v1/query/whoami"


@pytest.fixture(scope="module")
def small():
    with served(WireOptions(max_body_bytes=1024, max_header_bytes=2048, read_timeout_s=0.5)) as s:
        yield s


def test_a_body_over_the_limit_is_413_before_it_is_read(small):
    with socket.create_connection(small.address, timeout=10) as sock:
        sock.sendall(request_bytes("POST", WHOAMI, b"", length=False)[:-2])
        sock.sendall(b"Content-Length: 50000000\r\n\r\n" + b"x" * 1000)  # 50 MB announced
        answer = read_answer(sock)
        assert is_api_error(answer, 413)
        assert answer.json()["message"] == "request body larger than 1024 bytes"
        assert answer.json()["code"] == 8
        assert closed_by_peer(sock)


def test_a_huge_content_length_does_not_hold_the_server(small):
    answer = raw(
        small.address,
        request_bytes("POST", WHOAMI, length=False, headers={"Content-Length": "10000000000"}),
    )
    assert is_api_error(answer, 413)
    # and the server still answers others at once
    assert raw(small.address, request_bytes("POST", "/public/v1/query/nope", b"{}")).status == 404


def test_a_chunked_body_is_cut_off_when_it_passes_the_limit(small):
    with socket.create_connection(small.address, timeout=10) as sock:
        head = request_bytes("POST", WHOAMI, length=False, headers={"Transfer-Encoding": "chunked"})
        sock.sendall(head)
        for _ in range(3):
            sock.sendall(b"200\r\n" + b"x" * 0x200 + b"\r\n")
        answer = read_answer(sock)
        assert is_api_error(answer, 413)


def test_a_chunked_body_within_the_limit_is_served(small):
    body = small.whoami_body()
    head = request_bytes(
        "POST",
        WHOAMI,
        length=False,
        headers={"Transfer-Encoding": "chunked", "X-Stamp": small.stamp(body)},
    )
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    answer = raw(small.address, head + chunked)
    assert answer.status == 200 and answer.json()["userId"] == small.org.user_id


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("abc", "non-numeric"),
        ("-5", "negative"),
        ("1e3", "not an integer"),
        ("12, 13", "two values"),
    ],
)
def test_a_bad_content_length_is_400(small, value, why):
    answer = raw(
        small.address,
        request_bytes("POST", WHOAMI, b"{}", length=False, headers={"Content-Length": value}),
    )
    assert is_api_error(answer, 400), (why, answer)
    assert answer.json()["code"] == 3


def test_a_post_without_content_length_is_400(small):
    answer = raw(small.address, request_bytes("POST", WHOAMI, length=False))
    assert is_api_error(answer, 400)
    assert answer.json()["message"] == "Content-Length required"


def test_a_head_over_the_limit_is_431(small):
    answer = raw(
        small.address, request_bytes("POST", WHOAMI, b"{}", headers={"X-Padding": "p" * 4000})
    )
    assert is_api_error(answer, 431)
    assert answer.json()["message"] == "request head larger than 2048 bytes"


def test_many_small_headers_over_the_limit_are_431(small):
    headers = {f"X-Pad-{i}": "p" * 40 for i in range(100)}
    answer = raw(small.address, request_bytes("POST", WHOAMI, b"{}", headers=headers))
    assert is_api_error(answer, 431)


def test_an_endless_header_line_is_431_without_waiting_for_its_end(small):
    with socket.create_connection(small.address, timeout=10) as sock:
        sock.sendall(b"POST /public/v1/query/whoami HTTP/1.1\r\nX-Endless: ")
        for _ in range(10):
            try:
                sock.sendall(b"e" * 1000)
            except (BrokenPipeError, ConnectionResetError):
                break
        answer = read_answer(sock)
        assert is_api_error(answer, 431)


@pytest.mark.parametrize(
    "garbage",
    [
        b"NOT HTTP AT ALL\r\n\r\n",
        b"POST /public/v1/query/whoami HTTP/9.9\r\nHost: x\r\n\r\n",
        b"POST /public/v1/query/whoami HTTP/1.1\r\nBad Header Name: x\r\n\r\n",
        b"POST /public/v1/query/whoami HTTP/1.1\r\nX-A: \x00\x01\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS hello to a plain port
    ],
)
def test_malformed_requests_get_a_json_400_never_html(small, garbage):
    answer = raw(small.address, garbage)
    assert is_api_error(answer, 400)
    assert answer.json()["message"].startswith("malformed HTTP request")


def test_a_client_that_stalls_mid_body_is_cut_off_with_408(small):
    with socket.create_connection(small.address, timeout=10) as sock:
        sock.sendall(
            request_bytes("POST", WHOAMI, b"", length=False, headers={"Content-Length": "100"})
            + b"{"
        )
        began = time.monotonic()
        answer = read_answer(sock)
        assert is_api_error(answer, 408)
        assert answer.json()["message"] == "request not received within 0.5 s"
        assert time.monotonic() - began < 5
        assert closed_by_peer(sock)


def test_a_client_that_stalls_mid_head_is_cut_off_with_408(small):
    with socket.create_connection(small.address, timeout=10) as sock:
        sock.sendall(b"POST /public/v1/query/whoami HTTP/1.1\r\nHost: 127")
        assert is_api_error(read_answer(sock), 408)


def test_other_methods_and_unknown_paths_answer_in_the_api_shape(small):
    for method, path, status in [
        ("GET", WHOAMI, 501),
        ("PUT", WHOAMI, 501),
        ("DELETE", "/public/v1/query/nope", 404),
        ("GET", "/index.html", 404),  # "/" is the dashboard where there is a control plane
        ("GET", "/favicon.ico", 404),
    ]:
        answer = raw(small.address, request_bytes(method, path))
        assert is_api_error(answer, status), (method, path, answer)


def test_the_wsgi_app_keeps_the_same_length_rules():
    import io

    from emulator import Emulator
    from emulator.http.wsgi import WsgiApp

    app = WsgiApp(Emulator().world, options=WireOptions(max_body_bytes=10))
    seen = []

    def call(length):
        environ = {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": WHOAMI,
            "wsgi.input": io.BytesIO(b"{}"),
        }
        if length is not None:
            environ["CONTENT_LENGTH"] = length
        payload = b"".join(app(environ, lambda status, headers: seen.append((status, headers))))
        return int(seen[-1][0].split()[0]), payload

    assert call("11")[0] == 413
    assert call("abc")[0] == 400
    assert call(None)[0] == 400
    assert all(name.lower() != "connection" for name, _ in seen[-1][1])  # hop-by-hop: none
