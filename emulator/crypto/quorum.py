"""Encryption to an enclave's quorum key: P-256 ECDH, HMAC-SHA512 key derivation, AES-256-GCM.

This is the scheme of Turnkey's QuorumOS (``qos_p256``), which ``@turnkey/crypto`` calls
``quorumKeyEncrypt`` (``encryptToEnclave``, ``encryptOauth2ClientSecret``). A sender:

1. makes an ephemeral P-256 key and takes the x-coordinate of ECDH with the receiver's key;
2. derives the AES-256 key as the first 32 bytes of HMAC-SHA512, keyed with
   ``sender public ‖ receiver public ‖ shared x`` (public keys uncompressed), over the
   fixed message ``qos_encryption_hmac_message``;
3. seals the message with AES-256-GCM under a random 12-byte nonce, with the associated
   data ``sender public ‖ len ‖ receiver public ‖ len`` (each length one byte);
4. serialises the envelope as borsh does a struct of two fixed arrays and a vector:
   ``nonce (12) ‖ sender public (65) ‖ u32 little-endian length ‖ ciphertext with tag``.

``encryptOauth2ClientSecret`` sends that envelope as hex.
"""

from __future__ import annotations

import hashlib
import hmac
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from .hpke import load_public_key, private_key_from_bytes, uncompressed

HMAC_MESSAGE = b"qos_encryption_hmac_message"
NONCE_BYTES = 12
PUBLIC_KEY_BYTES = 65
_HEADER = NONCE_BYTES + PUBLIC_KEY_BYTES + 4


class QuorumEncryptionError(ValueError):
    """An envelope of the wrong shape, a key that is not P-256, or a ciphertext that fails."""


def _aes_key(sender_public: bytes, receiver_public: bytes, shared_x: bytes) -> bytes:
    pre_image = sender_public + receiver_public + shared_x
    return hmac.new(pre_image, HMAC_MESSAGE, hashlib.sha512).digest()[:32]


def _associated_data(sender_public: bytes, receiver_public: bytes) -> bytes:
    return (
        sender_public
        + bytes([len(sender_public)])
        + receiver_public
        + bytes([len(receiver_public)])
    )


def encrypt(
    receiver_public: bytes,
    plaintext: bytes,
    *,
    ephemeral_private: bytes | None = None,
    nonce: bytes | None = None,
) -> bytes:
    """The borsh envelope of ``plaintext`` sealed to ``receiver_public`` (65-byte SEC1)."""
    try:
        receiver = uncompressed(load_public_key(receiver_public))
    except ValueError as exc:
        raise QuorumEncryptionError(str(exc)) from exc
    ephemeral = (
        private_key_from_bytes(ephemeral_private)
        if ephemeral_private is not None
        else ec.generate_private_key(ec.SECP256R1())
    )
    sender = uncompressed(ephemeral.public_key())
    shared_x = ephemeral.exchange(ec.ECDH(), load_public_key(receiver))
    nonce = nonce if nonce is not None else os.urandom(NONCE_BYTES)
    if len(nonce) != NONCE_BYTES:
        raise QuorumEncryptionError(f"the nonce is {NONCE_BYTES} bytes")
    sealed = AESGCM(_aes_key(sender, receiver, shared_x)).encrypt(
        nonce, plaintext, _associated_data(sender, receiver)
    )
    return nonce + sender + len(sealed).to_bytes(4, "little") + sealed


def decrypt(receiver_private: bytes, envelope: bytes) -> bytes:
    """The plaintext of an envelope sealed to the key whose 32-byte scalar is given."""
    if len(envelope) < _HEADER:
        raise QuorumEncryptionError("the envelope is too short")
    nonce = envelope[:NONCE_BYTES]
    sender = envelope[NONCE_BYTES : NONCE_BYTES + PUBLIC_KEY_BYTES]
    length = int.from_bytes(envelope[NONCE_BYTES + PUBLIC_KEY_BYTES : _HEADER], "little")
    sealed = envelope[_HEADER:]
    if length != len(sealed):
        raise QuorumEncryptionError("the envelope's length field does not match its ciphertext")
    try:
        receiver_key = private_key_from_bytes(receiver_private)
        sender_key = load_public_key(sender)
    except ValueError as exc:
        raise QuorumEncryptionError(str(exc)) from exc
    if sender[0] != 0x04:
        raise QuorumEncryptionError("the sender's key must be uncompressed")
    receiver = uncompressed(receiver_key.public_key())
    shared_x = receiver_key.exchange(ec.ECDH(), sender_key)
    try:
        return AESGCM(_aes_key(sender, receiver, shared_x)).decrypt(
            nonce, sealed, _associated_data(sender, receiver)
        )
    except InvalidTag as exc:
        raise QuorumEncryptionError("the ciphertext does not decrypt with this key") from exc
