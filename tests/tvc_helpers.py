"""Helpers of the TVC tests: operator keys held the way ``tvc login`` holds them (a QOS key
set from a master seed), checked with libraries other than the emulator's (``ecdsa``,
PyCryptodome)."""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass, field

from Crypto.Cipher import AES
from Crypto.Hash import SHA512
from Crypto.Protocol.KDF import HKDF
from Crypto.PublicKey import ECC
from ecdsa import NIST256p, SigningKey, VerifyingKey
from ecdsa.util import sigdecode_string, sigencode_string

HEALTHCHECK = "TVC_HEALTH_CHECK_TYPE_HTTP"
IMAGE = "ghcr.io/tkhq/helloworld@sha256:c9c18f78b05d29ebfc2c60ab7143df4b0a808765a34d6a88bbf99523f473cafd"
PIVOT_DIGEST = "cbe01169428f144086bfaef348bbf3db70f9217628996cafd2ecb85d5f2b47a1"
QOS = "v2026.2.6"


def _scalar(seed: bytes, path: bytes) -> int:
    return int.from_bytes(HKDF(seed, 32, path, SHA512, context=b""), "big")


@dataclass
class Operator:
    """An external operator's QOS key set (PyCryptodome's HKDF, ``ecdsa`` for the points)."""

    seed: bytes = field(default_factory=lambda: os.urandom(32), repr=False)

    @property
    def encrypt_key(self) -> SigningKey:
        return SigningKey.from_secret_exponent(_scalar(self.seed, b"qos_p256_encrypt"), NIST256p)

    @property
    def sign_key(self) -> SigningKey:
        return SigningKey.from_secret_exponent(_scalar(self.seed, b"qos_p256_sign"), NIST256p)

    @property
    def public(self) -> str:
        return (
            self.encrypt_key.get_verifying_key().to_string("uncompressed")
            + self.sign_key.get_verifying_key().to_string("uncompressed")
        ).hex()

    def approve(self, digest: bytes) -> str:
        return self.sign_key.sign(digest, hashfunc=hashlib.sha256, sigencode=sigencode_string).hex()


def verify(sign_public_hex: str, message: bytes, signature_hex: str) -> bool:
    key = VerifyingKey.from_string(bytes.fromhex(sign_public_hex), NIST256p)
    try:
        return key.verify(
            bytes.fromhex(signature_hex),
            message,
            hashfunc=hashlib.sha256,
            sigdecode=sigdecode_string,
        )
    except Exception:
        return False


def qos_decrypt(secret_scalar: int, envelope: bytes) -> bytes:
    """QOS's P-256 decryption, written here with PyCryptodome."""
    nonce, sender = envelope[:12], envelope[12:77]
    length = int.from_bytes(envelope[77:81], "little")
    sealed = envelope[81:]
    assert length == len(sealed)
    receiver = ECC.construct(curve="P-256", d=secret_scalar)
    sender_point = ECC.import_key(sender, curve_name="P-256").pointQ
    shared_x = int((sender_point * secret_scalar).x).to_bytes(32, "big")
    receiver_public = receiver.public_key().export_key(format="raw")
    key = hmac.new(
        sender + receiver_public + shared_x, b"qos_encryption_hmac_message", hashlib.sha512
    ).digest()[:32]
    aad = sender + bytes([65]) + receiver_public + bytes([65])
    cipher = AES.new(key, AES.MODE_GCM, nonce=nonce)
    cipher.update(aad)
    return cipher.decrypt_and_verify(sealed[:-16], sealed[-16:])


def qos_encrypt(receiver_public: bytes, plaintext: bytes) -> bytes:
    """QOS's P-256 encryption with PyCryptodome (an operator re-encrypting its share)."""
    ephemeral = ECC.generate(curve="P-256")
    sender = ephemeral.public_key().export_key(format="raw")
    point = ECC.import_key(receiver_public, curve_name="P-256").pointQ
    shared_x = int((point * ephemeral.d).x).to_bytes(32, "big")
    key = hmac.new(
        sender + receiver_public + shared_x, b"qos_encryption_hmac_message", hashlib.sha512
    ).digest()[:32]
    nonce = os.urandom(12)
    cipher = AES.new(key, AES.MODE_GCM, nonce=nonce)
    cipher.update(sender + bytes([65]) + receiver_public + bytes([65]))
    ciphertext, tag = cipher.encrypt_and_digest(plaintext)
    sealed = ciphertext + tag
    return nonce + sender + len(sealed).to_bytes(4, "little") + sealed


def operator_set(name: str, operators: list[Operator], threshold: int) -> dict:
    return {
        "name": name,
        "threshold": threshold,
        "newOperators": [
            {"name": f"{name}-{i}", "publicKey": o.public} for i, o in enumerate(operators)
        ],
    }


def deployment_params(app_id: str, **extra) -> dict:
    params = {
        "app_id": app_id,
        "qos_version": QOS,
        "pivot_container_image_url": IMAGE,
        "pivot_path": "/tvc_app",
        "pivot_args": ["--host", "0.0.0.0", "--port", "3000"],
        "expected_pivot_digest": PIVOT_DIGEST,
        "health_check_type": HEALTHCHECK,
        "health_check_port": 3000,
        "public_ingress_port": 3000,
    }
    params.update(extra)
    return params
