"""ECIES over secp256k1 in the format of eciesjs and the Rust ``ecies`` crate's defaults,
which Spark's SDK uses (``encrypt_ecies``/``decrypt_ecies`` in its WASM):

``ephemeral public key (65, uncompressed) || nonce (16) || tag (16) || ciphertext``; the key
is HKDF-SHA256 (no salt, no info) of ``ephemeral public key || shared point`` (both
uncompressed, 65 bytes each), 32 bytes, for AES-256-GCM.
"""

from __future__ import annotations

import coincurve
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from . import points

_NONCE, _TAG, _EPHEMERAL = 16, 16, 65


def _key(ephemeral: bytes, shared: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=None).derive(
        ephemeral + shared
    )


def encrypt(receiver: bytes, plaintext: bytes, ephemeral_secret: bytes, nonce: bytes) -> bytes:
    """``plaintext`` sealed to ``receiver`` (a compressed or uncompressed secp256k1 key)."""
    try:
        receiver_key = coincurve.PublicKey(receiver)
    except ValueError:
        raise points.SparkCryptoError("not a secp256k1 public key") from None
    ephemeral = coincurve.PrivateKey(ephemeral_secret)
    ephemeral_public = ephemeral.public_key.format(compressed=False)
    shared = receiver_key.multiply(ephemeral_secret).format(compressed=False)
    sealed = AESGCM(_key(ephemeral_public, shared)).encrypt(nonce, plaintext, None)
    return ephemeral_public + nonce + sealed[-_TAG:] + sealed[:-_TAG]


def decrypt(secret: bytes, ciphertext: bytes) -> bytes:
    """Open an ECIES ciphertext with the receiver's private key."""
    if len(ciphertext) < _EPHEMERAL + _NONCE + _TAG:
        raise points.SparkCryptoError("ECIES ciphertext is too short")
    ephemeral_public = ciphertext[:_EPHEMERAL]
    nonce = ciphertext[_EPHEMERAL : _EPHEMERAL + _NONCE]
    tag = ciphertext[_EPHEMERAL + _NONCE : _EPHEMERAL + _NONCE + _TAG]
    body = ciphertext[_EPHEMERAL + _NONCE + _TAG :]
    try:
        shared = coincurve.PublicKey(ephemeral_public).multiply(secret).format(compressed=False)
        return AESGCM(_key(ephemeral_public, shared)).decrypt(nonce, body + tag, None)
    except Exception:  # a bad point or a failed tag: one answer, no detail
        raise points.SparkCryptoError("ECIES ciphertext does not open") from None
