"""The generic OTP flow: init_otp, verify_otp, otp_login.

The encrypted flow end to end (the target bundle, the code sealed to it, the
verification token checked by independent code, the client signature, the session
JWT and its key stamping a request), its expiries on the virtual clock, where a token
may be spent, single use, bad signatures, the legacy versions and how they do not
mix with the encrypted ones, and the official SDK.
"""

from __future__ import annotations

import base64
import json

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from emulator import TurnkeyApiError
from emulator.ground import messages
from emulator.ground.models import Otp
from emulator.testing import client_crypto
from emulator.testing.client_crypto import TargetKey, verify_session_jwt
from emulator.testing.digest import state_digest

from .helpers import add_user, error_of, fails, violations

EMAIL = "root@example.com"
PHONE = "+15555550100"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
NS = 1_000_000_000


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    """The shared emulator, its root user reachable by e-mail and phone, its clock frozen."""
    turnkey_emulator.update_user(
        user_id=turnkey_org.user_id, user_email=EMAIL, user_phone_number=PHONE, user_tag_ids=[]
    )
    turnkey_emulator.clock.freeze()
    return turnkey_emulator


@pytest.fixture
def sub(emu, turnkey_org):
    """A sub-organization whose root user has the e-mail address and phone number."""
    made = emu.create_organization(
        "Sub", user_email=EMAIL, parent_organization_id=turnkey_org.organization_id
    )
    emu.update_user(
        user_id=made.user_id,
        user_phone_number=PHONE,
        user_tag_ids=[],
        organization_id=made.organization_id,
    )
    return made


def start(emu, contact: str = EMAIL, otp_type: str = "OTP_TYPE_EMAIL", **params):
    return emu.init_otp(otp_type=otp_type, contact=contact, app_name="Acme", **params)


def code_of(emu, otp_id: str) -> str:
    (message,) = [m for m in emu.outbox if m.fields["otpId"] == otp_id]
    return message.fields["otpCode"]


def encrypted(emu, started, key: TargetKey, code: str | None = None) -> str:
    return client_crypto.encrypt_otp_code(
        started["otpEncryptionTargetBundle"],
        code if code is not None else code_of(emu, started["otpId"]),
        key.compressed_public_key,
        tls_fetcher_public_key=emu.enclave.tls_fetcher_public_key,
    )


def verify(emu, started, key: TargetKey | None = None, **params) -> tuple[str, TargetKey]:
    """A verification token for ``started``, bound to ``key`` (a fresh one by default)."""
    key = key or TargetKey.generate()
    made = emu.verify_otp(
        otp_id=started["otpId"], encrypted_otp_bundle=encrypted(emu, started, key), **params
    )
    return made["verificationToken"], key


def login(emu, token: str, key: TargetKey, session_key: TargetKey | None = None, **params):
    session_key = session_key or key
    signature = client_crypto.client_signature_for_login(
        token, key.api_key, session_key.compressed_public_key
    )
    return emu.otp_login(
        verification_token=token,
        public_key=session_key.compressed_public_key,
        client_signature=signature,
        **params,
    )


def record(emu, organization_id: str, otp_id: str) -> Otp:
    return emu.world.store.organizations[organization_id].otps[otp_id]


def b64url(segment: str) -> bytes:
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


# ----- init_otp -----------------------------------------------------------------------


