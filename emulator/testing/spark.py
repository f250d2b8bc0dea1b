"""Simulated Spark operators for tests: a t-of-n FROST key dealt with Shamir, nonce
commitments, their signature shares and the aggregate, ECIES keys that open the packages
Turnkey seals to them, and a reader for the protobuf messages inside (``docs/spark.md``).

Nothing here talks to a real operator; the protocol is Spark's, so an aggregate that
verifies under BIP-340 (``emulator/testing/bip340.py``, not this code) shows Turnkey's share
was right.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ..crypto.spark import ecies, frost, points, secret_sharing

N = points.N


def _scalar(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest(), "big") % (N - 1) + 1


@dataclass
class SimulatedOperators:
    """``count`` operators, any ``threshold`` of which sign; deterministic from ``seed``."""

    count: int = 3
    threshold: int = 2
    seed: int = 1
    _round: int = field(default=0, repr=False)

    def __post_init__(self) -> None:
        self.ids = list(range(1, self.count + 1))
        self.encryption_keys = [_scalar("ecies", self.seed, i) for i in self.ids]
        self.operator_ids = [f"00000000-0000-4000-8000-{i:012d}" for i in self.ids]

    def __repr__(self) -> str:
        return f"SimulatedOperators(count={self.count}, threshold={self.threshold})"

    def recipients(self) -> list[dict[str, str]]:
        """``operatorRecipients`` in the operators' order (share index = position + 1)."""
        return [
            {"operatorId": op, "encryptionPublicKey": points.base_mul(k).hex()}
            for op, k in zip(self.operator_ids, self.encryption_keys, strict=True)
        ]

    def open(self, position: int, encrypted_package_hex: str) -> bytes:
        return ecies.decrypt(
            points.to_bytes(self.encryption_keys[position]), bytes.fromhex(encrypted_package_hex)
        )

    # --- FROST ---

    def key_shares(self, label: str) -> tuple[bytes, dict[int, int]]:
        """The operators' public key and each one's Shamir share of it, for one leaf."""
        secret = _scalar("key", self.seed, label)
        shares = secret_sharing.split(
            secret, self.threshold, self.count, lambda: _scalar("coef", self.seed, label)
        )
        return points.base_mul(secret), {s.index: s.share for s in shares}

    def nonces(self, signers: list[int]) -> dict[int, tuple[int, int]]:
        self._round += 1
        return {
            i: (_scalar("d", self.seed, self._round, i), _scalar("e", self.seed, self._round, i))
            for i in signers
        }

    @staticmethod
    def commitments(nonces: dict[int, tuple[int, int]]) -> list[dict[str, str]]:
        """``operatorCommitments`` for a ``spark_sign_frost`` request."""
        return [
            {
                "id": points.to_bytes(i).hex(),
                "hiding": points.base_mul(d).hex(),
                "binding": points.base_mul(e).hex(),
            }
            for i, (d, e) in nonces.items()
        ]

    @staticmethod
    def session(
        message: bytes,
        verifying_key: bytes,
        nonces: dict[int, tuple[int, int]],
        turnkey: dict[str, str],
        adaptor: bytes | None = None,
    ) -> frost.Session:
        commitments = {
            i: frost.Commitment(points.base_mul(d), points.base_mul(e))
            for i, (d, e) in nonces.items()
        }
        commitments[frost.USER_IDENTIFIER] = frost.Commitment(
            bytes.fromhex(turnkey["hiding"]), bytes.fromhex(turnkey["binding"])
        )
        return frost.session(message, verifying_key, commitments, adaptor)

    @staticmethod
    def sign(
        session: frost.Session, nonces: dict[int, tuple[int, int]], key_shares: dict[int, int]
    ) -> dict[int, int]:
        signers = sorted(nonces)
        return {
            i: frost.operator_share(session, i, signers, d, e, key_shares[i])
            for i, (d, e) in nonces.items()
        }


def read_proto(data: bytes) -> list[tuple[int, bytes | int]]:
    """The ``(field number, value)`` pairs of one protobuf message (varints and bytes)."""
    out, i = [], 0

    def varint() -> int:
        nonlocal i
        shift = value = 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while i < len(data):
        key = varint()
        number, kind = key >> 3, key & 7
        if kind == 0:
            out.append((number, varint()))
        elif kind == 2:
            length = varint()
            out.append((number, data[i : i + length]))
            i += length
        else:
            raise ValueError(f"wire type {kind} not read here")
    return out
