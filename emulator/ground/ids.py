"""Identifiers and key material: UUIDv4 for resources, UUIDv7 for activities.

One ``IdSource`` per emulator. Given a seed, it yields the same ids and the
same key material (mnemonics, private keys, API keys) on every run. Key
material comes from a second stream, so ids never reveal it; without a seed
it comes from the operating system.
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import Any

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
    """A reproducible source of UUIDs and random bytes for one emulator.

    Counter mode: draw ``n`` is BLAKE2b keyed with the stream's key over ``n``.
    The whole state is two counters, so saving and restoring it around every
    activity (the undo log does) costs nothing, and no number of ids reveals the
    key or the key material of the second stream.
    """

    __slots__ = ("_ids_key", "_next", "_next_secret", "_secrets_key")

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            self._ids_key = os.urandom(32)
            self._secrets_key: bytes | None = None
        else:
            self._ids_key = hashlib.blake2b(f"ids:{seed}".encode(), digest_size=32).digest()
            self._secrets_key = hashlib.blake2b(f"secrets:{seed}".encode(), digest_size=32).digest()
        self._next = 0
        self._next_secret = 0

    def random_bytes(self, n: int) -> bytes:
        """``n`` (at most 64) bytes of the id stream: not for secrets of the real world."""
        out = _block(self._ids_key, self._next, n)
        self._next += 1
        return out

    def secret_bytes(self, n: int) -> bytes:
        """``n`` (at most 64) bytes of key material: seeded, or else from ``os.urandom``."""
        if self._secrets_key is None:
            return os.urandom(n)
        out = _block(self._secrets_key, self._next_secret, n)
        self._next_secret += 1
        return out

    def uuid4(self) -> str:
        """16 bytes of the stream with the version (4) and variant (10) bits set."""
        n = self._next
        value = int.from_bytes(_draw(self._ids_key, n, 16), "big") & _V4_KEPT | _V4_BITS
        self._next = n + 1
        return _format(value)

    def uuid7(self, unix_ms: int) -> str:
        """A UUIDv7: 48 bits of milliseconds, then version, then random bits
        (``uuid7_from`` of the stream's next 10 bytes)."""
        n = self._next
        rand = int.from_bytes(_draw(self._ids_key, n, 10), "big")
        self._next = n + 1
        return _uuid7(unix_ms, rand)

    def to_dict(self) -> dict[str, object]:
        """Everything needed to continue this stream elsewhere (keys as hex: a secret)."""
        return {
            "idsKey": self._ids_key.hex(),
            "secretsKey": self._secrets_key.hex() if self._secrets_key is not None else None,
            "next": self._next,
            "nextSecret": self._next_secret,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> IdSource:
        source = cls.__new__(cls)
        source._ids_key = bytes.fromhex(str(data["idsKey"]))
        secrets = data.get("secretsKey")
        source._secrets_key = bytes.fromhex(str(secrets)) if secrets is not None else None
        source._next = int(data["next"])  # type: ignore[arg-type]
        source._next_secret = int(data["nextSecret"])  # type: ignore[arg-type]
        return source

    def __repr__(self) -> str:
        return f"IdSource(next={self._next}, seeded={self._secrets_key is not None})"

    def getstate(self) -> tuple[int, int]:
        return (self._next, self._next_secret)

    def setstate(self, state: tuple[int, int]) -> None:
        self._next, self._next_secret = state


def _block(key: bytes, counter: int, n: int) -> bytes:
    if not 0 < n <= 64:
        raise ValueError("draw 1 to 64 bytes at a time")
    return hashlib.blake2b(counter.to_bytes(8, "big"), key=key, digest_size=n).digest()


# The ids' draws (``_block`` of 10 or 16 bytes) from a hash state keyed once a stream and
# size, copied per draw: the key's block is not hashed again, nor the keywords parsed.
_KEYED: dict[tuple[bytes, int], Any] = {}
_KEYED_KEPT = 512  # emulators' streams (two sizes each) before the states are made again
_MS = (1 << 48) - 1
_LOW62 = (1 << 62) - 1
_V7_BITS = 0x7 << 76 | 0x2 << 62  # version 7, variant 10
_V4_KEPT = ~(0xF << 76 | 0x3 << 62) & ((1 << 128) - 1)
_V4_BITS = 0x4 << 76 | 0x2 << 62  # version 4, variant 10


def _draw(key: bytes, counter: int, n: int) -> bytes:
    """``_block(key, counter, n)``."""
    keyed = _KEYED.get((key, n))
    if keyed is None:
        if len(_KEYED) >= _KEYED_KEPT:
            _KEYED.clear()
        keyed = _KEYED[(key, n)] = hashlib.blake2b(key=key, digest_size=n)
    h = keyed.copy()
    h.update(counter.to_bytes(8, "big"))
    return h.digest()  # type: ignore[no-any-return]


def uuid7_from(unix_ms: int, entropy: bytes) -> str:
    """A UUIDv7 whose random bits come from ``entropy`` (no draw on any stream)."""
    return _uuid7(unix_ms, int.from_bytes(entropy[:10], "big"))


def _uuid7(unix_ms: int, rand: int) -> str:
    """48 bits of ``unix_ms``, the version, 12 bits of ``rand``, the variant, 62 more bits."""
    return _format((unix_ms & _MS) << 80 | _V7_BITS | (rand >> 62 & 0xFFF) << 64 | rand & _LOW62)
