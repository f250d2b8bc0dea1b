"""The WSGI application, for users who host the emulator in a WSGI server of their own.

The same routes and rules as ``serve`` (``site.py``), and the same body rules:
a ``Content-Length`` over the limit is refused before the body is read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..engine_state.world import World
from .app import status_line
from .asgi import length_refusal
from .control import Control
from .options import WireOptions
from .site import Site


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
            length = int(headers.get("content-length") or 0)
            body = environ["wsgi.input"].read(length) if length > 0 else b""
            peer = environ.get("REMOTE_ADDR") or None
            answer = self.site.respond(method, path, headers, body, peer)
        status, answer_headers, payload = answer
        end_to_end = [(k, v) for k, v in answer_headers if k.lower() != "connection"]
        start_response(status_line(status), [*end_to_end, ("Content-Length", str(len(payload)))])
        return [payload]