def test_init_otp_answers_a_target_signed_by_the_tls_fetcher(emu, turnkey_org):
    params = {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, "appName": "Acme"}
    made = emu.call("init_otp", params)
    activity = made["activity"]
    assert (activity["type"], activity["status"]) == ("ACTIVITY_TYPE_INIT_OTP_V3", COMPLETED)
    assert activity["intent"] == {"initOtpIntentV3": params}
    assert activity["result"]["initOtpResultV2"] == {
        "otpId": made["otpId"],
        "otpEncryptionTargetBundle": made["otpEncryptionTargetBundle"],
    }
    bundle = json.loads(made["otpEncryptionTargetBundle"])
    assert list(bundle) == ["version", "data", "dataSignature", "enclaveQuorumPublic"]
    assert bundle["enclaveQuorumPublic"] == emu.enclave.tls_fetcher_public_key
    inner = client_crypto.verify_signed_bundle(
        made["otpEncryptionTargetBundle"], emu.enclave.tls_fetcher_public_key
    )
    assert list(inner) == ["targetPublic", "organizationId"]
    assert inner["organizationId"] == turnkey_org.organization_id
    assert len(inner["targetPublic"]) == 130 and inner["targetPublic"].startswith("04")
    # signed by no other enclave key; a target of its own for every OTP
    with pytest.raises(client_crypto.ClientBundleError):
        client_crypto.verify_signed_bundle(
            made["otpEncryptionTargetBundle"], emu.enclave.signer_public_key
        )
    other = client_crypto.verify_signed_bundle(
        start(emu)["otpEncryptionTargetBundle"], emu.enclave.tls_fetcher_public_key
    )
    assert other["targetPublic"] != inner["targetPublic"]
    stored = record(emu, turnkey_org.organization_id, made["otpId"])
    assert (stored.flow, stored.legacy, stored.expires_at - stored.created_at) == (
        "verify",
        False,
        300 * NS,
    )
    assert code_of(emu, made["otpId"]) == stored.code


# ----- the encrypted flow end to end -----------------------------------------------------


def test_parent_verifies_and_the_sub_organization_logs_in(emu, turnkey_org, sub, wire):
    started = start(emu)  # in the parent, with the parent's key
    token, key = verify(emu, started)
    parent_id, now_ms = turnkey_org.organization_id, emu.clock.now_ms()
    claims = client_crypto.verify_verification_token(
        token, emu.enclave.tls_fetcher_public_key, now_ms=now_ms
    )
    stored = record(emu, parent_id, started["otpId"])
    assert claims == {
        "exp": str(now_ms + 3_600_000),
        "id": stored.token_id,
        "organization_id": parent_id,
        "verification_type": "OTP_TYPE_EMAIL",
        "contact": EMAIL,
        "public_key": key.compressed_public_key,
    }
    # independently: header bytes, claim order, ES256 over SHA-256 once, TLS fetcher key
    header, payload, signature = token.split(".")
    assert b64url(header) == b'{"typ":"JWT","alg":"ES256"}'
    assert list(json.loads(b64url(payload))) == [
        "exp",
        "id",
        "organization_id",
        "verification_type",
        "contact",
        "public_key",
    ]
    raw = b64url(signature)
    tls_fetcher = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), bytes.fromhex(emu.enclave.tls_fetcher_public_key)
    )
    tls_fetcher.verify(
        encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
        f"{header}.{payload}".encode(),
        ec.ECDSA(hashes.SHA256()),
    )
    # the sub-organization's user logs in with the parent's token, through the parent
    session_key = TargetKey.generate()
    made = login(
        emu, token, key, session_key, organization_id=sub.organization_id, caller=turnkey_org
    )
    activity = made["activity"]
    assert (activity["type"], activity["status"]) == ("ACTIVITY_TYPE_OTP_LOGIN_V2", COMPLETED)
    session = verify_session_jwt(made["session"], emu.enclave.notarizer_public_key)
    assert session == {
        "exp": emu.clock.now_ns() // NS + 900,
        "public_key": session_key.compressed_public_key,
        "session_type": "SESSION_TYPE_READ_WRITE",
        "user_id": sub.user_id,
        "organization_id": sub.organization_id,
    }
    users = emu.world.store.organizations[sub.organization_id].users
    assert users[sub.user_id].email_verified and not users[sub.user_id].phone_number_verified
    assert emu.list_verified_suborgs()["organizationIds"] == [sub.organization_id]
    # the session key stamps a real request ...
    body = {"organizationId": sub.organization_id}
    status, answer = wire.post("/public/v1/query/whoami", body, session_key.api_key)
    assert (status, answer["userId"]) == (200, sub.user_id)
    # ... until the session expires on the virtual clock (issue 4)
    emu.clock.advance(900)
    status, answer = wire.post("/public/v1/query/whoami", body, session_key.api_key)
    assert (status, answer["turnkeyErrorCode"]) == (401, "API_KEY_EXPIRED")
    assert answer["message"] == messages.expired_api_key(session_key.compressed_public_key)


