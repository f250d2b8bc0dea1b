"""The emulated Auth Proxy against the facts of its OpenAPI document
(``fixtures/auth-proxy-openapi.json``, from ``tkhq/sdk``): the same endpoints, every
answer with its required fields and no field the document does not name, and every
required request field required."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from emulator.authproxy.endpoints import ENDPOINTS
from emulator.testing.client_crypto import (
    TargetKey,
    client_signature_for_login,
    client_signature_for_signup,
)

from .authproxy import Proxy, proxy_served
from .test_auth_proxy import x_login_code

CONTRACT = json.loads(
    (Path(__file__).parent.parent / "fixtures" / "auth-proxy-openapi.json").read_text()
)["endpoints"]


@pytest.fixture
def proxy() -> Iterator[Proxy]:
    with proxy_served() as served_proxy:
        yield served_proxy


def test_the_same_endpoints():
    assert sorted(ENDPOINTS) == sorted(CONTRACT)


class Recording(Proxy):
    """A proxy client that keeps each endpoint's successful answers."""

    def __init__(self, proxy: Proxy) -> None:
        super().__init__(proxy.site, proxy.config_id)
        self.answers: dict[str, list[dict]] = {}

    def ok(self, endpoint: str, body: object) -> dict:
        answer = super().ok(endpoint, body)
        self.answers.setdefault(endpoint, []).append(answer)
        return answer


def test_every_answer_has_the_documented_fields(proxy):
    client = Recording(proxy)
    emu = client.emu
    client.ok("/v1/wallet_kit_config", {})
    client.ok("/v1/wallet_kit_client_params", {})

    key = TargetKey.generate()
    client.signup_with_token("ada@example.com", key)
    client.ok("/v1/account", {"filterType": "EMAIL", "filterValue": "ada@example.com"})
    token = client.verified_token("ada@example.com", key)
    client.ok(
        "/v1/otp_login_v2",
        {
            "verificationToken": token,
            "publicKey": key.compressed_public_key,
            "clientSignature": client_signature_for_login(token, key.api_key),
        },
    )

    legacy = TargetKey.generate()
    for step in ("signup", "login"):
        sent = client.ok("/v1/otp_init", {"otpType": "OTP_TYPE_EMAIL", "contact": "bo@example.com"})
        token = client.ok(
            "/v1/otp_verify",
            {
                "otpId": sent["otpId"],
                "otpCode": client.code_for("bo@example.com"),
                "publicKey": legacy.compressed_public_key,
            },
        )["verificationToken"]
        if step == "signup":
            signed = client_signature_for_signup(token, legacy.api_key)
            client.ok(
                "/v1/signup",
                {
                    "userEmail": "bo@example.com",
                    "verificationToken": token,
                    "clientSignature": signed,
                    "apiKeys": [],
                    "authenticators": [],
                    "oauthProviders": [],
                },
            )
        else:
            client.ok(
                "/v1/otp_login",
                {
                    "verificationToken": token,
                    "publicKey": legacy.compressed_public_key,
                    "clientSignature": client_signature_for_login(token, legacy.api_key),
                },
            )

    oauth = TargetKey.generate()
    first = emu.oidc.token(sub="cy", aud="app")
    client.ok(
        "/v1/signup_v2",
        {
            "apiKeys": [],
            "authenticators": [],
            "oauthProviders": [{"providerName": "Test", "oidcToken": first}],
        },
    )
    login = emu.oidc.token(
        sub="cy", aud="app", nonce=emu.oidc.nonce_for(oauth.compressed_public_key)
    )
    client.ok("/v1/oauth_login", {"oidcToken": login, "publicKey": oauth.compressed_public_key})

    redirect = "http://localhost:5173/auth/x"
    app, code, verifier = x_login_code(client, redirect)
    client.ok(
        "/v1/oauth2_authenticate",
        {
            **app,
            "authCode": code,
            "redirectUri": redirect,
            "codeVerifier": verifier,
            "nonce": emu.oidc.nonce_for(oauth.compressed_public_key),
        },
    )

    assert set(client.answers) == set(CONTRACT)
    for endpoint, answers in client.answers.items():
        response = CONTRACT[endpoint]["response"]
        for answer in answers:
            assert set(response["required"]) <= set(answer) <= set(response["fields"]), endpoint


@pytest.mark.parametrize(
    "endpoint",
    [e for e in sorted(CONTRACT) if CONTRACT[e]["request"]["required"]],
)
def test_every_required_request_field_is_required(proxy, endpoint):
    answer = proxy.post(endpoint, {})
    assert answer.status_code == 400, answer.text
    named = json.dumps(answer.json())
    for field in CONTRACT[endpoint]["request"]["required"]:
        assert field in named, (endpoint, field)
