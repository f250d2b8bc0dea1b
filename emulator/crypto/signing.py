"""Raw-payload signing as ``sign_raw_payload`` does it.

A payload is decoded by its encoding, hashed by its hash function (ECDSA curves) and signed:
secp256k1 and P-256 sign a 32-byte digest deterministically (RFC 6979) with a low S and a
recovery id; Ed25519 signs the message bytes themselves. Results are ``{r, s, v}`` hex strings.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

import coincurve
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, decode_dss_signature
from nacl.signing import SigningKey

from ..ground import jsontext
from ..ground.numbers import quantity
from . import rlp
from .curves import ED25519, P256, P256_ORDER, SECP256K1, SECP256K1_ORDER
from .eip712 import TypedDataError, parse_typed_data, typed_data_digest
from .hashing import keccak256

CURVES = (SECP256K1, ED25519, P256)

HEXADECIMAL = "PAYLOAD_ENCODING_HEXADECIMAL"
TEXT_UTF8 = "PAYLOAD_ENCODING_TEXT_UTF8"
EIP712 = "PAYLOAD_ENCODING_EIP712"
EIP7702_AUTHORIZATION = "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION"
PAYLOAD_ENCODINGS = (HEXADECIMAL, TEXT_UTF8, EIP712, EIP7702_AUTHORIZATION)

NO_OP = "HASH_FUNCTION_NO_OP"
SHA256 = "HASH_FUNCTION_SHA256"
KECCAK256 = "HASH_FUNCTION_KECCAK256"
NOT_APPLICABLE = "HASH_FUNCTION_NOT_APPLICABLE"
HASH_FUNCTIONS = (NO_OP, SHA256, KECCAK256, NOT_APPLICABLE)

INVALID_ENCODING = "invalid payload encoding"
INVALID_HASH_FUNCTION = "invalid hash function"
EXPECTED_DIGEST = "expected a 32-bytes-long digest"

# Encodings whose decoded payload is already the digest to sign (ECDSA only).
_STRUCTURED = (EIP712, EIP7702_AUTHORIZATION)


_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}")


class SigningError(ValueError):
    """A request the signer refuses; ``str(exc)`` is the API error message."""


@dataclass(frozen=True, slots=True)
class Signature:
    """``r``, ``s`` as 64 lowercase hex characters; ``v`` the recovery id ("00" for Ed25519)."""

    r: str
    s: str
    v: str

    def to_bytes(self) -> bytes:
        """r ‖ s, 64 bytes (the Ed25519 signature; for ECDSA add ``recovery_id``)."""
        return bytes.fromhex(self.r + self.s)

    @property
    def recovery_id(self) -> int:
        return int(self.v, 16)


def payload_bytes(payload: str, encoding: str) -> bytes:
    """The decoded payload; for EIP-712 (and EIP-7702) the 32-byte digest it stands for."""
    if encoding not in PAYLOAD_ENCODINGS:
        raise SigningError(INVALID_ENCODING)
    if not isinstance(payload, str):
        raise SigningError(f"{INVALID_ENCODING}: payload must be a string")
    if encoding == HEXADECIMAL:
        digits = payload[2:] if payload[:2] in ("0x", "0X") else payload
        try:
            data = bytes.fromhex(digits)
        except ValueError:
            data = None
        # ``fromhex`` also skips whitespace between pairs: then the bytes are too few.
        if data is None or 2 * len(data) != len(digits):
            raise SigningError(f"{INVALID_ENCODING}: payload is not valid hexadecimal")
        return data
    if encoding == TEXT_UTF8:
        try:
            return payload.encode("utf-8")
        except UnicodeEncodeError:
            raise SigningError(f"{INVALID_ENCODING}: payload is not valid UTF-8") from None
    if encoding == EIP712:
        try:
            return typed_data_digest(parse_typed_data(payload))
        except TypedDataError as exc:
            raise SigningError(f"{INVALID_ENCODING}: {exc}") from None
    return _authorization_digest(payload)


def message_to_sign(curve: str, payload: str, encoding: str, hash_function: str) -> bytes:
    """What the key signs: the 32-byte digest for ECDSA, the message itself for Ed25519."""
    _check_combination(curve, encoding, hash_function)
    data = payload_bytes(payload, encoding)
    if curve == ED25519 or encoding in _STRUCTURED:
        return data
    if hash_function == SHA256:
        return hashlib.sha256(data).digest()
    if hash_function == KECCAK256:
        return keccak256(data)
    if len(data) != 32:
        raise SigningError(EXPECTED_DIGEST)
    return data


def sign_payload(
    curve: str,
    private_key: bytes,
    payload: str,
    encoding: str,
    hash_function: str,
    *,
    taproot: bool = False,
    schnorr: bool = False,
) -> Signature:
    """Decode, hash and sign one payload the way ``sign_raw_payload`` does.

    ``taproot`` (the key is named by a P2TR address) signs BIP340 Schnorr with the
    BIP86-tweaked key instead of ECDSA; ``schnorr`` (a Spark address) signs plain BIP340
    Schnorr with the key itself (docs.turnkey.com/networks/spark, "Schnorr signing").
    """
    message = message_to_sign(curve, payload, encoding, hash_function)
    if curve == SECP256K1:
        if taproot:
            return sign_digest_taproot(private_key, message)
        if schnorr:
            return sign_digest_schnorr(private_key, message)
        return sign_digest_secp256k1(private_key, message)
    if curve == P256:
        return sign_digest_p256(private_key, message)
    return sign_ed25519(private_key, message)


def sign_digest_secp256k1(private_key: bytes, digest: bytes) -> Signature:
    """Deterministic low-S ECDSA over secp256k1 with the recovery id as ``v``."""
    _check_digest(digest)
    if type(private_key) is bytes:  # checked inside, once a key (errors are not cached)
        key = _checked_secp256k1_key(private_key)
    else:
        key = _secp256k1_key(_scalar(private_key, SECP256K1_ORDER))
    raw = key.sign_recoverable(digest, hasher=None)
    s = raw[32:64]
    if s > _HALF_ORDER:  # libsecp256k1 already normalises; kept as a guard
        high = int.from_bytes(s, "big")
        return _ecdsa_signature(
            int.from_bytes(raw[:32], "big"), SECP256K1_ORDER - high, raw[64] ^ 1
        )
    return Signature(raw[:32].hex(), s.hex(), _RECOVERY_IDS[raw[64]])


def taproot_tweaked_key(private_key: bytes) -> bytes:
    """The BIP86 key-path private key of a P2TR output (BIP341's ``taproot_tweak_seckey``).

    The key is negated if its point has an odd y, then tweaked by
    ``tagged_hash("TapTweak", x(P))`` (no script tree).
    """
    d = int.from_bytes(_scalar(private_key, SECP256K1_ORDER), "big")
    point = coincurve.PublicKey.from_secret(d.to_bytes(32, "big")).format()
    if point[0] == 3:
        d = SECP256K1_ORDER - d
    tag = hashlib.sha256(b"TapTweak").digest()
    tweak = int.from_bytes(hashlib.sha256(tag + tag + point[1:]).digest(), "big")
    return ((d + tweak) % SECP256K1_ORDER).to_bytes(32, "big")


def sign_digest_taproot(private_key: bytes, digest: bytes) -> Signature:
    """BIP340 Schnorr over a 32-byte digest with the BIP86-tweaked key, as Turnkey signs for
    a P2TR address: ``r`` = R.x, ``s`` = s, ``v`` = "00". Auxiliary randomness is zero, so
    the signature is deterministic (BIP340 allows it)."""
    _check_digest(digest)
    tweaked = _secp256k1_key(taproot_tweaked_key(private_key))
    raw = tweaked.sign_schnorr(digest, aux_randomness=bytes(32))
    return Signature(raw[:32].hex(), raw[32:].hex(), "00")


def sign_digest_schnorr(private_key: bytes, digest: bytes) -> Signature:
    """Plain BIP340 Schnorr over a 32-byte digest (no tweak), zero auxiliary randomness."""
    _check_digest(digest)
    raw = _secp256k1_key(_scalar(private_key, SECP256K1_ORDER)).sign_schnorr(
        digest, aux_randomness=bytes(32)
    )
    return Signature(raw[:32].hex(), raw[32:].hex(), "00")


def sign_digest_p256(private_key: bytes, digest: bytes) -> Signature:
    """Deterministic (RFC 6979) low-S ECDSA over P-256 with the recovery id as ``v``."""
    _check_digest(digest)
    scalar = _scalar(private_key, P256_ORDER)
    der = _p256_key(scalar).sign(
        digest, ec.ECDSA(Prehashed(hashes.SHA256()), deterministic_signing=True)
    )
    r, s = decode_dss_signature(der)
    if s > P256_ORDER // 2:
        s = P256_ORDER - s
    # Knowing d, the nonce is k = (e + r·d) / s; the recovery id is the y parity of R = k·G
    # (plus 2 if R.x ≥ n, which is vanishingly rare).
    e = int.from_bytes(digest, "big") % P256_ORDER
    d = int.from_bytes(scalar, "big")
    k = (e + r * d) * pow(s, -1, P256_ORDER) % P256_ORDER
    point = ec.derive_private_key(k, ec.SECP256R1()).public_key().public_numbers()
    if point.x % P256_ORDER != r:
        raise RuntimeError("P-256 signature did not verify")  # pragma: no cover
    return _ecdsa_signature(r, s, (point.y & 1) | (2 if point.x >= P256_ORDER else 0))


def sign_ed25519(seed: bytes, message: bytes) -> Signature:
    """Ed25519 (RFC 8032) over the message bytes: r = R, s = S, v = "00"."""
    if not isinstance(seed, bytes | bytearray) or len(seed) != 32:
        raise SigningError("invalid private key")
    raw = _ed25519_key(bytes(seed)).sign(bytes(message)).signature
    return Signature(raw[:32].hex(), raw[32:].hex(), "00")


def _check_combination(curve: str, encoding: str, hash_function: str) -> None:
    if encoding not in PAYLOAD_ENCODINGS:
        raise SigningError(INVALID_ENCODING)
    if hash_function not in HASH_FUNCTIONS:
        raise SigningError(INVALID_HASH_FUNCTION)
    if curve not in CURVES:
        raise SigningError(f"unsupported curve {curve!r}")
    if curve == ED25519:
        if encoding in _STRUCTURED:
            raise SigningError(INVALID_ENCODING)
        if hash_function != NOT_APPLICABLE:
            raise SigningError(INVALID_HASH_FUNCTION)
    elif hash_function == NOT_APPLICABLE or (
        encoding in _STRUCTURED and hash_function not in (NO_OP, KECCAK256)
    ):
        raise SigningError(INVALID_HASH_FUNCTION)


def _check_digest(digest: bytes) -> None:
    if not isinstance(digest, bytes | bytearray) or len(digest) != 32:
        raise SigningError(EXPECTED_DIGEST)


def _scalar(private_key: bytes, order: int) -> bytes:
    valid = isinstance(private_key, bytes | bytearray) and len(private_key) == 32
    if valid and 0 < int.from_bytes(private_key, "big") < order:
        return bytes(private_key)
    raise SigningError("invalid private key")


_RECOVERY_IDS = ("00", "01", "02", "03")
# n // 2 as 32 big-endian bytes: bytes of one length compare as the numbers they spell.
_HALF_ORDER = (SECP256K1_ORDER // 2).to_bytes(32, "big")


def _ecdsa_signature(r: int, s: int, recid: int) -> Signature:
    return Signature(f"{r:064x}", f"{s:064x}", f"{recid:02x}")


@lru_cache(maxsize=256)
def _secp256k1_key(scalar: bytes) -> coincurve.PrivateKey:
    return coincurve.PrivateKey(scalar)


@lru_cache(maxsize=256)
def _checked_secp256k1_key(private_key: bytes) -> coincurve.PrivateKey:
    """The key of a valid scalar (``SigningError`` otherwise), kept once checked."""
    return _secp256k1_key(_scalar(private_key, SECP256K1_ORDER))


@lru_cache(maxsize=256)
def _ed25519_key(seed: bytes) -> SigningKey:
    return SigningKey(seed)


@lru_cache(maxsize=256)
def _p256_key(scalar: bytes) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int.from_bytes(scalar, "big"), ec.SECP256R1())


def _authorization_digest(payload: str) -> bytes:
    """EIP-7702: keccak256(0x05 ‖ rlp([chain_id, address, nonce])) of a JSON authorization.

    ``address`` (or ``contractAddress``) is 0x hex; ``chainId`` and ``nonce`` are JSON integers
    or decimal / 0x hex strings, as viem and ethers send them.
    """
    try:
        document = jsontext.loads(payload, parse_constant=_reject_constant)
    except ValueError:
        raise SigningError(f"{INVALID_ENCODING}: authorization is not valid JSON") from None
    if not isinstance(document, dict):
        raise SigningError(f"{INVALID_ENCODING}: authorization must be a JSON object")
    addresses = {document[key] for key in ("address", "contractAddress") if key in document}
    if len(addresses) != 1:
        raise SigningError(f"{INVALID_ENCODING}: authorization needs one address")
    address = addresses.pop()
    if not isinstance(address, str) or not _ADDRESS.fullmatch(address):
        raise SigningError(f"{INVALID_ENCODING}: authorization address must be 20 bytes of hex")
    chain_id = _authorization_int(document, "chainId", 256)
    nonce = _authorization_int(document, "nonce", 64)
    item = [chain_id, bytes.fromhex(address[2:]), nonce]
    return keccak256(b"\x05" + rlp.encode(item))


def _authorization_int(document: dict, key: str, bits: int) -> int:
    value = document.get(key)
    number = quantity(value)
    if number is None or not 0 <= number < 1 << bits:
        raise SigningError(f"{INVALID_ENCODING}: authorization {key} must be a uint{bits}")
    return number


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed")
