"""API key pairs on the three curves the API accepts, and their public keys.

Public keys travel as hex: compressed SEC1 (66 characters) for P-256 and
secp256k1, the raw 32 bytes (64 characters) for Ed25519. Private keys are the
32-byte scalar or seed as hex.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed

from . import curves

P256 = "API_KEY_CURVE_P256"
SECP256K1 = "API_KEY_CURVE_SECP256K1"
ED25519 = "API_KEY_CURVE_ED25519"
CURVES = (P256, SECP256K1, ED25519)

_EC_CURVES = {P256: ec.SECP256R1(), SECP256K1: ec.SECP256K1()}
_EC_ORDERS = {P256: curves.P256_ORDER, SECP256K1: curves.SECP256K1_ORDER}
_COMPRESSED = (serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint)
_RAW = (serialization.Encoding.Raw, serialization.PublicFormat.Raw)


@dataclass(frozen=True, slots=True)
class ApiKeyPair:
    """A client's API key: the public key hex, the private key hex and the curve."""

    public_key: str
    private_key: str
    curve: str = P256

    def __repr__(self) -> str:  # never show the private half
        return f"ApiKeyPair(public_key={self.public_key!r}, curve={self.curve!r})"


def key_pair_from_private(private_key: str, curve: str = P256) -> ApiKeyPair:
    """The key pair whose private key is ``private_key`` (hex)."""
    secret = bytes.fromhex(private_key.removeprefix("0x"))
    if curve == ED25519:
        key = ed25519.Ed25519PrivateKey.from_private_bytes(secret)
        public = key.public_key().public_bytes(*_RAW)
    else:
        key = ec.derive_private_key(int.from_bytes(secret, "big"), _EC_CURVES[curve])
        public = key.public_key().public_bytes(*_COMPRESSED)
    return ApiKeyPair(public.hex(), secret.hex(), curve)


def key_pair_from_entropy(entropy: bytes, curve: str = P256) -> ApiKeyPair:
    """A key pair made from 32 bytes of entropy (a seeded emulator passes its own)."""
    if curve == ED25519:
        return key_pair_from_private(entropy[:32].hex(), curve)
    scalar = int.from_bytes(entropy[:32], "big") % (_EC_ORDERS[curve] - 1) + 1
    return key_pair_from_private(f"{scalar:064x}", curve)


def generate_key_pair(curve: str = P256) -> ApiKeyPair:
    """A fresh random key pair from the operating system's randomness."""
    import os

    return key_pair_from_entropy(os.urandom(32), curve)


@lru_cache(maxsize=4096)
def _load_ec_public_key(curve: str, public_key_hex: str) -> ec.EllipticCurvePublicKey:
    return ec.EllipticCurvePublicKey.from_encoded_point(
        _EC_CURVES[curve], bytes.fromhex(public_key_hex)
    )


@lru_cache(maxsize=4096)
def _load_ed25519_public_key(public_key_hex: str) -> ed25519.Ed25519PublicKey:
    return ed25519.Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key_hex))


def is_valid_public_key(public_key_hex: str, curve: str) -> bool:
    """Whether the hex is a well-formed public key of ``curve`` (length and prefix)."""
    try:
        raw = bytes.fromhex(public_key_hex)
    except ValueError:
        return False
    if curve == ED25519:
        return len(raw) == 32
    return len(raw) == 33 and raw[0] in (2, 3)


def verify_ecdsa(curve: str, public_key_hex: str, der_signature: bytes, message: bytes) -> bool:
    """ECDSA over SHA-256(message), DER signature; high-S is accepted (clients make it)."""
    try:
        key = _load_ec_public_key(curve, public_key_hex.lower())
        key.verify(der_signature, message, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        return False
    return True


def verify_ecdsa_digest(
    curve: str, public_key_hex: str, der_signature: bytes, digest: bytes
) -> bool:
    """ECDSA over a 32-byte digest computed elsewhere (for example Keccak-256)."""
    try:
        key = _load_ec_public_key(curve, public_key_hex.lower())
        key.verify(der_signature, digest, ec.ECDSA(Prehashed(hashes.SHA256())))
    except (InvalidSignature, ValueError):
        return False
    return True


def verify_ed25519(public_key_hex: str, signature: bytes, message: bytes) -> bool:
    try:
        _load_ed25519_public_key(public_key_hex.lower()).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


@lru_cache(maxsize=256)
def _load_ec_private_key(curve: str, private_key_hex: str) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int(private_key_hex, 16), _EC_CURVES[curve])


def sign_ecdsa(
    curve: str, private_key_hex: str, message: bytes, *, prehashed: bool = False
) -> bytes:
    """A DER ECDSA signature over SHA-256(message), or over ``message`` as a digest."""
    key = _load_ec_private_key(curve, private_key_hex)
    algorithm = Prehashed(hashes.SHA256()) if prehashed else hashes.SHA256()
    return key.sign(message, ec.ECDSA(algorithm))


def sign_ed25519(private_key_hex: str, message: bytes) -> bytes:
    return ed25519.Ed25519PrivateKey.from_private_bytes(bytes.fromhex(private_key_hex)).sign(
        message
    )
