"""Sessions: create_read_write_session, create_read_only_session, stamp_login.

A session key is checked the way a client uses it: the read-write session's
bundle opened with the target key, the login key the client made itself, both
stamping real requests over the wire until they expire. The login's session
JWT is verified twice: by the emulator's client helper and, independently, here
with ``cryptography`` over SHA-256(SHA-256(header.payload)).
"""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from emulator import Emulator
from emulator.ground import messages
from emulator.testing.client_crypto import (
    TargetKey,
    decrypt_credential_bundle,
    verify_session_jwt,
)

from .helpers import activity_body, add_user, api_key_params, error_of, fails, new_key, violations

COMPLETED = "ACTIVITY_STATUS_COMPLETED"
READ_WRITE_KEY = "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256"
LOGIN_KEY = "CREDENTIAL_TYPE_LOGIN"


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    turnkey_emulator.clock.freeze()
    return turnkey_emulator


def now_s(emu) -> int:
    return emu.clock.now_ns() // 1_000_000_000


def target(n: int = 1) -> TargetKey:
    return TargetKey.generate(bytes([n]) * 32)


def whoami(wire, organization_id: str, key):
    return wire.post("/public/v1/query/whoami", {"organizationId": organization_id}, key)


def keys_of(emu, user_id: str) -> list[dict]:
    return emu.get_api_keys(userId=user_id)["apiKeys"]


def summary(keys: list[dict]) -> list[tuple]:
    return [(k["apiKeyName"], k["credential"]["type"], k.get("expirationSeconds")) for k in keys]


def assert_stamps_until_expiry(emu, wire, org, user_id: str, key, lifetime: int) -> None:
    """``key`` stamps a query and an activity of ``user_id``, then expires after
    ``lifetime`` seconds with the real 401."""
    status, body = whoami(wire, org.organization_id, key)
    assert (status, body["userId"], body["organizationId"]) == (
        200,
        user_id,
        org.organization_id,
    )
    raw = activity_body("ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION", org.organization_id, {})
    status, body = wire.post("/public/v1/submit/create_read_only_session", raw, key)
    assert (status, body["activity"]["status"]) == (200, COMPLETED)
    assert body["activity"]["votes"][0]["publicKey"] == key.public_key
    emu.clock.advance(lifetime - 1)
    assert whoami(wire, org.organization_id, key)[0] == 200
    emu.clock.advance(1)
    status, body = whoami(wire, org.organization_id, key)
    assert (status, body["code"], body["message"], body["turnkeyErrorCode"]) == (
        401,
        16,
        messages.expired_api_key(key.public_key),
        "API_KEY_EXPIRED",
    )


# ----- independent JWT verification ---------------------------------------------------------


def b64url(segment: str) -> bytes:
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def verify_independently(token: str, notarizer_public_key: str) -> dict:
    """ES256 (r‖s) by the notarizer over SHA-256(SHA-256(header.payload)), checked with
    ``cryptography`` alone; the claims."""
    header, payload, signature = token.split(".")
    raw = b64url(signature)
    assert len(raw) == 64
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), bytes.fromhex(notarizer_public_key)
    )
    # ECDSA-with-SHA-256 over the first SHA-256 digest: the second hash is the verifier's.
    once = hashlib.sha256(f"{header}.{payload}".encode()).digest()
    key.verify(der, once, ec.ECDSA(hashes.SHA256()))
    assert json.loads(b64url(header)) == {"alg": "ES256", "typ": "JWT"}
    return json.loads(b64url(payload))


# ----- create_read_write_session ------------------------------------------------------------


