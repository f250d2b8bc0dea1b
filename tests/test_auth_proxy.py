"""The Auth Proxy over plain HTTP: every endpoint, its errors, CORS and its configuration.

Each flow is what ``@turnkey/core`` does (tests/browser_app runs the package itself in a
browser): OTP by e-mail and SMS (the code read from the outbox), the legacy plaintext
OTP endpoints, passkeys, wallets (API keys only), OAuth with the built-in test issuer,
and the sessions they end in, checked with the notarizer's key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import requests

from emulator.crypto.authenticator import VirtualAuthenticator
from emulator.crypto.stamps import sign_stamp
from emulator.testing.client_crypto import (
    TargetKey,
    client_signature_for_login,
    client_signature_for_signup,
    encrypt_oauth2_client_secret,
    encrypt_otp_code,
)

from .authproxy import EMAIL, PHONE, Proxy, proxy_served


@pytest.fixture
def proxy() -> Iterator[Proxy]:
    with proxy_served() as served_proxy:
        yield served_proxy


def error_of(answer: requests.Response) -> tuple[int, int, str]:
    body = answer.json()
    assert set(body) >= {"code", "message", "details"}
    return answer.status_code, body["code"], body["message"]


# ----- OTP -----------------------------------------------------------------------------


def test_email_otp_sign_up_then_log_in_through_the_proxy(proxy):
    key = TargetKey.generate()
    assert proxy.ok("/v1/account", {"filterType": "EMAIL", "filterValue": EMAIL}) == {}
    signed_up = proxy.signup_with_token(EMAIL, key)
    sub_org = signed_up["organizationId"]
    sub = proxy.emu.world.store.organizations[sub_org]
    assert sub.parent_id == proxy.site.org.organization_id
    user = sub.users[signed_up["userId"]]
    assert (user.email, user.email_verified) == (EMAIL, True)
    assert signed_up["appProofs"] == []
    found = proxy.ok("/v1/account", {"filterType": "EMAIL", "filterValue": EMAIL})
    assert found == {"organizationId": sub_org}

    # a new code, then otp_login_v2 without organizationId: the verified sub-organization
    login_key = TargetKey.generate()
    token = proxy.verified_token(EMAIL, login_key)
    session = proxy.ok(
        "/v1/otp_login_v2",
        {
            "verificationToken": token,
            "publicKey": login_key.compressed_public_key,
            "clientSignature": client_signature_for_login(token, login_key.api_key),
        },
    )["session"]
    claims = proxy.session_claims(session)
    assert (claims["organization_id"], claims["user_id"]) == (sub_org, signed_up["userId"])
    assert claims["public_key"] == login_key.compressed_public_key
    now_s = proxy.emu.clock.now_ns() // 1_000_000_000
    assert 899 <= int(claims["exp"]) - now_s <= 900  # the configuration's session length


def test_sms_otp_and_the_configured_code_shape(proxy):
    proxy.control(
        "auth_proxy/configure",
        {"configId": proxy.config_id, "otpLength": 8, "otpAlphanumeric": True},
    )
    key = TargetKey.generate()
    init = proxy.ok("/v1/otp_init_v2", {"otpType": "OTP_TYPE_SMS", "contact": PHONE})
    code = proxy.code_for(PHONE)
    assert len(code) == 8
    message = proxy.emu.outbox.messages[-1]
    assert (message.channel, message.fields["otpId"]) == ("sms", init["otpId"])
    signed_up = proxy.signup_with_token(PHONE, key, field="userPhoneNumber")
    user = proxy.emu.world.store.organizations[signed_up["organizationId"]].users[
        signed_up["userId"]
    ]
    assert (user.phone_number, user.phone_number_verified) == (PHONE, True)


def test_the_legacy_otp_endpoints(proxy):
    key = TargetKey.generate()
    init = proxy.ok("/v1/otp_init", {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL})
    assert set(init) == {"otpId"}
    token = proxy.ok(
        "/v1/otp_verify",
        {
            "otpId": init["otpId"],
            "otpCode": proxy.code_for(EMAIL),
            "publicKey": key.compressed_public_key,
        },
    )["verificationToken"]
    signed_up = proxy.ok(
        "/v1/signup",
        {
            "userEmail": EMAIL,
            "verificationToken": token,
            "apiKeys": [],
            "authenticators": [],
            "oauthProviders": [],
            "clientSignature": client_signature_for_signup(token, key.api_key),
        },
    )
    init = proxy.ok("/v1/otp_init", {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL})
    token = proxy.ok(
        "/v1/otp_verify",
        {
            "otpId": init["otpId"],
            "otpCode": proxy.code_for(EMAIL),
            "publicKey": key.compressed_public_key,
        },
    )["verificationToken"]
    session = proxy.ok(
        "/v1/otp_login",
        {
            "verificationToken": token,
            "publicKey": key.compressed_public_key,
            "organizationId": signed_up["organizationId"],
            "clientSignature": client_signature_for_login(token, key.api_key),
        },
    )["session"]
    assert proxy.session_claims(session)["organization_id"] == signed_up["organizationId"]


def test_a_wrong_code_is_the_engines_error_and_changes_nothing(proxy):
    key = TargetKey.generate()
    init = proxy.ok("/v1/otp_init_v2", {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL})
    bundle = encrypt_otp_code(
        init["otpEncryptionTargetBundle"],
        "000000" if proxy.code_for(EMAIL) != "000000" else "111111",
        key.compressed_public_key,
        tls_fetcher_public_key=proxy.emu.enclave.tls_fetcher_public_key,
    )
    before = len(proxy.emu.world.store.organizations)
    answer = proxy.post("/v1/otp_verify_v2", {"otpId": init["otpId"], "encryptedOtpBundle": bundle})
    status, code, message = error_of(answer)
    assert (status, code) == (400, 3)
    assert "otp" in message.lower()
    assert len(proxy.emu.world.store.organizations) == before


# ----- passkeys, wallets, OAuth ---------------------------------------------------------


def test_passkey_sign_up_gives_a_sub_organization_the_passkey_can_use(proxy):
    device = VirtualAuthenticator(rp_id="localhost")
    session_key = TargetKey.generate().api_key
    signed_up = proxy.ok(
        "/v1/signup_v2",
        {
            "userName": "ada",
            "organizationName": "Ada's org",
            "apiKeys": [
                {
                    "apiKeyName": "session",
                    "publicKey": session_key.public_key,
                    "curveType": "API_KEY_CURVE_P256",
                    "expirationSeconds": "60",
                }
            ],
            "authenticators": [device.authenticator_params("ada's passkey")],
            "oauthProviders": [],
            "wallet": {
                "walletName": "Default",
                "accounts": [
                    {
                        "curve": "CURVE_SECP256K1",
                        "pathFormat": "PATH_FORMAT_BIP32",
                        "path": "m/44'/60'/0'/0/0",
                        "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
                    }
                ],
            },
        },
    )
    sub_org = signed_up["organizationId"]
    assert signed_up["wallet"]["addresses"][0].startswith("0x")
    assert proxy.emu.world.store.organizations[sub_org].name == "Ada's org"
    body = json.dumps({"organizationId": sub_org}).encode()
    whoami = requests.post(
        f"{proxy.site.url}/public/v1/query/whoami", data=body, headers=device.headers(body)
    )
    assert whoami.status_code == 200, whoami.text
    assert (whoami.json()["userId"], whoami.json()["username"]) == (signed_up["userId"], "ada")
    stamped = requests.post(
        f"{proxy.site.url}/public/v1/query/whoami",
        data=body,
        headers={"X-Stamp": sign_stamp(body, session_key).header_value()},
    )
    assert stamped.status_code == 200
    # a passkey login addressed to the parent (as @turnkey/core sends it) is the sub-org's
    login_key = TargetKey.generate()
    login = json.dumps(
        {
            "parameters": {"publicKey": login_key.compressed_public_key},
            "organizationId": proxy.site.org.organization_id,
            "timestampMs": str(proxy.emu.clock.now_ms()),
            "type": "ACTIVITY_TYPE_STAMP_LOGIN",
        }
    ).encode()
    answer = requests.post(
        f"{proxy.site.url}/public/v1/submit/stamp_login", data=login, headers=device.headers(login)
    )
    assert answer.status_code == 200, answer.text
    activity = answer.json()["activity"]
    assert activity["organizationId"] == sub_org
    claims = proxy.session_claims(activity["result"]["stampLoginResult"]["session"])
    assert (claims["organization_id"], claims["user_id"]) == (sub_org, signed_up["userId"])
    # any other request of that passkey to the parent is still refused
    parent_body = json.dumps({"organizationId": proxy.site.org.organization_id}).encode()
    refused = requests.post(
        f"{proxy.site.url}/public/v1/query/whoami",
        data=parent_body,
        headers=device.headers(parent_body),
    )
    assert refused.status_code == 404


def test_a_wallet_sign_up_needs_the_wallet_method(proxy):
    wallet_key = TargetKey.generate().api_key
    body = {
        "apiKeys": [
            {
                "apiKeyName": "wallet",
                "publicKey": wallet_key.public_key,
                "curveType": "API_KEY_CURVE_P256",
            }
        ],
        "authenticators": [],
        "oauthProviders": [],
    }
    assert proxy.ok("/v1/signup_v2", body)["organizationId"]
    proxy.control(
        "auth_proxy/configure", {"configId": proxy.config_id, "enabledProviders": ["passkey"]}
    )
    assert error_of(proxy.post("/v1/signup_v2", body)) == (
        403,
        7,
        "wallet sign-in is not enabled in this Auth Proxy config",
    )


def test_oauth_sign_up_and_login_with_the_test_issuer(proxy):
    emu = proxy.emu
    key = TargetKey.generate()
    sign_up_token = emu.oidc.token(
        sub="google-user-1", aud="my-app", email=EMAIL, email_verified=True
    )
    signed_up = proxy.ok(
        "/v1/signup_v2",
        {
            "userEmail": EMAIL,
            "apiKeys": [],
            "authenticators": [],
            "oauthProviders": [{"providerName": "Google", "oidcToken": sign_up_token}],
        },
    )
    login_token = emu.oidc.token(
        sub="google-user-1", aud="my-app", nonce=emu.oidc.nonce_for(key.compressed_public_key)
    )
    found = proxy.ok("/v1/account", {"filterType": "OIDC_TOKEN", "filterValue": login_token})
    assert found == {"organizationId": signed_up["organizationId"]}
    session = proxy.ok(
        "/v1/oauth_login", {"oidcToken": login_token, "publicKey": key.compressed_public_key}
    )["session"]
    claims = proxy.session_claims(session)
    assert (claims["organization_id"], claims["user_id"]) == (
        signed_up["organizationId"],
        signed_up["userId"],
    )


def x_login_code(proxy, redirect: str) -> tuple[dict, str, str]:
    """An X app with its credential in the parent, and a code its user granted: ``(app
    fields, code, verifier)``."""
    emu = proxy.emu
    app = emu.oauth2.register_client("OAUTH2_PROVIDER_X", redirect_uris=[redirect])
    emu.create_oauth2_credential(
        provider=app.provider,
        client_id=app.client_id,
        encrypted_client_secret=encrypt_oauth2_client_secret(
            app.client_secret, emu.enclave.tls_fetcher_encrypt_public_key
        ),
    )
    verifier, challenge = emu.oauth2.pkce()
    code = emu.oauth2.authorize(
        app, user_id="2244994945", redirect_uri=redirect, code_challenge=challenge
    )
    return {"provider": app.provider, "clientId": app.client_id}, code, verifier


def test_oauth2_authenticate_with_x_then_sign_up_and_log_in(proxy):
    redirect = "http://localhost:5173/auth/x"
    app, code, verifier = x_login_code(proxy, redirect)
    key = TargetKey.generate()
    exchange = {
        **app,
        "authCode": code,
        "redirectUri": redirect,
        "codeVerifier": verifier,
        "nonce": proxy.emu.oidc.nonce_for(key.compressed_public_key),
    }
    token = proxy.ok("/v1/oauth2_authenticate", exchange)["oidcToken"]
    signed_up = proxy.ok(
        "/v1/signup_v2",
        {
            "apiKeys": [],
            "authenticators": [],
            "oauthProviders": [{"providerName": "X", "oidcToken": token}],
        },
    )
    session = proxy.ok(
        "/v1/oauth_login", {"oidcToken": token, "publicKey": key.compressed_public_key}
    )["session"]
    assert proxy.session_claims(session)["organization_id"] == signed_up["organizationId"]
    # a code is used once; an app without a credential in the parent is a 404
    assert error_of(proxy.post("/v1/oauth2_authenticate", exchange))[:2] == (400, 3)
    missing = {**exchange, "clientId": "someone-else"}
    assert error_of(proxy.post("/v1/oauth2_authenticate", missing))[:2] == (404, 5)
    proxy.control(
        "auth_proxy/configure", {"configId": proxy.config_id, "enabledProviders": ["google"]}
    )
    assert error_of(proxy.post("/v1/oauth2_authenticate", exchange)) == (
        403,
        7,
        "x sign-in is not enabled in this Auth Proxy config",
    )


# ----- configuration --------------------------------------------------------------------


def test_wallet_kit_config_and_client_params(proxy):
    config = proxy.ok("/v1/wallet_kit_config", {})
    assert config == {
        "enabledProviders": [
            "passkey",
            "email",
            "sms",
            "wallet",
            "google",
            "apple",
            "facebook",
            "x",
            "discord",
            "oauth",
        ],
        "sessionExpirationSeconds": "900",
        "organizationId": proxy.site.org.organization_id,
        "oauthClientIds": {},
        "oauthRedirectUrl": "",
        "otpAlphanumeric": False,
        "otpLength": "6",
    }
    assert proxy.ok("/v1/wallet_kit_client_params", {}) == {}


def test_configurations_through_the_control_plane(proxy):
    made = proxy.control(
        "auth_proxy/configure",
        {"enabledProviders": ["email"], "sessionExpirationSeconds": 3600, "appName": "Demo"},
    )
    assert made.status_code == 200, made.text
    config = made.json()
    assert config["configId"] != proxy.config_id
    assert (config["organizationId"], config["sessionExpirationSeconds"]) == (
        proxy.site.org.organization_id,
        3600,
    )
    listed = requests.get(f"{proxy.site.url}/emulator/v1/auth_proxy").json()["configs"]
    assert [c["configId"] for c in listed] == [proxy.config_id, config["configId"]]
    answer = proxy.post(
        "/v1/otp_init_v2",
        {"otpType": "OTP_TYPE_SMS", "contact": PHONE},
        config_id=config["configId"],
    )
    assert error_of(answer) == (403, 7, "sms sign-in is not enabled in this Auth Proxy config")
    bad = proxy.control("auth_proxy/configure", {"otpLength": 12})
    assert (bad.status_code, bad.json()["message"]) == (
        400,
        "bad control request: otpLength must be 6 to 9",
    )
    unknown = proxy.control("auth_proxy/configure", {"colour": "blue"})
    assert unknown.json()["message"] == "bad control request: unknown Auth Proxy setting 'colour'"
    missing = proxy.control("auth_proxy/configure", {"configId": "nope"})
    assert missing.status_code == 404


# ----- errors and CORS ------------------------------------------------------------------


def test_the_config_id_header_is_required_and_must_be_known(proxy):
    assert error_of(proxy.post("/v1/wallet_kit_config", {}, config_id=None)) == (
        401,
        16,
        "missing X-Auth-Proxy-Config-ID header",
    )
    assert error_of(proxy.post("/v1/wallet_kit_config", {}, config_id="nope"))[:2] == (401, 16)


@pytest.mark.parametrize(
    ("endpoint", "body", "status", "code"),
    [
        ("/v1/nothing", {}, 404, 5),
        ("/v1/oauth2_authenticate", {}, 400, 3),
        ("/v1/otp_init_v2", b"{not json", 400, 3),
        ("/v1/otp_init_v2", b"[1]", 400, 3),
        ("/v1/otp_init_v2", {"otpType": "OTP_TYPE_PIGEON", "contact": EMAIL}, 400, 3),
        ("/v1/otp_verify_v2", {"otpId": "x"}, 400, 3),
        ("/v1/signup_v2", {"apiKeys": [], "authenticators": [], "oauthProviders": []}, 400, 3),
        ("/v1/signup_v2", {"userEmail": EMAIL}, 400, 3),
        ("/v1/account", {"filterType": "SHOE_SIZE", "filterValue": "9"}, 400, 3),
        ("/v1/otp_login_v2", {"verificationToken": "a.b.c", "publicKey": "02"}, 400, 3),
        (
            "/v1/oauth_login",
            {
                "oidcToken": "x",
                "publicKey": "02",
                "organizationId": "00000000-0000-4000-8000-000000000000",
            },
            404,
            5,
        ),
    ],
)
def test_bad_requests_answer_the_error_shape_and_change_nothing(
    proxy, endpoint, body, status, code
):
    before = proxy.emu.snapshot()
    answer = proxy.post(endpoint, body)
    assert error_of(answer)[:2] == (status, code), answer.text
    assert proxy.emu.snapshot() == before


def test_only_post(proxy):
    answer = proxy.http.get(f"{proxy.site.url}/authproxy/v1/wallet_kit_config")
    assert error_of(answer)[:2] == (501, 12)


def test_cors_preflight_and_answers(proxy):
    origin = "http://localhost:5173"
    preflight = proxy.http.options(
        f"{proxy.site.url}/authproxy/v1/signup_v2",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,x-auth-proxy-config-id",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == origin
    allowed = preflight.headers["Access-Control-Allow-Headers"].lower()
    assert "x-auth-proxy-config-id" in allowed and "x-captcha-token" in allowed
    answer = proxy.post("/v1/wallet_kit_config", {}, headers={"Origin": origin})
    assert answer.headers["Access-Control-Allow-Origin"] == origin
    proxy.control(
        "auth_proxy/configure",
        {"configId": proxy.config_id, "allowedOrigins": ["https://app.example"]},
    )
    refused = proxy.post("/v1/wallet_kit_config", {}, headers={"Origin": origin})
    assert "Access-Control-Allow-Origin" not in refused.headers


def test_proxy_activities_are_in_the_call_log_of_the_parent(proxy):
    proxy.ok("/v1/otp_init_v2", {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL})
    (call,) = proxy.emu.calls.filter(operation="init_otp")
    assert call.organization_id == proxy.site.org.organization_id
    assert call.duration_ns is not None and call.duration_ns > 0  # the engine's wall time
    listed = proxy.control("calls", {"operation": "init_otp"}).json()["calls"]
    assert listed[0]["durationNs"] == call.duration_ns
