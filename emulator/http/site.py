"""One HTTP request to its answer, whatever server carries it: routing, CORS, the control guard.

* ``/public/...``: the API (``app.answer``). Every answer carries the CORS headers a
  browser needs when the request came from an allowed origin, errors included, and an
  ``OPTIONS`` preflight is answered with the methods and headers the official SDKs use.
* ``/authproxy/...``: the Auth Proxy of the served emulator (``auth_proxy.py``), where
  there is a control plane (its emulator).
* ``/emulator/v1/...``: the control plane (``control.py``), only for the machine the
  server runs on: the ``Host`` must be the bound address or localhost, a foreign
  ``Origin`` is refused, a POST must be ``application/json`` (a cross-site form or
  ``text/plain`` POST cannot reach it), only the read endpoints answer ``GET``, and,
  with a control token, ``Authorization: Bearer <token>`` is required.
* ``/onramp/...``: the sandbox on-ramp provider's page that ``onRampUrl`` leads to
  (``onramp_page.py``).
* ``/`` and ``/emulator/ui/...``: the dashboard (``emulator/dashboard/``), where there is a
  control plane, behind the same guard.

Every refusal is the API's error shape ``{code, message, details, turnkeyErrorCode}``.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from ..engine_state.world import World
from ..ground.errors import (
    INVALID_ARGUMENT,
    NOT_FOUND,
    PERMISSION_DENIED,
    UNAUTHENTICATED,
    UNIMPLEMENTED,
)
from ..ops.registry import SUBMIT_PREFIX
from ..webhooks.signing import JWKS_PATH, webhook_signer
from . import auth_proxy, onramp_page
from .answers import DASHBOARD_PREFIX, JSON_TYPE, Answer, Headers, error_answer
from .app import answer as api_answer
from .control import PREFIX as CONTROL_PREFIX
from .control import Control
from .options import CORS_ALLOWED_HEADERS, LOOPBACK_NAMES, WireOptions

PUBLIC_PREFIX = "/public/"
PREFLIGHT_MAX_AGE_S = "600"


def host_name(authority: str) -> str:
    """The host of a ``Host`` header or an origin's authority, without the port."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        return authority[1 : authority.find("]")] if "]" in authority else authority
    return authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority


