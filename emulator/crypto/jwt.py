"""Compact JWTs signed with ES256, the way Turnkey's enclaves sign them.

Two flavours are in use (reference §7.5–7.6): OTP verification tokens are
standard ES256 (ECDSA P-256 over SHA-256 of ``header.payload``); session JWTs
sign SHA-256 of SHA-256 of ``header.payload`` (``double_hash=True``). Both
carry the signature as raw ``r ‖ s`` (64 bytes), base64url without padding.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    Prehashed,
    decode_dss_signature,
    encode_dss_signature,
)

from ..ground import jsontext
from .encoding import b64url_decode, b64url_encode

Json = dict[str, Any]

ES256_HEADER = {"alg": "ES256", "typ": "JWT"}
_PREHASHED = ec.ECDSA(Prehashed(hashes.SHA256()))
# RFC 6979: a seeded emulator issues the same token on every run.
_PREHASHED_DETERMINISTIC = ec.ECDSA(Prehashed(hashes.SHA256()), deterministic_signing=True)


class JwtError(ValueError):
    """Not a compact JWT, a header or payload that is not JSON, or a bad signature."""


def _segment(value: Json) -> str:
    return b64url_encode(json.dumps(value, separators=(",", ":")).encode())


def _digest(signing_input: bytes, double_hash: bool) -> bytes:
    digest = hashlib.sha256(signing_input).digest()
    return hashlib.sha256(digest).digest() if double_hash else digest


def sign_es256(
    claims: Json,
    private_key: ec.EllipticCurvePrivateKey,
    *,
    double_hash: bool = False,
    header: Json | None = None,
) -> str:
    """``header.payload.signature`` with the claims in the order given."""
    signing_input = f"{_segment(header or ES256_HEADER)}.{_segment(claims)}"
    der = private_key.sign(_digest(signing_input.encode(), double_hash), _PREHASHED_DETERMINISTIC)
    r, s = decode_dss_signature(der)
    return f"{signing_input}.{b64url_encode(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def decode(token: str) -> tuple[Json, Json, bytes, bytes]:
    """``(header, claims, signing input, signature)`` of a compact JWT, unverified."""
    parts = token.split(".") if isinstance(token, str) else []
    if len(parts) != 3:
        raise JwtError("a JWT has three dot-separated parts")
    try:
        header = jsontext.loads(b64url_decode(parts[0]))
        claims = jsontext.loads(b64url_decode(parts[1]))
        signature = b64url_decode(parts[2])
    except ValueError as exc:
        raise JwtError(f"unreadable JWT: {exc}") from exc
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise JwtError("JWT header and payload must be JSON objects")
    return header, claims, f"{parts[0]}.{parts[1]}".encode(), signature


def verify_es256(
    token: str, public_key: ec.EllipticCurvePublicKey, *, double_hash: bool = False
) -> Json:
    """The claims of ``token`` once its ES256 signature verifies; ``JwtError`` otherwise."""
    header, claims, signing_input, signature = decode(token)
    if header.get("alg") != "ES256":
        raise JwtError(f"unsupported alg {header.get('alg')!r}")
    if len(signature) != 64:
        raise JwtError("an ES256 signature is 64 bytes")
    der = encode_dss_signature(
        int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    )
    try:
        public_key.verify(der, _digest(signing_input, double_hash), _PREHASHED)
    except InvalidSignature as exc:
        raise JwtError("signature is invalid") from exc
    return claims
