"""The Auth Proxy on the wire: ``<baseUrl>/authproxy/v1/...`` beside ``/public/``.

``@turnkey/core`` calls ``authProxyUrl + "/v1/<endpoint>"`` with a POST of JSON and
the ``X-Auth-Proxy-Config-ID`` header (and ``X-Captcha-Token`` where captcha is on), so
``authProxyUrl: "<baseUrl>/authproxy"`` points it here. Browsers preflight those
headers; an answer carries ``Access-Control-Allow-Origin`` when the server's
``--cors-origin`` rules and the configuration's ``allowedOrigins`` both allow the page's
origin. The endpoints are ``authproxy/service.py``'s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..authproxy.service import CONFIG_HEADER, AuthProxy
from ..ground.errors import PERMISSION_DENIED, UNIMPLEMENTED
from .options import WireOptions

PREFIX = "/authproxy"
ALLOWED_HEADERS = ("Content-Type", CONFIG_HEADER, "X-Captcha-Token", "X-Client-Version")
Headers = list[tuple[str, str]]
Answer = tuple[int, Headers, bytes]
JSON_TYPE = ("Content-Type", "application/json")


def is_auth_proxy_path(path: str) -> bool:
    return path == PREFIX or path.startswith(PREFIX + "/")


def respond(
    proxy: AuthProxy,
    options: WireOptions,
    method: str,
    path: str,
    headers: Mapping[str, str],
    body: bytes,
) -> Answer:
    """The answer to one request under ``/authproxy``; ``headers`` keys are lower case."""
    origin = headers.get("origin")
    config_id = headers.get(CONFIG_HEADER.lower())
    config = proxy.config(config_id.strip()) if config_id else None
    cors: Headers = []
    if origin is not None:
        allowed = options.allows_origin(origin) and (config is None or config.allows_origin(origin))
        cors = (
            [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
            if allowed
            else [("Vary", "Origin")]
        )
    if method == "OPTIONS":
        if origin is not None and not options.allows_origin(origin):
            return _error(403, PERMISSION_DENIED, f"origin {origin} is not allowed", cors)
        return (
            204,
            [
                *cors,
                ("Access-Control-Allow-Methods", "POST, OPTIONS"),
                ("Access-Control-Allow-Headers", ", ".join(ALLOWED_HEADERS)),
                ("Access-Control-Max-Age", "600"),
            ],
            b"",
        )
    if method != "POST":
        return _error(501, UNIMPLEMENTED, "Auth Proxy endpoints answer POST", cors)
    endpoint = path[len(PREFIX) :] or "/"
    status, payload = proxy.handle(endpoint, config_id, body)
    return status, [JSON_TYPE, *cors], json.dumps(payload).encode()


def _error(status: int, code: int, message: str, cors: Headers) -> Answer:
    body = {"code": code, "message": message, "details": [], "turnkeyErrorCode": ""}
    return status, [JSON_TYPE, *cors], json.dumps(body).encode()
