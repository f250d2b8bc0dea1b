"""Hash functions the API uses (SHA-256 comes from hashlib directly)."""

from __future__ import annotations

from Crypto.Hash import keccak


def keccak256(data: bytes) -> bytes:
    """Ethereum's Keccak-256 (not NIST SHA3-256)."""
    return keccak.new(digest_bits=256, data=data).digest()
