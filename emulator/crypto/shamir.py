"""Shamir's secret sharing over GF(256), byte by byte, as QuorumOS shards its Quorum Keys.

``qos_crypto::shamir`` (``tkhq/qos``: ``src/qos_crypto/src/shamir.rs``) splits with
``vsss_rs::Gf256::split_array``: the field is GF(2^8) modulo the AES polynomial
``x^8 + x^4 + x^3 + x + 1`` (0x11b), each byte of the secret is the constant term of its
own random polynomial of degree ``threshold - 1``, and a share is its x-coordinate (one
byte, 1 to ``share_count``) followed by the polynomial values at that x, one per secret
byte. Any ``threshold`` shares rebuild the secret by Lagrange interpolation at 0; fewer
give an unrelated value. ``combine`` reads QOS's own shares (``can_reconstruct_from_old_shares``
in shamir.rs: ``fixtures/shamir-vectors.json``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

_EXP = [0] * 510
_LOG = [0] * 256


def _tables() -> None:
    value = 1
    for power in range(255):
        _EXP[power] = value
        _LOG[value] = power
        value ^= (value << 1) ^ (0x11B if value & 0x80 else 0)  # times 3, the generator
        value &= 0xFF
    for power in range(255, 510):
        _EXP[power] = _EXP[power - 255]


_tables()


class ShamirError(ValueError):
    """Shares that cannot be combined, or a split that cannot be made."""


def _mul(a: int, b: int) -> int:
    if a == 0 or b == 0:
        return 0
    return _EXP[_LOG[a] + _LOG[b]]


def _div(a: int, b: int) -> int:
    if a == 0:
        return 0
    return _EXP[_LOG[a] + 255 - _LOG[b]]


def _table(multiplier: int) -> bytes:
    """Multiplication by ``multiplier`` in GF(256) as a ``bytes.translate`` table: a whole
    row of bytes multiplied in one C call."""
    found = _TABLES.get(multiplier)
    if found is None:
        found = _TABLES[multiplier] = bytes(_mul(multiplier, b) for b in range(256))
    return found


_TABLES: dict[int, bytes] = {}


def _xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).to_bytes(len(a), "big")


def split(
    secret: bytes,
    share_count: int,
    threshold: int,
    *,
    randbytes: Callable[[int], bytes] = os.urandom,
) -> list[bytes]:
    """``share_count`` shares of ``secret``, any ``threshold`` of which rebuild it.

    Coefficient ``k`` of every byte's polynomial is byte ``i`` of the ``k``-th random row,
    so a share's values are ``secret ^ row_1 * x ^ row_2 * x^2 ...``, row by row."""
    if not 1 <= threshold <= share_count <= 255:
        raise ShamirError("need 1 <= threshold <= share count <= 255")
    if not secret:
        raise ShamirError("the secret is empty")
    rows = [randbytes(len(secret)) for _ in range(threshold - 1)]
    shares = []
    for x in range(1, share_count + 1):
        ys, power = secret, 1
        for row in rows:
            power = _mul(power, x)
            ys = _xor(ys, row.translate(_table(power)))
        shares.append(bytes([x]) + ys)
    return shares


def combine(shares: Sequence[bytes]) -> bytes:
    """The secret at x = 0 of ``shares`` (each ``x ‖ ys``, all of one length, distinct x)."""
    if len(shares) < 1:
        raise ShamirError("no shares")
    length = len(shares[0])
    xs = [share[0] if share else 0 for share in shares]
    if length < 2 or any(len(s) != length for s in shares):
        raise ShamirError("the shares are not of one length")
    if 0 in xs or len(set(xs)) != len(xs):
        raise ShamirError("the shares' x-coordinates are not distinct and non-zero")
    secret = bytes(length - 1)
    for i, xi in enumerate(xs):
        numerator, denominator = 1, 1
        for j, xj in enumerate(xs):
            if i != j:
                numerator = _mul(numerator, xj)
                denominator = _mul(denominator, xi ^ xj)
        secret = _xor(secret, shares[i][1:].translate(_table(_div(numerator, denominator))))
    return secret
