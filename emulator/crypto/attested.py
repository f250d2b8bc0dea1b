"""``X-Stamp-Attested``: a request signed by a key that a Turnkey-issued token vouches for.

The header value is base64url (padding optional) of a JSON object
``{publicKeyAttestation, scheme, publicKey, signature}`` (``AttestedStamper`` of
``@turnkey/core`` 2.7 and later):

* ``publicKeyAttestation``: the token that binds ``publicKey`` to an identity: an OTP
  verification token (``STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN``, its
  ``public_key`` claim) or an OIDC ID token (``STAMP_ATTESTED_SCHEME_P256_OIDC``, its
  ``nonce`` = SHA-256 of the key's hex);
* ``publicKey``: a compressed P-256 key (hex); ``signature``: ECDSA over SHA-256 of the
  exact body, DER hex, as an ``X-Stamp`` of that key.

What the token proves is checked by ``services/attestation.py``; here only the shape
and the signature.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

from ..ground import jsontext
from .api_keys import P256, ApiKeyPair, sign_ecdsa, verify_ecdsa

ATTESTED_STAMP_HEADER = "X-Stamp-Attested"
SCHEME_VERIFICATION_TOKEN = "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN"
SCHEME_OIDC = "STAMP_ATTESTED_SCHEME_P256_OIDC"
SCHEMES = (SCHEME_VERIFICATION_TOKEN, SCHEME_OIDC)


class MalformedAttestedStamp(ValueError):
    """The header could not be decoded into an attested stamp."""


@dataclass(frozen=True, slots=True)
class AttestedStamp:
    """An attested stamp; ``public_key``, ``signature`` and ``scheme`` are what a vote
    records, as for the other stamps."""

    attestation: str
    scheme: str
    public_key: str
    signature: str

    def __repr__(self) -> str:  # the token is a bearer credential: never in a log
        return f"AttestedStamp(scheme={self.scheme!r}, public_key={self.public_key!r})"

    def header_value(self) -> str:
        raw = json.dumps(
            {
                "publicKeyAttestation": self.attestation,
                "scheme": self.scheme,
                "publicKey": self.public_key,
                "signature": self.signature,
            }
        ).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def parse_attested_stamp_header(value: str) -> AttestedStamp:
    """Decode an ``X-Stamp-Attested`` value; ``MalformedAttestedStamp`` if it is not one."""
    try:
        text = value.strip()
        decoded = jsontext.loads(base64.urlsafe_b64decode((text + "=" * (-len(text) % 4)).encode()))
    except (ValueError, UnicodeError) as exc:
        raise MalformedAttestedStamp(str(exc)) from exc
    if not isinstance(decoded, dict):
        raise MalformedAttestedStamp("stamp is not a JSON object")
    names = ("publicKeyAttestation", "scheme", "publicKey", "signature")
    fields = [decoded.get(name) for name in names]
    if not all(isinstance(f, str) and f for f in fields):
        raise MalformedAttestedStamp("stamp needs " + ", ".join(names))
    attestation, scheme, public_key, signature = fields
    if scheme not in SCHEMES:
        raise MalformedAttestedStamp(f"unknown attested stamp scheme {scheme}")
    return AttestedStamp(attestation, scheme, public_key, signature)


def verify_attested_signature(stamp: AttestedStamp, body: bytes) -> bool:
    """Whether the stamp's signature over ``body`` verifies under its P-256 key."""
    try:
        signature = bytes.fromhex(stamp.signature)
    except ValueError:
        return False
    return verify_ecdsa(P256, stamp.public_key, signature, body)


def sign_attested_stamp(
    body: bytes, key: ApiKeyPair, attestation: str, scheme: str
) -> AttestedStamp:
    """Stamp ``body`` with ``key`` as ``@turnkey/core``'s ``AttestedStamper`` does."""
    signature = sign_ecdsa(P256, key.private_key, body)
    return AttestedStamp(attestation, scheme, key.public_key, signature.hex())
