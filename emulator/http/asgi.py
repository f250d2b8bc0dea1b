"""The ASGI application (``emu.asgi_app``): the body's size rules, then ``Site``.

``serve`` answers the same ``Site`` from its connection protocol (``protocol.py``), with
the same body rules (``length_refusal``, ``too_large``), and without this layer; this
application is for hosting the emulator in an ASGI server of one's own.

The engine is synchronous and serializes on the world lock, so the application
calls it directly on the event loop: one request at a time, with no thread
hand-off (what a worker pool would add is latency, since the lock admits one
request at a time anyway). Bodies are refused before they are read whole: a
``Content-Length`` over the limit is a 413 at once, a chunked body is cut off
when it passes the limit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..ground.errors import INVALID_ARGUMENT, RESOURCE_EXHAUSTED
from ..ground.numbers import integer
from .site import Answer, Site, error_answer

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
CLOSE = ("Connection", "close")


def too_large(limit: int, site: Site, path: str, headers: Mapping[str, str]) -> Answer:
    return error_answer(
        413,
        RESOURCE_EXHAUSTED,
        f"request body larger than {limit} bytes",
        headers=[*site.cors_headers(path, headers), CLOSE],
    )


def length_refusal(
    method: str, headers: Mapping[str, str], limit: int, site: Site, path: str
) -> Answer | None:
    """The answer to a body that must not be read: a bad or missing length, or too large."""
    declared = headers.get("content-length")
    if declared is None:
        if method in BODY_METHODS and "chunked" not in headers.get("transfer-encoding", ""):
            return error_answer(
                400,
                INVALID_ARGUMENT,
                "Content-Length required",
                headers=[*site.cors_headers(path, headers), CLOSE],
            )
        return None
    length = integer(declared.strip())  # ASCII digits: not "²", not 5,000 of them
    if length is None:
        return error_answer(
            400,
            INVALID_ARGUMENT,
            f"invalid Content-Length: {declared[:40]!r}",
            headers=[*site.cors_headers(path, headers), CLOSE],
        )
    if length > limit:
        return too_large(limit, site, path, headers)
    return None


class AsgiApp:
    """An ASGI 3 application over ``site`` (``emu.asgi_app`` for hosting it yourself)."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.limit = site.options.max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers: dict[str, str] = {}
        for raw_name, raw_value in scope["headers"]:
            name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        method, path = scope["method"], scope["path"]
        answer = length_refusal(method, headers, self.limit, self.site, path)
        if answer is None:
            body = await self._body(receive)
            if body is None:
                answer = too_large(self.limit, self.site, path, headers)
            elif body is False:
                return  # the client went away
            else:
                client = scope.get("client")
                peer = client[0] if client else None
                answer = self.site.respond(method, path, headers, body, peer)
        status, answer_headers, payload = answer
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    *((k.lower().encode(), v.encode()) for k, v in answer_headers),
                    (b"content-length", str(len(payload)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    async def _body(self, receive: Receive) -> bytes | bool | None:
        """The body; ``None`` once it passes the limit, ``False`` if the client left."""
        message = await receive()
        if message["type"] == "http.disconnect":
            return False
        body = message.get("body", b"")
        if not message.get("more_body", False):  # the usual case: all of it at once
            return body if len(body) <= self.limit else None
        parts = [body]
        size = len(body)
        while size <= self.limit and message.get("more_body", False):
            message = await receive()
            if message["type"] == "http.disconnect":
                return False
            chunk = message.get("body", b"")
            size += len(chunk)
            parts.append(chunk)
        return b"".join(parts) if size <= self.limit else None


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
