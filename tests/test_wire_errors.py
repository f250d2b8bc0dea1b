"""The wire: routing, bodies, organizations and error shapes (reference §5)."""

from __future__ import annotations

import io
import json

import pytest

from emulator.ground import messages

from .helpers import NIL_UUID, activity_body, encode, user_params


def assert_error(status, body, expected_status, code, message_part, tk_code=""):
    assert status == expected_status, body
    assert set(body) == {"code", "message", "details", "turnkeyErrorCode"}
    assert body["code"] == code
    assert message_part in body["message"]
    assert body["turnkeyErrorCode"] == tk_code
    assert isinstance(body["details"], list)
    if tk_code:
        assert {
            "@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail",
            "turnkeyErrorCode": tk_code,
        } in body["details"]


@pytest.mark.parametrize(
    "path",
    ["/public/v1/query/no_such_thing", "/public/v1/submit/list_users", "/public/v2/query/whoami"],
)
def test_unknown_path_is_404(wire, turnkey_org, path):
    status, body = wire.post(
        path, {"organizationId": turnkey_org.organization_id}, turnkey_org.api_key
    )
    assert_error(status, body, 404, 5, "Not Found")


def test_other_methods_are_not_allowed(turnkey_emulator):
    from emulator.http.app import handle

    status, payload = handle(turnkey_emulator.world, "GET", "/public/v1/query/whoami", {}, b"")
    assert status == 501 and json.loads(payload)["message"] == "Method Not Allowed"


@pytest.mark.parametrize(
    "raw",
    [b"{", b"not json", b"\xff\xfe", b'{"a":' + b"[" * 100_000],
    ids=["truncated", "text", "not-utf8", "nested-too-deep"],
)
def test_unparseable_body_is_bad_request(wire, turnkey_org, raw):
    status, body = wire.post("/public/v1/query/whoami", None, turnkey_org.api_key, raw=raw)
    assert_error(status, body, 400, 3, messages.BAD_REQUEST_BODY, "REQUEST_INVALID")


def test_body_that_is_not_an_object_is_bad_request(wire, turnkey_org):
    status, body = wire.post("/public/v1/query/whoami", [1, 2], turnkey_org.api_key)
    assert_error(status, body, 400, 3, messages.BAD_REQUEST_BODY, "REQUEST_INVALID")


@pytest.mark.parametrize(
    "org_id", [None, "", "not-a-uuid", 42, "00000000-0000-4000-8000-00000000000Z"]
)
def test_malformed_organization_id(wire, turnkey_org, org_id):
    status, body = wire.post(
        "/public/v1/query/whoami", {"organizationId": org_id}, turnkey_org.api_key
    )
    assert_error(
        status, body, 400, 3, "malformed organization ID provided", "INVALID_ORGANIZATION_ID"
    )


def test_unknown_organization_names_its_id(wire, turnkey_org):
    status, body = wire.post(
        "/public/v1/query/whoami", {"organizationId": NIL_UUID}, turnkey_org.api_key
    )
    assert_error(status, body, 404, 5, "no organization found", "ORGANIZATION_NOT_FOUND")
    assert NIL_UUID in body["message"]


def test_unknown_organization_on_submit(wire, turnkey_org):
    payload = activity_body("ACTIVITY_TYPE_CREATE_USERS_V3", NIL_UUID, {"users": [user_params()]})
    status, body = wire.post("/public/v1/submit/create_users", payload, turnkey_org.api_key)
    assert_error(
        status, body, 404, 5, "no organization found with the given ID", "ORGANIZATION_NOT_FOUND"
    )


def test_success_is_json_over_wsgi(turnkey_emulator, turnkey_org):
    from emulator.crypto.stamps import sign_stamp

    raw = encode({"organizationId": turnkey_org.organization_id})
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/public/v1/query/whoami",
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
        "HTTP_X_STAMP": sign_stamp(raw, turnkey_org.api_key).header_value(),
    }
    seen = {}

    def start_response(status, headers):
        seen["status"], seen["headers"] = status, dict(headers)

    payload = b"".join(turnkey_emulator.wsgi_app(environ, start_response))
    assert seen["status"] == "200 OK"
    assert seen["headers"]["Content-Type"] == "application/json"
    assert int(seen["headers"]["Content-Length"]) == len(payload)
    assert json.loads(payload)["userId"] == turnkey_org.user_id


def test_internal_errors_carry_an_id_and_do_not_leak(
    turnkey_emulator, turnkey_org, monkeypatch, capsys
):
    from emulator.http import app

    def boom(*args, **kwargs):
        raise RuntimeError("secret detail")

    monkeypatch.setattr(app, "dispatch", boom)
    status, payload = app.handle(
        turnkey_emulator.world, "POST", "/public/v1/query/whoami", {}, b"{}"
    )
    body = json.loads(payload)
    assert status == 500 and body["code"] == 13
    assert body["message"].startswith("internal server error (") and "secret" not in body["message"]
