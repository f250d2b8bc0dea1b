"""Small builders shared by the tests."""

from __future__ import annotations

import json
import time
from typing import Any

from emulator.crypto.api_keys import ApiKeyPair, generate_key_pair
from emulator.crypto.stamps import sign_stamp

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


def activity_body(
    activity_type: str,
    organization_id: str,
    parameters: dict[str, Any],
    timestamp_ms: int | None = None,
) -> dict[str, Any]:
    return {
        "parameters": parameters,
        "organizationId": organization_id,
        "timestampMs": str(timestamp_ms if timestamp_ms is not None else int(time.time() * 1000)),
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
