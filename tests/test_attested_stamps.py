"""``X-Stamp-Attested``: stamp_login signed by the key a verification token or an OIDC
token vouches for, as ``@turnkey/core`` logs users in after OTP and OAuth (2.7+).

Over the wire against a served emulator with an Auth Proxy: the token comes from the
proxy's OTP endpoints, the stamp is made as ``AttestedStamper`` makes it, and each
check of ``services/attestation.py`` is shown refusing what it should (401, nothing
changed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import requests

from emulator.crypto.attested import (
    SCHEME_OIDC,
    SCHEME_VERIFICATION_TOKEN,
    AttestedStamp,
    parse_attested_stamp_header,
    sign_attested_stamp,
)
from emulator.testing.client_crypto import TargetKey

from .authproxy import EMAIL, Proxy, proxy_served

ATTESTED = "X-Stamp-Attested"


def login_body(proxy: Proxy, org_id: str, public_key: str) -> bytes:
    return json.dumps(
        {
            "parameters": {
                "publicKey": public_key,
                "expirationSeconds": "900",
                "invalidateExisting": False,
            },
            "organizationId": org_id,
            "timestampMs": str(proxy.emu.clock.now_ms()),
            "type": "ACTIVITY_TYPE_STAMP_LOGIN",
        }
    ).encode()


def post(proxy: Proxy, path: str, body: bytes, stamp: AttestedStamp | str) -> requests.Response:
    value = stamp if isinstance(stamp, str) else stamp.header_value()
    return requests.post(
        f"{proxy.site.url}/public/v1/{path}",
        data=body,
        headers={"Content-Type": "application/json", ATTESTED: value},
    )


@pytest.fixture
def proxy() -> Iterator[Proxy]:
    with proxy_served() as served_proxy:
        yield served_proxy


@pytest.fixture
def signed_up(proxy):
    """A user signed up by e-mail OTP; their key and the verification token used."""
    key = TargetKey.generate()
    made = proxy.signup_with_token(EMAIL, key)
    return made, key


def test_a_verification_token_stamp_logs_the_user_in(proxy, signed_up):
    made, key = signed_up
    body = login_body(proxy, made["organizationId"], key.compressed_public_key)
    stamp = sign_attested_stamp(body, key.api_key, made["token"], SCHEME_VERIFICATION_TOKEN)
    answer = post(proxy, "submit/stamp_login", body, stamp)
    assert answer.status_code == 200, answer.text
    activity = answer.json()["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert activity["organizationId"] == made["organizationId"]
    session = activity["result"]["stampLoginResult"]["session"]
    claims = proxy.session_claims(session)
    assert (claims["user_id"], claims["public_key"]) == (made["userId"], key.compressed_public_key)
    vote = activity["votes"][0]
    assert vote["selection"] == "VOTE_SELECTION_APPROVED"
    assert vote["user"]["userId"] == made["userId"]


def test_a_login_addressed_to_the_parent_is_the_users_own_sub_organization(proxy, signed_up):
    made, key = signed_up
    parent = proxy.site.org.organization_id
    body = login_body(proxy, parent, key.compressed_public_key)
    stamp = sign_attested_stamp(body, key.api_key, made["token"], SCHEME_VERIFICATION_TOKEN)
    answer = post(proxy, "submit/stamp_login", body, stamp)
    assert answer.status_code == 200, answer.text
    activity = answer.json()["activity"]
    assert activity["organizationId"] == made["organizationId"]
    claims = proxy.session_claims(activity["result"]["stampLoginResult"]["session"])
    assert claims["organization_id"] == made["organizationId"]


def test_an_oidc_stamp_logs_the_user_in(proxy):
    emu = proxy.emu
    key = TargetKey.generate()
    first = emu.oidc.token(sub="user-7", aud="app")
    made = proxy.ok(
        "/v1/signup_v2",
        {
            "apiKeys": [],
            "authenticators": [],
            "oauthProviders": [{"providerName": "Google", "oidcToken": first}],
        },
    )
    token = emu.oidc.token(
        sub="user-7", aud="app", nonce=emu.oidc.nonce_for(key.compressed_public_key)
    )
    body = login_body(proxy, proxy.site.org.organization_id, key.compressed_public_key)
    answer = post(
        proxy,
        "submit/stamp_login",
        body,
        sign_attested_stamp(body, key.api_key, token, SCHEME_OIDC),
    )
    assert answer.status_code == 200, answer.text
    claims = proxy.session_claims(
        answer.json()["activity"]["result"]["stampLoginResult"]["session"]
    )
    assert (claims["organization_id"], claims["user_id"]) == (
        made["organizationId"],
        made["userId"],
    )


def _refused(proxy: Proxy, path: str, body: bytes, stamp) -> tuple[int, str]:
    before = proxy.emu.snapshot()
    answer = post(proxy, path, body, stamp)
    assert proxy.emu.snapshot() == before
    return answer.status_code, answer.json()["message"]


def test_the_signature_must_be_over_this_body(proxy, signed_up):
    made, key = signed_up
    body = login_body(proxy, made["organizationId"], key.compressed_public_key)
    stamp = sign_attested_stamp(body + b" ", key.api_key, made["token"], SCHEME_VERIFICATION_TOKEN)
    assert _refused(proxy, "submit/stamp_login", body, stamp) == (
        401,
        "could not verify attested stamp: the signature does not verify under publicKey",
    )


def test_the_token_must_bind_the_stamps_key(proxy, signed_up):
    made, _ = signed_up
    other = TargetKey.generate()
    body = login_body(proxy, made["organizationId"], other.compressed_public_key)
    stamp = sign_attested_stamp(body, other.api_key, made["token"], SCHEME_VERIFICATION_TOKEN)
    assert _refused(proxy, "submit/stamp_login", body, stamp) == (
        401,
        "could not verify attested stamp: the verification token is not bound to publicKey",
    )


def test_the_token_must_be_ours_and_current(proxy, signed_up):
    made, key = signed_up
    body = login_body(proxy, made["organizationId"], key.compressed_public_key)
    head, payload, signature = made["token"].split(".")
    forged = f"{head}.{payload}.{signature[:-4]}AAAA"
    stamp = sign_attested_stamp(body, key.api_key, forged, SCHEME_VERIFICATION_TOKEN)
    assert _refused(proxy, "submit/stamp_login", body, stamp) == (
        401,
        "could not verify attested stamp: invalid verification token",
    )
    proxy.emu.clock.advance(3601)
    body = login_body(proxy, made["organizationId"], key.compressed_public_key)
    stamp = sign_attested_stamp(body, key.api_key, made["token"], SCHEME_VERIFICATION_TOKEN)
    assert _refused(proxy, "submit/stamp_login", body, stamp) == (
        401,
        "could not verify attested stamp: verification token has expired",
    )


def test_an_oidc_token_must_bind_the_key_by_its_nonce(proxy):
    key = TargetKey.generate()
    token = proxy.emu.oidc.token(sub="user-8", aud="app", nonce="0" * 64)
    body = login_body(proxy, proxy.site.org.organization_id, key.compressed_public_key)
    status, message = _refused(
        proxy,
        "submit/stamp_login",
        body,
        sign_attested_stamp(body, key.api_key, token, SCHEME_OIDC),
    )
    assert (status, message) == (401, "could not verify attested stamp: invalid OIDC token")


def test_only_stamp_login_and_approve_activity_take_an_attested_stamp(proxy, signed_up):
    made, key = signed_up
    body = json.dumps({"organizationId": made["organizationId"]}).encode()
    stamp = sign_attested_stamp(body, key.api_key, made["token"], SCHEME_VERIFICATION_TOKEN)
    assert _refused(proxy, "query/whoami", body, stamp) == (
        401,
        "could not verify attested stamp: an attested stamp authenticates "
        "ACTIVITY_TYPE_STAMP_LOGIN and ACTIVITY_TYPE_APPROVE_ACTIVITY only",
    )


def test_a_malformed_header_is_the_real_401(proxy, signed_up):
    made, key = signed_up
    body = login_body(proxy, made["organizationId"], key.compressed_public_key)
    assert _refused(proxy, "submit/stamp_login", body, "not-base64!") == (
        401,
        "malformed activity stamp",
    )


def test_the_header_round_trips_and_keeps_the_token_out_of_its_repr(signed_up):
    made, key = signed_up
    stamp = sign_attested_stamp(b"{}", key.api_key, made["token"], SCHEME_VERIFICATION_TOKEN)
    assert parse_attested_stamp_header(stamp.header_value()) == stamp
    assert made["token"] not in repr(stamp)
