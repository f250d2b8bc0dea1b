"""Passkeys as callers: the virtual authenticator, X-Stamp-Webauthn, votes and policies.

The authenticator's registration is read by the emulator's attestation reader and
its assertions verify with py_webauthn's own verifier (an independent check);
over the wire a passkey reads and writes in its organization, reads a
sub-organization of it, and every way a stamp can be wrong is the real answer
with nothing changed.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json

import pytest
import webauthn
from webauthn.helpers.structs import AuthenticationCredential, AuthenticatorAssertionResponse

from emulator import TurnkeyApiError
from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair
from emulator.crypto.authenticator import VirtualAuthenticator
from emulator.crypto.encoding import b64url_decode, b64url_encode
from emulator.crypto.webauthn import (
    SCHEME_WEBAUTHN,
    AssertionInvalid,
    MalformedWebauthnStamp,
    WebauthnStamp,
    challenge_of,
    parse_webauthn_stamp_header,
    read_attestation,
    verify_assertion,
)
from emulator.ground import messages
from emulator.http.app import handle
from emulator.http.wsgi import WsgiApp

from .helpers import (
    activity_body,
    add_user,
    api_key_params,
    encode,
    error_of,
    new_key,
    stamped_headers,
    state_digest,
)

WHOAMI = "/public/v1/query/whoami"
CREATE_WALLET = "/public/v1/submit/create_wallet"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
ETH = "ADDRESS_FORMAT_ETHEREUM"
WEBAUTHN_TYPE = "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"


# ----- helpers ------------------------------------------------------------------------


def register(emu, user_id: str, device: VirtualAuthenticator, **kwargs) -> str:
    """Register ``device``'s passkey on ``user_id``; answer the authenticator id."""
    made = emu.create_authenticators(
        user_id=user_id, authenticators=[device.authenticator_params("laptop")], **kwargs
    )
    return made["authenticatorIds"][0]


