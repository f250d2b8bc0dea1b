"""Hash helpers the address encoders share."""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def sha256d(data: bytes) -> bytes:
    """Double SHA-256, the Base58Check checksum hash."""
    return hashlib.sha256(hashlib.sha256(data).digest()).digest()


def hash160(data: bytes) -> bytes:
    """RIPEMD-160 of SHA-256 (pycryptodome: hashlib's ripemd160 may be missing under OpenSSL 3)."""
    return _ripemd160().new(hashlib.sha256(data).digest()).digest()


@cache
def _ripemd160() -> Any:
    """pycryptodome's RIPEMD-160, loaded on first use (its cffi set-up costs ~15 ms)."""
    from Crypto.Hash import RIPEMD160

    return RIPEMD160


def tagged_hash_prefix(tag: str) -> bytes:
    """The 64-byte prefix of a BIP340 tagged hash: SHA256(tag) twice."""
    tag_hash = hashlib.sha256(tag.encode()).digest()
    return tag_hash + tag_hash
