"""Social logins: oauth, oauth_login, create/delete/get_oauth_providers (ops/oauth.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from emulator import Emulator
from emulator.facade.oidc import DEFAULT_ISSUER, OidcProvider, nonce_for
from emulator.ground import messages
from emulator.testing.client_crypto import (
    TargetKey,
    decrypt_credential_bundle,
    verify_session_jwt,
)

from .helpers import activity_body, add_user, error_of, fails, violations

AUD = "emulator-web-app"
ANN = "google-oauth2|ann"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
INVALID = (400, 3, messages.INVALID_OIDC_TOKEN, "INVALID_OIDC_TOKEN")
WHOAMI = "/public/v1/query/whoami"


@dataclass
class Social:
    """A sub-organization whose one user, ann, signs in with the emulator's identity provider."""

    sub_id: str
    user_id: str
    now_s: int


@pytest.fixture
def emu(turnkey_emulator: Emulator, turnkey_org) -> Emulator:
    turnkey_emulator.clock.freeze()
    return turnkey_emulator


@pytest.fixture
def social(emu) -> Social:
    made = emu.create_sub_organization(
        sub_organization_name="Social",
        root_users=[
            {
                "userName": "ann",
                "userEmail": "ann@gmail.test",
                "apiKeys": [],
                "authenticators": [],
                "oauthProviders": [
                    {"providerName": "emulator idp", "oidcToken": emu.oidc.token(sub=ANN, aud=AUD)}
                ],
            }
        ],
        root_quorum_threshold=1,
    )
    return Social(made["subOrganizationId"], made["rootUserIds"][0], emu.clock.now_ns() // 10**9)


def real_result(activity: dict) -> dict:
    """An activity's result without the seed document's envelope (``result.activity``)."""
    return {k: v for k, v in activity["result"].items() if k != "activity"}


def acts_as(wire, org_id: str, key, user_id: str) -> None:
    """``key`` stamps a query and an activity in ``org_id`` as ``user_id``, and both succeed."""
    status, me = wire.post(WHOAMI, {"organizationId": org_id}, key)
    assert (status, me["organizationId"], me["userId"]) == (200, org_id, user_id)
    body = activity_body(
        "ACTIVITY_TYPE_CREATE_USER_TAG", org_id, {"userTagName": "signed-in", "userIds": []}
    )
    status, answer = wire.post("/public/v1/submit/create_user_tag", body, key)
    assert (status, answer["activity"]["status"]) == (200, COMPLETED)
    assert answer["activity"]["votes"][0]["userId"] == user_id


# ----- oauth ------------------------------------------------------------------------


def test_oauth_answers_a_credential_bundle_whose_key_works(emu, social, wire):
    target = TargetKey.generate(b"\x01" * 32)
    token = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for(target.public_key))
    out = emu.oauth(
        organization_id=social.sub_id, oidc_token=token, target_public_key=target.public_key
    )
    activity = out["activity"]
    assert (activity["type"], activity["status"], activity["organizationId"]) == (
        "ACTIVITY_TYPE_OAUTH",
        COMPLETED,
        social.sub_id,
    )
    assert activity["intent"] == {
        "oauthIntent": {"oidcToken": token, "targetPublicKey": target.public_key}
    }
    assert real_result(activity) == {
        "oauthResult": {
            "userId": social.user_id,
            "apiKeyId": out["apiKeyId"],
            "credentialBundle": out["credentialBundle"],
        }
    }
    assert out["userId"] == social.user_id
    key = decrypt_credential_bundle(out["credentialBundle"], target)
    now_ns = emu.clock.now_ns()
    at = {"seconds": str(now_ns // 10**9), "nanos": str(now_ns % 10**9)}
    api_key = emu.get_api_key(organization_id=social.sub_id, api_key_id=out["apiKeyId"])
    assert api_key["apiKey"] == {
        "credential": {"publicKey": key.public_key, "type": "CREDENTIAL_TYPE_OAUTH_KEY_P256"},
        "apiKeyId": out["apiKeyId"],
        "apiKeyName": f"Oauth - {social.now_s}",
        "createdAt": at,
        "updatedAt": at,
        "expirationSeconds": "900",
    }
    acts_as(wire, social.sub_id, key, social.user_id)


def test_oauth_name_expiry_and_invalidate_existing(emu, social, wire):
    def oauth(**options) -> tuple[str, object]:
        target = TargetKey.generate()
        token = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for(target.public_key))
        out = emu.oauth(
            organization_id=social.sub_id,
            oidc_token=token,
            target_public_key=target.public_key,
            **options,
        )
        return out["apiKeyId"], decrypt_credential_bundle(out["credentialBundle"], target)

    first_id, _ = oauth()
    second_id, second = oauth(
        api_key_name="ann's phone", expiration_seconds="60", invalidate_existing=True
    )
    keys = emu.get_api_keys(organization_id=social.sub_id, user_id=social.user_id)["apiKeys"]
    assert [(k["apiKeyId"], k["apiKeyName"], k["expirationSeconds"]) for k in keys] == [
        (second_id, "ann's phone", "60")
    ]
    assert first_id != second_id
    emu.clock.advance(60)
    status, answer = wire.post(WHOAMI, {"organizationId": social.sub_id}, second)
    assert (status, answer["message"]) == (401, messages.expired_api_key(second.public_key))


def test_oauth_nonce_binds_the_target_key_as_sent(emu, social):
    target = TargetKey.generate(b"\x03" * 32)
    # the nonce of the compressed form does not bind the uncompressed key the client sent
    token = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for(target.compressed_public_key))
    error = fails(
        emu,
        emu.oauth,
        organization_id=social.sub_id,
        oidc_token=token,
        target_public_key=target.public_key,
    )
    assert error_of(error) == INVALID
    bad_target = "04" + "00" * 64
    token = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for(bad_target))
    error = fails(
        emu,
        emu.oauth,
        organization_id=social.sub_id,
        oidc_token=token,
        target_public_key=bad_target,
    )
    assert error_of(error) == (400, 3, messages.invalid_target_public_key(bad_target), "")


