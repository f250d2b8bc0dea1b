"""OAuth 2.0 credentials (ops/oauth2.py) and oauth2_authenticate against the provider built
into the emulator (services/oauth2.py, emu.oauth2): the client secret encrypted to the TLS
fetcher's key as encryptOauth2ClientSecret does it, the code exchange with PKCE, the OIDC
token Turnkey mints, and that token through oauth_login and create_sub_organization."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator import Emulator
from emulator.crypto import jwt
from emulator.facade.oauth2 import ProviderClient
from emulator.facade.oidc import nonce_for
from emulator.ground import messages
from emulator.services.oauth2 import turnkey_jwks
from emulator.services.oidc import jwk_public_key
from emulator.testing.client_crypto import (
    TargetKey,
    decrypt_bearer_token,
    encrypt_oauth2_client_secret,
    verify_session_jwt,
)

from .helpers import NIL_UUID, add_user, error_of, fails, violations

X = "OAUTH2_PROVIDER_X"
DISCORD = "OAUTH2_PROVIDER_DISCORD"
REDIRECT = "https://app.example/auth/x/redirect"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"


@dataclass
class Setup:
    emu: Emulator
    app: ProviderClient
    credential_id: str


def encrypted(emu: Emulator, secret: str) -> str:
    return encrypt_oauth2_client_secret(secret, emu.enclave.tls_fetcher_encrypt_public_key)


def new_credential(emu: Emulator, app: ProviderClient, secret: str | None = None) -> str:
    made = emu.create_oauth2_credential(
        provider=app.provider,
        client_id=app.client_id,
        encrypted_client_secret=encrypted(emu, secret if secret is not None else app.client_secret),
    )
    return made["oauth2CredentialId"]


@pytest.fixture
def setup(turnkey_emulator: Emulator, turnkey_org) -> Setup:
    emu = turnkey_emulator
    emu.clock.freeze()
    app = emu.oauth2.register_client(X, redirect_uris=[REDIRECT])
    return Setup(emu, app, new_credential(emu, app))


def code_for(setup: Setup, user_id: str = "123456789", **options) -> tuple[str, str]:
    """``(code, verifier)``: the provider's user ``user_id`` grants the app access."""
    verifier, challenge = setup.emu.oauth2.pkce()
    options.setdefault("redirect_uri", REDIRECT)
    code = setup.emu.oauth2.authorize(
        setup.app, user_id=user_id, code_challenge=challenge, **options
    )
    return code, verifier


def authenticate(setup: Setup, code: str, verifier: str, **overrides) -> dict:
    params = {
        "oauth2_credential_id": setup.credential_id,
        "auth_code": code,
        "redirect_uri": REDIRECT,
        "code_verifier": verifier,
        "nonce": nonce_for(TargetKey.generate().compressed_public_key),
        **overrides,
    }
    return setup.emu.oauth2_authenticate(**params)


# ----- the credentials ---------------------------------------------------------------------


