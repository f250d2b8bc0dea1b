"""Small builders shared by the tests."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from emulator import TurnkeyApiError
from emulator.crypto.api_keys import ApiKeyPair, generate_key_pair
from emulator.crypto.stamps import sign_stamp
from emulator.testing.digest import state_digest

NIL_UUID = "00000000-0000-4000-8000-000000000000"


def user_params(name: str = "alice", **extra: Any) -> dict[str, Any]:
    """V3 user params with no credentials."""
    return {
        "userName": name,
        "apiKeys": [],
        "authenticators": [],
        "oauthProviders": [],
        "userTags": [],
        **extra,
    }


def api_key_params(
    key: ApiKeyPair, name: str = "key", expiration: str | None = None
) -> dict[str, Any]:
    params = {"apiKeyName": name, "publicKey": key.public_key, "curveType": key.curve}
    if expiration is not None:
        params["expirationSeconds"] = expiration
    return params


_last_timestamp_ms = 0


def next_timestamp_ms() -> int:
    """Now in milliseconds, but never twice the same: two bodies built in one millisecond
    with the same parameters would otherwise be one activity (the same fingerprint)."""
    global _last_timestamp_ms
    _last_timestamp_ms = max(int(time.time() * 1000), _last_timestamp_ms + 1)
    return _last_timestamp_ms


def activity_body(
    activity_type: str,
    organization_id: str,
    parameters: dict[str, Any],
    timestamp_ms: int | None = None,
) -> dict[str, Any]:
    return {
        "parameters": parameters,
        "organizationId": organization_id,
        "timestampMs": str(timestamp_ms if timestamp_ms is not None else next_timestamp_ms()),
        "type": activity_type,
    }


def stamped_headers(raw: bytes, key: ApiKeyPair, scheme: str | None = None) -> dict[str, str]:
    return {
        "x-stamp": sign_stamp(raw, key, scheme).header_value(),
        "content-type": "application/json",
    }


def encode(body: Any) -> bytes:
    return json.dumps(body).encode()


def new_key(curve: str = "API_KEY_CURVE_P256") -> ApiKeyPair:
    return generate_key_pair(curve)


BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


def fails(emu, call, *args, **kwargs) -> TurnkeyApiError:
    """``call`` raises a TurnkeyApiError and changes nothing; answer the error."""
    before = state_digest(emu)
    with pytest.raises(TurnkeyApiError) as caught:
        call(*args, **kwargs)
    assert state_digest(emu) == before
    return caught.value


def error_of(error: TurnkeyApiError) -> tuple:
    """``(status, code, message, turnkeyErrorCode)`` of a TurnkeyApiError."""
    return (error.status, error.code, error.message, error.turnkey_error_code)


def violations(error: TurnkeyApiError) -> list[dict]:
    """The field violations of a 400's BadRequest detail."""
    (detail,) = [d for d in error.details if d["@type"] == BAD_REQUEST]
    return detail["fieldViolations"]


def add_user(emu, name: str, *, tags: list[str] | None = None, organization_id=None):
    """A non-root user of the organization with a P-256 API key: ``(user_id, key)``."""
    key = new_key()
    params = user_params(name, apiKeys=[api_key_params(key, f"{name} key")], userTags=tags or [])
    kwargs = {} if organization_id is None else {"organization_id": organization_id}
    (user_id,) = emu.create_users(users=[params], **kwargs)["userIds"]
    return user_id, key
