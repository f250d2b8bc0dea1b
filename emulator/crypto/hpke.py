"""HPKE (RFC 9180), base mode, single shot, with DHKEM(P-256, HKDF-SHA256) and HKDF-SHA256.

Every channel between Turnkey's enclaves and a client uses one profile of it
(reference §7.1): AES-256-GCM, ``info = b"turnkey_hpke"``, and, on top of the
RFC, the associated data ``enc ‖ pkR`` with both keys as uncompressed SEC1
points. ``seal`` and ``open_sealed`` are that profile; ``seal_base`` and
``open_base`` are the RFC's general base mode (any info, any AAD, AES-128-GCM
or AES-256-GCM), which the RFC's own test vectors check.

Built on ``cryptography``'s ECDH and AES-GCM; the key schedule is HMAC-SHA256
(``hmac`` from the standard library, which is what HKDF is made of).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

KEM_P256_HKDF_SHA256 = 0x0010
KDF_HKDF_SHA256 = 0x0001
AEAD_AES_128_GCM = 0x0001
AEAD_AES_256_GCM = 0x0002
MODE_BASE = 0x00

TURNKEY_INFO = b"turnkey_hpke"

_KEY_LENGTHS = {AEAD_AES_128_GCM: 16, AEAD_AES_256_GCM: 32}
_NONCE_LENGTH = 12
_KEM_SUITE = b"KEM" + KEM_P256_HKDF_SHA256.to_bytes(2, "big")
_UNCOMPRESSED = (serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
_CURVE = ec.SECP256R1()


class HpkeError(ValueError):
    """A key that is not a P-256 point, or a ciphertext that does not open."""


@dataclass(frozen=True, slots=True)
class Sealed:
    """What a sender gives the recipient: the encapsulated key (uncompressed) and the
    ciphertext with its 16-byte tag."""

    enc: bytes
    ciphertext: bytes


def _hpke_suite(aead_id: int) -> bytes:
    return (
        b"HPKE"
        + KEM_P256_HKDF_SHA256.to_bytes(2, "big")
        + KDF_HKDF_SHA256.to_bytes(2, "big")
        + aead_id.to_bytes(2, "big")
    )


def _labeled_extract(suite: bytes, salt: bytes, label: bytes, ikm: bytes) -> bytes:
    key = salt or bytes(32)
    return hmac.new(key, b"HPKE-v1" + suite + label + ikm, hashlib.sha256).digest()


def _labeled_expand(suite: bytes, prk: bytes, label: bytes, info: bytes, length: int) -> bytes:
    labeled_info = length.to_bytes(2, "big") + b"HPKE-v1" + suite + label + info
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + labeled_info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def load_public_key(encoded: bytes) -> ec.EllipticCurvePublicKey:
    """A P-256 public key from its compressed (33 bytes) or uncompressed (65) SEC1 form."""
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(_CURVE, encoded)
    except (ValueError, TypeError) as exc:
        raise HpkeError(f"not a P-256 public key: {exc}") from exc


def uncompressed(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(*_UNCOMPRESSED)


def private_key_from_bytes(secret: bytes) -> ec.EllipticCurvePrivateKey:
    """A P-256 private key from its 32-byte scalar."""
    scalar = int.from_bytes(secret, "big")
    try:
        return ec.derive_private_key(scalar, _CURVE)
    except ValueError as exc:
        raise HpkeError("not a P-256 private key") from exc


def _shared_secret(dh: bytes, kem_context: bytes) -> bytes:
    eae_prk = _labeled_extract(_KEM_SUITE, b"", b"eae_prk", dh)
    return _labeled_expand(_KEM_SUITE, eae_prk, b"shared_secret", kem_context, 32)


def _key_schedule(shared_secret: bytes, info: bytes, aead_id: int) -> tuple[bytes, bytes]:
    suite = _hpke_suite(aead_id)
    psk_id_hash = _labeled_extract(suite, b"", b"psk_id_hash", b"")
    info_hash = _labeled_extract(suite, b"", b"info_hash", info)
    context = bytes([MODE_BASE]) + psk_id_hash + info_hash
    secret = _labeled_extract(suite, shared_secret, b"secret", b"")
    key = _labeled_expand(suite, secret, b"key", context, _KEY_LENGTHS[aead_id])
    nonce = _labeled_expand(suite, secret, b"base_nonce", context, _NONCE_LENGTH)
    return key, nonce


def _encapsulate(
    recipient_public: bytes, ephemeral_private: bytes | None
) -> tuple[bytes, bytes, bytes]:
    """``Encap``: the encapsulated key, the shared secret and the recipient's key, the
    two keys uncompressed."""
    recipient = load_public_key(recipient_public)
    ephemeral = (
        private_key_from_bytes(ephemeral_private)
        if ephemeral_private is not None
        else ec.generate_private_key(_CURVE)
    )
    enc, recipient_full = uncompressed(ephemeral.public_key()), uncompressed(recipient)
    dh = ephemeral.exchange(ec.ECDH(), recipient)
    return enc, _shared_secret(dh, enc + recipient_full), recipient_full


def seal_base(
    recipient_public: bytes,
    plaintext: bytes,
    *,
    info: bytes,
    aad: bytes,
    aead_id: int = AEAD_AES_256_GCM,
    ephemeral_private: bytes | None = None,
) -> Sealed:
    """RFC 9180 ``SealBase``: encrypt ``plaintext`` to ``recipient_public``.

    ``ephemeral_private`` (a 32-byte scalar) fixes the sender's ephemeral key, as the
    RFC's vectors do and as a seeded emulator does; by default a fresh one is made.
    """
    enc, shared, _ = _encapsulate(recipient_public, ephemeral_private)
    key, nonce = _key_schedule(shared, info, aead_id)
    return Sealed(enc, AESGCM(key).encrypt(nonce, plaintext, aad))


def open_base(
    recipient_private: bytes,
    enc: bytes,
    ciphertext: bytes,
    *,
    info: bytes,
    aad: bytes,
    aead_id: int = AEAD_AES_256_GCM,
) -> bytes:
    """RFC 9180 ``OpenBase``; raise ``HpkeError`` when the ciphertext does not open."""
    recipient = private_key_from_bytes(recipient_private)
    ephemeral = load_public_key(enc)
    dh = recipient.exchange(ec.ECDH(), ephemeral)
    kem_context = uncompressed(ephemeral) + uncompressed(recipient.public_key())
    key, nonce = _key_schedule(_shared_secret(dh, kem_context), info, aead_id)
    try:
        return AESGCM(key).decrypt(nonce, ciphertext, aad)
    except InvalidTag as exc:
        raise HpkeError("the ciphertext does not open with this key") from exc


def seal(
    recipient_public: bytes, plaintext: bytes, *, ephemeral_private: bytes | None = None
) -> Sealed:
    """Turnkey's profile: AES-256-GCM, info ``turnkey_hpke``, AAD ``enc ‖ pkR``."""
    enc, shared, recipient = _encapsulate(recipient_public, ephemeral_private)
    key, nonce = _key_schedule(shared, TURNKEY_INFO, AEAD_AES_256_GCM)
    return Sealed(enc, AESGCM(key).encrypt(nonce, plaintext, enc + recipient))


def open_sealed(recipient_private: bytes, enc: bytes, ciphertext: bytes) -> bytes:
    """Open what ``seal`` (or a Turnkey client) made; ``enc`` compressed or not."""
    enc_full = uncompressed(load_public_key(enc))
    recipient_public = uncompressed(private_key_from_bytes(recipient_private).public_key())
    return open_base(
        recipient_private,
        enc_full,
        ciphertext,
        info=TURNKEY_INFO,
        aad=enc_full + recipient_public,
    )


def compress(public: bytes) -> bytes:
    """The 33-byte compressed form of a P-256 public key."""
    return load_public_key(public).public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint
    )
