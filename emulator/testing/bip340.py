"""A reference BIP340 (Schnorr) verifier and BIP86 output key, in plain Python.

Slow (affine arithmetic) and independent of libsecp256k1, which the emulator
signs with: tests and the state machine check Taproot signatures with it.
"""

from __future__ import annotations

import hashlib

_P = 2**256 - 2**32 - 977
_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_G = (
    0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798,
    0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8,
)


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if a[0] == b[0] and (a[1] + b[1]) % _P == 0:
        return None
    if a == b:
        slope = 3 * a[0] * a[0] * pow(2 * a[1], -1, _P) % _P
    else:
        slope = (b[1] - a[1]) * pow(b[0] - a[0], -1, _P) % _P
    x = (slope * slope - a[0] - b[0]) % _P
    return x, (slope * (a[0] - x) - a[1]) % _P


def _mul(point, k: int):
    out = None
    while k:
        if k & 1:
            out = _add(out, point)
        point, k = _add(point, point), k >> 1
    return out


def _lift_x(x: int):
    if x >= _P:
        return None
    c = (pow(x, 3, _P) + 7) % _P
    y = pow(c, (_P + 1) // 4, _P)
    if y * y % _P != c:
        return None
    return x, y if y % 2 == 0 else _P - y


def _tagged_hash(tag: str, data: bytes) -> bytes:
    t = hashlib.sha256(tag.encode()).digest()
    return hashlib.sha256(t + t + data).digest()


def bip86_output_key(internal_key: bytes) -> bytes:
    """BIP86: Q = lift_x(P.x) + tagged_hash("TapTweak", P.x)·G, as 32 bytes of Q.x."""
    x = internal_key[-32:]
    tweak = int.from_bytes(_tagged_hash("TapTweak", x), "big")
    point = _add(_lift_x(int.from_bytes(x, "big")), _mul(_G, tweak))
    assert point is not None
    return point[0].to_bytes(32, "big")


def verify(public_x: bytes, message: bytes, signature: bytes) -> bool:
    point = _lift_x(int.from_bytes(public_x, "big"))
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    if point is None or r >= _P or s >= _N:
        return False
    challenge = _tagged_hash("BIP0340/challenge", signature[:32] + public_x + message)
    e = int.from_bytes(challenge, "big") % _N
    nonce = _add(_mul(_G, s), _mul(point, _N - e))
    return nonce is not None and nonce[1] % 2 == 0 and nonce[0] == r