def test_read_write_session_for_the_caller(emu, wire, turnkey_org):
    params = {"targetPublicKey": target().public_key}
    made = emu.call("create_read_write_session", params)
    activity = made.pop("activity")
    bundle, key_id = made["credentialBundle"], made["apiKeyId"]
    assert made == {
        "organizationId": turnkey_org.organization_id,
        "organizationName": "Test Organization",
        "userId": turnkey_org.user_id,
        "username": "Root User",
        "apiKeyId": key_id,
        "credentialBundle": bundle,
    }
    assert (activity["type"], activity["status"]) == (
        "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
        COMPLETED,
    )
    assert activity["intent"] == {"createReadWriteSessionIntentV2": params}
    assert activity["result"]["createReadWriteSessionResultV2"] == made
    key = decrypt_credential_bundle(bundle, target())
    (issued,) = [k for k in keys_of(emu, turnkey_org.user_id) if k["apiKeyId"] == key_id]
    assert issued["credential"] == {"publicKey": key.public_key, "type": READ_WRITE_KEY}
    assert (issued["apiKeyName"], issued["expirationSeconds"]) == (
        f"Read Write Session - {now_s(emu)}",
        "900",
    )
    assert emu.outbox.messages == []  # nothing is mailed: the bundle is the answer
    assert_stamps_until_expiry(emu, wire, turnkey_org, turnkey_org.user_id, key, 900)


def test_read_write_session_v1_by_email(emu, turnkey_org):
    user_id, _ = add_user(emu, "bob")
    emu.update_user(userId=user_id, userEmail="bob@acme.test")
    params = {
        "targetPublicKey": target().public_key,
        "email": "Bob@Acme.test",
        "apiKeyName": "bob's session",
        "expirationSeconds": "120",
    }
    made = emu.call(
        "create_read_write_session", params, activity_type="ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION"
    )
    activity = made.pop("activity")
    assert activity["intent"] == {"createReadWriteSessionIntent": params}
    assert activity["result"]["createReadWriteSessionResult"] == made
    assert (made["userId"], made["username"]) == (user_id, "bob")
    key = decrypt_credential_bundle(made["credentialBundle"], target())
    assert summary(keys_of(emu, user_id))[-1] == ("bob's session", READ_WRITE_KEY, "120")
    assert keys_of(emu, user_id)[-1]["credential"]["publicKey"] == key.public_key
    error = fails(
        emu,
        emu.call,
        "create_read_write_session",
        {**params, "email": "nobody@acme.test"},
        activity_type="ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION",
    )
    assert error_of(error) == (
        404,
        5,
        messages.user_with_email_not_found("nobody@acme.test", turnkey_org.organization_id),
        "",
    )


def test_read_write_session_for_another_user_and_policies(emu, turnkey_org):
    bob_id, bob_key = add_user(emu, "bob")
    carol_id, _ = add_user(emu, "carol")
    # the root user, for bob
    made = emu.create_read_write_session(targetPublicKey=target().public_key, userId=bob_id)
    assert (made["userId"], made["username"]) == (bob_id, "bob")
    # bob, not in the root quorum, needs a policy: for carol, for himself, named or not
    for params in ({"userId": carol_id}, {"userId": bob_id}, {}):
        error = fails(
            emu,
            emu.create_read_write_session,
            targetPublicKey=target(3).public_key,
            caller=bob_key,
            **params,
        )
        assert error_of(error) == (403, 7, messages.IMPLICIT_DENY, "")
    # the docs' policy (features/policies/examples/access-control.mdx)
    emu.create_policy(
        policyName="bob's sessions",
        effect="EFFECT_ALLOW",
        consensus=f"approvers.any(user, user.id == '{bob_id}')",
        condition="activity.kind == 'CREATE_READ_WRITE_SESSION'",
        notes="",
    )
    made = emu.create_read_write_session(targetPublicKey=target(2).public_key, caller=bob_key)
    assert (made["userId"], made["activity"]["status"]) == (bob_id, COMPLETED)
    assert decrypt_credential_bundle(made["credentialBundle"], target(2)).public_key in {
        k["credential"]["publicKey"] for k in keys_of(emu, bob_id)
    }
    assert summary(keys_of(emu, carol_id)) == [("carol key", "CREDENTIAL_TYPE_API_KEY_P256", None)]