def test_create_get_list_update_and_delete(setup):
    emu, org_id = setup.emu, setup.emu.organization().organization_id
    created_ns = emu.clock.now_ns()
    at = {"seconds": str(created_ns // 10**9), "nanos": str(created_ns % 10**9)}
    got = emu.get_oauth2_credential(oauth2_credential_id=setup.credential_id)["oauth2Credential"]
    sent = got["encryptedClientSecret"]
    assert got == {
        "oauth2CredentialId": setup.credential_id,
        "organizationId": org_id,
        "provider": X,
        "clientId": setup.app.client_id,
        "encryptedClientSecret": sent,
        "createdAt": at,
        "updatedAt": at,
    }
    assert emu.list_oauth2_credentials()["oauth2Credentials"] == [got]

    emu.clock.advance(60)
    discord = emu.oauth2.register_client(DISCORD)
    new_secret = encrypted(emu, discord.client_secret)
    updated = emu.update_oauth2_credential(
        oauth2_credential_id=setup.credential_id,
        provider=DISCORD,
        client_id=discord.client_id,
        encrypted_client_secret=new_secret,
    )
    assert updated["activity"]["status"] == COMPLETED
    assert updated["oauth2CredentialId"] == setup.credential_id
    again = emu.get_oauth2_credential(oauth2_credential_id=setup.credential_id)["oauth2Credential"]
    later = created_ns + 60 * 10**9
    assert again == {
        **got,
        "provider": DISCORD,
        "clientId": discord.client_id,
        "encryptedClientSecret": new_secret,
        "updatedAt": {"seconds": str(later // 10**9), "nanos": str(later % 10**9)},
    }

    second = new_credential(emu, setup.app)
    listed = emu.list_oauth2_credentials()["oauth2Credentials"]
    assert [c["oauth2CredentialId"] for c in listed] == [setup.credential_id, second]
    gone = emu.delete_oauth2_credential(oauth2_credential_id=setup.credential_id)
    assert gone["oauth2CredentialId"] == setup.credential_id
    assert [
        c["oauth2CredentialId"] for c in emu.list_oauth2_credentials()["oauth2Credentials"]
    ] == [second]
    error = fails(emu, emu.get_oauth2_credential, oauth2_credential_id=setup.credential_id)
    assert error_of(error) == (
        404,
        5,
        messages.oauth2_credential_not_found(setup.credential_id, org_id),
        "OAUTH2_CREDENTIAL_NOT_FOUND",
    )


def test_the_activities_record_the_real_intent_and_result_keys(setup):
    emu = setup.emu
    made = emu.create_oauth2_credential(
        provider=X, client_id="app", encrypted_client_secret=encrypted(emu, "s")
    )["activity"]
    assert made["type"] == "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL"
    assert list(made["intent"]) == ["createOauth2CredentialIntent"]
    assert made["intent"]["createOauth2CredentialIntent"]["clientId"] == "app"
    credential_id = made["result"]["createOauth2CredentialResult"]["oauth2CredentialId"]
    code, verifier = code_for(setup)
    done = authenticate(setup, code, verifier)["activity"]
    assert (done["type"], done["status"]) == ("ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", COMPLETED)
    assert set(done["intent"]["oauth2AuthenticateIntent"]) == {
        "oauth2CredentialId",
        "authCode",
        "redirectUri",
        "codeVerifier",
        "nonce",
    }
    assert list(done["result"]["oauth2AuthenticateResult"]) == ["oidcToken"]
    deleted = emu.delete_oauth2_credential(oauth2_credential_id=credential_id)["activity"]
    assert deleted["result"]["deleteOauth2CredentialResult"] == {
        "oauth2CredentialId": credential_id
    }


def test_bad_credentials_are_refused_and_change_nothing(setup):
    emu = setup.emu
    bad_envelope = encrypt_oauth2_client_secret("s", TargetKey.generate().public_key)
    for value in (bad_envelope, "00" * 80, "00", encrypted(emu, "s")[:-2]):
        error = fails(
            emu,
            emu.create_oauth2_credential,
            provider=X,
            client_id="app",
            encrypted_client_secret=value,
        )
        assert error_of(error) == (400, 3, messages.INVALID_ENCRYPTED_CLIENT_SECRET, "")
    error = fails(
        emu,
        emu.update_oauth2_credential,
        oauth2_credential_id=setup.credential_id,
        provider=X,
        client_id="app",
        encrypted_client_secret=bad_envelope,
    )
    assert error_of(error) == (400, 3, messages.INVALID_ENCRYPTED_CLIENT_SECRET, "")
    error = fails(
        emu, emu.create_oauth2_credential, provider=X, client_id=" ", encrypted_client_secret="00"
    )
    assert error.message == messages.EMPTY_CLIENT_ID
    error = fails(
        emu,
        emu.call,
        "create_oauth2_credential",
        {"provider": "OAUTH2_PROVIDER_GITHUB", "clientId": "a", "encryptedClientSecret": "zz"},
    )
    assert {v["field"] for v in violations(error)} == {"provider", "encryptedClientSecret"}
    for name in ("update_oauth2_credential", "delete_oauth2_credential"):
        kwargs = {"oauth2_credential_id": NIL_UUID}
        if name.startswith("update"):
            kwargs.update(provider=X, client_id="a", encrypted_client_secret=encrypted(emu, "s"))
        error = fails(emu, getattr(emu, name), **kwargs)
        assert error.status == 404 and NIL_UUID in error.message


# ----- oauth2_authenticate -----------------------------------------------------------------


def test_the_token_turnkey_mints(setup):
    emu = setup.emu
    session = TargetKey.generate()
    bearer_target = TargetKey.generate()
    code, verifier = code_for(setup, "42")
    token = authenticate(
        setup,
        code,
        verifier,
        nonce=nonce_for(session.compressed_public_key),
        bearer_token_target_public_key=bearer_target.public_key,
    )["oidcToken"]
    header, claims, _, _ = jwt.decode(token)
    now_s = emu.clock.now_ns() // 10**9
    (jwk,) = turnkey_jwks(emu.world)["keys"]
    assert header == {"alg": "ES256", "kid": jwk["kid"], "typ": "JWT"}
    assert jwt.verify_es256(token, jwk_public_key(jwk)[1]) == claims
    bearer = claims.pop("encrypted_bearer_token")
    assert claims == {
        "iss": "https://api.turnkey.com",
        "sub": "x:42",
        "aud": setup.app.client_id,
        "nonce": nonce_for(session.compressed_public_key),
        "iat": now_s,
        "exp": now_s + 600,
    }
    assert jwk["x"] and bytes.fromhex(emu.enclave.tls_fetcher_public_key)[0] == 4
    access_token = decrypt_bearer_token(token, bearer_target)
    assert len(access_token) == 43 and access_token not in token
    assert bearer.isalnum()  # Base58Check
    assert emu.oauth2.code_used(code)


def test_discord_subjects_and_no_bearer_token_unless_asked(setup):
    emu = setup.emu
    discord = emu.oauth2.register_client(DISCORD, client_id="discord-app")
    credential_id = new_credential(emu, discord)
    verifier, challenge = emu.oauth2.pkce()
    code = emu.oauth2.authorize(
        discord, user_id="80351110224678912", redirect_uri=REDIRECT, code_challenge=challenge
    )
    token = authenticate(setup, code, verifier, oauth2_credential_id=credential_id)["oidcToken"]
    claims = jwt.decode(token)[1]
    assert (claims["sub"], claims["aud"]) == ("discord:80351110224678912", "discord-app")
    assert "encrypted_bearer_token" not in claims


def test_a_plain_challenge_and_the_same_body_twice(setup):
    emu = setup.emu
    verifier = "v" * 43
    code = emu.oauth2.authorize(
        setup.app,
        user_id="7",
        redirect_uri=REDIRECT,
        code_challenge=verifier,
        code_challenge_method="plain",
    )
    body = {
        "oauth2CredentialId": setup.credential_id,
        "authCode": code,
        "redirectUri": REDIRECT,
        "codeVerifier": verifier,
        "nonce": "n",
    }
    first = emu.call("oauth2_authenticate", body, timestamp_ms=emu.clock.now_ms())
    again = emu.call("oauth2_authenticate", body, timestamp_ms=emu.clock.now_ms())
    assert first["activity"]["id"] == again["activity"]["id"]  # one activity: one exchange
    assert first["oidcToken"] == again["oidcToken"]


def refused(description: str, error: str = "invalid_grant", provider: str = X) -> tuple:
    # A client the provider does not know is the credential's misconfiguration; the rest
    # are the request's (docs/errors.md).
    code = "INVALID_OAUTH2_PROVIDER" if error == "invalid_client" else "REQUEST_INVALID"
    return (400, 3, messages.oauth2_exchange_failed(provider, error, description), code)


def test_exchange_refusals_change_nothing(setup):
    emu = setup.emu
    code, verifier = code_for(setup)
    other_verifier, _ = emu.oauth2.pkce()
    cases = [
        (
            {"code_verifier": other_verifier},
            refused("code_verifier does not match the code_challenge"),
        ),
        (
            {"code_verifier": "short"},
            refused("code_verifier must be 43 to 128 of [A-Za-z0-9-._~]", "invalid_request"),
        ),
        (
            {"redirect_uri": "https://evil.example/cb"},
            refused("redirect_uri does not match the authorization"),
        ),
        ({"auth_code": "not-a-code"}, refused("authorization code is invalid")),
    ]
    for overrides, expected in cases:
        error = fails(emu, authenticate, setup, code, verifier, **overrides)
        assert error_of(error) == expected, overrides
        assert not emu.oauth2.code_used(code)
    error = fails(
        emu,
        authenticate,
        setup,
        code,
        verifier,
        bearer_token_target_public_key="04" + "00" * 64,
    )
    assert error_of(error)[:2] == (400, 3) and "invalid target public key" in error.message
    assert not emu.oauth2.code_used(code)
    error = fails(emu, authenticate, setup, code, verifier, oauth2_credential_id=NIL_UUID)
    assert error_of(error) == (
        404,
        5,
        messages.oauth2_credential_not_found(NIL_UUID, emu.organization().organization_id),
        "OAUTH2_CREDENTIAL_NOT_FOUND",
    )
    authenticate(setup, code, verifier)  # still good: nothing above used it up
    error = fails(emu, authenticate, setup, code, verifier)
    assert error_of(error) == refused("authorization code was already used")


def test_a_wrong_secret_or_an_unknown_client_is_invalid_client(setup):
    emu = setup.emu
    code, verifier = code_for(setup)
    wrong = new_credential(emu, setup.app, secret="not the secret")
    error = fails(emu, authenticate, setup, code, verifier, oauth2_credential_id=wrong)
    assert error_of(error) == refused("client authentication failed", "invalid_client")
    stranger = emu.create_oauth2_credential(
        provider=X, client_id="unregistered", encrypted_client_secret=encrypted(emu, "s")
    )["oauth2CredentialId"]
    error = fails(emu, authenticate, setup, code, verifier, oauth2_credential_id=stranger)
    assert error_of(error) == refused("client authentication failed", "invalid_client")
    assert not emu.oauth2.code_used(code)


def test_codes_expire_on_the_emulator_clock_and_belong_to_one_client(setup):
    emu = setup.emu
    code, verifier = code_for(setup, expires_in=30)
    emu.clock.advance(30)
    error = fails(emu, authenticate, setup, code, verifier)
    assert error_of(error) == refused("authorization code expired")
    other = emu.oauth2.register_client(X, client_id="other-app")
    other_id = new_credential(emu, other)
    code, verifier = code_for(setup)
    error = fails(emu, authenticate, setup, code, verifier, oauth2_credential_id=other_id)
    assert error_of(error) == refused("authorization code was issued to another client")
    discord = emu.oauth2.register_client(DISCORD, client_id=setup.app.client_id)
    discord_id = new_credential(emu, discord)
    error = fails(emu, authenticate, setup, code, verifier, oauth2_credential_id=discord_id)
    assert error_of(error) == refused("authorization code is invalid", provider=DISCORD)


def test_the_seam_refuses_what_the_provider_would(setup):
    emu = setup.emu
    with pytest.raises(ValueError, match="not registered for this client"):
        emu.oauth2.authorize(setup.app, user_id="1", redirect_uri="https://x", code_challenge="c")
    with pytest.raises(ValueError, match="code_challenge_method"):
        code_for(setup, code_challenge_method="S512")
    with pytest.raises(ValueError, match="provider must be one of"):
        emu.oauth2.register_client("OAUTH2_PROVIDER_GITHUB")
    stranger = ProviderClient(X, "nobody", "secret")
    with pytest.raises(ValueError, match="no client 'nobody'"):
        emu.oauth2.authorize(stranger, user_id="1", redirect_uri=REDIRECT, code_challenge="c")
    assert "secret" not in repr(stranger) and setup.app.client_secret not in repr(setup.app)


def test_a_user_without_a_policy_may_not_authenticate(setup):
    emu = setup.emu
    _, key = add_user(emu, "backend")
    code, verifier = code_for(setup)
    error = fails(emu, authenticate, setup, code, verifier, caller=key)
    assert error.status == 403
    emu.create_policy(
        policy_name="oauth2",
        effect="EFFECT_ALLOW",
        condition="activity.resource == 'AUTH' && activity.action == 'CREATE'",
        consensus="approvers.count() >= 1",
        notes="",
    )
    assert authenticate(setup, code, verifier, caller=key)["activity"]["status"] == COMPLETED


# ----- the whole flow (examples/with-x), the secret never in the clear ------------------------


def test_sign_up_and_log_in_with_x(setup, wire):
    """Authenticate, find no sub-organization for the token, make one with it as an OAuth
    provider, authenticate again and log in: the session key then stamps requests."""
    emu, parent = setup.emu, setup.emu.organization().organization_id

    def token_for(session: TargetKey) -> str:
        code, verifier = code_for(setup, "2244994945")
        nonce = nonce_for(session.compressed_public_key)
        return authenticate(setup, code, verifier, nonce=nonce)["oidcToken"]

    first = TargetKey.generate()
    token = token_for(first)
    found = emu.get_sub_org_ids(filter_type="OIDC_TOKEN", filter_value=token)
    assert found["organizationIds"] == []
    made = emu.create_sub_organization(
        sub_organization_name="X sub-organization",
        root_quorum_threshold=1,
        root_users=[
            {
                "userName": "x user",
                "apiKeys": [],
                "authenticators": [],
                "oauthProviders": [{"providerName": "X", "oidcToken": token}],
            }
        ],
    )
    sub_id, (user_id,) = made["subOrganizationId"], made["rootUserIds"]
    (provider,) = emu.get_oauth_providers(organization_id=sub_id, user_id=user_id)["oauthProviders"]
    assert (provider["issuer"], provider["subject"], provider["audience"]) == (
        "https://api.turnkey.com",
        "x:2244994945",
        setup.app.client_id,
    )

    session = TargetKey.generate()
    token = token_for(session)
    assert emu.get_sub_org_ids(filter_type="OIDC_TOKEN", filter_value=token)["organizationIds"] == [
        sub_id
    ]
    login = emu.oauth_login(
        organization_id=sub_id, oidc_token=token, public_key=session.compressed_public_key
    )
    claims = verify_session_jwt(login["session"], emu.enclave.notarizer_public_key)
    assert claims["organization_id"] == sub_id
    status, me = wire.post("/public/v1/query/whoami", {"organizationId": sub_id}, session.api_key)
    assert (status, me["username"]) == (200, "x user")
    assert parent != sub_id

    emu.clock.advance(601)  # Turnkey's token lives 10 minutes
    late = TargetKey.generate()
    expired = token_for(late)
    emu.clock.advance(601)
    error = fails(
        emu,
        emu.oauth_login,
        organization_id=sub_id,
        oidc_token=expired,
        public_key=late.compressed_public_key,
    )
    assert error.message == messages.INVALID_OIDC_TOKEN


def test_the_client_secret_is_never_in_the_clear(setup):
    emu = setup.emu
    secret = setup.app.client_secret
    code, verifier = code_for(setup)
    answers = [authenticate(setup, code, verifier, bearer_token_target_public_key=None)]
    answers.append(emu.get_oauth2_credential(oauth2_credential_id=setup.credential_id))
    answers.append(emu.list_oauth2_credentials())
    answers.append(emu.get_activities())
    errors = [fails(emu, authenticate, setup, code, verifier).body()]
    everything = json.dumps([answers, errors, emu.to_document()], default=str)
    everything += "".join(repr(c) for c in emu.calls) + repr(emu.world.store.organizations)
    assert secret not in everything
    assert setup.app.client_id in everything  # (the search reads the right things)


# ----- the official SDKs -------------------------------------------------------------------


def test_through_the_official_python_sdk(sdk, turnkey_emulator, turnkey_org):
    from turnkey_sdk_types import (
        CreateOauth2CredentialBody,
        CreateSubOrganizationBody,
        DeleteOauth2CredentialBody,
        GetOauth2CredentialBody,
        GetSubOrgIdsBody,
        GetWhoamiBody,
        ListOauth2CredentialsBody,
        Oauth2AuthenticateBody,
        OauthLoginBody,
        TurnkeyNetworkError,
        UpdateOauth2CredentialBody,
        v1OauthProviderParams,
        v1RootUserParamsV4,
    )

    from .test_sdk_e2e import client_as

    emu = turnkey_emulator
    app = emu.oauth2.register_client(X, redirect_uris=[REDIRECT])
    secret = encrypted(emu, app.client_secret)
    made = sdk.create_oauth2_credential(
        CreateOauth2CredentialBody(provider=X, clientId=app.client_id, encryptedClientSecret=secret)
    )
    assert made.activity.status.value == COMPLETED
    credential_id = made.oauth2CredentialId
    got = sdk.get_oauth2_credential(GetOauth2CredentialBody(oauth2CredentialId=credential_id))
    assert (got.oauth2Credential.clientId, got.oauth2Credential.provider.value) == (
        app.client_id,
        X,
    )
    assert got.oauth2Credential.encryptedClientSecret == secret
    listed = sdk.list_oauth2_credentials(ListOauth2CredentialsBody()).oauth2Credentials
    assert [c.oauth2CredentialId for c in listed] == [credential_id]
    updated = sdk.update_oauth2_credential(
        UpdateOauth2CredentialBody(
            oauth2CredentialId=credential_id,
            provider=X,
            clientId=app.client_id,
            encryptedClientSecret=encrypted(emu, app.client_secret),
        )
    )
    assert updated.oauth2CredentialId == credential_id

    def token_for(session_public_key: str, bearer: TargetKey | None = None) -> str:
        verifier, challenge = emu.oauth2.pkce()
        code = emu.oauth2.authorize(
            app, user_id="783214", redirect_uri=REDIRECT, code_challenge=challenge
        )
        return sdk.oauth2_authenticate(
            Oauth2AuthenticateBody(
                oauth2CredentialId=credential_id,
                authCode=code,
                redirectUri=REDIRECT,
                codeVerifier=verifier,
                nonce=nonce_for(session_public_key),
                bearerTokenTargetPublicKey=bearer.public_key if bearer else None,
            )
        ).oidcToken

    bearer = TargetKey.generate()
    token = token_for(TargetKey.generate().compressed_public_key, bearer)
    assert len(decrypt_bearer_token(token, bearer)) == 43
    assert (
        sdk.get_sub_org_ids(
            GetSubOrgIdsBody(filterType="OIDC_TOKEN", filterValue=token)
        ).organizationIds
        == []
    )
    sub_id = sdk.create_sub_organization(
        CreateSubOrganizationBody(
            subOrganizationName="X user",
            rootQuorumThreshold=1,
            rootUsers=[
                v1RootUserParamsV4(
                    userName="x user",
                    apiKeys=[],
                    authenticators=[],
                    oauthProviders=[v1OauthProviderParams(providerName="X", oidcToken=token)],
                )
            ],
        )
    ).subOrganizationId
    session = TargetKey.generate().api_key
    token = token_for(session.public_key)
    found = sdk.get_sub_org_ids(GetSubOrgIdsBody(filterType="OIDC_TOKEN", filterValue=token))
    assert found.organizationIds == [sub_id]
    login = sdk.oauth_login(
        OauthLoginBody(organizationId=sub_id, oidcToken=token, publicKey=session.public_key)
    )
    assert (
        verify_session_jwt(login.session, emu.enclave.notarizer_public_key)["organization_id"]
        == sub_id
    )
    assert client_as(sdk, session, sub_id).get_whoami(GetWhoamiBody()).username == "x user"

    with pytest.raises(TurnkeyNetworkError) as refused_code:
        sdk.oauth2_authenticate(
            Oauth2AuthenticateBody(
                oauth2CredentialId=credential_id,
                authCode="expired-or-made-up",
                redirectUri=REDIRECT,
                codeVerifier="v" * 43,
                nonce="n",
            )
        )
    assert refused_code.value.status_code == 400
    assert "error=invalid_grant" in str(refused_code.value)
    deleted = sdk.delete_oauth2_credential(
        DeleteOauth2CredentialBody(oauth2CredentialId=credential_id)
    )
    assert deleted.oauth2CredentialId == credential_id
    assert sdk.list_oauth2_credentials(ListOauth2CredentialsBody()).oauth2Credentials == []


def test_the_flow_from_typescript(setup):
    """@turnkey/crypto's encryptOauth2ClientSecret with the emulator's key as its override; the
    credential made and oauth2_authenticate run by @turnkey/http's TurnkeyClient over a socket
    (its generic ``request``: 6.6.0 has no methods for them yet); decryptCredentialBundle opens
    the bearer token; its oauthLogin logs the X user in."""
    from emulator.http.server import serving
    from tests.typescript import typescript_or_skip

    ts = typescript_or_skip()
    emu = setup.emu
    org_id = emu.organization().organization_id
    key = emu._callers[org_id]
    secret = "client secret from the X developer portal: ✓"
    app = emu.oauth2.register_client(X, client_secret=secret, redirect_uris=[REDIRECT])
    from_ts = ts.one(
        "encryptOauth2ClientSecret",
        clientSecret=secret,
        tlsFetcherPublicKey=emu.enclave.tls_fetcher_encrypt_public_key,
    )
    assert len(bytes.fromhex(from_ts)) == 12 + 65 + 4 + len(secret.encode()) + 16
    bearer = ts.one("generateP256KeyPair")
    session = ts.one("generateP256KeyPair")
    verifier, challenge = emu.oauth2.pkce()
    code = emu.oauth2.authorize(app, user_id="1", redirect_uri=REDIRECT, code_challenge=challenge)

    def body(activity_type: str, parameters: dict, organization_id: str = org_id) -> dict:
        return {
            "type": activity_type,
            "timestampMs": str(emu.clock.now_ms()),
            "organizationId": organization_id,
            "parameters": parameters,
        }

    with serving(emu.world) as url:
        common = {"baseUrl": url, "apiPublicKey": key.public_key, "apiPrivateKey": key.private_key}
        made = ts.one(
            "request",
            path="/public/v1/submit/create_oauth2_credential",
            body=body(
                "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
                {"provider": X, "clientId": app.client_id, "encryptedClientSecret": from_ts},
            ),
            **common,
        )["activity"]
        credential_id = made["result"]["createOauth2CredentialResult"]["oauth2CredentialId"]
        done = ts.one(
            "request",
            path="/public/v1/submit/oauth2_authenticate",
            body=body(
                "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",
                {
                    "oauth2CredentialId": credential_id,
                    "authCode": code,
                    "redirectUri": REDIRECT,
                    "codeVerifier": verifier,
                    "nonce": nonce_for(session["publicKey"]),
                    "bearerTokenTargetPublicKey": bearer["publicKeyUncompressed"],
                },
            ),
            **common,
        )["activity"]
        token = done["result"]["oauth2AuthenticateResult"]["oidcToken"]
        opened = ts.one(
            "decryptCredentialBundle",
            bundle=jwt.decode(token)[1]["encrypted_bearer_token"],
            embeddedKey=bearer["privateKey"],
        )
        bearer_key = TargetKey(bytes.fromhex(bearer["privateKey"]))
        assert bytes.fromhex(opened).decode() == decrypt_bearer_token(token, bearer_key)
        sub_id = emu.create_sub_organization(
            sub_organization_name="x",
            root_quorum_threshold=1,
            root_users=[
                {"userName": "x", "oauthProviders": [{"providerName": "X", "oidcToken": token}]}
            ],
        )["subOrganizationId"]
        login = ts.one(
            "call",
            method="oauthLogin",
            body=body(
                "ACTIVITY_TYPE_OAUTH_LOGIN",
                {"oidcToken": token, "publicKey": session["publicKey"]},
                organization_id=sub_id,
            ),
            **common,
        )
    session_jwt = login["activity"]["result"]["oauthLoginResult"]["session"]
    claims = ts.one(
        "verifySessionJwtSignature",
        jwt=session_jwt,
        notarizerPublicKey=emu.enclave.notarizer_public_key,
    )
    assert claims is True
    assert (
        verify_session_jwt(session_jwt, emu.enclave.notarizer_public_key)["public_key"]
        == (session["publicKey"])
    )


# ----- state ------------------------------------------------------------------------------


def test_credentials_survive_a_state_file_and_the_provider_does_not(setup, tmp_path):
    emu = setup.emu
    path = tmp_path / "state.json"
    emu.save(str(path))
    assert setup.app.client_secret not in path.read_text()
    again = Emulator.load(str(path))
    assert again.list_oauth2_credentials() == {
        **emu.list_oauth2_credentials(),
        "activity": again.list_oauth2_credentials()["activity"],
    }
    assert (
        again.enclave.tls_fetcher_encrypt_public_key == emu.enclave.tls_fetcher_encrypt_public_key
    )
    assert len(again.world.oauth2_clients) == 0  # another party's state: not saved
    app = again.oauth2.register_client(
        X,
        client_id=setup.app.client_id,
        client_secret=setup.app.client_secret,
        redirect_uris=[REDIRECT],
    )
    verifier, challenge = again.oauth2.pkce()
    code = again.oauth2.authorize(app, user_id="9", redirect_uri=REDIRECT, code_challenge=challenge)
    token = again.oauth2_authenticate(
        oauth2_credential_id=setup.credential_id,
        auth_code=code,
        redirect_uri=REDIRECT,
        code_verifier=verifier,
        nonce="n",
    )["oidcToken"]
    assert jwt.decode(token)[1]["sub"] == "x:9"


def test_a_rollback_undoes_the_provider_and_the_credentials(setup):
    emu = setup.emu
    mark = emu.checkpoint()
    code, verifier = code_for(setup)
    other = emu.oauth2.register_client(DISCORD)
    new_credential(emu, other)
    authenticate(setup, code, verifier)
    emu.rollback(mark)
    assert code not in emu.world.oauth2_codes
    assert (DISCORD, other.client_id) not in emu.world.oauth2_clients
    assert len(emu.list_oauth2_credentials()["oauth2Credentials"]) == 1


# ----- properties -------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    secret=st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=64),
    wrong=st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=64),
    user_id=st.text("0123456789", min_size=1, max_size=19),
)
def test_any_secret_authenticates_and_is_never_in_the_clear(secret, wrong, user_id):
    """For any client secret (any text) and any wrong one, the credential made with the right
    one exchanges a code and the wrong one is invalid_client, and no answer, call record,
    error or state document carries either secret."""
    emu = Emulator(seed=3)
    emu.create_organization("Acme")
    secret, wrong = "tk-secret:" + secret, "tk-wrong:" + wrong
    app = emu.oauth2.register_client(X, client_secret=secret)
    right_id = new_credential(emu, app)
    wrong_id = new_credential(emu, app, secret=wrong)
    verifier, challenge = emu.oauth2.pkce()
    code = emu.oauth2.authorize(
        app, user_id=user_id, redirect_uri=REDIRECT, code_challenge=challenge
    )
    params = {"auth_code": code, "redirect_uri": REDIRECT, "code_verifier": verifier, "nonce": "n"}
    error = fails(emu, emu.oauth2_authenticate, oauth2_credential_id=wrong_id, **params)
    assert error_of(error) == refused("client authentication failed", "invalid_client")
    done = emu.oauth2_authenticate(oauth2_credential_id=right_id, **params)
    assert jwt.decode(done["oidcToken"])[1]["sub"] == f"x:{user_id}"
    seen = json.dumps(
        [
            done,
            error.body(),
            emu.list_oauth2_credentials(),
            emu.get_activities(),
            emu.to_document(),
        ],
        ensure_ascii=False,
        default=str,
    )
    seen += "".join(repr(c) for c in emu.calls) + repr(emu.world.store.organizations)
    assert secret not in seen and wrong not in seen


@settings(max_examples=40, deadline=None)
@given(envelope=st.binary(max_size=200))
def test_any_other_bytes_as_the_encrypted_secret_are_refused_and_change_nothing(envelope):
    emu = Emulator(seed=4)
    emu.create_organization("Acme")
    error = fails(
        emu,
        emu.create_oauth2_credential,
        provider=X,
        client_id="app",
        encrypted_client_secret=envelope.hex() or "00",
    )
    assert error_of(error) == (400, 3, messages.INVALID_ENCRYPTED_CLIENT_SECRET, "")


def test_the_provider_over_the_control_plane():
    """A client in another language drives the provider through /emulator/v1/oauth2/…."""
    import requests

    from emulator.http.control import Control
    from emulator.http.server import serving
    from emulator.services.oauth2 import code_challenge

    emu = Emulator(seed=9)
    emu.create_organization("Acme")
    with serving(emu.world, control=Control(emu)) as url:

        def control(name: str, body: dict) -> tuple[int, dict]:
            answer = requests.post(f"{url}/emulator/v1/{name}", json=body, timeout=10)
            return answer.status_code, answer.json()

        status, app = control("oauth2/clients", {"provider": DISCORD, "redirectUris": [REDIRECT]})
        assert status == 200 and set(app) == {"provider", "clientId", "clientSecret"}
        credential_id = emu.create_oauth2_credential(
            provider=DISCORD,
            client_id=app["clientId"],
            encrypted_client_secret=encrypted(emu, app["clientSecret"]),
        )["oauth2CredentialId"]
        verifier = "x" * 64
        grant = {
            "provider": DISCORD,
            "clientId": app["clientId"],
            "userId": "555",
            "redirectUri": REDIRECT,
            "codeChallenge": code_challenge(verifier),
        }
        status, answer = control("oauth2/authorize", grant)
        assert status == 200
        token = emu.oauth2_authenticate(
            oauth2_credential_id=credential_id,
            auth_code=answer["code"],
            redirect_uri=REDIRECT,
            code_verifier=verifier,
            nonce="n",
        )["oidcToken"]
        assert jwt.decode(token)[1]["sub"] == "discord:555"
        status, refused_body = control("oauth2/authorize", {**grant, "redirectUri": "https://x"})
        assert status == 400 and "not registered for this client" in refused_body["message"]
        status, refused_body = control("oauth2/authorize", {**grant, "clientId": "nobody"})
        assert (status, refused_body["message"]) == (404, "no OAuth 2.0 client 'nobody'")