def post(emu, path: str, raw: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    lowered = {k.lower(): v for k, v in headers.items()}
    status, payload = handle(emu.world, "POST", path, lowered, raw)
    return status, json.loads(payload)


def wallet_body(org_id: str, name: str = "passkey wallet") -> bytes:
    params = {"walletName": name, "accounts": [account_spec(ETH)]}
    return encode(activity_body("ACTIVITY_TYPE_CREATE_WALLET", org_id, params))


def whoami_body(org_id: str) -> bytes:
    return encode({"organizationId": org_id})


def unauthenticated(message: str, tk_code: str) -> dict:
    detail = {"@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail"}
    return {
        "code": 16,
        "message": message,
        "details": [{**detail, "turnkeyErrorCode": tk_code}],
        "turnkeyErrorCode": tk_code,
    }


@pytest.fixture
def device(turnkey_emulator, turnkey_org) -> VirtualAuthenticator:
    """A passkey of the root user of ``turnkey_org``."""
    made = VirtualAuthenticator()
    register(turnkey_emulator, turnkey_org.user_id, made)
    return made


# ----- the virtual authenticator --------------------------------------------------------


def test_registration_reads_back_as_the_device_made_it():
    device = VirtualAuthenticator(rp_id="example.com")
    attestation = device.register("the challenge")
    registered = read_attestation(attestation["attestationObject"], attestation["clientDataJson"])
    assert registered.credential_id == device.credential_id_b64 == attestation["credentialId"]
    assert b64url_decode(registered.public_key) == device.cose_public_key()
    assert registered.attestation_format == "none"
    assert registered.aaguid == b64url_encode(bytes(16))
    client_data = json.loads(b64url_decode(attestation["clientDataJson"]))
    assert client_data == {
        "type": "webauthn.create",
        "challenge": b64url_encode(b"the challenge"),
        "origin": "https://example.com",
        "crossOrigin": False,
    }
    assert attestation["transports"] == ["AUTHENTICATOR_TRANSPORT_INTERNAL"]


def test_registration_verifies_with_py_webauthn():
    device = VirtualAuthenticator(rp_id="example.com")
    attestation = device.register("the challenge")
    verified = webauthn.verify_registration_response(
        credential={
            "id": attestation["credentialId"],
            "rawId": attestation["credentialId"],
            "type": "public-key",
            "response": {
                "clientDataJSON": attestation["clientDataJson"],
                "attestationObject": attestation["attestationObject"],
            },
        },
        expected_challenge=b"the challenge",
        expected_rp_id="example.com",
        expected_origin="https://example.com",
    )
    assert verified.credential_id == device.credential_id
    assert verified.credential_public_key == device.cose_public_key()


def _py_webauthn_verifies(device: VirtualAuthenticator, stamp: WebauthnStamp, body: bytes, count):
    credential = AuthenticationCredential(
        id=stamp.credential_id,
        raw_id=b64url_decode(stamp.credential_id),
        response=AuthenticatorAssertionResponse(
            client_data_json=b64url_decode(stamp.client_data_json),
            authenticator_data=b64url_decode(stamp.authenticator_data),
            signature=b64url_decode(stamp.signature),
        ),
    )
    return webauthn.verify_authentication_response(
        credential=credential,
        expected_challenge=challenge_of(body),
        expected_rp_id=device.rp_id,
        expected_origin=device.origin,
        credential_public_key=device.cose_public_key(),
        credential_current_sign_count=count,
        require_user_verification=True,
    )


def test_stamp_is_an_assertion_py_webauthn_verifies_with_a_counting_counter():
    device = VirtualAuthenticator(rp_id="wallet.example", origin="https://wallet.example")
    body = b'{"organizationId":"x","parameters":{}}'
    first = parse_webauthn_stamp_header(device.stamp(body))
    second = parse_webauthn_stamp_header(device.stamp(body))
    assert _py_webauthn_verifies(device, first, body, 0).new_sign_count == 1
    assert _py_webauthn_verifies(device, second, body, 1).new_sign_count == 2
    assert device.sign_count == 2
    # ... and the emulator's own check agrees.
    verify_assertion(second, b64url_encode(device.cose_public_key()), body)


def test_stamp_challenge_is_the_utf8_of_the_hex_sha256_of_the_body():
    body = b'{"payload": "hello from TKHQ"}'
    stamp = VirtualAuthenticator().assertion(challenge_of(body))
    client_data = json.loads(b64url_decode(stamp.client_data_json))
    assert client_data["type"] == "webauthn.get"
    assert b64url_decode(client_data["challenge"]) == hashlib.sha256(body).hexdigest().encode()
    assert len(b64url_decode(client_data["challenge"])) == 64


def test_stamp_header_is_plain_json_with_the_four_fields():
    device = VirtualAuthenticator()
    header = json.loads(device.stamp(b"{}"))
    assert sorted(header) == ["authenticatorData", "clientDataJson", "credentialId", "signature"]
    assert header["credentialId"] == device.credential_id_b64
    assert device.headers("{}").keys() == {"X-Stamp-Webauthn", "Content-Type"}
    parsed = parse_webauthn_stamp_header(json.dumps(header))
    assert (parsed.scheme, parsed.public_key) == (SCHEME_WEBAUTHN, "")


def test_a_device_without_a_counter_stays_at_zero():
    device = VirtualAuthenticator(counter=False)
    body = b"{}"
    stamp = parse_webauthn_stamp_header(device.stamp(body))
    assert b64url_decode(stamp.authenticator_data)[33:37] == bytes(4)
    assert _py_webauthn_verifies(device, stamp, body, 0).new_sign_count == 0


@pytest.mark.parametrize(
    "value",
    [
        "",
        "not json",
        "[]",
        '"a string"',
        json.dumps({"authenticatorData": "AA", "clientDataJson": "AA", "credentialId": "AA"}),
        json.dumps(
            {
                "authenticatorData": "AA",
                "clientDataJson": "AA",
                "credentialId": "",
                "signature": "A",
            }
        ),
        json.dumps(
            {"authenticatorData": "A", "clientDataJson": "AA", "credentialId": "AA", "signature": 1}
        ),
        json.dumps(
            {
                "authenticatorData": "!!",
                "clientDataJson": "AA",
                "credentialId": "AA",
                "signature": "AA",
            }
        ),
        base64.urlsafe_b64encode(b'{"authenticatorData": "AA"}').decode(),
    ],
)
def test_malformed_headers_do_not_parse(value):
    with pytest.raises(MalformedWebauthnStamp):
        parse_webauthn_stamp_header(value)


def test_verify_assertion_refuses_every_wrong_part():
    device = VirtualAuthenticator(origin="https://app.example")
    cose = b64url_encode(device.cose_public_key())
    body = b'{"a":1}'
    good = device.assertion(challenge_of(body))
    verify_assertion(good, cose, body)
    verify_assertion(good, cose, body, allowed_origins=["https://other", "https://app.example"])
    verify_assertion(good, cose, body, allowed_origins=["*"])
    other = VirtualAuthenticator()
    bad_signature = WebauthnStamp(
        good.authenticator_data,
        good.client_data_json,
        good.credential_id,
        other.assertion(challenge_of(body)).signature,
    )
    registration_data = json.loads(b64url_decode(good.client_data_json))
    registration_data["type"] = "webauthn.create"
    wrong_type = WebauthnStamp(
        good.authenticator_data,
        b64url_encode(json.dumps(registration_data).encode()),
        good.credential_id,
        good.signature,
    )
    short = WebauthnStamp("AAAA", good.client_data_json, good.credential_id, good.signature)
    cases = [
        (bad_signature, cose, body, None),
        (good, cose, b'{"a":2}', None),  # the challenge of another body
        (good, b64url_encode(other.cose_public_key()), body, None),
        (good, cose, body, ["https://elsewhere.example"]),
        (wrong_type, cose, body, None),
        (short, cose, body, None),
        (good, "bm90IGNib3I", body, None),  # not a COSE key
    ]
    for stamp, key, signed_body, origins in cases:
        with pytest.raises(AssertionInvalid):
            verify_assertion(stamp, key, signed_body, allowed_origins=origins)


# ----- over the wire ---------------------------------------------------------------------


def test_passkey_reads_and_writes_over_the_wire(turnkey_emulator, turnkey_org, device):
    org_id = turnkey_org.organization_id
    body = whoami_body(org_id)
    status, who = post(turnkey_emulator, WHOAMI, body, device.headers(body))
    assert status == 200
    assert (who["organizationId"], who["userId"]) == (org_id, turnkey_org.user_id)

    raw = wallet_body(org_id)
    headers = device.headers(raw)
    status, out = post(turnkey_emulator, CREATE_WALLET, raw, headers)
    assert status == 200, out
    activity = out["activity"]
    assert activity["status"] == COMPLETED
    wallet_id = activity["result"]["createWalletResult"]["walletId"]
    assert turnkey_emulator.get_wallet(wallet_id=wallet_id)["wallet"]["walletName"] == (
        "passkey wallet"
    )
    (vote,) = activity["votes"]
    (authenticator,) = turnkey_emulator.get_authenticators(user_id=turnkey_org.user_id)[
        "authenticators"
    ]
    assert vote["publicKey"] == authenticator["credential"]["publicKey"]
    assert b64url_decode(vote["publicKey"]) == device.cose_public_key()
    assert vote["scheme"] == "SIGNATURE_SCHEME_TK_WEBAUTHN"
    assert vote["message"] == raw.decode()
    assert vote["userId"] == turnkey_org.user_id
    assert vote["signature"] == json.loads(headers["X-Stamp-Webauthn"])["signature"]
    call = turnkey_emulator.calls.last(operation="create_wallet")
    assert (call.user_id, call.api_public_key) == (turnkey_org.user_id, vote["publicKey"])


def test_header_name_is_case_insensitive_through_wsgi(turnkey_emulator, turnkey_org, device):
    body = whoami_body(turnkey_org.organization_id)
    started = {}
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": WHOAMI,
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "HTTP_X_STAMP_WEBAUTHN": device.stamp(body),
    }
    payload = WsgiApp(turnkey_emulator.world)(environ, lambda s, h: started.update(status=s))
    assert started["status"] == "200 OK"
    assert json.loads(b"".join(payload))["userId"] == turnkey_org.user_id
    for name in ("X-Stamp-WebAuthn", "x-stamp-webauthn", "X-STAMP-WEBAUTHN"):
        status, _ = post(turnkey_emulator, WHOAMI, body, {name: device.stamp(body)})
        assert status == 200