def test_read_write_session_invalidate_existing(emu, turnkey_org):
    user = turnkey_org.user_id
    emu.create_api_keys(userId=user, apiKeys=[api_key_params(new_key(), "short", "600")])
    emu.stamp_login(publicKey=target(8).compressed_public_key)
    first = emu.create_read_write_session(targetPublicKey=target(1).public_key)["apiKeyId"]
    second = emu.create_read_write_session(targetPublicKey=target(2).public_key)["apiKeyId"]
    third = emu.create_read_write_session(
        targetPublicKey=target(3).public_key, invalidateExisting=True
    )["apiKeyId"]
    keys = keys_of(emu, user)
    stamp = now_s(emu)
    assert summary(keys) == [
        ("Root API key", "CREDENTIAL_TYPE_API_KEY_P256", None),
        ("short", "CREDENTIAL_TYPE_API_KEY_P256", "600"),
        (f"Session Key - {stamp}", LOGIN_KEY, "900"),
        (f"Read Write Session - {stamp}", READ_WRITE_KEY, "900"),
    ]
    ids = [k["apiKeyId"] for k in keys]
    assert ids[-1] == third and first not in ids and second not in ids


def test_read_write_session_errors(emu, turnkey_org):
    error = fails(emu, emu.create_read_write_session, targetPublicKey="zz")
    assert violations(error) == [
        {
            "field": "targetPublicKey",
            "description": "This field must be a valid hexadecimal string.",
        }
    ]
    not_a_point = "02" + "ff" * 32
    error = fails(emu, emu.create_read_write_session, targetPublicKey=not_a_point)
    assert error_of(error) == (400, 3, messages.invalid_target_public_key(not_a_point), "")
    for expiration in ("0", "-1", "soon"):
        error = fails(
            emu,
            emu.create_read_write_session,
            targetPublicKey=target().public_key,
            expirationSeconds=expiration,
        )
        assert error_of(error) == (400, 3, "invalid api key expiration", "REQUEST_INVALID")
    missing = "00000000-0000-4000-8000-000000000000"
    error = fails(
        emu, emu.create_read_write_session, targetPublicKey=target().public_key, userId=missing
    )
    assert error_of(error) == (
        404,
        5,
        messages.user_not_found(missing, turnkey_org.organization_id),
        "",
    )


# ----- create_read_only_session --------------------------------------------------------------


def test_read_only_session(emu, turnkey_org):
    before = keys_of(emu, turnkey_org.user_id)
    made = emu.create_read_only_session()
    activity = made.pop("activity")
    session = made["session"]
    assert made == {
        "organizationId": turnkey_org.organization_id,
        "organizationName": "Test Organization",
        "userId": turnkey_org.user_id,
        "username": "Root User",
        "session": session,
        "sessionExpiry": str(now_s(emu) + 3600),
    }
    assert (activity["type"], activity["status"]) == (
        "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION",
        COMPLETED,
    )
    assert activity["intent"] == {"createReadOnlySessionIntent": {}}
    assert activity["result"]["createReadOnlySessionResult"] == made
    assert len(session) == 64 and int(session, 16) >= 0
    assert emu.create_read_only_session()["session"] != session
    assert keys_of(emu, turnkey_org.user_id) == before  # no credential is made


def test_read_only_session_token_follows_the_seed():
    """The session token comes from the id stream: the same seed, the same token."""

    def token() -> str:
        emu = Emulator(seed=11)
        emu.create_organization("Acme")
        return emu.create_read_only_session()["session"]

    assert token() == token()


# ----- stamp_login ----------------------------------------------------------------------------


