"""In-process interception of ``requests``: SDK calls reach the emulator, no socket.

While active, any ``requests`` session asked for an adapter for a URL under
one of the intercepted base URLs gets an adapter that answers from the
emulator instead of the network. Interceptions nest.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import requests
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

from ..engine_state.world import World
from .answers import status_line
from .app import answer


def body_bytes(body: object) -> bytes:
    """A prepared request's body as bytes: ``requests`` leaves a str, bytes, a file or an
    iterable of pieces (which a socket would send chunked) as it was given."""
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, bytes | bytearray | memoryview):
        return bytes(body)
    read = getattr(body, "read", None)
    if read is not None:
        return body_bytes(read())
    return b"".join(body_bytes(piece) for piece in body)  # type: ignore[attr-defined]


class EmulatorAdapter(BaseAdapter):
    """A transport adapter that answers requests from an emulated world."""

    def __init__(self, world: World) -> None:
        super().__init__()
        self.world = world

    def send(self, request: requests.PreparedRequest, **kwargs: object) -> requests.Response:
        body = body_bytes(request.body)
        headers = {k.lower(): v for k, v in request.headers.items()}
        path = urlsplit(request.url or "").path
        status, own, payload = answer(self.world, request.method or "GET", path, headers, body)
        response = requests.Response()
        response.status_code = status
        response.reason = status_line(status).partition(" ")[2]
        response.headers = CaseInsensitiveDict(
            {"Content-Type": "application/json", "Content-Length": str(len(payload)), **dict(own)}
        )
        response._content = payload
        response.encoding = "utf-8"
        response.url = request.url or ""
        response.request = request
        return response

    def close(self) -> None:
        pass


@contextmanager
def intercepting(world: World, base_urls: Iterable[str]) -> Iterator[EmulatorAdapter]:
    """Route requests under ``base_urls`` to ``world`` for the duration of the block."""
    prefixes = tuple(url.rstrip("/") + "/" for url in base_urls)
    adapter = EmulatorAdapter(world)
    original = requests.Session.get_adapter

    def get_adapter(session: requests.Session, url: str) -> BaseAdapter:
        if url.startswith(prefixes):
            return adapter
        return original(session, url)

    requests.Session.get_adapter = get_adapter  # type: ignore[method-assign]
    try:
        yield adapter
    finally:
        requests.Session.get_adapter = original  # type: ignore[method-assign]
