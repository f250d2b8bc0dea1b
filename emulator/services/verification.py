"""Verification tokens and client signatures (reference §7.5).

``verify_otp`` answers a verification token: a standard ES256 JWT (ECDSA P-256 over
SHA-256 of ``header.payload``, signature ``r ‖ s`` base64url) signed by the enclave's
TLS fetcher key, with the production token's header ``{"typ":"JWT","alg":"ES256"}``
and claims in its order: ``exp`` (a millisecond-epoch *string*), ``id`` (the token's
own UUID), ``organization_id`` (the issuing organization), ``verification_type``
(``OTP_TYPE_EMAIL`` | ``OTP_TYPE_SMS``), ``contact`` and ``public_key`` (the client key
the token is bound to; absent for a legacy VERIFY_OTP without ``publicKey``). It lives
1 hour by default, at most 86400 s.

A token is single-use. The emulator signed every token that verifies, so it keeps
what it issued on the OTP record (``Otp.token_*``) and marks it used there. Where a
token is accepted: in the organization that issued it, and a parent's token in any of
its sub-organizations (email.mdx); anywhere else is an organization mismatch.

A bound token is used with a ``clientSignature`` (``CLIENT_SIGNATURE_SCHEME_API_P256``):
the token's key signs, ECDSA P-256 over SHA-256 of ``message`` as sent, the signature
hex of raw ``r ‖ s``. ``message`` is the JSON of the token's usage: for a login
``{"login":{"publicKey":<session key>},"tokenId":<id>,"type":"USAGE_TYPE_LOGIN"}``
(TS-CORE ``getClientSignatureMessageForLogin``), for a sign-up ``{"signupV2":{...},
"tokenId":<id>,"type":"USAGE_TYPE_SIGNUP"}``. The message is read as JSON, so the
spacing and key order of other clients do not matter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from ..crypto import hpke, jwt
from ..crypto.enclave import TLS_FETCHER
from ..ground import jsontext, messages
from ..ground.errors import InvalidArgument
from ..ground.models import Organization, Otp
from ..ground.numbers import integer
from .context import Context
from .otp import lifetime_seconds

TOKEN_HEADER = {"typ": "JWT", "alg": "ES256"}
DEFAULT_LIFETIME_S = 3600
MAX_LIFETIME_S = 86400
REQUIRED_CLAIMS = ("exp", "id", "organization_id", "verification_type", "contact")
LOGIN_USAGE = "USAGE_TYPE_LOGIN"
SIGNUP_USAGE = "USAGE_TYPE_SIGNUP"
P256_SCHEME = "CLIENT_SIGNATURE_SCHEME_API_P256"

Json = dict[str, Any]


@dataclass(frozen=True)
class Token:
    """A verification token that checked out: its claims, its OTP and its issuer."""

    claims: Json
    otp: Otp
    issuer: Organization

    @property
    def token_id(self) -> str:
        return self.claims["id"]

    @property
    def public_key(self) -> str | None:
        return self.claims.get("public_key")


# ----- issuing -------------------------------------------------------------------------


def issue(ctx: Context, otp: Otp, *, public_key: str | None, expiration_seconds: str | None) -> str:
    """A token for the OTP just verified in ``ctx.org``; recorded on the OTP."""
    lifetime = lifetime_seconds(
        expiration_seconds, default=DEFAULT_LIFETIME_S, maximum=MAX_LIFETIME_S
    )
    token_id = ctx.new_id()
    claims: Json = {
        "exp": str(ctx.now_ns // 1_000_000 + lifetime * 1000),
        "id": token_id,
        "organization_id": ctx.org.organization_id,
        "verification_type": otp.otp_type,
        "contact": otp.contact,
    }
    if public_key is not None:
        claims["public_key"] = public_key
    ctx.tx.set(otp, "token_id", token_id)
    ctx.tx.set(otp, "token_public_key", public_key)
    return jwt.sign_es256(claims, ctx.world.enclave.key(TLS_FETCHER), header=TOKEN_HEADER)


# ----- checking ------------------------------------------------------------------------


def check(ctx: Context, token: str, *, encrypted_only: bool, allow_used: bool = False) -> Token:
    """The token, once its signature, claims, expiry, organization and first use check
    out; ``encrypted_only`` refuses tokens of the legacy (plaintext) OTP flow;
    ``allow_used`` skips the first-use check (an attested stamp presents the token as
    proof of its key, ``services/attestation.py``)."""
    invalid = InvalidArgument(messages.INVALID_VERIFICATION_TOKEN, turnkey_error_code="")
    tls_fetcher = ctx.world.enclave.key(TLS_FETCHER).public_key()
    try:
        header, _, _, _ = jwt.decode(token)
        claims = jwt.verify_es256(token, tls_fetcher)
    except jwt.JwtError:
        raise invalid from None
    if header.get("typ") != "JWT" or any(
        not isinstance(claims.get(c), str) for c in REQUIRED_CLAIMS
    ):
        raise invalid
    issuer = ctx.store.organizations.get(claims["organization_id"])
    otp = _issued(issuer, claims["id"]) if issuer is not None else None
    expires_ms = integer(claims["exp"])
    if issuer is None or otp is None or expires_ms is None:
        raise invalid
    if expires_ms < ctx.now_ns // 1_000_000:
        raise InvalidArgument(messages.VERIFICATION_TOKEN_EXPIRED)
    if issuer.organization_id not in (ctx.org.organization_id, ctx.org.parent_id):
        raise InvalidArgument(
            messages.verification_token_organization(
                issuer.organization_id, ctx.org.organization_id
            ),
            turnkey_error_code="ORGANIZATION_MISMATCH",
        )
    if otp.token_used and not allow_used:
        raise InvalidArgument(messages.VERIFICATION_TOKEN_USED)
    if encrypted_only and otp.legacy:
        raise InvalidArgument(messages.LEGACY_VERIFICATION_TOKEN)
    return Token(claims, otp, issuer)


def _issued(issuer: Organization, token_id: str) -> Otp | None:
    for otp in issuer.otps.values():
        if otp.token_id == token_id:
            return otp
    return None


def consume(ctx: Context, token: Token) -> None:
    """Use the token up: it cannot be used again."""
    ctx.tx.set(token.otp, "token_used", True)


def check_client_signature(token: Token, signature: Json | None, usage: str) -> Json:
    """The signed usage message once ``signature`` proves the token's key signed it for
    ``usage`` and this token; a token bound to a key needs one, an unbound one ignores it."""
    if token.public_key is None:
        return {}
    if signature is None:
        raise InvalidArgument(messages.CLIENT_SIGNATURE_REQUIRED)
    if _compressed(signature["publicKey"]) != _compressed(token.public_key):
        raise _bad_signature("it is not by the verification token's public key")
    if not _verifies(token.public_key, signature["signature"], signature["message"].encode()):
        raise _bad_signature("the signature does not verify over the message")
    try:
        message = jsontext.loads(signature["message"])
    except ValueError:
        message = None
    if not isinstance(message, dict):
        raise _bad_signature("the message is not a JSON object")
    if message.get("type") != usage or message.get("tokenId") != token.token_id:
        raise _bad_signature(f"the message is not a {usage} of this verification token")
    return message


def check_login_signature(token: Token, signature: Json | None, session_public_key: str) -> None:
    """A login's client signature: its message names this session key."""
    message = check_client_signature(token, signature, LOGIN_USAGE)
    if not message:
        return
    login = message.get("login")
    signed_key = login.get("publicKey") if isinstance(login, dict) else None
    if not isinstance(signed_key, str) or signed_key.lower() != session_public_key.lower():
        raise _bad_signature("the message does not name this login's publicKey")


