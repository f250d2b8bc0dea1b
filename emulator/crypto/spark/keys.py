"""Spark's key paths (``m/8797555'/{account}'/{type}'``, docs.spark.money "Identity key
derivation", the Spark SDK's ``DefaultSparkSigner``) and its two ECDSA signature forms."""

from __future__ import annotations

import hashlib

import coincurve
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature

from ..curves import SECP256K1_ORDER as N
from ..hd import HARDENED

PURPOSE = 8797555 | HARDENED  # the last 3 bytes of sha256("spark"), 0x863d73
IDENTITY, SIGNING, DEPOSIT, STATIC_DEPOSIT, HTLC_PREIMAGE = 0, 1, 2, 3, 4


def leaf_index(leaf_id: str) -> int:
    """The hardened child of the signing key for ``leaf_id``: the first 4 bytes of
    sha256(leaf id), big-endian, mod 2^31."""
    return int.from_bytes(hashlib.sha256(leaf_id.encode()).digest()[:4], "big") % HARDENED


def path(account: int, key_type: int, child: int | None = None) -> tuple[int, ...]:
    """Hardened indices of one Spark key (``child`` for leaf and static deposit keys)."""
    indices = (PURPOSE, account | HARDENED, key_type | HARDENED)
    return indices if child is None else (*indices, child | HARDENED)


def account_of(indices: tuple[int, ...]) -> int | None:
    """The account number of an identity path ``m/8797555'/n'/0'``; None for another path."""
    if len(indices) != 3 or indices[0] != PURPOSE or indices[2] != IDENTITY | HARDENED:
        return None
    return indices[1] - HARDENED if indices[1] >= HARDENED else None


def sign_compact(private_key: bytes, digest: bytes) -> bytes:
    """64-byte ``r || s`` low-S ECDSA of a 32-byte digest (RFC 6979 nonce)."""
    return coincurve.PrivateKey(private_key).sign_recoverable(digest, hasher=None)[:64]


def sign_der(private_key: bytes, digest: bytes) -> bytes:
    return coincurve.PrivateKey(private_key).sign(digest, hasher=None)


def verify_compact(public_key: bytes, digest: bytes, signature: bytes) -> bool:
    """A 64-byte compact ECDSA signature; high S refused, as the SDK's verifier does."""
    if len(signature) != 64:
        return False
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    if not (0 < r < N and 0 < s <= N // 2):
        return False
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256K1(), public_key)
    try:
        key.verify(encode_dss_signature(r, s), digest, ec.ECDSA(Prehashed(hashes.SHA256())))
    except Exception:
        return False
    return True