def test_sms_flow_in_the_organization_itself(emu, turnkey_org):
    started = start(emu, PHONE, "OTP_TYPE_SMS", expiration_seconds="60")
    token, key = verify(emu, started, expiration_seconds="120")
    claims = client_crypto.verify_verification_token(token, emu.enclave.tls_fetcher_public_key)
    assert (claims["verification_type"], claims["contact"]) == ("OTP_TYPE_SMS", PHONE)
    assert claims["exp"] == str(emu.clock.now_ms() + 120_000)
    profile = emu.create_session_profile(session_profile_name="p", scope="true")
    profile_id = profile["sessionProfileId"]
    made = login(emu, token, key, expiration_seconds="300", session_profile_id=profile_id)
    session = verify_session_jwt(made["session"], emu.enclave.notarizer_public_key)
    assert session["user_id"] == turnkey_org.user_id
    assert session["session_profile_id"] == profile_id
    assert session["exp"] == emu.clock.now_ns() // NS + 300
    user = emu.world.store.organizations[turnkey_org.organization_id].users[turnkey_org.user_id]
    assert (user.email_verified, user.phone_number_verified) == (False, True)
    # the login key: CREDENTIAL_TYPE_LOGIN, the client's key
    (login_key,) = [
        k for k in user.api_keys.values() if k.credential_type == "CREDENTIAL_TYPE_LOGIN"
    ]
    assert (login_key.public_key, login_key.expiration_seconds) == (
        key.compressed_public_key,
        "300",
    )


# ----- verify_otp -------------------------------------------------------------------------


def test_verify_otp_wrong_code_counts_a_bad_bundle_does_not(emu, turnkey_org):
    started = start(emu)
    otp = record(emu, turnkey_org.organization_id, started["otpId"])
    key = TargetKey.generate()
    before = state_digest(emu)
    with pytest.raises(TurnkeyApiError) as caught:
        emu.verify_otp(
            otp_id=started["otpId"], encrypted_otp_bundle=encrypted(emu, started, key, "WRONG")
        )
    assert error_of(caught.value) == (400, 3, "Invalid OTP code", "")
    assert otp.attempts == 1 and state_digest(emu) != before
    # a bundle for another target does not open: no code was tried
    other = start(emu)
    error = fails(
        emu,
        emu.verify_otp,
        otp_id=started["otpId"],
        encrypted_otp_bundle=encrypted(emu, other, key, otp.code),
    )
    assert error_of(error) == (400, 3, messages.INVALID_OTP_BUNDLE, "REQUEST_INVALID")
    error = fails(emu, emu.verify_otp, otp_id=started["otpId"], encrypted_otp_bundle="{}")
    assert error.message == messages.INVALID_OTP_BUNDLE
    assert otp.attempts == 1
    verify(emu, started, key)
    assert otp.used


def test_verify_otp_expiry_and_lifetimes(emu):
    started = start(emu)
    emu.clock.advance(300)
    key = TargetKey.generate()
    error = fails(
        emu,
        emu.verify_otp,
        otp_id=started["otpId"],
        encrypted_otp_bundle=encrypted(emu, started, key),
    )
    assert error_of(error) == (400, 3, f"OTP has expired otpId={started['otpId']}", "")
    fresh = start(emu)
    error = fails(
        emu,
        emu.verify_otp,
        otp_id=fresh["otpId"],
        encrypted_otp_bundle=encrypted(emu, fresh, key),
        expiration_seconds="86401",
    )
    assert violations(error) == [
        {"field": "expirationSeconds", "description": "This field must be at most 86400 seconds."}
    ]
    token, _ = verify(emu, fresh, key, expiration_seconds="86400")
    claims = client_crypto.verify_verification_token(token, emu.enclave.tls_fetcher_public_key)
    assert claims["exp"] == str(emu.clock.now_ms() + 86_400_000)


# ----- otp_login: where, when and how often a token is good ---------------------------


