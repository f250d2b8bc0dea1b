"""The bytes Spark's operators read, as the Spark SDK writes them (``@buildonspark/spark-sdk``
``src/proto/spark.ts``, ``src/utils/hashstructure.ts``, ``src/utils/transfer_package.ts``):
protobuf messages ``SecretShare``, ``SendLeafKeyTweak(s)``, ``ClaimLeafKeyTweak(s)`` and the
tagged structured hash of a transfer package's signing payload.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .secret_sharing import VerifiableShare


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, value: bytes) -> bytes:
    """A length-delimited field; proto3 leaves empty ones out."""
    if not value:
        return b""
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _entry(key: str, value: bytes) -> bytes:
    return _field(1, key.encode()) + _field(2, value)


def secret_share(share: VerifiableShare) -> bytes:
    """``SecretShare {bytes secret_share = 1; repeated bytes proofs = 2;}``."""
    body = _field(1, share.share.to_bytes(32, "big"))
    return body + b"".join(_varint(2 << 3 | 2) + _varint(len(p)) + p for p in share.proofs)


@dataclass(frozen=True)
class LeafTweak:
    leaf_id: str
    share: VerifiableShare
    pubkey_shares: dict[str, bytes]  # operator id -> share * G
    secret_cipher: bytes = b""
    signature: bytes = b""
    refund_signature: bytes = b""
    direct_refund_signature: bytes = b""
    direct_from_cpfp_refund_signature: bytes = b""

    def __repr__(self) -> str:
        return f"LeafTweak(leaf_id={self.leaf_id!r})"


def _claim_leaf(tweak: LeafTweak) -> bytes:
    return (
        _field(1, tweak.leaf_id.encode())
        + _field(2, secret_share(tweak.share))
        + b"".join(_field(3, _entry(k, v)) for k, v in tweak.pubkey_shares.items())
    )


def send_leaf_key_tweaks(leaves: list[LeafTweak]) -> bytes:
    """``SendLeafKeyTweaks {repeated SendLeafKeyTweak leaves_to_send = 1;}``."""
    out = b""
    for leaf in leaves:
        body = (
            _claim_leaf(leaf)
            + _field(4, leaf.secret_cipher)
            + _field(5, leaf.signature)
            + _field(6, leaf.refund_signature)
            + _field(7, leaf.direct_refund_signature)
            + _field(8, leaf.direct_from_cpfp_refund_signature)
        )
        out += _field(1, body)
    return out


def claim_leaf_key_tweaks(leaves: list[LeafTweak]) -> bytes:
    """``ClaimLeafKeyTweaks {repeated ClaimLeafKeyTweak leaves_to_receive = 1;}``."""
    return b"".join(_field(1, _claim_leaf(leaf)) for leaf in leaves)


class _Hasher:
    """The SDK's structured hash: a tag hashed twice in front, each value length-prefixed."""

    def __init__(self, tag: list[str]) -> None:
        serialized = b"".join(len(t.encode()).to_bytes(8, "big") + t.encode() for t in tag)
        tag_hash = hashlib.sha256(serialized).digest()
        self._h = hashlib.sha256(tag_hash + tag_hash)

    def add(self, value: bytes) -> _Hasher:
        self._h.update(len(value).to_bytes(8, "big") + value)
        return self

    def add_map(self, mapping: dict[str, bytes]) -> _Hasher:
        self.add(len(mapping).to_bytes(8, "big"))
        for key in sorted(mapping, key=str.encode):
            self.add(key.encode()).add(mapping[key])
        return self

    def digest(self) -> bytes:
        return self._h.digest()


def transfer_signing_payload(transfer_id: str, key_tweak_package: dict[str, bytes]) -> bytes:
    """``getTransferPackageSigningPayload``: the 32 bytes the identity key signs (DER)."""
    transfer_bytes = bytes.fromhex(transfer_id.replace("-", ""))
    hasher = _Hasher(["spark", "transfer", "signing payload"]).add(transfer_bytes)
    return hasher.add_map(key_tweak_package).digest()


def leaf_signing_payload(leaf_id: str, transfer_id: str, secret_cipher: bytes) -> bytes:
    """SHA-256 of ``leaf id || transfer id || secret cipher`` (UTF-8 ids): what the sender's
    identity key signs per leaf (64-byte compact ECDSA) and the receiver checks."""
    return hashlib.sha256(leaf_id.encode() + transfer_id.encode() + secret_cipher).digest()
