"""QuorumOS key sets (``qos_p256``): a 32-byte master seed, two P-256 keys derived from it.

``tkhq/qos`` ``src/qos_p256/src/lib.rs``: ``P256Pair::from_master_seed`` derives the
encryption secret and the signing secret as HKDF-SHA512 (salt ``qos_p256_encrypt`` or
``qos_p256_sign``, the seed as input key material, empty info, 32 bytes). The public key
set is 130 bytes: the encryption key then the signing key, each an uncompressed SEC1
point (``P256Public::to_bytes``). ``sign.rs``: a signature is ECDSA P-256 over SHA-256 of
the message, 64 bytes ``r‖s``. Encryption is ``crypto/quorum.py`` (``encrypt.rs``).

Quorum Keys and Ephemeral Keys are such key sets; an operator's key (``tvc login``'s
``operator.json``) is one too, or two P-256 keys of a wallet (``services/tvc_operators.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from . import quorum
from .hpke import load_public_key, private_key_from_bytes, uncompressed

ENCRYPT_PATH = b"qos_p256_encrypt"
SIGN_PATH = b"qos_p256_sign"
MASTER_SEED_BYTES = 32
POINT_BYTES = 65
PUBLIC_BYTES = 2 * POINT_BYTES


class QosKeyError(ValueError):
    """A public key set or signature of the wrong shape."""


def derive_secret(master_seed: bytes, path: bytes) -> bytes:
    return HKDF(hashes.SHA512(), 32, salt=path, info=b"").derive(master_seed)


@dataclass(frozen=True)
class KeySet:
    """A key set's two private scalars (32 bytes each); ``repr`` shows neither."""

    encrypt_secret: bytes = field(repr=False)
    sign_secret: bytes = field(repr=False)

    @classmethod
    def from_master_seed(cls, master_seed: bytes) -> KeySet:
        if len(master_seed) != MASTER_SEED_BYTES:
            raise QosKeyError("a master seed is 32 bytes")
        return cls(derive_secret(master_seed, ENCRYPT_PATH), derive_secret(master_seed, SIGN_PATH))

    @property
    def encrypt_public(self) -> bytes:
        return uncompressed(private_key_from_bytes(self.encrypt_secret).public_key())

    @property
    def sign_public(self) -> bytes:
        return uncompressed(private_key_from_bytes(self.sign_secret).public_key())

    @property
    def public(self) -> bytes:
        """The 130-byte public key set: encryption key ‖ signing key."""
        return self.encrypt_public + self.sign_public

    def sign(self, message: bytes) -> bytes:
        return sign(self.sign_secret, message)

    def decrypt(self, envelope: bytes) -> bytes:
        return quorum.decrypt(self.encrypt_secret, envelope)


def sign(secret: bytes, message: bytes) -> bytes:
    """ECDSA P-256 over SHA-256(``message``), ``r‖s`` (RFC 6979, deterministic)."""
    key = private_key_from_bytes(secret)
    der = key.sign(message, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    r, s = decode_dss_signature(der)
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def verify(sign_public: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` (64 bytes ``r‖s``) is ``sign_public``'s over ``message``."""
    if len(signature) != 64:
        return False
    try:
        key = load_public_key(sign_public)
        der = encode_dss_signature(
            int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
        )
        key.verify(der, message, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        return False
    return True


def split_public(public: bytes) -> tuple[bytes, bytes]:
    """(encryption key, signing key) of a 130-byte public key set, each checked on P-256."""
    if len(public) != PUBLIC_BYTES:
        raise QosKeyError("a QOS public key set is 130 bytes (two uncompressed P-256 points)")
    encrypt_public, sign_public = public[:POINT_BYTES], public[POINT_BYTES:]
    for point in (encrypt_public, sign_public):
        if point[0] != 0x04:
            raise QosKeyError("a QOS public key set holds uncompressed points")
        try:
            load_public_key(point)
        except ValueError:
            raise QosKeyError("a QOS public key set holds points on P-256") from None
    return encrypt_public, sign_public
