"""X-Stamp on the wire: every scheme, and each 401 the real service answers."""

from __future__ import annotations

import base64

import pytest

from emulator.crypto.api_keys import ED25519, P256, SECP256K1, generate_key_pair
from emulator.crypto.stamps import (
    SCHEME_ED25519,
    SCHEME_P256,
    SCHEME_SECP256K1,
    SCHEME_SECP256K1_EIP191,
    ApiKeyStamp,
    sign_stamp,
)
from emulator.ground import messages

from .helpers import activity_body, api_key_params, encode, state_digest, user_params

WHOAMI = "/public/v1/query/whoami"


def whoami(wire, org, key):
    return wire.post(WHOAMI, {"organizationId": org.organization_id}, key)


def add_key(emu, org, curve, expiration=None, user_id=None):
    key = generate_key_pair(curve)
    emu.create_api_keys(
        api_keys=[api_key_params(key, expiration=expiration)], user_id=user_id or org.user_id
    )
    return key


@pytest.mark.parametrize(
    ("curve", "scheme", "credential_type"),
    [
        (P256, SCHEME_P256, "CREDENTIAL_TYPE_API_KEY_P256"),
        (SECP256K1, SCHEME_SECP256K1, "CREDENTIAL_TYPE_API_KEY_SECP256K1"),
        (SECP256K1, SCHEME_SECP256K1_EIP191, "CREDENTIAL_TYPE_API_KEY_SECP256K1"),
        (ED25519, SCHEME_ED25519, "CREDENTIAL_TYPE_API_KEY_ED25519"),
    ],
)
def test_every_api_key_scheme_authenticates(
    wire, turnkey_emulator, turnkey_org, curve, scheme, credential_type
):
    key = add_key(turnkey_emulator, turnkey_org, curve)
    raw = encode({"organizationId": turnkey_org.organization_id})
    stamp = sign_stamp(raw, key, scheme)
    status, body = wire.post(WHOAMI, None, raw=raw, headers={"x-stamp": stamp.header_value()})
    assert status == 200 and body["userId"] == turnkey_org.user_id
    keys = turnkey_emulator.get_api_keys(user_id=turnkey_org.user_id)["apiKeys"]
    assert {k["credential"]["publicKey"]: k["credential"]["type"] for k in keys}[
        key.public_key
    ] == credential_type


def test_activity_stamped_with_secp256k1_records_the_vote(wire, turnkey_emulator, turnkey_org):
    key = add_key(turnkey_emulator, turnkey_org, SECP256K1)
    body = activity_body(
        "ACTIVITY_TYPE_CREATE_USERS_V3", turnkey_org.organization_id, {"users": [user_params()]}
    )
    raw = encode(body)
    stamp = sign_stamp(raw, key, SCHEME_SECP256K1_EIP191)
    status, answer = wire.post(
        "/public/v1/submit/create_users", None, raw=raw, headers={"x-stamp": stamp.header_value()}
    )
    assert status == 200
    vote = answer["activity"]["votes"][0]
    assert (vote["publicKey"], vote["signature"], vote["scheme"]) == (
        key.public_key,
        stamp.signature,
        SCHEME_SECP256K1_EIP191,
    )
    assert vote["message"] == raw.decode()


def test_missing_stamp_on_query_and_on_activity(wire, turnkey_org):
    status, body = whoami(wire, turnkey_org, None)
    assert (status, body["code"], body["message"], body["turnkeyErrorCode"]) == (
        401,
        16,
        messages.NO_STAMP_QUERY,
        "SIGNATURE_MISSING",
    )
    payload = activity_body(
        "ACTIVITY_TYPE_CREATE_USERS_V3", turnkey_org.organization_id, {"users": [user_params()]}
    )
    status, body = wire.post("/public/v1/submit/create_users", payload)
    assert (status, body["message"]) == (401, messages.NO_STAMP_ACTIVITY)


@pytest.mark.parametrize("header", ["%%%", base64.urlsafe_b64encode(b'{"publicKey": 1}').decode()])
def test_malformed_stamp(wire, turnkey_org, header):
    status, body = wire.post(
        WHOAMI, {"organizationId": turnkey_org.organization_id}, headers={"x-stamp": header}
    )
    assert (status, body["code"], body["message"]) == (401, 16, "malformed activity stamp")


def test_unknown_key_in_a_root_organization(wire, turnkey_org):
    stranger = generate_key_pair(P256)
    status, body = whoami(wire, turnkey_org, stranger)
    assert status == 401 and body["turnkeyErrorCode"] == "PUBLIC_KEY_NOT_FOUND"
    assert body["message"].startswith("could not find public key in organization organizationId=")
    assert stranger.public_key in body["message"]


def test_unknown_key_in_a_sub_organization_mentions_the_parent(wire, turnkey_emulator, turnkey_org):
    sub = turnkey_emulator.create_organization(
        "Sub", parent_organization_id=turnkey_org.organization_id
    )
    status, body = whoami(wire, sub, generate_key_pair(P256))
    assert status == 401
    assert "could not find public key in organization or its parent organization" in body["message"]


def test_wrong_signature(wire, turnkey_org):
    raw = encode({"organizationId": turnkey_org.organization_id})
    stamp = sign_stamp(raw + b" ", turnkey_org.api_key)
    status, body = wire.post(WHOAMI, None, raw=raw, headers={"x-stamp": stamp.header_value()})
    assert (status, body["message"], body["turnkeyErrorCode"]) == (
        401,
        messages.BAD_SIGNATURE,
        "SIGNATURE_INVALID",
    )