# ----- oauth_login ------------------------------------------------------------------


def test_oauth_login_answers_a_session_whose_key_works(emu, social, wire, turnkey_org):
    session_key = TargetKey.generate(b"\x02" * 32).api_key
    token = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for(session_key.public_key))
    # the parent organization's key runs it for the sub-organization's user (§11.3)
    out = emu.oauth_login(
        organization_id=social.sub_id,
        oidc_token=token,
        public_key=session_key.public_key,
        caller=turnkey_org,
    )
    activity = out["activity"]
    assert (activity["type"], activity["organizationId"], activity["status"]) == (
        "ACTIVITY_TYPE_OAUTH_LOGIN",
        social.sub_id,
        COMPLETED,
    )
    assert activity["intent"] == {
        "oauthLoginIntent": {"oidcToken": token, "publicKey": session_key.public_key}
    }
    assert activity["votes"][0]["userId"] == turnkey_org.user_id
    claims = verify_session_jwt(out["session"], emu.enclave.notarizer_public_key)
    assert claims == {
        "exp": social.now_s + 900,
        "public_key": session_key.public_key,
        "session_type": "SESSION_TYPE_READ_WRITE",
        "user_id": social.user_id,
        "organization_id": social.sub_id,
    }
    (key,) = emu.get_api_keys(organization_id=social.sub_id, user_id=social.user_id)["apiKeys"]
    assert (key["credential"], key["apiKeyName"], key["expirationSeconds"]) == (
        {"publicKey": session_key.public_key, "type": "CREDENTIAL_TYPE_LOGIN"},
        f"Session Key - {social.now_s}",
        "900",
    )
    acts_as(wire, social.sub_id, session_key, social.user_id)


