"""secp256k1 scalars and points for Spark's protocols, on libsecp256k1 (coincurve).

Points travel as 33-byte compressed SEC1; scalars as 32-byte big-endian integers mod n.
"""

from __future__ import annotations

import hashlib

import coincurve

from ..curves import SECP256K1_ORDER as N


class SparkCryptoError(ValueError):
    """An input that is not a valid point, scalar or ciphertext (the caller's 400)."""


def point(data: bytes) -> bytes:
    """``data`` checked as a compressed secp256k1 point (33 bytes)."""
    if len(data) != 33 or data[0] not in (2, 3):
        raise SparkCryptoError("expected a 33-byte compressed secp256k1 point")
    try:
        coincurve.PublicKey(data)
    except ValueError:
        raise SparkCryptoError("not a point on secp256k1") from None
    return data


def scalar(data: bytes) -> int:
    """A 32-byte big-endian scalar, checked to be below the group order."""
    if len(data) != 32:
        raise SparkCryptoError("expected a 32-byte scalar")
    value = int.from_bytes(data, "big")
    if value >= N:
        raise SparkCryptoError("scalar is not below the secp256k1 group order")
    return value


def to_bytes(k: int) -> bytes:
    return (k % N).to_bytes(32, "big")


def base_mul(k: int) -> bytes:
    """``k * G`` compressed; ``k`` must not be 0 mod n."""
    k %= N
    if k == 0:
        raise SparkCryptoError("scalar is zero")
    return coincurve.PublicKey.from_secret(k.to_bytes(32, "big")).format()


def mul(p: bytes, k: int) -> bytes:
    k %= N
    if k == 0:
        raise SparkCryptoError("scalar is zero")
    return coincurve.PublicKey(p).multiply(k.to_bytes(32, "big")).format()


def add(*points: bytes) -> bytes:
    """The sum of ``points`` (an error if it is the point at infinity)."""
    if len(points) == 1:
        return points[0]
    try:
        return coincurve.PublicKey.combine_keys([coincurve.PublicKey(p) for p in points]).format()
    except ValueError:
        raise SparkCryptoError("points sum to infinity") from None


def negate(p: bytes) -> bytes:
    return bytes([p[0] ^ 1]) + p[1:]


def is_odd(p: bytes) -> bool:
    return p[0] == 3


def uncompressed(p: bytes) -> bytes:
    return coincurve.PublicKey(p).format(compressed=False)


def tagged_hash(tag: str, data: bytes) -> bytes:
    digest = hashlib.sha256(tag.encode()).digest()
    return hashlib.sha256(digest + digest + data).digest()