def test_plain_base64_fields_are_tolerated(turnkey_emulator, turnkey_org, device):
    body = whoami_body(turnkey_org.organization_id)
    header = json.loads(device.stamp(body))
    standard = {k: base64.b64encode(b64url_decode(v)).decode() for k, v in header.items()}
    status, who = post(turnkey_emulator, WHOAMI, body, {"X-Stamp-Webauthn": json.dumps(standard)})
    assert (status, who["userId"]) == (200, turnkey_org.user_id)


def test_through_requests_interception(turnkey_emulator, turnkey_org, device):
    import requests

    raw = wallet_body(turnkey_org.organization_id, "intercepted")
    with turnkey_emulator.intercept():
        answer = requests.post(
            "https://api.turnkey.com" + CREATE_WALLET, data=raw, headers=device.headers(raw)
        )
    assert answer.status_code == 200
    assert answer.json()["activity"]["votes"][0]["scheme"] == SCHEME_WEBAUTHN


def _refused(emu, path: str, raw: bytes, headers: dict) -> tuple[int, dict]:
    before = state_digest(emu)
    status, out = post(emu, path, raw, headers)
    assert state_digest(emu) == before
    return status, out


def test_wrong_signature_is_the_real_401(turnkey_emulator, turnkey_org, device):
    raw = wallet_body(turnkey_org.organization_id)
    header = json.loads(device.stamp(raw))
    signature = bytearray(b64url_decode(header["signature"]))
    signature[-1] ^= 1
    header["signature"] = b64url_encode(bytes(signature))
    status, out = _refused(
        turnkey_emulator, CREATE_WALLET, raw, {"X-Stamp-Webauthn": json.dumps(header)}
    )
    assert (status, out) == (
        401,
        unauthenticated(messages.BAD_WEBAUTHN_SIGNATURE, "SIGNATURE_INVALID"),
    )
    assert out["message"] == "could not verify WebAuthN signature"


