"""A handler that raises unexpectedly: a 500 in the API's error shape, a generic message with
an error id, the traceback only in the server's log, and nothing changed.

Driven three ways onto the wire: the WSGI app, a real socket (``requests``) and the
``requests`` interception the official SDK is used through.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace

import pytest
import requests

from emulator.crypto.stamps import sign_stamp
from emulator.http.server import serving
from emulator.ops import REGISTRY

from .helpers import activity_body, encode, stamped_headers, state_digest

SECRET = "the handler's secret detail"
GENERIC = re.compile(r"internal server error \([0-9a-f-]{36}\)")


@pytest.fixture(params=["whoami", "create_private_key_tag"])
def broken(request, monkeypatch):
    """An operation whose handler raises a ``RuntimeError`` naming a secret."""
    name = request.param

    def boom(ctx, params):
        raise RuntimeError(SECRET)

    monkeypatch.setitem(REGISTRY, name, replace(REGISTRY[name], handler=boom))
    return REGISTRY[name]


def _body(op, org) -> bytes:
    if op.kind == "query":
        return encode({"organizationId": org.organization_id})
    params = {"privateKeyTagName": "t", "privateKeyIds": []}
    return encode(activity_body(op.default_type, org.organization_id, params))


def _assert_generic_500(status: int, payload: bytes) -> dict:
    assert status == 500
    assert b"Traceback" not in payload and SECRET.encode() not in payload
    body = json.loads(payload)
    assert set(body) == {"code", "message", "details", "turnkeyErrorCode"}
    assert body["code"] == 13 and GENERIC.fullmatch(body["message"]), body
    assert body["turnkeyErrorCode"] == "INTERNAL"  # the documented code (TurnkeyErrorCode 1)
    assert body["details"] == [
        {
            "@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail",
            "turnkeyErrorCode": "INTERNAL",
        }
    ]
    return body


def test_over_wsgi(turnkey_emulator, turnkey_org, broken, capsys):
    raw = _body(broken, turnkey_org)
    before = state_digest(turnkey_emulator)
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": broken.path,
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
        "HTTP_X_STAMP": sign_stamp(raw, turnkey_org.api_key).header_value(),
    }
    seen = {}
    payload = b"".join(
        turnkey_emulator.wsgi_app(environ, lambda status, headers: seen.update(status=status))
    )
    body = _assert_generic_500(int(seen["status"].split()[0]), payload)
    log = capsys.readouterr().err
    error_id = body["message"][len("internal server error (") : -1]
    assert error_id in log and "Traceback" in log and SECRET in log  # the log has it all
    assert state_digest(turnkey_emulator) == before
    (call,) = [c for c in turnkey_emulator.world.calls if c.operation == broken.name][-1:]
    assert (call.http_status, call.error_code) == (500, 13)


def test_over_a_socket(turnkey_emulator, turnkey_org, broken, capsys):
    raw = _body(broken, turnkey_org)
    before = state_digest(turnkey_emulator)
    with serving(turnkey_emulator.world) as url:
        answer = requests.post(
            url + broken.path, data=raw, headers=stamped_headers(raw, turnkey_org.api_key)
        )
    _assert_generic_500(answer.status_code, answer.content)
    assert answer.headers["Content-Type"] == "application/json"
    assert SECRET in capsys.readouterr().err
    assert state_digest(turnkey_emulator) == before


def test_through_the_interception(turnkey_emulator, turnkey_org, broken, capsys):
    raw = _body(broken, turnkey_org)
    with turnkey_emulator.intercept("https://api.turnkey.com"):
        answer = requests.post(
            "https://api.turnkey.com" + broken.path,
            data=raw,
            headers=stamped_headers(raw, turnkey_org.api_key),
        )
    _assert_generic_500(answer.status_code, answer.content)
    assert SECRET in capsys.readouterr().err