def test_oauth_login_options_and_tknonce(emu, social):
    session_key = TargetKey.generate(b"\x04" * 32).api_key
    nonce = nonce_for(session_key.public_key)
    token = emu.oidc.token(sub=ANN, aud=[AUD, "other"], extra_claims={"tknonce": nonce})
    # a profile of the parent organization, which its sub-organizations see
    profile = emu.create_session_profile(session_profile_name="p", scope="true")
    profile_id = profile["sessionProfileId"]
    out = emu.oauth_login(
        organization_id=social.sub_id,
        oidc_token=token,
        public_key=session_key.public_key,
        expiration_seconds="120",
        invalidate_existing=True,
        session_profile_id=profile_id,
    )
    claims = verify_session_jwt(out["session"], emu.enclave.notarizer_public_key)
    assert (claims["exp"], claims["session_profile_id"]) == (social.now_s + 120, profile_id)


def test_only_the_parent_runs_them_from_outside(emu, social, turnkey_org):
    session_key = TargetKey.generate(b"\x05" * 32).api_key
    token = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for(session_key.public_key))
    # a key of an unrelated organization is not found in the sub-organization or its parent
    other = emu.create_organization("Other")
    error = fails(
        emu,
        emu.oauth_login,
        organization_id=social.sub_id,
        oidc_token=token,
        public_key=session_key.public_key,
        caller=other,
    )
    assert (error.status, error.turnkey_error_code) == (401, "PUBLIC_KEY_NOT_FOUND")
    # the parent's key may run the login flows there, but not manage the user's providers
    error = fails(
        emu,
        emu.delete_oauth_providers,
        organization_id=social.sub_id,
        user_id=social.user_id,
        provider_ids=[provider_ids(emu, social)[0]],
        caller=turnkey_org,
    )
    mismatch = messages.organization_mismatch(social.sub_id, turnkey_org.organization_id)
    assert error_of(error) == (400, 3, mismatch, "ORGANIZATION_MISMATCH")
    # the sub-organization's own user may run them too
    login = emu.oauth_login(
        organization_id=social.sub_id, oidc_token=token, public_key=session_key.public_key
    )
    second = TargetKey.generate(b"\x06" * 32).api_key
    token = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for(second.public_key))
    again = emu.oauth_login(
        organization_id=social.sub_id,
        oidc_token=token,
        public_key=second.public_key,
        caller=session_key,
    )
    assert again["activity"]["votes"][0]["userId"] == social.user_id
    assert login["session"] != again["session"]


def _tamper_signature(token: str) -> str:
    head, body, signature = token.split(".")
    flipped = "A" if signature[5] != "A" else "B"
    return f"{head}.{body}.{signature[:5]}{flipped}{signature[6:]}"


def test_oauth_login_refuses_bad_tokens_and_changes_nothing(emu, social):
    key = TargetKey.generate(b"\x07" * 32).api_key
    nonce = nonce_for(key.public_key)
    stranger = OidcProvider("https://stranger.invalid", clock=emu.clock)
    expiring = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce, expires_in=30)
    cases = {
        "tampered signature": _tamper_signature(emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce)),
        "unknown issuer": stranger.token(sub=ANN, aud=AUD, nonce=nonce),
        "wrong nonce": emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for("02" + "cd" * 32)),
        "no nonce": emu.oidc.token(sub=ANN, aud=AUD),
        "missing aud": emu.oidc.token(sub=ANN, aud=None, nonce=nonce),
        "missing sub": emu.oidc.token(sub=None, aud=AUD, nonce=nonce),
        "not a JWT": "not-a-token",
    }
    for name, token in cases.items():
        error = fails(
            emu,
            emu.oauth_login,
            organization_id=social.sub_id,
            oidc_token=token,
            public_key=key.public_key,
        )
        assert error_of(error) == INVALID, name
    emu.clock.advance(30)
    error = fails(
        emu,
        emu.oauth_login,
        organization_id=social.sub_id,
        oidc_token=expiring,
        public_key=key.public_key,
    )
    assert error_of(error) == INVALID