def test_stamp_of_another_body_is_the_real_401(turnkey_emulator, turnkey_org, device):
    raw = wallet_body(turnkey_org.organization_id)
    other = wallet_body(turnkey_org.organization_id, "another")
    status, out = _refused(
        turnkey_emulator, CREATE_WALLET, raw, {"X-Stamp-Webauthn": device.stamp(other)}
    )
    assert (status, out) == (
        401,
        unauthenticated(messages.BAD_WEBAUTHN_SIGNATURE, "SIGNATURE_INVALID"),
    )
    body = whoami_body(turnkey_org.organization_id)
    status, _ = post(turnkey_emulator, WHOAMI, body, {"X-Stamp-Webauthn": device.stamp(b"{}")})
    assert status == 401


def test_another_devices_signature_under_a_known_credential_is_refused(
    turnkey_emulator, turnkey_org, device
):
    raw = wallet_body(turnkey_org.organization_id)
    impostor = VirtualAuthenticator(credential_id=device.credential_id)
    status, out = _refused(turnkey_emulator, CREATE_WALLET, raw, impostor.headers(raw))
    assert status == 401 and out["turnkeyErrorCode"] == "SIGNATURE_INVALID"


def test_unknown_credential_is_the_real_404(turnkey_emulator, turnkey_org, device):
    org_id = turnkey_org.organization_id
    stranger = VirtualAuthenticator()
    raw = wallet_body(org_id)
    status, out = _refused(turnkey_emulator, CREATE_WALLET, raw, stranger.headers(raw))
    assert status == 404
    assert out == {
        "code": 5,
        "message": (
            f"webauthn authenticator not found in organization organizationId={org_id} "
            f"credentialId={stranger.credential_id_b64}"
        ),
        "details": [
            {
                "@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail",
                "turnkeyErrorCode": "CREDENTIAL_NOT_FOUND",
            }
        ],
        "turnkeyErrorCode": "CREDENTIAL_NOT_FOUND",
    }


