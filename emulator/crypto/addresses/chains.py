"""Account addresses of the non-Bitcoin chains: Ethereum, Tron, Cosmos-style, XRP, Solana, Sui,
Aptos and Stellar."""

from __future__ import annotations

import base64
import hashlib

from ..base58 import RIPPLE_ALPHABET, base58_encode, base58check_encode
from ..hashing import keccak256
from .encodings import bech32_encode, crc16_xmodem, to_5bit
from .hashes import hash160


def eip55(account: bytes) -> str:
    """``0x`` + EIP-55 mixed-case hex: a letter is upper case where its nibble of
    keccak256(lowercase hex ASCII) is 8 or more."""
    lower = account.hex()
    digest = keccak256(lower.encode()).hex()
    return "0x" + "".join(
        c.upper() if c > "9" and digest[i] > "7" else c for i, c in enumerate(lower)
    )


def ethereum(uncompressed: bytes) -> str:
    """EIP-55 of the last 20 bytes of keccak256(X‖Y)."""
    return eip55(keccak256(uncompressed[1:])[12:])


def tron(uncompressed: bytes) -> str:
    """Base58Check(0x41 ‖ the Ethereum account bytes): ``T…``."""
    return base58check_encode(b"\x41" + keccak256(uncompressed[1:])[12:])


def cosmos(compressed: bytes, hrp: str) -> str:
    """bech32 (not bech32m) of hash160(compressed key) under ``hrp`` (cosmos, sei)."""
    return bech32_encode(hrp, to_5bit(hash160(compressed)))


def xrp(compressed: bytes) -> str:
    """Base58Check in Ripple's alphabet of 0x00 ‖ hash160(compressed key): ``r…``."""
    return base58check_encode(b"\0" + hash160(compressed), RIPPLE_ALPHABET)


def solana(public_key: bytes) -> str:
    """Base58 of the 32-byte ed25519 key, no checksum."""
    return base58_encode(public_key)


def sui(public_key: bytes) -> str:
    """``0x`` + BLAKE2b-256(0x00 ed25519 flag ‖ key)."""
    return "0x" + hashlib.blake2b(b"\0" + public_key, digest_size=32).hexdigest()


def aptos(public_key: bytes) -> str:
    """``0x`` + SHA3-256(key ‖ 0x00 single-ed25519 scheme), the legacy authentication key,
    64 hex digits (AIP-40 long form: leading zeros kept)."""
    return "0x" + hashlib.sha3_256(public_key + b"\0").hexdigest()


def stellar(public_key: bytes) -> str:
    """StrKey ``G…``: base32(0x30 ‖ key ‖ CRC16-XModem little-endian)."""
    body = b"\x30" + public_key
    return base64.b32encode(body + crc16_xmodem(body).to_bytes(2, "little")).decode()
