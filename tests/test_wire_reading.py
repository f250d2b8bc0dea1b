"""Only a head's bytes count against the head limit, a body's against the body limit, however
the bytes arrive: in one read with the head, in many, pipelined after other requests."""

from __future__ import annotations

import socket
import time

import pytest

from emulator.http.options import WireOptions

from .wire import Answer, closed_by_peer, is_api_error, read_answer, request_bytes, served
from .wire_bodies import KIB, SIGN_PATH, Signing, check_answer

HEAD_LIMIT = 2048
BODY_LIMIT = 64 * KIB


@pytest.fixture(scope="module")
def small():
    options = WireOptions(
        max_header_bytes=HEAD_LIMIT, max_body_bytes=BODY_LIMIT, read_timeout_s=5.0
    )
    with served(options) as s:
        yield s, Signing.of(s.emu, s.org)


@pytest.fixture(scope="module")
def default():
    with served() as s:
        yield s, Signing.of(s.emu, s.org)


def signed_request(signing: Signing, size: int, **extra: str) -> tuple[bytes, str]:
    body, payload = signing.body(size)
    return request_bytes("POST", SIGN_PATH, body, {**signing.headers(body), **extra}), payload


def send_in_pieces(sock: socket.socket, data: bytes, cuts: list[int]) -> None:
    """``data`` in separate writes, cut at ``cuts`` (no delay: TCP_NODELAY, small pauses)."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    last = 0
    for cut in [*sorted(cuts), len(data)]:
        if cut > last:
            sock.sendall(data[last:cut])
            time.sleep(0.002)
            last = cut


def head_of(request: bytes) -> int:
    return request.index(b"\r\n\r\n") + 4


@pytest.mark.parametrize("size", [35 * KIB, 250 * KIB])
def test_a_body_in_one_write_with_its_head_is_not_counted_as_head(default, size):
    """The bug a user hit: ~35 KB of JSON in one write (``requests``) was a 431."""
    s, signing = default
    request, payload = signed_request(signing, size)
    with socket.create_connection(s.address, timeout=20) as sock:
        sock.sendall(request)
        answer = read_answer(sock)
    check_answer(answer.status, answer.json(), payload, signing.address)


def test_a_body_many_times_the_head_limit_in_one_write(small):
    s, signing = small
    request, payload = signed_request(signing, 30 * HEAD_LIMIT)
    with socket.create_connection(s.address, timeout=20) as sock:
        sock.sendall(request)
        answer = read_answer(sock)
    check_answer(answer.status, answer.json(), payload, signing.address)


def test_pipelined_requests_in_one_write_are_each_counted_alone(small):
    s, signing = small
    requests = [signed_request(signing, 3 * KIB) for _ in range(6)]
    with socket.create_connection(s.address, timeout=20) as sock:
        sock.sendall(b"".join(request for request, _ in requests))
        buffer = bytearray()
        for _, payload in requests:
            answer = read_answer(sock, buffer)
            check_answer(answer.status, answer.json(), payload, signing.address)


def padded_to(signing: Signing, head_size: int) -> tuple[bytes, str]:
    """A signed request whose head is exactly ``head_size`` bytes."""
    pad = 0
    for _ in range(50):  # the stamp's DER signature varies in length by a byte or two
        request, payload = signed_request(signing, 1 * KIB, **{"X-Pad": "p" * pad})
        if head_of(request) == head_size:
            return request, payload
        pad = max(0, pad + head_size - head_of(request))
    raise AssertionError("no head of that size")


@pytest.mark.parametrize("cuts", ["one write", "every 100 bytes", "inside CRLF CRLF"])
def test_a_head_of_exactly_the_limit_is_served_and_one_byte_more_is_431(small, cuts):
    s, signing = small
    for extra in (0, 1):
        request, payload = padded_to(signing, HEAD_LIMIT + extra)
        at = {
            "one write": [],
            "every 100 bytes": list(range(100, len(request), 100)),
            "inside CRLF CRLF": [head_of(request) - 3, head_of(request) - 1],
        }[cuts]
        with socket.create_connection(s.address, timeout=20) as sock:
            send_in_pieces(sock, request, at)
            answer = read_answer(sock)
        if extra:
            assert is_api_error(answer, 431)
            assert answer.json()["message"] == f"request head larger than {HEAD_LIMIT} bytes"
        else:
            check_answer(answer.status, answer.json(), payload, signing.address)


def test_a_head_over_the_limit_after_pipelined_requests_is_431_after_their_answers(small):
    s, signing = small
    first, payload = signed_request(signing, 40 * KIB)
    second, _ = padded_to(signing, HEAD_LIMIT + 1)
    data = first + second
    with socket.create_connection(s.address, timeout=20) as sock:
        send_in_pieces(sock, data, list(range(1000, len(data), 1000)))
        buffer = bytearray()
        answer = read_answer(sock, buffer)
        check_answer(answer.status, answer.json(), payload, signing.address)
        assert is_api_error(read_answer(sock, buffer), 431)


def refused_after_whole_body(s, data: bytes, cuts: list[int] | None = None) -> Answer:
    """Send all of ``data`` before reading (as clients that write a body whole do), then
    read the answer: the server's lingering close lets it arrive."""
    with socket.create_connection(s.address, timeout=20) as sock:
        if cuts is None:
            sock.sendall(data)
        else:
            send_in_pieces(sock, data, cuts)
        answer = read_answer(sock)
        assert closed_by_peer(sock)
        return answer


