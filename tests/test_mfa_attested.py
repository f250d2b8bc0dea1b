"""MFA with the factors only an attested stamp proves (features/authentication/mfa): an e-mail
OTP's verification token or an OIDC token, presented by ``X-Stamp-Attested`` on a browser's
``stamp_login`` or ``approve_activity``, over the wire against a served emulator whose Auth
Proxy issues the tokens."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import requests

from emulator.crypto.attested import SCHEME_VERIFICATION_TOKEN, sign_attested_stamp
from emulator.crypto.authenticator import VirtualAuthenticator
from emulator.testing.client_crypto import TargetKey

from .authproxy import EMAIL, Proxy, proxy_served

NEEDED = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
EMAIL_OTP = {"type": "AUTHENTICATION_TYPE_EMAIL_OTP"}
PASSKEY = {"type": "AUTHENTICATION_TYPE_PASSKEY"}


@pytest.fixture
def proxy() -> Iterator[Proxy]:
    with proxy_served() as served_proxy:
        yield served_proxy


@pytest.fixture
def user(proxy):
    """A user signed up by e-mail OTP, logged in once (a session key), with a passkey and the
    docs' "Two factor authentication" policy: a login needs the e-mail OTP and the passkey."""
    emu = proxy.emu
    first = TargetKey.generate()
    made = proxy.signup_with_token(EMAIL, first)
    org_id, user_id = made["organizationId"], made["userId"]
    body = login_body(emu, org_id, first)
    answer = attested_post(proxy, "stamp_login", body, first, made["token"])
    assert answer["activity"]["status"] == COMPLETED
    session = first.api_key
    device = VirtualAuthenticator(credential_id=b"\x05" * 16)
    emu.create_authenticators(
        user_id=user_id,
        authenticators=[device.authenticator_params("phone")],
        organization_id=org_id,
        caller=session,
    )
    emu.create_mfa_policy(
        user_id=user_id,
        mfa_policy_name="Two factor authentication",
        condition="activity.resource == 'AUTH'",  # the examples page writes action == 'AUTH'
        required_authentication_methods=[{"any": [EMAIL_OTP]}, {"any": [PASSKEY]}],
        order=0,
        organization_id=org_id,
        caller=session,
    )
    return {"org_id": org_id, "user_id": user_id, "device": device}


def login_body(emu, org_id: str, key: TargetKey) -> bytes:
    return json.dumps(
        {
            "parameters": {"publicKey": key.compressed_public_key, "expirationSeconds": "900"},
            "organizationId": org_id,
            "timestampMs": str(emu.clock.now_ms()),
            "type": "ACTIVITY_TYPE_STAMP_LOGIN",
        }
    ).encode()


def attested_post(proxy: Proxy, operation: str, body: bytes, key: TargetKey, token: str) -> dict:
    stamp = sign_attested_stamp(body, key.api_key, token, SCHEME_VERIFICATION_TOKEN)
    answer = requests.post(
        f"{proxy.site.url}/public/v1/submit/{operation}",
        data=body,
        headers={"Content-Type": "application/json", "X-Stamp-Attested": stamp.header_value()},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_an_otp_login_waits_for_the_passkey(proxy, user):
    emu = proxy.emu
    key = TargetKey.generate()
    token = proxy.verified_token(EMAIL, key)
    login = attested_post(proxy, "stamp_login", login_body(emu, user["org_id"], key), key, token)
    activity = login["activity"]
    assert activity["status"] == NEEDED and activity["result"] == {}
    (status,) = emu.get_mfa_status(activity_id=activity["id"], organization_id=user["org_id"])[
        "mfaStatuses"
    ]
    assert status["satisfiedMethods"] == [EMAIL_OTP]  # the attested stamp's factor, no id
    done = emu.approve_activity(
        fingerprint=activity["fingerprint"],
        organization_id=user["org_id"],
        caller=user["device"],
    )["activity"]
    assert done["status"] == COMPLETED
    session = done["result"]["stampLoginResult"]["session"]
    assert proxy.session_claims(session)["user_id"] == user["user_id"]


def test_a_passkey_login_waits_for_the_otp_proven_by_an_attested_approval(proxy, user):
    emu = proxy.emu
    new_key = TargetKey.generate()
    login = emu.stamp_login(
        public_key=new_key.compressed_public_key,
        organization_id=user["org_id"],
        caller=user["device"],
    )["activity"]
    assert login["status"] == NEEDED
    otp_key = TargetKey.generate()
    token = proxy.verified_token(EMAIL, otp_key)
    approval = json.dumps(
        {
            "parameters": {"fingerprint": login["fingerprint"]},
            "organizationId": user["org_id"],
            "timestampMs": str(emu.clock.now_ms()),
            "type": "ACTIVITY_TYPE_APPROVE_ACTIVITY",
        }
    ).encode()
    answer = attested_post(proxy, "approve_activity", approval, otp_key, token)
    assert answer["activity"]["status"] == COMPLETED
    assert answer["activity"]["id"] == login["id"]
