"""TON wallet addresses (v3r2, v4r2, v5r1) from an ed25519 key, without parsing contract code.

The address is the representation hash of the wallet's StateInit cell (code and data refs).
The code cells' hashes and depths are constants (taken from the contracts' published BoCs); only
the small data cell and the StateInit cell are hashed per call. The user-friendly flags
(bounceable, test-only) are a choice, not confirmed against the live service.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from .encodings import crc16_xmodem

WORKCHAIN = 0
DEFAULT_SUBWALLET_ID = 698983191 + WORKCHAIN  # v3 and v4 wallets
# v5r1 wallet_id: mainnet network id -239 XOR the 32-bit context (client flag 1, workchain 0,
# wallet version 0, subwallet 0).
V5R1_WALLET_ID = (-239 & 0xFFFFFFFF) ^ (1 << 31)

_BOUNCEABLE_TAG, _NON_BOUNCEABLE_TAG, _TEST_ONLY_FLAG = 0x11, 0x51, 0x80


def _cell_hash(data: bytes, bit_length: int, refs: tuple[tuple[int, bytes], ...] = ()) -> bytes:
    """Representation hash of an ordinary cell: ``data`` holds ``bit_length`` bits, left-aligned;
    ``refs`` are (depth, hash) of its children."""
    if bit_length % 8:
        data = data[:-1] + bytes([data[-1] | 1 << (7 - bit_length % 8)])  # completion tag
    descriptor = bytes([len(refs), (bit_length + 7) // 8 + bit_length // 8])
    depths = b"".join(depth.to_bytes(2, "big") for depth, _ in refs)
    hashes = b"".join(child for _, child in refs)
    return hashlib.sha256(descriptor + data + depths + hashes).digest()


def _v3r2_data(public_key: bytes) -> tuple[bytes, int]:
    """seqno:uint32 ‖ subwallet_id:uint32 ‖ public_key:bits256."""
    return bytes(4) + DEFAULT_SUBWALLET_ID.to_bytes(4, "big") + public_key, 320


def _v4r2_data(public_key: bytes) -> tuple[bytes, int]:
    """v3r2's fields, then one 0 bit for the empty plugins dictionary."""
    return bytes(4) + DEFAULT_SUBWALLET_ID.to_bytes(4, "big") + public_key + b"\0", 321


def _v5r1_data(public_key: bytes) -> tuple[bytes, int]:
    """signature_allowed:1 ‖ seqno:uint32 ‖ wallet_id:int32 ‖ public_key ‖ empty extensions:1."""
    bits = (1 << 321) | (V5R1_WALLET_ID << 257) | (int.from_bytes(public_key, "big") << 1)
    return (bits << 6).to_bytes(41, "big"), 322


@dataclass(frozen=True)
class WalletContract:
    """One wallet version: its code cell's hash and depth, and its initial data layout."""

    code_hash: bytes
    code_depth: int
    data: Callable[[bytes], tuple[bytes, int]]


V3R2 = WalletContract(
    bytes.fromhex("84dafa449f98a6987789ba232358072bc0f76dc4524002a5d0918b9a75d2d599"), 0, _v3r2_data
)
V4R2 = WalletContract(
    bytes.fromhex("feb5ff6820e2ff0d9483e7e0d62c817d846789fb4ae580c878866d959dabd5c0"), 7, _v4r2_data
)
V5R1 = WalletContract(
    bytes.fromhex("20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f"), 6, _v5r1_data
)

# StateInit bits: no split_depth, no special, code present, data present, empty library.
_STATE_INIT_BITS = bytes([0b00110000])


def account_id(contract: WalletContract, public_key: bytes) -> bytes:
    """The 32-byte account id: the StateInit cell's representation hash."""
    data_hash = _cell_hash(*contract.data(public_key))
    refs = ((contract.code_depth, contract.code_hash), (0, data_hash))
    return _cell_hash(_STATE_INIT_BITS, 5, refs)


def user_friendly(account: bytes, *, bounceable: bool, test_only: bool) -> str:
    """base64url(tag ‖ workchain ‖ account id ‖ CRC16-XModem, big-endian): 48 characters."""
    tag = _BOUNCEABLE_TAG if bounceable else _NON_BOUNCEABLE_TAG
    if test_only:
        tag |= _TEST_ONLY_FLAG
    body = bytes([tag, WORKCHAIN & 0xFF]) + account
    return base64.urlsafe_b64encode(body + crc16_xmodem(body).to_bytes(2, "big")).decode()


def wallet_address(
    contract: WalletContract, public_key: bytes, *, bounceable: bool, test_only: bool
) -> str:
    """The user-friendly address of ``contract`` deployed for ``public_key`` on workchain 0."""
    return user_friendly(
        account_id(contract, public_key), bounceable=bounceable, test_only=test_only
    )
