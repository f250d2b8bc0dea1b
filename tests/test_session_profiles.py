"""Session profiles: create, get, list, and what they do to the sessions login activities issue
(features/authentication/sessions/session-profiles: scope on every activity, expiry as a ceiling)."""

from __future__ import annotations

import json

import pytest

from emulator.accounts import account_spec
from emulator.crypto.stamps import sign_stamp
from emulator.ground import messages
from emulator.http.app import handle
from emulator.testing.client_crypto import TargetKey, verify_session_jwt

from .helpers import activity_body, error_of, fails, violations

SIGN_ONLY = "activity.action == 'SIGN'"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"


@pytest.fixture
def emu(turnkey_emulator):
    turnkey_emulator.clock.freeze()
    return turnkey_emulator


def profile(emu, scope: str = SIGN_ONLY, **params) -> str:
    made = emu.create_session_profile(session_profile_name="signer", scope=scope, **params)
    return made["sessionProfileId"]


def login(emu, profile_id: str | None, seed: int = 1, **params):
    """A stamp_login session: the session key pair and the JWT's claims."""
    key = TargetKey.generate(bytes([seed]) * 32)
    made = emu.stamp_login(
        public_key=key.compressed_public_key, session_profile_id=profile_id, **params
    )
    return key.api_key, verify_session_jwt(made["session"], emu.enclave.notarizer_public_key)


def test_create_get_and_list_through_the_official_sdk(sdk, emu, turnkey_org):
    from turnkey_sdk_types import (
        CreateSessionProfileBody,
        GetSessionProfileBody,
        GetSessionProfilesBody,
    )

    done = sdk.create_session_profile(
        CreateSessionProfileBody(
            sessionProfileName="signer", scope=SIGN_ONLY, expirationSeconds="600", notes="n"
        )
    )
    assert done.activity.status.value == COMPLETED
    assert done.activity.type.value == "ACTIVITY_TYPE_CREATE_SESSION_PROFILE"
    profile_id = done.sessionProfileId
    one = sdk.get_session_profile(GetSessionProfileBody(sessionProfileId=profile_id))
    fetched = one.sessionProfile
    assert (fetched.sessionProfileId, fetched.sessionProfileName, fetched.scope) == (
        profile_id,
        "signer",
        SIGN_ONLY,
    )
    assert (fetched.expirationSeconds, fetched.notes) == ("600", "n")
    listed = sdk.get_session_profiles(GetSessionProfilesBody()).sessionProfiles
    assert [p.sessionProfileId for p in listed] == [profile_id]


def test_a_sub_organization_sees_its_parents_profiles_and_its_own(emu, turnkey_org):
    parents = profile(emu)
    sub = emu.create_organization("Sub", parent_organization_id=turnkey_org.organization_id)
    own = emu.create_session_profile(
        session_profile_name="own", scope="true", organization_id=sub.organization_id
    )["sessionProfileId"]
    seen = emu.get_session_profiles(organization_id=sub.organization_id)["sessionProfiles"]
    assert [p["sessionProfileId"] for p in seen] == [parents, own]
    assert [p["sessionProfileId"] for p in emu.get_session_profiles()["sessionProfiles"]] == [
        parents
    ]
    got = emu.get_session_profile(session_profile_id=parents, organization_id=sub.organization_id)
    assert got["sessionProfile"]["scope"] == SIGN_ONLY


def test_bad_profiles_are_refused(emu, turnkey_org):
    error = fails(emu, emu.create_session_profile, session_profile_name="x", scope="activity.")
    assert error.status == 400 and error.message.startswith("invalid session profile scope: ")
    error = fails(
        emu,
        emu.create_session_profile,
        session_profile_name="x",
        scope="true",
        expiration_seconds="soon",
    )
    assert [v["field"] for v in violations(error)] == ["expirationSeconds"]
    error = fails(
        emu,
        emu.create_session_profile,
        session_profile_name="x",
        scope="true",
        expiration_seconds="0",
    )
    assert error.message == messages.SESSION_PROFILE_EXPIRATION_ZERO
    missing = "00000000-0000-4000-8000-000000000000"
    error = fails(emu, emu.get_session_profile, session_profile_id=missing)
    assert error_of(error) == (
        404,
        5,
        messages.session_profile_not_found(missing, turnkey_org.organization_id),
        "",
    )
    error = fails(
        emu,
        emu.stamp_login,
        public_key=TargetKey.generate().compressed_public_key,
        session_profile_id=missing,
    )
    assert error.status == 404


