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


def split(
    secret: bytes,
    share_count: int,
    threshold: int,
    *,
    randbytes: Callable[[int], bytes] = os.urandom,
) -> list[bytes]:
    """``share_count`` shares of ``secret``, any ``threshold`` of which rebuild it."""
    if not 1 <= threshold <= share_count <= 255:
        raise ShamirError("need 1 <= threshold <= share count <= 255")
    if not secret:
        raise ShamirError("the secret is empty")
    coefficients = [randbytes(threshold - 1) for _ in secret]
    shares = []
    for x in range(1, share_count + 1):
        ys = bytearray()
        for constant, higher in zip(secret, coefficients, strict=True):
            y = 0
            for coefficient in reversed(higher):  # Horner, highest degree first
                y = _mul(y, x) ^ coefficient
            ys.append(_mul(y, x) ^ constant)
        shares.append(bytes([x]) + bytes(ys))
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
    weights = []
    for i, xi in enumerate(xs):
        numerator, denominator = 1, 1
        for j, xj in enumerate(xs):
            if i != j:
                numerator = _mul(numerator, xj)
                denominator = _mul(denominator, xi ^ xj)
        weights.append(_div(numerator, denominator))
    secret = bytearray(length - 1)
    for weight, share in zip(weights, shares, strict=True):
        for k in range(length - 1):
            secret[k] ^= _mul(weight, share[k + 1])
    return bytes(secret)