def test_a_token_expires_on_the_virtual_clock(emu):
    token, key = verify(emu, start(emu), expiration_seconds="60")
    emu.clock.advance(60)  # exp is now: good until it has passed
    tls_fetcher = emu.enclave.tls_fetcher_public_key
    client_crypto.verify_verification_token(token, tls_fetcher, now_ms=emu.clock.now_ms())
    emu.clock.advance(0.001)
    error = fails(emu, login, emu, token, key)
    assert error_of(error) == (400, 3, "verification token has expired", "")
    with pytest.raises(client_crypto.jwt.JwtError, match="expired"):
        client_crypto.verify_verification_token(
            token, emu.enclave.tls_fetcher_public_key, now_ms=emu.clock.now_ms()
        )


def test_a_token_is_single_use(emu):
    token, key = verify(emu, start(emu))
    login(emu, token, key)
    error = fails(emu, login, emu, token, key)
    assert error_of(error) == (400, 3, "verification token has already been used", "")


def test_tokens_of_other_organizations(emu, turnkey_org, sub):
    mismatch = "ORGANIZATION_MISMATCH"
    # a sub-organization's own token (its own key runs the flow) is good there only
    in_sub = {"organization_id": sub.organization_id}
    sub_token, sub_key = verify(emu, start(emu, **in_sub), **in_sub)
    error = fails(emu, login, emu, sub_token, sub_key)  # in the parent
    assert error_of(error) == (
        400,
        3,
        messages.verification_token_organization(sub.organization_id, turnkey_org.organization_id),
        mismatch,
    )
    sibling = emu.create_organization(
        "Sibling", user_email=EMAIL, parent_organization_id=turnkey_org.organization_id
    )
    error = fails(emu, login, emu, sub_token, sub_key, organization_id=sibling.organization_id)
    assert error.turnkey_error_code == mismatch
    # another top-level organization's token
    other = emu.create_organization("Other", user_email=EMAIL)
    in_other = {"organization_id": other.organization_id}
    other_token, other_key = verify(emu, start(emu, **in_other), **in_other)
    error = fails(emu, login, emu, other_token, other_key)
    assert error_of(error)[2:] == (
        messages.verification_token_organization(
            other.organization_id, turnkey_org.organization_id
        ),
        mismatch,
    )
    # a parent's token is good in any of its sub-organizations
    login(emu, sub_token, sub_key, organization_id=sub.organization_id)
    parent_token, parent_key = verify(emu, start(emu))
    login(emu, parent_token, parent_key, organization_id=sibling.organization_id)


def test_tampered_and_foreign_tokens_are_invalid(emu):
    token, key = verify(emu, start(emu))
    header, payload, signature = token.split(".")
    claims = json.loads(b64url(payload))
    forged = base64.urlsafe_b64encode(
        json.dumps({**claims, "contact": "eve@example.com"}).encode()
    ).rstrip(b"=")
    invalid = (400, 3, "invalid verification token", "")
    signed = client_crypto.client_signature_for_login(token, key.api_key)

    def spend(bad: str):
        return fails(
            emu,
            emu.otp_login,
            verification_token=bad,
            public_key=key.compressed_public_key,
            client_signature=signed,
        )

    for bad in (f"{header}.{forged.decode()}.{signature}", "a.b.c", token + "x"):
        assert error_of(spend(bad)) == invalid
    # signed by another enclave key (the notarizer's)
    notarized = client_crypto.jwt.sign_es256(
        claims, emu.world.enclave.key("notarizer"), header={"typ": "JWT", "alg": "ES256"}
    )
    assert error_of(spend(notarized)) == invalid
    login(emu, token, key)  # the real one still works


