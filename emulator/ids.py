"""Identifiers and key material: UUIDv4 for resources, UUIDv7 for activities.

One ``IdSource`` per emulator. Given a seed, it yields the same ids and the
same key material (mnemonics, private keys, API keys) on every run. Key
material comes from a second stream, so ids never reveal it; without a seed
it comes from the operating system.
"""

from __future__ import annotations

import hashlib
import os
import random
import re

UUID_PATTERN = re.compile(
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)


def is_uuid(value: object) -> bool:
    """Whether ``value`` is a string in the canonical 8-4-4-4-12 UUID form."""
    return isinstance(value, str) and UUID_PATTERN.match(value) is not None


def _format(value: int) -> str:
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class IdSource:
    """A reproducible source of UUIDs and random bytes for one emulator."""

    __slots__ = ("_rng", "_secrets")

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed if seed is not None else os.urandom(16))
        self._secrets: random.Random | None = None
        if seed is not None:
            self._secrets = random.Random(hashlib.sha256(f"secrets:{seed}".encode()).digest())

    def random_bytes(self, n: int) -> bytes:
        """``n`` bytes from the seeded stream (not for secrets of the real world)."""
        return self._rng.getrandbits(8 * n).to_bytes(n, "big")

    def secret_bytes(self, n: int) -> bytes:
        """``n`` bytes of key material: reproducible under a seed, else from ``os.urandom``."""
        if self._secrets is None:
            return os.urandom(n)
        return self._secrets.getrandbits(8 * n).to_bytes(n, "big")

    def uuid4(self) -> str:
        value = self._rng.getrandbits(128)
        value = (value & ~(0xF << 76)) | (0x4 << 76)
        value = (value & ~(0x3 << 62)) | (0x2 << 62)
        return _format(value)

    def uuid7(self, unix_ms: int) -> str:
        """A UUIDv7: 48 bits of milliseconds, then version, then random bits."""
        return uuid7_from(unix_ms, self.random_bytes(10))

    def getstate(self) -> object:
        secrets = self._secrets.getstate() if self._secrets is not None else None
        return (self._rng.getstate(), secrets)

    def setstate(self, state: object) -> None:
        ids, secrets = state  # type: ignore[misc]
        self._rng.setstate(ids)
        if self._secrets is not None:
            self._secrets.setstate(secrets)


def uuid7_from(unix_ms: int, entropy: bytes) -> str:
    """A UUIDv7 whose random bits come from ``entropy`` (no draw on any stream)."""
    rand = int.from_bytes(entropy[:10], "big") & ((1 << 74) - 1)
    value = (unix_ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= (rand >> 62) << 64
    value |= 0x2 << 62
    value |= rand & ((1 << 62) - 1)
    return _format(value)