def test_stamp_login(emu, wire, turnkey_org):
    client = target(5)
    params = {"publicKey": client.compressed_public_key}
    made = emu.call("stamp_login", params)
    activity, session = made["activity"], made["session"]
    assert set(made) == {"activity", "session"}
    assert (activity["type"], activity["status"]) == ("ACTIVITY_TYPE_STAMP_LOGIN", COMPLETED)
    assert activity["intent"] == {"stampLoginIntent": params}
    assert activity["result"]["stampLoginResult"] == {"session": session}
    claims = {
        "exp": now_s(emu) + 900,
        "public_key": client.compressed_public_key,
        "session_type": "SESSION_TYPE_READ_WRITE",
        "user_id": turnkey_org.user_id,
        "organization_id": turnkey_org.organization_id,
    }
    assert verify_session_jwt(session, emu.enclave.notarizer_public_key) == claims
    assert verify_independently(session, emu.enclave.notarizer_public_key) == claims
    # a JWT with its payload changed does not verify
    header, _, signature = session.split(".")
    forged = base64.urlsafe_b64encode(json.dumps({**claims, "exp": 1}).encode()).decode()
    with pytest.raises(InvalidSignature):
        verify_independently(
            f"{header}.{forged.rstrip('=')}.{signature}", emu.enclave.notarizer_public_key
        )
    # the key: registered as a login key of the caller
    login_key = keys_of(emu, turnkey_org.user_id)[-1]
    assert login_key["credential"] == {"publicKey": client.compressed_public_key, "type": LOGIN_KEY}
    assert (login_key["apiKeyName"], login_key["expirationSeconds"]) == (
        f"Session Key - {now_s(emu)}",
        "900",
    )
    assert_stamps_until_expiry(emu, wire, turnkey_org, turnkey_org.user_id, client.api_key, 900)


def test_stamp_login_expiry_profile_and_invalidate_existing(emu, turnkey_org):
    first = emu.stamp_login(publicKey=target(1).compressed_public_key)["session"]
    emu.create_read_write_session(targetPublicKey=target(9).public_key)
    profile = emu.create_session_profile(session_profile_name="everything", scope="true")
    made = emu.stamp_login(
        publicKey=target(2).compressed_public_key,
        expirationSeconds="60",
        sessionProfileId=profile["sessionProfileId"],
        invalidateExisting=True,
    )
    claims = verify_session_jwt(made["session"], emu.enclave.notarizer_public_key)
    assert claims == {
        "exp": now_s(emu) + 60,
        "public_key": target(2).compressed_public_key,
        "session_type": "everything",  # the profile's name
        "user_id": turnkey_org.user_id,
        "organization_id": turnkey_org.organization_id,
        "session_profile_id": profile["sessionProfileId"],
        "scope": "true",
    }
    assert verify_independently(made["session"], emu.enclave.notarizer_public_key) == claims
    keys = keys_of(emu, turnkey_org.user_id)
    stamp = now_s(emu)
    assert summary(keys) == [
        ("Root API key", "CREDENTIAL_TYPE_API_KEY_P256", None),
        (f"Read Write Session - {stamp}", READ_WRITE_KEY, "900"),
        (f"Session Key - {stamp}", LOGIN_KEY, "60"),
    ]
    first_key = verify_session_jwt(first, emu.enclave.notarizer_public_key)["public_key"]
    assert first_key not in {k["credential"]["publicKey"] for k in keys}


def test_stamp_login_errors(emu, turnkey_org):
    def refused(public_key: str, **extra):
        return fails(emu, emu.stamp_login, publicKey=public_key, **extra)

    hex_violation = [
        {"field": "publicKey", "description": "This field must be a valid hexadecimal string."}
    ]
    assert violations(refused("not hex")) == hex_violation
    not_p256 = [
        {
            "field": "publicKey",
            "description": "This field must be a valid API_KEY_CURVE_P256 public key.",
        }
    ]
    assert violations(refused(target().public_key)) == not_p256  # uncompressed
    assert violations(refused("02" + "ff" * 32)) == not_p256  # not on the curve
    assert violations(refused("04" + "11" * 32)) == not_p256
    error = refused(target().compressed_public_key, expirationSeconds="0")
    assert error_of(error) == (400, 3, "invalid api key expiration", "REQUEST_INVALID")
    # a key another user of the organization holds
    _, bob_key = add_user(emu, "bob")
    error = refused(bob_key.public_key)
    assert error_of(error) == (
        400,
        3,
        messages.duplicate_api_key(bob_key.public_key),
        "REQUEST_INVALID",
    )