def test_signature_that_is_not_hex(wire, turnkey_org):
    raw = encode({"organizationId": turnkey_org.organization_id})
    stamp = ApiKeyStamp(turnkey_org.api_public_key, "zz", SCHEME_P256)
    status, body = wire.post(WHOAMI, None, raw=raw, headers={"x-stamp": stamp.header_value()})
    assert (status, body["message"]) == (401, messages.BAD_SIGNATURE)


def test_scheme_that_does_not_fit_the_key(wire, turnkey_org):
    raw = encode({"organizationId": turnkey_org.organization_id})
    stamp = sign_stamp(raw, turnkey_org.api_key)
    lying = ApiKeyStamp(stamp.public_key, stamp.signature, SCHEME_SECP256K1)
    status, body = wire.post(WHOAMI, None, raw=raw, headers={"x-stamp": lying.header_value()})
    assert (status, body["message"]) == (401, messages.BAD_SIGNATURE)


def test_tampered_activity_body_changes_nothing(wire, turnkey_emulator, turnkey_org):
    before = state_digest(turnkey_emulator)
    raw = encode(
        activity_body(
            "ACTIVITY_TYPE_CREATE_USERS_V3",
            turnkey_org.organization_id,
            {"users": [user_params("mallory")]},
        )
    )
    stamp = sign_stamp(raw, turnkey_org.api_key)
    tampered = raw.replace(b"mallory", b"mallorz")
    status, _ = wire.post(
        "/public/v1/submit/create_users",
        None,
        raw=tampered,
        headers={"x-stamp": stamp.header_value()},
    )
    assert status == 401
    assert state_digest(turnkey_emulator) == before


def test_expired_key_on_the_emulator_clock(wire, turnkey_emulator, turnkey_org):
    key = add_key(turnkey_emulator, turnkey_org, P256, expiration="60")
    assert whoami(wire, turnkey_org, key)[0] == 200
    turnkey_emulator.clock.advance(59)
    assert whoami(wire, turnkey_org, key)[0] == 200
    turnkey_emulator.clock.advance(1)
    status, body = whoami(wire, turnkey_org, key)
    assert status == 401 and body["code"] == 16 and body["turnkeyErrorCode"] == "API_KEY_EXPIRED"
    assert "expired api key" in body["message"]
    # what @turnkey/core matches to recognise an expired session key
    assert "Unauthenticated desc = expired api key publicKey" in body["message"]


def test_deleted_key_is_unknown(wire, turnkey_emulator, turnkey_org):
    key = add_key(turnkey_emulator, turnkey_org, P256)
    key_id = next(
        k["apiKeyId"]
        for k in turnkey_emulator.get_api_keys()["apiKeys"]
        if k["credential"]["publicKey"] == key.public_key
    )
    turnkey_emulator.delete_api_keys(user_id=turnkey_org.user_id, api_key_ids=[key_id])
    status, body = whoami(wire, turnkey_org, key)
    assert status == 401 and body["turnkeyErrorCode"] == "PUBLIC_KEY_NOT_FOUND"


def test_key_of_a_deleted_user_is_unknown(wire, turnkey_emulator, turnkey_org):
    user_id = turnkey_emulator.create_users(users=[user_params("temp")])["userIds"][0]
    key = add_key(turnkey_emulator, turnkey_org, P256, user_id=user_id)
    assert whoami(wire, turnkey_org, key)[0] == 200
    turnkey_emulator.delete_users(user_ids=[user_id])
    assert whoami(wire, turnkey_org, key)[0] == 401


def test_parent_key_reads_a_sub_organization(wire, turnkey_emulator, turnkey_org):
    sub = turnkey_emulator.create_organization(
        "Sub", parent_organization_id=turnkey_org.organization_id
    )
    status, body = wire.post(
        "/public/v1/query/list_users", {"organizationId": sub.organization_id}, turnkey_org.api_key
    )
    assert status == 200 and [u["userId"] for u in body["users"]] == [sub.user_id]
    status, body = whoami(wire, sub, turnkey_org.api_key)
    assert status == 200 and body["organizationId"] == turnkey_org.organization_id


def test_parent_key_cannot_write_in_a_sub_organization(wire, turnkey_emulator, turnkey_org):
    sub = turnkey_emulator.create_organization(
        "Sub", parent_organization_id=turnkey_org.organization_id
    )
    before = state_digest(turnkey_emulator)
    payload = activity_body(
        "ACTIVITY_TYPE_CREATE_USERS_V3", sub.organization_id, {"users": [user_params()]}
    )
    status, body = wire.post("/public/v1/submit/create_users", payload, turnkey_org.api_key)
    assert status == 400 and body["turnkeyErrorCode"] == "ORGANIZATION_MISMATCH"
    assert body["message"] == (
        f"organization mismatch: request is targeting organization ({sub.organization_id}), "
        f"but voters are in organization ({turnkey_org.organization_id})"
    )
    assert state_digest(turnkey_emulator) == before


def test_sub_organization_user_wins_for_a_shared_key(wire, turnkey_emulator, turnkey_org):
    sub = turnkey_emulator.create_organization(
        "Sub",
        parent_organization_id=turnkey_org.organization_id,
        api_private_key=turnkey_org.api_private_key,
    )
    status, body = whoami(wire, sub, turnkey_org.api_key)
    assert status == 200 and (body["organizationId"], body["userId"]) == (
        sub.organization_id,
        sub.user_id,
    )


def test_sibling_organization_key_is_unknown(wire, turnkey_emulator, turnkey_org):
    other = turnkey_emulator.create_organization("Other")
    assert whoami(wire, other, turnkey_org.api_key)[0] == 401