@pytest.mark.parametrize(
    "value",
    ["{", "[]", json.dumps({"credentialId": "AA"}), '{"authenticatorData": 1}'],
)
def test_malformed_header_is_the_real_401(turnkey_emulator, turnkey_org, value):
    raw = wallet_body(turnkey_org.organization_id)
    status, out = _refused(turnkey_emulator, CREATE_WALLET, raw, {"X-Stamp-Webauthn": value})
    assert (status, out) == (
        401,
        unauthenticated("could not extract webauthn stamp", "UNAUTHENTICATED"),
    )


def test_no_stamp_names_both_headers(turnkey_emulator, turnkey_org):
    raw = wallet_body(turnkey_org.organization_id)
    status, out = _refused(turnkey_emulator, CREATE_WALLET, raw, {"X-Stamp-Webauthn": ""})
    assert status == 401
    assert out["message"] == (
        "cannot authenticate public API activity request without a stamp "
        "(X-Stamp/X-Stamp-Webauthn header)"
    )


def test_an_api_key_stamp_beside_a_passkey_stamp_is_the_one_read(
    turnkey_emulator, turnkey_org, device
):
    raw = whoami_body(turnkey_org.organization_id)
    headers = {**stamped_headers(raw, turnkey_org.api_key), "X-Stamp-Webauthn": "garbage"}
    status, who = post(turnkey_emulator, WHOAMI, raw, headers)
    assert (status, who["userId"]) == (200, turnkey_org.user_id)


# ----- organizations: the parent's passkey, a sub-organization's --------------------------


def _sub_org(emu, name: str = "Passkey Sub") -> tuple[str, str, ApiKeyPair]:
    """A sub-organization whose root user holds an API key: ``(sub id, user id, key)``."""
    key = new_key()
    root = {
        "userName": "sub root",
        "apiKeys": [api_key_params(key)],
        "authenticators": [],
        "oauthProviders": [],
    }
    made = emu.create_sub_organization(
        sub_organization_name=name, root_users=[root], root_quorum_threshold=1
    )
    return made["subOrganizationId"], made["rootUserIds"][0], key


def test_a_parent_passkey_reads_a_sub_organization_but_does_not_write(
    turnkey_emulator, turnkey_org, device
):
    sub_id, _, _ = _sub_org(turnkey_emulator)
    body = encode({"organizationId": sub_id})
    status, wallets = post(
        turnkey_emulator, "/public/v1/query/list_wallets", body, device.headers(body)
    )
    assert (status, wallets["wallets"]) == (200, [])
    status, who = post(turnkey_emulator, WHOAMI, body, device.headers(body))
    assert (status, who["userId"], who["organizationId"]) == (
        200,
        turnkey_org.user_id,
        turnkey_org.organization_id,
    )
    raw = wallet_body(sub_id)
    status, out = _refused(turnkey_emulator, CREATE_WALLET, raw, device.headers(raw))
    assert (status, out["turnkeyErrorCode"]) == (400, "ORGANIZATION_MISMATCH")


