"""WebAuthn: reading a passkey's registration, and checking its ``X-Stamp-Webauthn``.

Registration (``read_attestation``): ``py_webauthn`` parses the attestation; this
module turns its result into what the API stores for an authenticator:
credential id, COSE public key, AAGUID and the attestation format.

Stamps (``parse_webauthn_stamp_header``, ``verify_assertion``): the header is
plain JSON ``{authenticatorData, clientDataJson, credentialId, signature}``
(base64url each); the assertion's challenge is the UTF-8 of the lowercase hex
SHA-256 of the body, and its signature is checked over ``authenticatorData ‖
SHA-256(clientDataJSON)`` with the stored COSE key (reference §6.2).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature

# The ``webauthn`` library (and the pyOpenSSL it brings) loads on the first passkey it
# reads, not with the package: most runs never see one.
from ..ground import jsontext
from .encoding import b64url_decode, b64url_encode


class AttestationError(ValueError):
    """The attestation is not a readable WebAuthn registration."""


class MissingAuthData(AttestationError):
    """The authenticator data carries no attested credential."""


@dataclass(frozen=True, slots=True)
class RegisteredCredential:
    credential_id: str  # base64url
    public_key: str  # base64url of the COSE key
    aaguid: str  # base64url of the 16 bytes
    attestation_format: str


def read_attestation(
    attestation_object_b64: str, client_data_json_b64: str
) -> RegisteredCredential:
    """Parse a registration; raise ``AttestationError`` if it cannot be read."""
    try:
        raw_object = b64url_decode(attestation_object_b64)
        client_data = jsontext.loads(b64url_decode(client_data_json_b64))
    except ValueError as exc:
        raise AttestationError(str(exc)) from exc
    if not isinstance(client_data, dict) or "challenge" not in client_data:
        raise AttestationError("clientDataJSON is not a WebAuthn client data object")
    from webauthn.helpers import parse_attestation_object
    from webauthn.helpers.exceptions import InvalidAuthenticatorDataStructure, WebAuthnException

    try:
        parsed = parse_attestation_object(raw_object)
    except InvalidAuthenticatorDataStructure as exc:
        raise MissingAuthData(str(exc)) from exc
    except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
        raise AttestationError(str(exc)) from exc
    attested = parsed.auth_data.attested_credential_data
    if attested is None:
        raise MissingAuthData("authenticator data has no attested credential data")
    return RegisteredCredential(
        credential_id=b64url_encode(attested.credential_id),
        public_key=b64url_encode(attested.credential_public_key),
        aaguid=b64url_encode(attested.aaguid),
        attestation_format=str(parsed.fmt.value if hasattr(parsed.fmt, "value") else parsed.fmt),
    )


# ----- assertions: the X-Stamp-Webauthn header --------------------------------------

#: The header a passkey stamps a request with (names are case-insensitive on the wire).
WEBAUTHN_STAMP_HEADER = "X-Stamp-Webauthn"
#: The ``SignatureScheme`` a passkey's vote records (Turnkey's protos: "Scheme used ...
#: when users sign with Webauthn. Public keys are encoded using COSE").
SCHEME_WEBAUTHN = "SIGNATURE_SCHEME_TK_WEBAUTHN"
ASSERTION_TYPE = "webauthn.get"
ANY_ORIGIN = "*"
_STAMP_FIELDS = ("authenticatorData", "clientDataJson", "credentialId", "signature")
_MIN_AUTH_DATA = 37  # rpIdHash (32) + flags (1) + signCount (4)
# base64url as the stampers send it; the plain base64 alphabet is tolerated too.
_BASE64URL = re.compile(r"[A-Za-z0-9_\-+/]+={0,2}")


class MalformedWebauthnStamp(ValueError):
    """The header is not a WebAuthn stamp."""


class AssertionInvalid(ValueError):
    """The assertion does not verify (signature, challenge, type or origin)."""


@dataclass(frozen=True, slots=True)
class WebauthnStamp:
    """An ``X-Stamp-Webauthn``: a WebAuthn assertion over the request body.

    The four fields are base64url as the header carries them. ``public_key`` is empty
    until the server finds the credential; then it is the stored COSE key (base64url),
    which is what the caller's vote records, with ``scheme`` and the assertion's
    ``signature``.
    """

    authenticator_data: str
    client_data_json: str
    credential_id: str
    signature: str
    public_key: str = ""

    @property
    def scheme(self) -> str:
        return SCHEME_WEBAUTHN

    def header_value(self) -> str:
        """The header value: plain JSON, as ``@turnkey/webauthn-stamper`` sends it."""
        return json.dumps(
            {
                "authenticatorData": self.authenticator_data,
                "clientDataJson": self.client_data_json,
                "credentialId": self.credential_id,
                "signature": self.signature,
            }
        )


def parse_webauthn_stamp_header(value: str) -> WebauthnStamp:
    """Decode an ``X-Stamp-Webauthn`` value (plain JSON, not base64); raise
    ``MalformedWebauthnStamp`` if it is not one."""
    try:
        decoded = jsontext.loads(value)
    except ValueError as exc:
        raise MalformedWebauthnStamp(str(exc)) from exc
    if not isinstance(decoded, dict):
        raise MalformedWebauthnStamp("stamp is not a JSON object")
    fields = [decoded.get(name) for name in _STAMP_FIELDS]
    if not all(isinstance(f, str) and f for f in fields):
        raise MalformedWebauthnStamp(f"stamp needs {', '.join(_STAMP_FIELDS)}")
    for name, field_value in zip(_STAMP_FIELDS, fields, strict=True):
        if not _BASE64URL.fullmatch(field_value):
            raise MalformedWebauthnStamp(f"{name} is not base64url")
    auth_data, client_data, credential_id, signature = fields
    return WebauthnStamp(auth_data, client_data, credential_id, signature)


def challenge_of(body: bytes) -> bytes:
    """The WebAuthn challenge that stamps ``body``: the UTF-8 bytes of the lowercase hex
    SHA-256 of the body (``@turnkey/webauthn-stamper``'s ``getChallengeFromPayload``)."""
    return hashlib.sha256(body).hexdigest().encode("ascii")


def same_credential_id(a: str, b: str) -> bool:
    """Whether two base64url credential ids name the same bytes (padding aside)."""
    try:
        return b64url_decode(a) == b64url_decode(b)
    except ValueError:
        return False


def verify_assertion(
    stamp: WebauthnStamp,
    cose_public_key: str,
    body: bytes,
    *,
    allowed_origins: Sequence[str] | None = None,
) -> None:
    """Check a stamp as a WebAuthn assertion over ``body``; raise ``AssertionInvalid``.

    The client data must be a ``webauthn.get`` whose challenge is ``challenge_of(body)``
    and, when ``allowed_origins`` is given (without ``*``), whose origin is one of them;
    the signature must verify over ``authenticatorData ‖ SHA-256(clientDataJSON)`` with
    the stored COSE key (``cose_public_key``, base64url).
    """
    try:
        auth_data = b64url_decode(stamp.authenticator_data)
        client_data_raw = b64url_decode(stamp.client_data_json)
        signature = b64url_decode(stamp.signature)
        client_data = jsontext.loads(client_data_raw)
    except ValueError as exc:
        raise AssertionInvalid(f"unreadable assertion: {exc}") from exc
    if not isinstance(client_data, dict) or client_data.get("type") != ASSERTION_TYPE:
        raise AssertionInvalid("client data is not a webauthn.get")
    challenge = client_data.get("challenge")
    try:
        challenge_ok = isinstance(challenge, str) and b64url_decode(challenge) == challenge_of(body)
    except ValueError:
        challenge_ok = False
    if not challenge_ok:
        raise AssertionInvalid("the challenge is not the hash of this request body")
    origins = [o for o in (allowed_origins or ()) if o]
    if origins and ANY_ORIGIN not in origins and client_data.get("origin") not in origins:
        raise AssertionInvalid(f"origin {client_data.get('origin')!r} is not allowed")
    if len(auth_data) < _MIN_AUTH_DATA:
        raise AssertionInvalid("authenticator data is too short")
    signed = auth_data + hashlib.sha256(client_data_raw).digest()
    _verify_cose_signature(cose_public_key, signature, signed)


def _verify_cose_signature(cose_public_key: str, signature: bytes, data: bytes) -> None:
    from webauthn.helpers import (
        decode_credential_public_key,
        decoded_public_key_to_cryptography,
        verify_signature,
    )
    from webauthn.helpers.exceptions import WebAuthnException

    try:
        decoded = decode_credential_public_key(b64url_decode(cose_public_key))
        key = decoded_public_key_to_cryptography(decoded)
        verify_signature(public_key=key, signature_alg=decoded.alg, signature=signature, data=data)
    except InvalidSignature as exc:
        raise AssertionInvalid("the signature does not verify") from exc
    except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
        raise AssertionInvalid(f"unusable credential key: {exc}") from exc
