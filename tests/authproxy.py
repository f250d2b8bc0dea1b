"""A served emulator with an Auth Proxy configuration, and the client steps of its flows
(the tests of ``test_auth_proxy.py`` and ``test_attested_stamps.py``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import requests

from emulator.testing.client_crypto import (
    TargetKey,
    client_signature_for_signup,
    encrypt_otp_code,
    verify_session_jwt,
)

from .wire import Served, served

EMAIL = "ada@example.com"
PHONE = "+15555550123"
CONFIG_HEADER = "X-Auth-Proxy-Config-ID"


class Proxy:
    """A served emulator with one Auth Proxy configuration."""

    def __init__(self, site: Served, config_id: str) -> None:
        self.site = site
        self.config_id = config_id
        self.http = requests.Session()

    @property
    def emu(self):
        return self.site.emu

    def post(self, endpoint: str, body: object, *, config_id: str | None = "default", **kw):
        headers = {"Content-Type": "application/json", **kw.pop("headers", {})}
        if config_id is not None:
            headers[CONFIG_HEADER] = self.config_id if config_id == "default" else config_id
        data = body if isinstance(body, bytes) else json.dumps(body)
        return self.http.post(f"{self.site.url}/authproxy{endpoint}", data=data, headers=headers)

    def ok(self, endpoint: str, body: object) -> dict:
        answer = self.post(endpoint, body)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def control(self, name: str, body: dict | None = None) -> requests.Response:
        return self.http.post(f"{self.site.url}/emulator/v1/{name}", json=body or {})

    def code_for(self, contact: str) -> str:
        sent = [m for m in self.emu.outbox.messages if m.to == contact]
        return sent[-1].fields["otpCode"]

    def verified_token(self, contact: str, key: TargetKey, otp_type="OTP_TYPE_EMAIL") -> str:
        init = self.ok("/v1/otp_init_v2", {"otpType": otp_type, "contact": contact})
        bundle = encrypt_otp_code(
            init["otpEncryptionTargetBundle"],
            self.code_for(contact),
            key.compressed_public_key,
            tls_fetcher_public_key=self.emu.enclave.tls_fetcher_public_key,
        )
        answer = self.ok(
            "/v1/otp_verify_v2", {"otpId": init["otpId"], "encryptedOtpBundle": bundle}
        )
        return answer["verificationToken"]

    def signup_with_token(self, contact: str, key: TargetKey, field="userEmail", **extra) -> dict:
        token = self.verified_token(
            contact, key, "OTP_TYPE_SMS" if field == "userPhoneNumber" else "OTP_TYPE_EMAIL"
        )
        body = {
            field: contact,
            "verificationToken": token,
            "apiKeys": [],
            "authenticators": [],
            "oauthProviders": [],
            "clientSignature": client_signature_for_signup(token, key.api_key, {"email": contact}),
            **extra,
        }
        return {**self.ok("/v1/signup_v2", body), "token": token}

    def session_claims(self, session: str) -> dict:
        return verify_session_jwt(session, self.emu.enclave.notarizer_public_key)


@contextmanager
def proxy_served() -> Iterator[Proxy]:
    with served() as site:
        config = site.emu.auth_proxy.configure()
        yield Proxy(site, config.config_id)
