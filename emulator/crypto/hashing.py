"""Hash functions the API uses (SHA-256 comes from hashlib directly)."""

from __future__ import annotations

from functools import cache
from typing import Any


def keccak256(data: bytes) -> bytes:
    """Ethereum's Keccak-256 (not NIST SHA3-256)."""
    return _keccak().new(digest_bits=256, data=data).digest()


@cache
def _keccak() -> Any:
    """pycryptodome's Keccak, loaded on first use: its cffi set-up costs ~15 ms, which
    ``import emulator`` need not pay."""
    from Crypto.Hash import keccak

    return keccak