def test_client_signatures_are_checked(emu):
    token, key = verify(emu, start(emu))
    session_key = TargetKey.generate()
    good = client_crypto.client_signature_for_login(
        token, key.api_key, session_key.compressed_public_key
    )

    def attempt(signature, public_key=session_key.compressed_public_key):
        return fails(
            emu,
            emu.otp_login,
            verification_token=token,
            public_key=public_key,
            client_signature=signature,
        )

    def why(error) -> str:
        assert error_of(error)[:2] == (400, 3)
        return error.message.removeprefix("invalid client signature: ")

    # signed by another key (claiming to be the token's)
    stranger = client_crypto.client_signature_for_login(
        token, TargetKey.generate().api_key, session_key.compressed_public_key
    )
    assert why(attempt(stranger)) == "the signature does not verify over the message"
    # the other key named as the signer
    other = TargetKey.generate()
    assert why(attempt({**good, "publicKey": other.compressed_public_key})) == (
        "it is not by the verification token's public key"
    )
    # a signature of another session key than the one logging in
    assert why(attempt(good, other.compressed_public_key)) == (
        "the message does not name this login's publicKey"
    )
    # a message of another token, or of a sign-up, signed by the right key
    for message in (
        {
            "login": {"publicKey": session_key.compressed_public_key},
            "tokenId": "x",
            "type": "USAGE_TYPE_LOGIN",
        },
        {
            "signupV2": {},
            "tokenId": json.loads(good["message"])["tokenId"],
            "type": "USAGE_TYPE_SIGNUP",
        },
    ):
        text = json.dumps(message)
        signed = {
            **good,
            "message": text,
            "signature": client_crypto.sign_client_message(key.api_key, text),
        }
        assert (
            why(attempt(signed))
            == "the message is not a USAGE_TYPE_LOGIN of this verification token"
        )
    # the scheme takes raw r || s: 64 bytes, not DER, not less
    r, s = int(good["signature"][:64], 16), int(good["signature"][64:], 16)
    for signature in (encode_dss_signature(r, s).hex(), good["signature"][:100], "zz"):
        assert why(attempt({**good, "signature": signature})) == (
            "the signature does not verify over the message"
        )
    # another client's JSON spacing is fine: the message is read as JSON
    spaced = json.dumps(json.loads(good["message"]), indent=1)
    signed = {
        **good,
        "message": spaced,
        "signature": client_crypto.sign_client_message(key.api_key, spaced),
    }
    made = emu.otp_login(
        verification_token=token,
        public_key=session_key.compressed_public_key,
        client_signature=signed,
    )
    assert verify_session_jwt(made["session"], emu.enclave.notarizer_public_key)["public_key"] == (
        session_key.compressed_public_key
    )


def test_otp_login_v2_requires_the_signature_and_a_user(emu):
    token, key = verify(emu, start(emu, "nobody@example.com"))
    error = fails(
        emu, emu.otp_login, verification_token=token, public_key=key.compressed_public_key
    )
    assert violations(error) == [
        {"field": "clientSignature", "description": "This field is required."}
    ]
    org_id = emu.organization().organization_id
    error = fails(emu, login, emu, token, key)
    assert error_of(error) == (
        404,
        5,
        f"no user found with this contact in organization {org_id} contact=nobody@example.com",
        "",
    )
    error = fails(
        emu,
        emu.otp_login,
        verification_token=token,
        public_key="02abcd",
        client_signature=client_crypto.client_signature_for_login(token, key.api_key, "02abcd"),
    )
    assert error_of(error) == (
        400,
        3,
        messages.invalid_session_public_key("02abcd"),
        "REQUEST_INVALID",
    )


OTP_POLICY = (  # features/authentication/email.mdx, "Prerequisites"
    "(activity.resource == 'AUTH' && activity.action == 'CREATE') || "
    "(activity.resource == 'OTP' && activity.action == 'CREATE') || "
    "(activity.resource == 'OTP' && activity.action == 'VERIFY') || "
    "(activity.resource == 'ORGANIZATION' && activity.action == 'CREATE')"
)