class Site:
    """The routes of one server over one world."""

    def __init__(
        self,
        world: World,
        control: Control | None = None,
        options: WireOptions | None = None,
        on_change: Callable[[], None] | None = None,
        port: int | None = None,
    ) -> None:
        self.world = world
        self.control = control
        self.options = options or WireOptions()
        self.on_change = on_change
        self.port = port  # the port served on, where known: a page's origin must have it
        bound = host_name(self.options.bound_host) if self.options.bound_host else ""
        self._own_hosts = LOOPBACK_NAMES | {bound, bound.strip("[]")}
        self.dashboard: Any = None  # emulator/dashboard/, made on its first request

    def respond(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str],
        body: bytes,
        client_ip: str | None = None,
    ) -> Answer:
        """The answer to one request; ``headers`` keys are lower case, ``client_ip`` the
        peer's address."""
        if path.startswith(CONTROL_PREFIX) and self.control is not None:
            return self._control(method, path, headers, body)
        if self.control is not None and (path == "/" or path.startswith(DASHBOARD_PREFIX)):
            return self._dashboard(method, path, headers, body)
        if auth_proxy.is_auth_proxy_path(path) and self.control is not None:
            proxy = self.control.emulator.auth_proxy
            answer = auth_proxy.respond(proxy, self.options, method, path, headers, body)
            if answer[0] == 200 and self.on_change is not None:
                self.on_change()
            return answer
        if path.startswith(onramp_page.PREFIX):
            answer = onramp_page.respond(self.world, method, path, headers, body)
            if answer[0] == 200 and path.endswith("/settle") and self.on_change is not None:
                self.on_change()
            return answer
        cors = self.cors_headers(path, headers)
        if method == "OPTIONS" and path.startswith(PUBLIC_PREFIX):
            return self._preflight(headers, cors)
        if path == JWKS_PATH and method == "GET":  # the webhook key discovery: no stamp
            jwks = webhook_signer(self.world.enclave).jwks()
            cache = ("Cache-Control", "public, max-age=300")
            return 200, [JSON_TYPE, cache, *cors], json.dumps(jwks).encode()
        status, own, payload = api_answer(self.world, method, path, headers, body, client_ip)
        if status == 200 and self.on_change is not None and path.startswith(SUBMIT_PREFIX):
            self.on_change()
        return status, [JSON_TYPE, *cors, *own], payload

    # ----- browsers --------------------------------------------------------------------

    def cors_headers(self, path: str, headers: Mapping[str, str]) -> Headers:
        """The CORS headers of an answer on ``/public/`` to an allowed origin."""
        origin = headers.get("origin")
        if not origin or not path.startswith(PUBLIC_PREFIX):
            return []
        if not self.options.allows_origin(origin):
            return [("Vary", "Origin")]
        allowed = "*" if "*" in self.options.cors_origins else origin
        return [("Access-Control-Allow-Origin", allowed), ("Vary", "Origin")]

    def _preflight(self, headers: Mapping[str, str], cors: Headers) -> Answer:
        origin = headers.get("origin")
        if origin is not None and not self.options.allows_origin(origin):
            return error_answer(
                403, PERMISSION_DENIED, f"origin {origin} is not allowed", headers=cors
            )
        allow = [
            ("Access-Control-Allow-Methods", "POST, OPTIONS"),
            ("Access-Control-Allow-Headers", ", ".join(CORS_ALLOWED_HEADERS)),
            ("Access-Control-Max-Age", PREFLIGHT_MAX_AGE_S),
        ]
        return 204, [*cors, *allow], b""

    # ----- the control plane ---------------------------------------------------------------

    def _control(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Answer:
        assert self.control is not None
        refusal = self._control_refusal(method, path, headers)
        if refusal is not None:
            return refusal
        status, payload = self.control.handle(method, path, body)
        if status == 200 and self.on_change is not None and self.control.changes_state(path):
            self.on_change()
        return status, [JSON_TYPE], payload

    def _is_own_host(self, authority: str) -> bool:
        return self.options.binds_wildcard or host_name(authority) in self._own_hosts

    def _is_own_origin(self, origin: str) -> bool:
        """Whether a page of ``origin`` is one this server serves (another port of the same
        machine is another site: a local app must not drive the control plane)."""
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return False
        return self._is_own_host(parts.netloc) and self.port in (None, port)

    def _dashboard(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Answer:
        if self.dashboard is None:
            from ..dashboard.routes import Dashboard  # loaded when first asked for

            assert self.control is not None
            self.dashboard = Dashboard(self.control, self.local_refusal, self.on_change)
        return self.dashboard.respond(method, path, headers, body)

    def _control_refusal(self, method: str, path: str, headers: Mapping[str, str]) -> Answer | None:
        assert self.control is not None
        refusal = self.local_refusal(headers)
        if refusal is not None:
            return refusal
        if not self.control.knows(path):
            return error_answer(404, NOT_FOUND, f"no control endpoint {path}")
        if method == "GET":
            if not self.control.readable(path):
                return error_answer(
                    501, UNIMPLEMENTED, f"{path} changes state: POST it with a JSON body"
                )
            return None
        if method != "POST":
            return error_answer(501, UNIMPLEMENTED, "control endpoints answer POST (or GET)")
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            return error_answer(
                415 if media else 400,
                INVALID_ARGUMENT,
                "control requests must be sent as Content-Type: application/json",
            )
        return None

    def local_refusal(self, headers: Mapping[str, str], *, token: bool = True) -> Answer | None:
        """The refusal of a request the control plane (or the dashboard) must not serve: to
        another host, from another origin, or (``token``) without the control token."""
        host = headers.get("host")
        if host is not None and not self._is_own_host(host):
            return error_answer(
                403,
                PERMISSION_DENIED,
                f"control requests must be addressed to this server, not to {host}",
            )
        origin = headers.get("origin")
        if origin is not None and not self._is_own_origin(origin):
            return error_answer(
                403, PERMISSION_DENIED, f"control requests from {origin} are refused"
            )
        expected = self.options.control_token
        if token and expected is not None:
            given = headers.get("authorization", "")
            scheme, _, value = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                value.strip().encode(), expected.encode()
            ):
                return error_answer(
                    401,
                    UNAUTHENTICATED,
                    "control requests need 'Authorization: Bearer <control token>'",
                )
        return None