def test_stamp_login_by_a_non_root_user_needs_a_policy(emu, turnkey_org):
    """The registry's self-service reads ``userId``, which stamp_login does not carry."""
    bob_id, bob_key = add_user(emu, "bob")
    error = fails(emu, emu.stamp_login, publicKey=target().compressed_public_key, caller=bob_key)
    assert error_of(error) == (403, 7, messages.IMPLICIT_DENY, "")
    emu.create_policy(
        policyName="bob logs in",
        effect="EFFECT_ALLOW",
        consensus=f"approvers.any(user, user.id == '{bob_id}')",
        condition="activity.type == 'ACTIVITY_TYPE_STAMP_LOGIN'",
        notes="",
    )
    made = emu.stamp_login(publicKey=target().compressed_public_key, caller=bob_key)
    claims = verify_session_jwt(made["session"], emu.enclave.notarizer_public_key)
    assert claims["user_id"] == bob_id


# ----- through the official Python SDK -----------------------------------------------------


def test_sessions_through_the_sdk(sdk, turnkey_emulator, turnkey_org):
    from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig
    from turnkey_http import TurnkeyClient
    from turnkey_sdk_types import (
        CreateReadOnlySessionBody,
        CreateReadWriteSessionBody,
        GetWhoamiBody,
        StampLoginBody,
        TurnkeyNetworkError,
    )

    emu = turnkey_emulator
    org_id, user_id = turnkey_org.organization_id, turnkey_org.user_id

    def client_with(key) -> TurnkeyClient:
        return TurnkeyClient(
            base_url=sdk.base_url,
            stamper=ApiKeyStamper(ApiKeyStamperConfig(key.public_key, key.private_key)),
            organization_id=org_id,
        )

    rw = sdk.create_read_write_session(
        CreateReadWriteSessionBody(targetPublicKey=target().public_key)
    )
    assert rw.activity.type.value == "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2"
    assert (rw.organizationId, rw.organizationName, rw.userId, rw.username) == (
        org_id,
        "Test Organization",
        user_id,
        "Root User",
    )
    session_key = decrypt_credential_bundle(rw.credentialBundle, target())
    rw_client = client_with(session_key)
    assert rw_client.get_whoami(GetWhoamiBody()).userId == user_id

    ro = rw_client.create_read_only_session(CreateReadOnlySessionBody())
    assert (ro.organizationId, ro.userId, ro.username) == (org_id, user_id, "Root User")
    assert int(ro.sessionExpiry) == int(ro.activity.createdAt.seconds) + 3600

    # the read-write session key logs in a key the client made itself
    login = target(7)
    made = rw_client.stamp_login(StampLoginBody(publicKey=login.compressed_public_key))
    assert made.activity.type.value == "ACTIVITY_TYPE_STAMP_LOGIN"
    claims = verify_independently(made.session, emu.enclave.notarizer_public_key)
    assert (claims["public_key"], claims["user_id"], claims["organization_id"]) == (
        login.compressed_public_key,
        user_id,
        org_id,
    )
    login_client = client_with(login.api_key)
    assert login_client.get_whoami(GetWhoamiBody()).userId == user_id

    emu.clock.advance(901)
    for expired, client in ((session_key, rw_client), (login.api_key, login_client)):
        with pytest.raises(TurnkeyNetworkError) as caught:
            client.get_whoami(GetWhoamiBody())
        assert caught.value.status_code == 401
        assert messages.expired_api_key(expired.public_key) in str(caught.value)
