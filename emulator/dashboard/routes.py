"""The dashboard's routes: the page's three files and its JSON endpoints.

* ``GET /``, ``GET /emulator/ui`` and ``/emulator/ui/``: the page (``static/index.html``);
  ``/emulator/ui/dashboard.js`` and ``dashboard.css`` beside it. They hold no state and no
  secret (they are the package's files), so they need no token: the page reads the token
  from its address (``?token=``) once, forgets it there, and sends it as
  ``Authorization: Bearer`` with every request. They are still only this machine's (the
  ``Host`` and ``Origin`` guard of the control plane), and carry a strict content security
  policy (no script, style or connection but the server's own).
* ``/emulator/ui/api/<view>``: JSON, behind the control plane's whole guard (``Host``,
  ``Origin``, the control token). ``GET`` reads a view with its defaults, ``POST`` with
  ``Content-Type: application/json`` gives its parameters; ``vote`` is POST only. Views:
  ``version``, ``overview``, ``organization``, ``activities``, ``activity``, ``outbox``,
  ``calls``, ``controls``, ``webhooks``, ``tvc`` (``views.py``, ``observations.py``, ``tvc.py``) and ``vote`` (``voting.py``). The clock
  and fault controls of the page are the control plane's own endpoints.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any

from ..ground import jsontext
from ..ground.errors import INVALID_ARGUMENT, NOT_FOUND, UNIMPLEMENTED
from ..http.answers import DASHBOARD_PREFIX, Answer, error_answer
from . import observations, tvc, views, voting
from .params import ViewError

if TYPE_CHECKING:
    from ..http.control import Control

API_PREFIX = DASHBOARD_PREFIX + "/api/"
PAGE_PATHS = frozenset({"/", DASHBOARD_PREFIX, DASHBOARD_PREFIX + "/"})
FILES = {
    "index.html": "text/html; charset=utf-8",
    "dashboard.js": "text/javascript; charset=utf-8",
    "dashboard.css": "text/css; charset=utf-8",
}
SECURITY_HEADERS = [
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
]
NO_STORE = ("Cache-Control", "no-store")
JSON_TYPE = ("Content-Type", "application/json")

Json = dict[str, Any]
Refusal = Callable[..., "Answer | None"]

READS: dict[str, Callable[[Any, Json], Json]] = {
    "version": lambda emu, params: views.version(emu),
    "overview": lambda emu, params: views.overview(emu),
    "organization": views.organization,
    "activities": views.activities,
    "activity": views.activity,
    "outbox": observations.outbox,
    "calls": observations.calls,
    "controls": lambda emu, params: observations.controls(emu),
    "webhooks": observations.webhooks,
    "tvc": tvc.apps,
}


class Dashboard:
    """The dashboard of the emulator behind ``control``; ``refusal`` is the site's guard of
    the control plane (``Site.local_refusal``), ``on_change`` what the site calls after a
    change (the state file's journal)."""

    def __init__(
        self,
        control: Control,
        refusal: Refusal,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.emulator = control.emulator
        self.refusal = refusal
        self.on_change = on_change
        self._files: dict[str, bytes] = {}

    def respond(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Answer:
        if path.startswith(API_PREFIX):
            return self._api(method, path[len(API_PREFIX) :], headers, body)
        refused = self.refusal(headers, token=False)
        if refused is not None:
            return refused
        name = "index.html" if path in PAGE_PATHS else path[len(DASHBOARD_PREFIX) + 1 :]
        if name not in FILES:
            return error_answer(404, NOT_FOUND, f"no dashboard file {path}")
        if method != "GET":
            return error_answer(501, UNIMPLEMENTED, "the dashboard's files answer GET")
        headers_out = [
            ("Content-Type", FILES[name]),
            ("Cache-Control", "no-cache"),
            *SECURITY_HEADERS,
        ]
        return 200, headers_out, self._file(name)

    def _file(self, name: str) -> bytes:
        if name not in self._files:
            self._files[name] = resources.files(__package__).joinpath("static", name).read_bytes()
        return self._files[name]

    def _api(self, method: str, view: str, headers: Mapping[str, str], body: bytes) -> Answer:
        refused = self.refusal(headers)
        if refused is not None:
            return refused
        if view not in READS and view != "vote":
            return error_answer(404, NOT_FOUND, f"no dashboard view {view!r}")
        if method == "GET" and view != "vote":
            params: Json = {}
        elif method == "POST":
            media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if media != "application/json":
                return error_answer(
                    415 if media else 400,
                    INVALID_ARGUMENT,
                    "dashboard requests must be sent as Content-Type: application/json",
                )
            try:
                params = jsontext.loads(body) if body.strip() else {}
            except (ValueError, UnicodeDecodeError):
                return error_answer(400, INVALID_ARGUMENT, "the body must be JSON")
            if not isinstance(params, dict):
                return error_answer(400, INVALID_ARGUMENT, "the body must be a JSON object")
        else:
            return error_answer(501, UNIMPLEMENTED, f"{view} answers POST (reads: GET too)")
        try:
            if view == "vote":
                answer = voting.vote(self.emulator, params)
                if answer["httpStatus"] == 200 and self.on_change is not None:
                    self.on_change()
            else:
                with self.emulator.world.lock:
                    answer = READS[view](self.emulator, params)
        except ViewError as error:
            code = NOT_FOUND if error.status == 404 else INVALID_ARGUMENT
            return error_answer(error.status, code, error.message)
        return 200, [JSON_TYPE, NO_STORE], json.dumps(answer).encode()
