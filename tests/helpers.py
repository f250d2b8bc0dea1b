"""Small builders shared by the tests."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from emulator import TurnkeyApiError
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


def state_digest(emu) -> str:
    """Everything observable about an emulator's state, as one string."""
    from emulator import render

    world = emu.world
    store = world.store
    orgs = {
        org_id: {
            "name": org.name,
            "parent": org.parent_id,
            "subs": org.sub_organization_ids,
            "quorum": [org.root_quorum.threshold, org.root_quorum.user_ids],
            "features": org.features,
            "users": [render.user(u) for u in org.users.values()],
            "tags": [render.tag(t) for t in org.user_tags.values()],
            "activities": [render.activity(a, org, None) for a in org.activities.values()],
            "wallets": [
                [render.wallet(w), [render.wallet_account(a) for a in w.accounts.values()]]
                for w in org.wallets.values()
            ],
            "private_keys": [render.private_key(k) for k in org.private_keys.values()],
            "private_key_tags": [render.tag(t) for t in org.private_key_tags.values()],
            "signers": {value: repr(ref) for value, ref in org.signers.items()},
        }
        for org_id, org in store.organizations.items()
    }
    indexes = {
        "keys": {
            key: [(o.organization_id, o.user_id, o.api_key_id) for o in owners]
            for key, owners in store.api_keys_by_public_key.items()
        },
        "fingerprints": sorted(store.activities_by_fingerprint),
        "activity_ids": sorted(store.activities_by_id),
        "vault": [
            {w: s.mnemonic for w, s in store.vault.wallets.items()},
            {k: v.hex() for k, v in store.vault.private_keys.items()},
        ],
    }
    return json.dumps([orgs, indexes, repr(world.ids.getstate())], sort_keys=True, default=str)


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