def test_a_sub_organization_passkey_and_the_longer_not_found(turnkey_emulator, turnkey_org):
    sub_id, sub_root, sub_key = _sub_org(turnkey_emulator)
    device = VirtualAuthenticator()
    register(turnkey_emulator, sub_root, device, organization_id=sub_id, caller=sub_key)
    raw = wallet_body(sub_id)
    status, out = post(turnkey_emulator, CREATE_WALLET, raw, device.headers(raw))
    assert (status, out["activity"]["status"]) == (200, COMPLETED)
    # The sub-organization's passkey is nobody in the parent.
    body = whoami_body(turnkey_org.organization_id)
    status, out = post(turnkey_emulator, WHOAMI, body, device.headers(body))
    assert (status, out["turnkeyErrorCode"]) == (404, "CREDENTIAL_NOT_FOUND")
    stranger = VirtualAuthenticator()
    status, out = _refused(turnkey_emulator, CREATE_WALLET, raw, stranger.headers(raw))
    assert (status, out["message"]) == (
        404,
        "webauthn authenticator not found in organization or parent organization "
        f"organizationId={sub_id} credentialId={stranger.credential_id_b64}",
    )


def test_a_deleted_passkey_no_longer_stamps(turnkey_emulator, turnkey_org, device):
    (authenticator,) = turnkey_emulator.get_authenticators(user_id=turnkey_org.user_id)[
        "authenticators"
    ]
    turnkey_emulator.delete_authenticators(
        user_id=turnkey_org.user_id, authenticator_ids=[authenticator["authenticatorId"]]
    )
    body = whoami_body(turnkey_org.organization_id)
    status, out = post(turnkey_emulator, WHOAMI, body, device.headers(body))
    assert (status, out["code"]) == (404, 5)


# ----- FEATURE_NAME_WEBAUTHN_ORIGINS -----------------------------------------------------


def test_webauthn_origins_feature_scopes_passkeys(turnkey_emulator, turnkey_org):
    org_id = turnkey_org.organization_id
    at_app = VirtualAuthenticator(rp_id="app.example", origin="https://app.example")
    elsewhere = VirtualAuthenticator(rp_id="evil.example", origin="https://evil.example")
    register(turnkey_emulator, turnkey_org.user_id, at_app)
    register(turnkey_emulator, turnkey_org.user_id, elsewhere)
    body = whoami_body(org_id)

    def status_of(device) -> int:
        return post(turnkey_emulator, WHOAMI, body, device.headers(body))[0]

    assert (status_of(at_app), status_of(elsewhere)) == (200, 200)  # not set: any origin
    turnkey_emulator.set_organization_feature(
        name="FEATURE_NAME_WEBAUTHN_ORIGINS", value="https://other.example, https://app.example"
    )
    assert (status_of(at_app), status_of(elsewhere)) == (200, 401)
    _, out = post(turnkey_emulator, WHOAMI, body, elsewhere.headers(body))
    assert out["message"] == "could not verify WebAuthN signature"
    # The parent's value applies to its sub-organizations.
    sub_id, sub_root, sub_key = _sub_org(turnkey_emulator, "Origins Sub")
    sub_device = VirtualAuthenticator(rp_id="evil.example", origin="https://evil.example")
    register(turnkey_emulator, sub_root, sub_device, organization_id=sub_id, caller=sub_key)
    sub_body = whoami_body(sub_id)
    assert post(turnkey_emulator, WHOAMI, sub_body, sub_device.headers(sub_body))[0] == 401
    turnkey_emulator.set_organization_feature(name="FEATURE_NAME_WEBAUTHN_ORIGINS", value="*")
    assert (status_of(at_app), status_of(elsewhere)) == (200, 200)
    assert post(turnkey_emulator, WHOAMI, sub_body, sub_device.headers(sub_body))[0] == 200


# ----- policies, consensus, the facade ---------------------------------------------------


