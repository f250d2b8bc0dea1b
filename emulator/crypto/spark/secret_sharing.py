"""Feldman verifiable secret sharing over the secp256k1 scalar field, as Spark's
``split_secret_with_proofs`` does: shares at x = 1..n, proofs = each coefficient times G
(the first is the secret's public key), a share checks when ``share*G = sum proof_k * x^k``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..curves import SECP256K1_ORDER as N
from . import points


@dataclass(frozen=True)
class VerifiableShare:
    index: int  # 1-based x coordinate
    threshold: int
    share: int
    proofs: tuple[bytes, ...]

    def __repr__(self) -> str:  # a share is a secret: never in a repr
        return f"VerifiableShare(index={self.index}, threshold={self.threshold})"


def split(
    secret: int, threshold: int, count: int, random_scalar: Callable[[], int]
) -> list[VerifiableShare]:
    """``count`` shares of ``secret`` (mod n), any ``threshold`` of which recombine."""
    if not 1 <= threshold <= count:
        raise points.SparkCryptoError("threshold must be between 1 and the number of shares")
    coefficients = [secret % N] + [random_scalar() for _ in range(threshold - 1)]
    proofs = tuple(points.base_mul(c) for c in coefficients)
    shares = []
    for x in range(1, count + 1):
        y = 0
        for c in reversed(coefficients):
            y = (y * x + c) % N
        shares.append(VerifiableShare(x, threshold, y, proofs))
    return shares


def check(share: int, index: int, proofs: tuple[bytes, ...] | list[bytes]) -> bool:
    """Whether ``share`` at ``index`` lies on the polynomial ``proofs`` commit to."""
    expected = [points.mul(p, pow(index, k, N)) for k, p in enumerate(proofs)]
    return points.base_mul(share) == points.add(*expected)


def lagrange_at_zero(index: int, indices: list[int]) -> int:
    num, den = 1, 1
    for j in indices:
        if j != index:
            num = num * j % N
            den = den * (j - index) % N
    return num * pow(den, -1, N) % N


def recover(shares: list[tuple[int, int]]) -> int:
    """The secret from ``(index, share)`` pairs (at least the threshold of them)."""
    indices = [i for i, _ in shares]
    return sum(y * lagrange_at_zero(i, indices) for i, y in shares) % N