def test_the_session_jwt_names_the_profile_its_scope_and_its_name(emu, turnkey_org):
    profile_id = profile(emu)
    key, claims = login(emu, profile_id)
    assert claims == {
        "exp": emu.clock.now_ms() // 1000 + 900,
        "public_key": key.public_key,
        "session_type": "signer",
        "user_id": turnkey_org.user_id,
        "organization_id": turnkey_org.organization_id,
        "session_profile_id": profile_id,
        "scope": SIGN_ONLY,
    }
    (login_key,) = [
        k
        for k in emu.get_api_keys(user_id=turnkey_org.user_id)["apiKeys"]
        if k["credential"]["publicKey"] == key.public_key
    ]
    assert login_key["credential"] == {
        "publicKey": key.public_key,
        "type": "CREDENTIAL_TYPE_LOGIN",
        "sessionProfileId": profile_id,
    }


@pytest.mark.parametrize(
    ("intent", "ceiling", "lifetime"),
    [
        ("300", "600", 300),  # both: the shorter
        ("1200", "600", 600),
        (None, "600", 600),  # the profile's alone
        ("300", None, 300),  # the intent's alone
        (None, None, 900),  # neither: the default
    ],
)
def test_the_profiles_expiry_is_a_ceiling(emu, intent, ceiling, lifetime):
    params = {} if ceiling is None else {"expiration_seconds": ceiling}
    profile_id = profile(emu, "true", **params)
    extra = {} if intent is None else {"expiration_seconds": intent}
    _, claims = login(emu, profile_id, **extra)
    assert claims["exp"] == emu.clock.now_ms() // 1000 + lifetime


def test_the_scope_judges_every_activity_of_the_session(emu, turnkey_org):
    wallet = emu.create_wallet(wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")])
    address = wallet["addresses"][0]
    key, _ = login(emu, profile(emu))
    signed = emu.sign_raw_payload(
        sign_with=address,
        payload="00" * 32,
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function="HASH_FUNCTION_NO_OP",
        caller=key,
    )
    assert signed["activity"]["status"] == COMPLETED
    error = fails(emu, emu.create_wallet, wallet_name="x", accounts=[], caller=key)
    assert error.status == 403
    assert error.message == messages.session_scope_denied(
        emu.get_session_profiles()["sessionProfiles"][0]["sessionProfileId"]
    )
    assert emu.get_whoami(caller=key)["userId"] == turnkey_org.user_id  # reads are not judged
    # a session without a profile, and the root's own key, are not limited
    plain, _ = login(emu, None, seed=2)
    assert emu.create_wallet(wallet_name="y", accounts=[], caller=plain)["walletId"]


def test_a_scope_that_fails_to_evaluate_denies(emu):
    key, _ = login(emu, profile(emu, "wallet.label == 'hot'"))  # no wallet in a create_users
    error = fails(emu, emu.create_users, users=[{"userName": "x"}], caller=key)
    assert error.status == 403


def test_over_the_wire_a_scoped_session_is_refused_in_the_api_shape(emu, turnkey_org):
    key, _ = login(emu, profile(emu))
    body = activity_body(
        "ACTIVITY_TYPE_CREATE_WALLET",
        turnkey_org.organization_id,
        {"walletName": "w", "accounts": []},
    )
    raw = json.dumps(body).encode()
    headers = {"x-stamp": sign_stamp(raw, key).header_value()}
    status, payload = handle(emu.world, "POST", "/public/v1/submit/create_wallet", headers, raw)
    answer = json.loads(payload)
    assert status == 403 and answer["code"] == 7
    assert answer["message"].startswith("the scope of session profile")
