"""The WSGI application, for users who host the emulator in a WSGI server of their own.

The same routes and rules as ``serve`` (``site.py``), and the same body rules:
a ``Content-Length`` over the limit is refused before the body is read; a body without
one (chunked) is read to its end where the server marks the input as ended
(``wsgi.input_terminated``), a 413 as it passes the limit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..engine_state.world import World
from .answers import status_line
from .asgi import length_refusal, too_large
from .control import Control
from .options import WireOptions
from .site import Site

READ_BLOCK = 64 * 1024


def read_body(environ: Mapping[str, Any], headers: Mapping[str, str], limit: int) -> bytes | None:
    """The body: ``Content-Length`` bytes, or, where the server ends the input itself
    (``wsgi.input_terminated``: a chunked body it decoded), all of it; ``None`` past ``limit``."""
    stream = environ["wsgi.input"]
    declared = headers.get("content-length")
    if declared is not None:
        length = int(declared)
        return stream.read(length) if length > 0 else b""
    if not environ.get("wsgi.input_terminated"):
        return b""  # PEP 3333: no length, no reading
    parts: list[bytes] = []
    size = 0
    while size <= limit:
        piece = stream.read(READ_BLOCK)
        if not piece:
            return b"".join(parts)
        parts.append(piece)
        size += len(piece)
    return None


class WsgiApp:
    """A WSGI application over one emulated world."""

    def __init__(
        self,
        world: World,
        control: Control | None = None,
        on_change: Callable[[], None] | None = None,
        options: WireOptions | None = None,
    ) -> None:
        self.site = Site(world, control, options, on_change)

    @property
    def world(self) -> World:
        return self.site.world

    def __call__(
        self, environ: Mapping[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        headers = {
            key[5:].replace("_", "-").lower(): value
            for key, value in environ.items()
            if key.startswith("HTTP_")
        }
        for key in ("CONTENT_LENGTH", "CONTENT_TYPE"):
            if environ.get(key):
                headers[key.replace("_", "-").lower()] = environ[key]
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "/")
        limit = self.site.options.max_body_bytes
        answer = length_refusal(method, headers, limit, self.site, path)
        if answer is None:
            body = read_body(environ, headers, limit)
            if body is None:
                answer = too_large(limit, self.site, path, headers)
            else:
                peer = environ.get("REMOTE_ADDR") or None
                answer = self.site.respond(method, path, headers, body, peer)
        status, answer_headers, payload = answer
        end_to_end = [(k, v) for k, v in answer_headers if k.lower() != "connection"]
        start_response(status_line(status), [*end_to_end, ("Content-Length", str(len(payload)))])
        return [payload]