def test_a_valid_token_of_nobody_here(emu, social):
    key = TargetKey.generate(b"\x08" * 32).api_key
    nonce = nonce_for(key.public_key)
    for token in (
        emu.oidc.token(sub="someone-else", aud=AUD, nonce=nonce),
        emu.oidc.token(sub=ANN, aud="another-app", nonce=nonce),
    ):
        error = fails(
            emu,
            emu.oauth_login,
            organization_id=social.sub_id,
            oidc_token=token,
            public_key=key.public_key,
        )
        assert error_of(error) == (404, 5, messages.oauth_user_not_found(social.sub_id), "")
    bad_key = "02" + "ff" * 32  # x is not below the field prime: no point
    token = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for(bad_key))
    error = fails(
        emu, emu.oauth_login, organization_id=social.sub_id, oidc_token=token, public_key=bad_key
    )
    assert violations(error) == [
        {
            "field": "publicKey",
            "description": "This field must be a valid API_KEY_CURVE_P256 public key.",
        }
    ]


# ----- OAuth providers --------------------------------------------------------------


def provider_ids(emu, social) -> list[str]:
    found = emu.get_oauth_providers(organization_id=social.sub_id, user_id=social.user_id)
    return [p["providerId"] for p in found["oauthProviders"]]


def test_create_and_get_oauth_providers(emu, turnkey_org):
    bob, _ = add_user(emu, "bob")
    token = emu.oidc.token(sub="bob-sub", aud=AUD)
    now_ns = emu.clock.now_ns()
    made = emu.create_oauth_providers(
        user_id=bob,
        oauth_providers=[
            {"providerName": "web", "oidcToken": token},
            {"providerName": "ios", "oidcClaims": emu.oidc.oidc_claims(sub="bob-sub", aud="ios")},
        ],
    )
    activity = made["activity"]
    assert activity["type"] == "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2"
    assert list(activity["intent"]) == ["createOauthProvidersIntentV2"]
    assert real_result(activity) == {
        "createOauthProvidersResultV2": {"providerIds": made["providerIds"]}
    }
    at = {"seconds": str(now_ns // 10**9), "nanos": str(now_ns % 10**9)}
    web, ios = made["providerIds"]
    expected = [
        {
            "providerId": web,
            "providerName": "web",
            "issuer": DEFAULT_ISSUER,
            "audience": AUD,
            "subject": "bob-sub",
            "createdAt": at,
            "updatedAt": at,
        },
        {
            "providerId": ios,
            "providerName": "ios",
            "issuer": DEFAULT_ISSUER,
            "audience": "ios",
            "subject": "bob-sub",
            "createdAt": at,
            "updatedAt": at,
        },
    ]
    assert emu.get_oauth_providers(user_id=bob)["oauthProviders"] == expected
    assert emu.get_user(user_id=bob)["user"]["oauthProviders"] == expected
    # without userId: the caller's own (the root user has none)
    assert emu.get_oauth_providers()["oauthProviders"] == []


def test_create_oauth_providers_v1_is_the_seed_shape(emu, turnkey_org):
    token = emu.oidc.token(sub="root-sub", aud=AUD)
    made = emu.create_oauth_providers(
        user_id=turnkey_org.user_id,
        oauth_providers=[{"providerName": "idp", "oidcToken": token}],
        activity_type="ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
    )
    activity = made["activity"]
    assert activity["intent"] == {
        "createOauthProvidersIntent": {
            "userId": turnkey_org.user_id,
            "oauthProviders": [{"providerName": "idp", "oidcToken": token}],
        }
    }
    assert real_result(activity) == {
        "createOauthProvidersResult": {"providerIds": made["providerIds"]}
    }
    # the seed document's envelope names the same type, intent and result
    assert activity["result"]["activity"] == {
        "type": "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
        "intent": activity["intent"],
        "result": real_result(activity),
    }


def test_create_oauth_providers_refusals_change_nothing(emu, turnkey_org):
    bob, _ = add_user(emu, "bob")
    carl, _ = add_user(emu, "carl")
    token = emu.oidc.token(sub="bob-sub", aud=AUD)
    emu.create_oauth_providers(
        user_id=bob, oauth_providers=[{"providerName": "a", "oidcToken": token}]
    )
    exists = (
        400,
        3,
        messages.oauth_provider_exists(DEFAULT_ISSUER, AUD, "bob-sub"),
        "OAUTH_PROVIDER_ALREADY_EXISTS",
    )
    # the same identity on another user of the organization, or twice on bob
    for user_id in (carl, bob):
        error = fails(
            emu,
            emu.create_oauth_providers,
            user_id=user_id,
            oauth_providers=[{"providerName": "b", "oidcToken": token}],
        )
        assert error_of(error) == exists
    twice = [{"providerName": n, "oidcToken": emu.oidc.token(sub="c", aud=AUD)} for n in "xy"]
    error = fails(emu, emu.create_oauth_providers, user_id=carl, oauth_providers=twice)
    assert error.turnkey_error_code == "OAUTH_PROVIDER_ALREADY_EXISTS"
    # tokens that do not verify
    unsigned = token.rsplit(".", 1)[0] + ".c2ln"
    expired = emu.oidc.token(sub="carl", aud=AUD, issued_at=emu.clock.now_ns() // 10**9 - 3600)
    for bad in (unsigned, expired):
        error = fails(
            emu,
            emu.create_oauth_providers,
            user_id=carl,
            oauth_providers=[{"providerName": "c", "oidcToken": bad}],
        )
        assert error_of(error) == INVALID
    error = fails(
        emu, emu.create_oauth_providers, user_id=carl, oauth_providers=[{"providerName": "c"}]
    )
    assert error_of(error) == INVALID
    # the per-user limit
    emu.settings.max_oauth_providers_per_user = 2
    three = [
        {"providerName": f"p{i}", "oidcClaims": emu.oidc.oidc_claims(sub=f"s{i}", aud=AUD)}
        for i in range(3)
    ]
    error = fails(emu, emu.create_oauth_providers, user_id=carl, oauth_providers=three)
    assert error_of(error) == (
        429,
        8,
        messages.MAX_OAUTH_PROVIDERS,
        "RATE_LIMIT_EXCEEDED",
    )


def test_one_identity_in_two_organizations(emu, social, turnkey_org):
    # ann's identity is taken in the sub-organization, not in the parent
    made = emu.create_oauth_providers(
        user_id=turnkey_org.user_id,
        oauth_providers=[{"providerName": "ann", "oidcToken": emu.oidc.token(sub=ANN, aud=AUD)}],
    )
    assert len(made["providerIds"]) == 1


def test_users_manage_their_own_providers(emu, turnkey_org):
    bob, bob_key = add_user(emu, "bob")
    carl, carl_key = add_user(emu, "carl")
    mine = [{"providerName": "mine", "oidcToken": emu.oidc.token(sub="bob", aud=AUD)}]
    made = emu.create_oauth_providers(user_id=bob, oauth_providers=mine, caller=bob_key)
    (provider_id,) = made["providerIds"]
    assert emu.get_oauth_providers(caller=bob_key)["oauthProviders"][0]["providerId"] == provider_id
    theirs = [{"providerName": "x", "oidcToken": emu.oidc.token(sub="x", aud=AUD)}]
    error = fails(
        emu, emu.create_oauth_providers, user_id=bob, oauth_providers=theirs, caller=carl_key
    )
    assert (error.status, error.code, error.message) == (403, 7, messages.IMPLICIT_DENY)
    error = fails(
        emu, emu.delete_oauth_providers, user_id=bob, provider_ids=[provider_id], caller=carl_key
    )
    assert (error.status, error.code) == (403, 7)
    deleted = emu.delete_oauth_providers(user_id=bob, provider_ids=[provider_id], caller=bob_key)
    assert deleted["providerIds"] == [provider_id]
    assert real_result(deleted["activity"]) == {
        "deleteOauthProvidersResult": {"providerIds": [provider_id]}
    }
    assert emu.get_oauth_providers(user_id=bob)["oauthProviders"] == []
    # the identity is free again once deleted
    emu.create_oauth_providers(user_id=carl, oauth_providers=mine, caller=carl_key)


def test_delete_oauth_providers(emu, social):
    ids = provider_ids(emu, social)
    missing = "00000000-0000-4000-8000-000000000001"
    session_key = TargetKey.generate(b"\x09" * 32).api_key
    token = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for(session_key.public_key))
    emu.oauth_login(
        organization_id=social.sub_id, oidc_token=token, public_key=session_key.public_key
    )
    error = fails(
        emu,
        emu.delete_oauth_providers,
        organization_id=social.sub_id,
        user_id=social.user_id,
        provider_ids=[ids[0], missing],
        caller=session_key,
    )
    assert error_of(error) == (
        404,
        5,
        messages.oauth_provider_not_found(missing, social.sub_id),
        "",
    )
    emu.delete_oauth_providers(
        organization_id=social.sub_id,
        user_id=social.user_id,
        provider_ids=ids,
        caller=session_key,
    )
    assert provider_ids(emu, social) == []
    # with no provider left, ann's token finds nobody
    token = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for(session_key.public_key))
    error = fails(
        emu,
        emu.oauth_login,
        organization_id=social.sub_id,
        oidc_token=token,
        public_key=session_key.public_key,
    )
    assert error.status == 404


# ----- Google: parent-run registration and social linking ---------------------------


@pytest.fixture
def google(emu) -> OidcProvider:
    provider = OidcProvider("https://accounts.google.com", clock=emu.clock)
    emu.oidc.trust(provider)
    return provider


def _verified_suborgs(emu, email: str) -> list[str]:
    found = emu.list_verified_suborgs(filter_type="EMAIL", filter_value=email)
    return found["organizationIds"]


def test_the_parent_adds_a_google_provider_of_the_users_verified_email(
    emu, social, google, turnkey_org
):
    def add(token: str | None = None, **spec) -> dict:
        provider = {"providerName": "Google", **({"oidcToken": token} if token else {}), **spec}
        return {
            "organization_id": social.sub_id,
            "user_id": social.user_id,
            "oauth_providers": [provider],
            "caller": turnkey_org,
        }

    mismatch = (
        400,
        3,
        messages.organization_mismatch(social.sub_id, turnkey_org.organization_id),
        "ORGANIZATION_MISMATCH",
    )
    refused = [
        add(google.token(sub="g-ann", aud=AUD, email="ann@gmail.test", email_verified=False)),
        add(google.token(sub="g-ann", aud=AUD, email="bob@gmail.test", email_verified=True)),
        add(google.token(sub="g-ann", aud=AUD)),
        add(emu.oidc.token(sub="g-ann", aud=AUD, email="ann@gmail.test", email_verified=True)),
        add(oidcClaims=google.oidc_claims(sub="g-ann", aud=AUD)),
    ]
    for params in refused:
        assert error_of(fails(emu, emu.create_oauth_providers, **params)) == mismatch
    assert _verified_suborgs(emu, "ann@gmail.test") == []
    token = google.token(sub="g-ann", aud=AUD, email="Ann@Gmail.test", email_verified=True)
    made = emu.create_oauth_providers(**add(token))
    assert made["activity"]["organizationId"] == social.sub_id
    assert len(provider_ids(emu, social)) == 2
    # social linking: Google verified ann's e-mail
    assert _verified_suborgs(emu, "ann@gmail.test") == [social.sub_id]


def test_a_google_token_links_its_verified_email(emu, google):
    bob, _ = add_user(emu, "bob")
    token = google.token(sub="g-bob", aud=AUD, email="bob@gmail.test", email_verified=True)
    emu.create_oauth_providers(
        user_id=bob, oauth_providers=[{"providerName": "g", "oidcToken": token}]
    )
    user = emu.get_user(user_id=bob)["user"]
    assert user["userEmail"] == "bob@gmail.test"
    assert (
        emu.world.store.organizations[emu.organization().organization_id].users[bob].email_verified
    )
    # an e-mail Google did not verify links nothing
    carl, _ = add_user(emu, "carl")
    token = google.token(sub="g-carl", aud=AUD, email="carl@gmail.test", email_verified=False)
    emu.create_oauth_providers(
        user_id=carl, oauth_providers=[{"providerName": "g", "oidcToken": token}]
    )
    assert "userEmail" not in emu.get_user(user_id=carl)["user"]


def test_an_es256_issuer_works_end_to_end(emu, social):
    es = OidcProvider("https://es.example.invalid", algorithm="ES256", clock=emu.clock)
    emu.oidc.trust(es.issuer, json.loads(json.dumps(es.jwks())))
    session = TargetKey.generate(b"\x0a" * 32).api_key
    emu.create_oauth_providers(
        organization_id=social.sub_id,
        user_id=social.user_id,
        oauth_providers=[{"providerName": "es", "oidcToken": es.token(sub="ann-es", aud="es-app")}],
        caller=_login(emu, social),
    )
    token = es.token(sub="ann-es", aud="es-app", nonce=nonce_for(session.public_key))
    out = emu.oauth_login(
        organization_id=social.sub_id, oidc_token=token, public_key=session.public_key
    )
    claims = verify_session_jwt(out["session"], emu.enclave.notarizer_public_key)
    assert claims["user_id"] == social.user_id


def _login(emu, social):
    """A session key of ann's (she has no other credential)."""
    key = TargetKey.generate().api_key
    token = emu.oidc.token(sub=ANN, aud=AUD, nonce=nonce_for(key.public_key))
    emu.oauth_login(organization_id=social.sub_id, oidc_token=token, public_key=key.public_key)
    return key


# ----- the official Python SDK ------------------------------------------------------


def test_every_operation_through_the_sdk(turnkey_emulator, turnkey_org, wire):
    pytest.importorskip("turnkey_http")
    from turnkey_sdk_types import (
        CreateOauthProvidersBody,
        DeleteOauthProvidersBody,
        GetOauthProvidersBody,
        OauthBody,
        OauthLoginBody,
        v1OauthProviderParamsV2,
    )

    emu = turnkey_emulator
    bob, _ = add_user(emu, "bob")
    with emu.intercept():
        client = emu.client(turnkey_org)
        made = client.create_oauth_providers(
            CreateOauthProvidersBody(
                userId=bob,
                oauthProviders=[
                    v1OauthProviderParamsV2(
                        providerName="idp", oidcToken=emu.oidc.token(sub="bob-sub", aud=AUD)
                    )
                ],
            )
        )
        (provider_id,) = made.providerIds
        listed = client.get_oauth_providers(GetOauthProvidersBody(userId=bob)).oauthProviders
        assert [(p.providerId, p.issuer, p.subject, p.audience) for p in listed] == [
            (provider_id, DEFAULT_ISSUER, "bob-sub", AUD)
        ]

        target = TargetKey.generate()
        token = emu.oidc.token(sub="bob-sub", aud=AUD, nonce=nonce_for(target.public_key))
        oauth = client.oauth(OauthBody(oidcToken=token, targetPublicKey=target.public_key))
        assert (oauth.activity.status, oauth.userId) == (COMPLETED, bob)
        key = decrypt_credential_bundle(oauth.credentialBundle, target)

        session_key = TargetKey.generate().api_key
        token = emu.oidc.token(sub="bob-sub", aud=AUD, nonce=nonce_for(session_key.public_key))
        login = client.oauth_login(
            OauthLoginBody(oidcToken=token, publicKey=session_key.public_key)
        )
        claims = verify_session_jwt(login.session, emu.enclave.notarizer_public_key)
        assert (claims["user_id"], claims["public_key"]) == (bob, session_key.public_key)

        deleted = client.delete_oauth_providers(
            DeleteOauthProvidersBody(userId=bob, providerIds=[provider_id])
        )
        assert deleted.providerIds == [provider_id]
        assert client.get_oauth_providers(GetOauthProvidersBody(userId=bob)).oauthProviders == []
    for credential in (key, session_key):
        status, me = wire.post(WHOAMI, {"organizationId": turnkey_org.organization_id}, credential)
        assert (status, me["userId"]) == (200, bob)
