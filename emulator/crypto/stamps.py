"""``X-Stamp``: the API-key signature over the exact bytes of a request body.

The header value is base64url (padding optional) of a JSON object
``{publicKey, signature, scheme}``. What is signed depends on the scheme:

* ``SIGNATURE_SCHEME_TK_API_P256`` / ``_SECP256K1``: ECDSA over SHA-256(body),
  DER signature as hex, compressed public key as hex;
* ``SIGNATURE_SCHEME_TK_API_ED25519``: Ed25519 over the body, raw signature hex;
* ``SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191``: ECDSA over the Ethereum
  ``personal_sign`` digest of the body, DER signature hex (``v`` dropped).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

from ..ground import jsontext
from .api_keys import (
    ED25519,
    P256,
    SECP256K1,
    ApiKeyPair,
    sign_ecdsa,
    sign_ed25519,
    verify_ecdsa,
    verify_ecdsa_digest,
    verify_ed25519,
)
from .hashing import keccak256

SCHEME_P256 = "SIGNATURE_SCHEME_TK_API_P256"
SCHEME_SECP256K1 = "SIGNATURE_SCHEME_TK_API_SECP256K1"
SCHEME_ED25519 = "SIGNATURE_SCHEME_TK_API_ED25519"
SCHEME_SECP256K1_EIP191 = "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191"

#: The API key curve each scheme signs with.
SCHEME_CURVES = {
    SCHEME_P256: P256,
    SCHEME_SECP256K1: SECP256K1,
    SCHEME_ED25519: ED25519,
    SCHEME_SECP256K1_EIP191: SECP256K1,
}
DEFAULT_SCHEMES = {P256: SCHEME_P256, SECP256K1: SCHEME_SECP256K1, ED25519: SCHEME_ED25519}
STAMP_HEADER = "X-Stamp"


class MalformedStamp(ValueError):
    """The header could not be decoded into a stamp."""


@dataclass(frozen=True, slots=True)
class ApiKeyStamp:
    public_key: str
    signature: str
    scheme: str

    @property
    def curve(self) -> str:
        return SCHEME_CURVES[self.scheme]

    def header_value(self) -> str:
        raw = json.dumps(
            {"publicKey": self.public_key, "scheme": self.scheme, "signature": self.signature}
        ).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def parse_stamp_header(value: str) -> ApiKeyStamp:
    """Decode an ``X-Stamp`` header value; raise ``MalformedStamp`` if it is not one."""
    try:
        padded = value.strip() + "=" * (-len(value.strip()) % 4)
        decoded = jsontext.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, UnicodeError) as exc:
        raise MalformedStamp(str(exc)) from exc
    if not isinstance(decoded, dict):
        raise MalformedStamp("stamp is not a JSON object")
    fields = [decoded.get(name) for name in ("publicKey", "signature", "scheme")]
    if not all(isinstance(f, str) and f for f in fields):
        raise MalformedStamp("stamp needs publicKey, signature and scheme")
    public_key, signature, scheme = fields
    if scheme not in SCHEME_CURVES:
        raise MalformedStamp(f"unknown stamp scheme {scheme}")
    return ApiKeyStamp(public_key, signature, scheme)


def eip191_digest(message: bytes) -> bytes:
    """Keccak-256 of the Ethereum signed-message prefix and the message."""
    prefix = b"\x19Ethereum Signed Message:\n" + str(len(message)).encode()
    return keccak256(prefix + message)


def verify_stamp(stamp: ApiKeyStamp, body: bytes) -> bool:
    """Whether the stamp's signature over ``body`` verifies under its public key."""
    try:
        signature = bytes.fromhex(stamp.signature)
    except ValueError:
        return False
    if stamp.scheme == SCHEME_ED25519:
        return verify_ed25519(stamp.public_key, signature, body)
    if stamp.scheme == SCHEME_SECP256K1_EIP191:
        return verify_ecdsa_digest(SECP256K1, stamp.public_key, signature, eip191_digest(body))
    return verify_ecdsa(stamp.curve, stamp.public_key, signature, body)


def sign_stamp(body: bytes, key: ApiKeyPair, scheme: str | None = None) -> ApiKeyStamp:
    """Stamp ``body`` with ``key`` the way the official clients do."""
    scheme = scheme or DEFAULT_SCHEMES[key.curve]
    if SCHEME_CURVES.get(scheme) != key.curve:
        raise ValueError(f"scheme {scheme} does not sign with a {key.curve} key")
    if scheme == SCHEME_ED25519:
        signature = sign_ed25519(key.private_key, body)
    elif scheme == SCHEME_SECP256K1_EIP191:
        signature = sign_ecdsa(SECP256K1, key.private_key, eip191_digest(body), prehashed=True)
    else:
        signature = sign_ecdsa(key.curve, key.private_key, body)
    return ApiKeyStamp(key.public_key, signature.hex(), scheme)