def check_signup(ctx: Context, params: Json, *, encrypted_only: bool) -> Token | None:
    """create_sub_organization's ``verificationToken`` and ``clientSignature`` (V7, V8):
    the token checks out in the creating organization, its contact is a root user's
    (``userEmail`` / ``userPhoneNumber``), a bound token comes with a USAGE_TYPE_SIGNUP
    signature of its key, and it is used up. V8 (``encrypted_only``) refuses legacy
    tokens (otp-migration-guide.mdx). The caller marks the root user's contact verified
    (``services/otp.mark_verified``) once the users exist (``ops/sub_organizations``)."""
    text = params.get("verificationToken")
    if not text:
        return None
    token = check(ctx, text, encrypted_only=encrypted_only)
    field = (
        "userEmail" if token.claims["verification_type"] == "OTP_TYPE_EMAIL" else "userPhoneNumber"
    )
    contact = token.claims["contact"].lower()
    if not any((u.get(field) or "").lower() == contact for u in params["rootUsers"]):
        raise InvalidArgument(messages.verification_token_contact(field))
    check_client_signature(token, params.get("clientSignature"), SIGNUP_USAGE)
    consume(ctx, token)
    return token


def _bad_signature(why: str) -> InvalidArgument:
    return InvalidArgument(messages.invalid_client_signature(why))


def _compressed(public_key: str) -> str | None:
    try:
        return hpke.compress(bytes.fromhex(public_key)).hex()
    except ValueError:  # not hex, or not a P-256 point (HpkeError is a ValueError)
        return None


def _verifies(public_key: str, signature_hex: str, message: bytes) -> bool:
    try:
        raw = bytes.fromhex(signature_hex)
        key = hpke.load_public_key(bytes.fromhex(public_key))
    except (ValueError, hpke.HpkeError):
        return False
    if len(raw) != 64:
        return False
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        key.verify(der, message, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    return True
