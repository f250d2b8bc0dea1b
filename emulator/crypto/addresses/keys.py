"""Checks and conversions of the public-key input: SEC1 compressed points, raw ed25519 keys."""

from __future__ import annotations

import coincurve
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .options import InvalidPublicKey


def secp256k1_compressed(public_key: bytes) -> bytes:
    """The key itself, once it is known to be a 33-byte compressed secp256k1 point."""
    secp256k1_uncompressed(public_key)
    return public_key


def secp256k1_uncompressed(public_key: bytes) -> bytes:
    """``04‖X‖Y`` of a 33-byte compressed secp256k1 point."""
    if len(public_key) != 33 or public_key[0] not in (2, 3):
        raise InvalidPublicKey("expected a 33-byte compressed secp256k1 public key")
    try:
        return coincurve.PublicKey(bytes(public_key)).format(compressed=False)
    except ValueError:
        raise InvalidPublicKey("not a point on secp256k1") from None


def p256_uncompressed(public_key: bytes) -> bytes:
    """``04‖X‖Y`` of a 33-byte compressed P-256 point."""
    if len(public_key) != 33 or public_key[0] not in (2, 3):
        raise InvalidPublicKey("expected a 33-byte compressed P-256 public key")
    try:
        point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes(public_key))
    except ValueError:
        raise InvalidPublicKey("not a point on P-256") from None
    return point.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def p256_compressed(public_key: bytes) -> bytes:
    """The key itself, once it is known to be a 33-byte compressed P-256 point."""
    p256_uncompressed(public_key)
    return public_key


def ed25519_raw(public_key: bytes) -> bytes:
    """The key itself, once it is known to be 32 bytes (the curve check is left to signing)."""
    if len(public_key) != 32:
        raise InvalidPublicKey("expected a 32-byte ed25519 public key")
    return bytes(public_key)