def test_policies_see_a_passkey_credential(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    user_id, key = add_user(emu, "bob")
    device = VirtualAuthenticator()
    register(emu, user_id, device)
    (authenticator,) = emu.get_authenticators(user_id=user_id)["authenticators"]
    emu.create_policy(
        policy_name="passkeys make wallets",
        effect="EFFECT_ALLOW",
        condition="activity.resource == 'WALLET' && activity.action == 'CREATE'",
        consensus=(
            "credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR'"
            f" && credential.credential_id == '{device.credential_id_b64}'"
            f" && credential.id == '{authenticator['authenticatorId']}'"
            f" && credential.user_id == '{user_id}'"
            f" && credential.public_key == '{authenticator['credential']['publicKey']}')"
        ),
        notes="",
    )
    raw = wallet_body(turnkey_org.organization_id, "bob's")
    status, out = post(emu, CREATE_WALLET, raw, device.headers(raw))
    assert (status, out["activity"]["status"]) == (200, COMPLETED)
    # The same user with an API key is not allowed.
    raw = wallet_body(turnkey_org.organization_id, "bob's key")
    status, out = post(emu, CREATE_WALLET, raw, stamped_headers(raw, key))
    assert (status, out["code"]) == (403, 7)
    # And through the facade, as the passkey.
    made = emu.create_wallet(wallet_name="facade", accounts=[account_spec(ETH)], caller=device)
    (vote,) = made["activity"]["votes"]
    assert (vote["publicKey"], vote["scheme"], vote["signature"]) == (
        authenticator["credential"]["publicKey"],
        SCHEME_WEBAUTHN,
        "",
    )
    with pytest.raises(TurnkeyApiError) as caught:
        emu.create_wallet(wallet_name="as key", accounts=[account_spec(ETH)], caller=key)
    assert caught.value.status == 403


def test_a_passkey_proposal_completes_when_consensus_is_reached(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    alice_id, alice_key = add_user(emu, "alice")
    bob_id, _ = add_user(emu, "bob")
    device = VirtualAuthenticator()
    register(emu, bob_id, device)
    emu.create_policy(
        policy_name="two approve wallets",
        effect="EFFECT_ALLOW",
        condition="activity.resource == 'WALLET'",
        consensus=f"approvers.any(u, u.id == '{alice_id}') && approvers.any(u, u.id == '{bob_id}')",
        notes="",
    )
    raw = wallet_body(turnkey_org.organization_id, "two approvals")
    status, out = post(emu, CREATE_WALLET, raw, device.headers(raw))
    assert (status, out["activity"]["status"]) == (200, "ACTIVITY_STATUS_CONSENSUS_NEEDED")
    fingerprint = out["activity"]["fingerprint"]
    approved = emu.approve_activity(fingerprint=fingerprint, caller=alice_key)
    assert approved["activity"]["status"] == COMPLETED
    assert approved["activity"]["votes"][0]["scheme"] == SCHEME_WEBAUTHN
    assert approved["activity"]["result"]["createWalletResult"]["walletId"]


def test_facade_passkey_caller_must_be_registered(turnkey_emulator, turnkey_org):
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.whoami(caller=VirtualAuthenticator())
    assert error_of(caught.value)[:2] == (404, 5)


# ----- the official SDK -----------------------------------------------------------------


def test_official_sdk_client_with_a_passkey_stamper(turnkey_emulator, turnkey_org, device):
    pytest.importorskip("turnkey_http")
    from turnkey_http import TurnkeyClient
    from turnkey_sdk_types import CreateWalletBody, v1WalletAccountParams

    client = TurnkeyClient(
        base_url="https://api.turnkey.com",
        stamper=device.sdk_stamper(),
        organization_id=turnkey_org.organization_id,
    )
    with turnkey_emulator.intercept():
        who = client.get_whoami()
        made = client.create_wallet(
            CreateWalletBody(
                walletName="sdk passkey wallet",
                accounts=[
                    v1WalletAccountParams(
                        curve="CURVE_SECP256K1",
                        pathFormat="PATH_FORMAT_BIP32",
                        path="m/44'/60'/0'/0/0",
                        addressFormat=ETH,
                    )
                ],
            )
        )
    assert who.userId == turnkey_org.user_id
    assert made.activity.status == COMPLETED
    assert made.activity.votes[0].scheme == SCHEME_WEBAUTHN
    assert device.sign_count == 2