def test_a_body_over_the_limit_sent_whole_is_a_readable_413(small):
    s, _ = small
    body = b"x" * (BODY_LIMIT + 1)
    answer = refused_after_whole_body(s, request_bytes("POST", SIGN_PATH, body))
    assert is_api_error(answer, 413)
    assert answer.json()["message"] == f"request body larger than {BODY_LIMIT} bytes"
    big = b"x" * (2 * 1024 * KIB)  # far past it, still read and dropped
    assert is_api_error(refused_after_whole_body(s, request_bytes("POST", SIGN_PATH, big)), 413)


def chunked(body: bytes, size: int) -> bytes:
    pieces = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


@pytest.mark.parametrize("cuts", [None, "many"])
def test_a_chunked_body_over_the_limit_is_413_however_it_arrives(small, cuts):
    s, _ = small
    head = request_bytes("POST", SIGN_PATH, length=False, headers={"Transfer-Encoding": "chunked"})
    data = head + chunked(b"x" * (BODY_LIMIT + 1), 4000)
    at = None if cuts is None else list(range(700, len(data), 700))
    assert is_api_error(refused_after_whole_body(s, data, at), 413)


def test_a_chunked_body_at_the_limit_is_served(small):
    s, signing = small
    body, payload = signing.body(BODY_LIMIT)
    head = request_bytes(
        "POST",
        SIGN_PATH,
        length=False,
        headers={**signing.headers(body), "Transfer-Encoding": "chunked"},
    )
    with socket.create_connection(s.address, timeout=20) as sock:
        data = head + chunked(body, 3000)
        send_in_pieces(sock, data, list(range(5000, len(data), 5000)))
        answer = read_answer(sock)
    check_answer(answer.status, answer.json(), payload, signing.address)


def test_a_declared_body_over_the_limit_with_expect_gets_413_and_no_100(small):
    s, _ = small
    head = request_bytes(
        "POST",
        SIGN_PATH,
        length=False,
        headers={"Content-Length": str(BODY_LIMIT + 1), "Expect": "100-continue"},
    )
    with socket.create_connection(s.address, timeout=20) as sock:
        sock.sendall(head)
        answer = read_answer(sock)
        assert is_api_error(answer, 413)  # the first answer: no 100 Continue before it


def test_expect_100_continue_gets_a_100_then_the_answer(small):
    s, signing = small
    body, payload = signing.body(10 * KIB)
    headers = {**signing.headers(body), "Content-Length": str(len(body))}
    head = request_bytes(
        "POST", SIGN_PATH, length=False, headers={**headers, "Expect": "100-continue"}
    )
    with socket.create_connection(s.address, timeout=20) as sock:
        sock.sendall(head)
        buffer = bytearray()
        interim = read_answer(sock, buffer)
        assert interim.status == 100
        sock.sendall(body)
        answer = read_answer(sock, buffer)
    check_answer(answer.status, answer.json(), payload, signing.address)


@pytest.mark.parametrize(
    ("what", "endless"),
    [
        ("trailers", b"0\r\n" + b"X-Trailer: t\r\n" * 20_000),
        ("a chunk extension", b"1;ext=" + b"e" * 200_000),
    ],
)
def test_endless_chunk_framing_is_cut_off_with_413(small, what, endless):
    """A chunked body's framing counts too: at most as many bytes again as the body limit."""
    s, _ = small
    head = request_bytes("POST", SIGN_PATH, length=False, headers={"Transfer-Encoding": "chunked"})
    answer = refused_after_whole_body(s, head + endless)
    assert is_api_error(answer, 413), what