def test_a_parent_api_user_with_the_documented_policy(emu, turnkey_org, sub):
    api_user, api_key = add_user(emu, "backend")
    as_backend = {"caller": api_key}
    # no policy: the parent's policies judge, and deny
    error = fails(emu, start, emu, **as_backend)
    assert error_of(error)[:2] == (403, 7)
    emu.create_policy(
        policyName="otp",
        effect="EFFECT_ALLOW",
        notes="",
        consensus=f"approvers.any(user, user.id == '{api_user}')",
        condition=OTP_POLICY,
    )
    started = start(emu, **as_backend)
    token, key = verify(emu, started, **as_backend)
    made = login(emu, token, key, organization_id=sub.organization_id, **as_backend)
    claims = verify_session_jwt(made["session"], emu.enclave.notarizer_public_key)
    assert (claims["organization_id"], claims["user_id"]) == (sub.organization_id, sub.user_id)
    (vote,) = made["activity"]["votes"]
    assert (vote["userId"], vote["publicKey"]) == (api_user, api_key.public_key)


# ----- the legacy versions ---------------------------------------------------------------


def test_legacy_flow_and_no_mixing(emu, turnkey_org):
    legacy = emu.init_otp(
        otp_type="OTP_TYPE_EMAIL",
        contact=EMAIL,
        email_customization={"appName": "Old"},
        activity_type="ACTIVITY_TYPE_INIT_OTP",
    )
    assert set(legacy) == {"activity", "otpId"}  # no target bundle before V3
    assert legacy["activity"]["result"]["initOtpResult"] == {"otpId": legacy["otpId"]}
    v2 = start(emu, activity_type="ACTIVITY_TYPE_INIT_OTP_V2")
    assert list(v2["activity"]["intent"]) == ["initOtpIntentV2"]
    assert set(v2) == {"activity", "otpId"}
    encrypted_otp = start(emu)
    key = TargetKey.generate()
    # a legacy OTP is not verified by VERIFY_OTP_V2, an encrypted one not by VERIFY_OTP
    error = fails(
        emu,
        emu.verify_otp,
        otp_id=legacy["otpId"],
        encrypted_otp_bundle=encrypted(emu, encrypted_otp, key),
    )
    assert error_of(error) == (
        400,
        3,
        messages.otp_flow_mismatch(legacy["otpId"], "VERIFY_OTP"),
        "",
    )
    error = fails(
        emu,
        emu.verify_otp,
        otp_id=encrypted_otp["otpId"],
        otp_code=code_of(emu, encrypted_otp["otpId"]),
        activity_type="ACTIVITY_TYPE_VERIFY_OTP",
    )
    assert error.message == messages.otp_flow_mismatch(encrypted_otp["otpId"], "VERIFY_OTP_V2")
    # VERIFY_OTP (unversioned, as TS-CORE sends it) with the code in plaintext and a key
    made = emu.verify_otp(
        otp_id=legacy["otpId"],
        otp_code=code_of(emu, legacy["otpId"]),
        public_key=key.compressed_public_key,
        activity_type="ACTIVITY_TYPE_VERIFY_OTP",
    )
    assert made["activity"]["type"] == "ACTIVITY_TYPE_VERIFY_OTP"
    token = made["verificationToken"]
    # OTP_LOGIN_V2 refuses a legacy token; OTP_LOGIN takes it, signed as the key is bound
    assert fails(emu, login, emu, token, key).message == messages.LEGACY_VERIFICATION_TOKEN
    error = fails(
        emu,
        emu.otp_login,
        verification_token=token,
        public_key=key.compressed_public_key,
        activity_type="ACTIVITY_TYPE_OTP_LOGIN",
    )
    assert error_of(error) == (400, 3, messages.CLIENT_SIGNATURE_REQUIRED, "")
    done = login(emu, token, key, activity_type="ACTIVITY_TYPE_OTP_LOGIN")
    assert done["activity"]["type"] == "ACTIVITY_TYPE_OTP_LOGIN"
    # an unbound legacy token (no publicKey) logs in without a signature
    unbound = emu.verify_otp(
        otp_id=v2["otpId"],
        otp_code=code_of(emu, v2["otpId"]),
        activity_type="ACTIVITY_TYPE_VERIFY_OTP",
    )["verificationToken"]
    assert "public_key" not in client_crypto.jwt.decode(unbound)[1]
    session_key = TargetKey.generate()
    session = emu.otp_login(
        verification_token=unbound,
        public_key=session_key.compressed_public_key,
        activity_type="ACTIVITY_TYPE_OTP_LOGIN",
    )["session"]
    claims = verify_session_jwt(session, emu.enclave.notarizer_public_key)
    assert claims["user_id"] == turnkey_org.user_id
    # the encrypted flow's token is good for the unversioned OTP_LOGIN too
    token, key = verify(emu, encrypted_otp, key)
    login(emu, token, key, activity_type="ACTIVITY_TYPE_OTP_LOGIN")


