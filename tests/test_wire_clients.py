"""Real HTTP clients against a real served emulator, with bodies of every size up to just under
the body limit, over one keep-alive connection, sent whole and streamed (chunked, many writes).

Every body is a stamped ``sign_raw_payload`` padded with its payload (``wire_bodies.py``): the
answer must be the completed activity that signed exactly that payload, so a byte lost, added
or cut shows. The empty body is the API's 400. The same bodies go through the in-process
interception, ``emu.asgi_app`` and ``emu.wsgi_app``.
"""

from __future__ import annotations

import base64
import http.client
import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from .wire_bodies import (
    LIMIT,
    SIGN_PATH,
    Case,
    Live,
    cases,
    check_answer,
    live_server,
    pieces,
    run_async,
)

INTEROP = Path(__file__).parent / "interop"


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    with live_server(LIMIT) as served:
        yield served


Sender = Callable[[str, list[Case], bool], list[tuple[int, dict]]]


@contextmanager
def kept_alive(live: Live, most: int = 1) -> Iterator[None]:
    """The block's requests must travel on ``most`` connections (keep-alive)."""
    before = live.server.connections.opened
    yield
    assert 1 <= live.server.connections.opened - before <= most


def via_requests(url: str, made: list[Case], stream: bool) -> list[tuple[int, dict]]:
    with requests.Session() as session:
        answers = []
        for body, headers, _ in made:
            data = pieces(body) if stream else body  # a generator: chunked
            answer = session.post(url, data=data, headers=headers, timeout=60)
            answers.append((answer.status_code, answer.json()))
        return answers


def via_httpx(url: str, made: list[Case], stream: bool) -> list[tuple[int, dict]]:
    httpx = pytest.importorskip("httpx")
    with httpx.Client(timeout=60) as client:
        answers = []
        for body, headers, _ in made:
            content = pieces(body) if stream else body
            answer = client.post(url, content=content, headers=headers)
            answers.append((answer.status_code, answer.json()))
        return answers


def via_urllib3(url: str, made: list[Case], stream: bool) -> list[tuple[int, dict]]:
    import urllib3

    with urllib3.PoolManager(maxsize=1) as pool:
        answers = []
        for body, headers, _ in made:
            answer = pool.request(
                "POST",
                url,
                body=pieces(body) if stream else body,
                headers=headers,
                chunked=stream,
                timeout=60,
            )
            answers.append((answer.status, json.loads(answer.data)))
        return answers


def via_http_client(url: str, made: list[Case], stream: bool) -> list[tuple[int, dict]]:
    host, port = url.split("/")[2].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    answers = []
    try:
        for body, headers, _ in made:
            # an iterable body: http.client sends it chunked, a piece a write
            connection.request("POST", SIGN_PATH, body=pieces(body) if stream else body,
                               headers=headers)  # fmt: skip
            answer = connection.getresponse()
            answers.append((answer.status, json.loads(answer.read())))
    finally:
        connection.close()
    return answers


def via_aiohttp(url: str, made: list[Case], stream: bool) -> list[tuple[int, dict]]:
    aiohttp = pytest.importorskip("aiohttp")

    async def body_of(body: bytes):
        for piece in pieces(body):
            yield piece

    async def run() -> list[tuple[int, dict]]:
        connector = aiohttp.TCPConnector(limit=1)
        timeout = aiohttp.ClientTimeout(total=60)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            answers = []
            for body, headers, _ in made:
                data = body_of(body) if stream else body
                async with session.post(url, data=data, headers=headers) as answer:
                    answers.append((answer.status, json.loads(await answer.read())))
            return answers

    return run_async(run)


def via_curl(url: str, made: list[Case], stream: bool) -> list[tuple[int, dict]]:
    """One curl run, the requests joined by ``--next`` (one connection); curl sends
    ``Expect: 100-continue`` before a large body and waits for the 100."""
    curl = shutil.which("curl")
    if curl is None:
        pytest.skip("curl is not installed")
    with tempfile.TemporaryDirectory() as folder:
        args = [curl, "--silent", "--show-error"]
        for i, (body, headers, _) in enumerate(made):
            Path(folder, f"in{i}").write_bytes(body)
            if i:
                args.append("--next")
            args += ["--data-binary", f"@{folder}/in{i}", "-o", f"{folder}/out{i}"]
            args += ["-w", "%{http_code}\\n"]
            for name, value in headers.items():
                args += ["-H", f"{name}: {value}"]
            if stream:
                args += ["-H", "Transfer-Encoding: chunked"]
            args.append(url)
        done = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True)
        statuses = [int(line) for line in done.stdout.split()]
        return [
            (status, json.loads(Path(folder, f"out{i}").read_bytes()))
            for i, status in enumerate(statuses)
        ]


def via_node_fetch(url: str, made: list[Case], stream: bool) -> list[tuple[int, dict]]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as requests_file:
        json.dump(
            [
                {
                    "url": url,
                    "headers": headers,
                    "body": base64.b64encode(body).decode(),
                    "stream": stream,
                }
                for body, headers, _ in made
            ],
            requests_file,
        )
    try:
        done = subprocess.run(
            [node, str(INTEROP / "wire_fetch.cjs"), requests_file.name],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    finally:
        Path(requests_file.name).unlink()
    return [(r["status"], json.loads(r["body"])) for r in json.loads(done.stdout)]


SENDERS: dict[str, Sender] = {
    "requests": via_requests,
    "httpx": via_httpx,
    "urllib3": via_urllib3,
    "http.client": via_http_client,
    "aiohttp": via_aiohttp,
    "curl": via_curl,
    "node fetch": via_node_fetch,
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("client", list(SENDERS))
def test_every_body_size_through_a_real_client(live, client, stream):
    made = cases(live.signing)
    # Node's fetch (undici 6) opens a second connection once, whatever the server (measured
    # against the server before this one too), then keeps both alive.
    with kept_alive(live, most=2 if client == "node fetch" else 1):
        answers = SENDERS[client](live.url, made, stream)
    assert len(answers) == len(made)
    for (status, answer), (_, _, payload) in zip(answers, made, strict=True):
        check_answer(status, answer, payload, live.signing.address)