# ----- the official SDK -----------------------------------------------------------------


def test_the_flow_through_the_official_sdk(emu, turnkey_org, turnkey_client, wire):
    from turnkey_sdk_types import InitOtpBody, OtpLoginBody, VerifyOtpBody, v1ClientSignature

    started = turnkey_client.init_otp(
        InitOtpBody(otpType="OTP_TYPE_EMAIL", contact=EMAIL, appName="Acme", alphanumeric=False)
    )
    code = emu.outbox.last().fields["otpCode"]
    assert code.isdigit() and len(code) == 9
    key = TargetKey.generate()
    bundle = client_crypto.encrypt_otp_code(
        started.otpEncryptionTargetBundle,
        code,
        key.compressed_public_key,
        tls_fetcher_public_key=emu.enclave.tls_fetcher_public_key,
    )
    verified = turnkey_client.verify_otp(
        VerifyOtpBody(otpId=started.otpId, encryptedOtpBundle=bundle)
    )
    token = verified.verificationToken
    signature = client_crypto.client_signature_for_login(token, key.api_key)
    logged_in = turnkey_client.otp_login(
        OtpLoginBody(
            verificationToken=token,
            publicKey=key.compressed_public_key,
            clientSignature=v1ClientSignature(**signature),
        )
    )
    claims = verify_session_jwt(logged_in.session, emu.enclave.notarizer_public_key)
    assert (claims["user_id"], claims["public_key"]) == (
        turnkey_org.user_id,
        key.compressed_public_key,
    )
    body = {"organizationId": turnkey_org.organization_id}
    status, answer = wire.post("/public/v1/query/whoami", body, key.api_key)
    assert (status, answer["userId"]) == (200, turnkey_org.user_id)


# ----- sign-up tokens (create_sub_organization V7/V8; not wired in yet) -------------------


def test_the_sign_up_check_for_create_sub_organization(emu, turnkey_org):
    from emulator.services import verification
    from emulator.services.context import Context

    email = "new@example.com"
    token, key = verify(emu, start(emu, email))
    org = emu.world.store.organizations[turnkey_org.organization_id]
    signature = client_crypto.client_signature_for_signup(token, key.api_key, {"email": email})

    def check(**params):
        tx = emu.world.transaction()
        ctx = Context(emu.world, org, None, emu.clock.now_ns(), tx)  # type: ignore[arg-type]
        try:
            return verification.check_signup(ctx, params, encrypted_only=True)
        finally:
            tx.rollback()

    users = [{"userName": "new", "userEmail": email.upper()}]
    assert check(rootUsers=users) is None  # no token: nothing to check
    found = check(rootUsers=users, verificationToken=token, clientSignature=signature)
    assert (found.token_id, found.claims["contact"]) == (
        client_crypto.jwt.decode(token)[1]["id"],
        email,
    )
    with pytest.raises(TurnkeyApiError) as caught:
        check(rootUsers=[{"userName": "x"}], verificationToken=token, clientSignature=signature)
    assert caught.value.message == messages.verification_token_contact("userEmail")
    with pytest.raises(TurnkeyApiError) as caught:
        check(rootUsers=users, verificationToken=token)
    assert caught.value.message == messages.CLIENT_SIGNATURE_REQUIRED
    login_signature = client_crypto.client_signature_for_login(token, key.api_key)
    with pytest.raises(TurnkeyApiError) as caught:
        check(rootUsers=users, verificationToken=token, clientSignature=login_signature)
    assert caught.value.message == messages.invalid_client_signature(
        "the message is not a USAGE_TYPE_SIGNUP of this verification token"
    )
