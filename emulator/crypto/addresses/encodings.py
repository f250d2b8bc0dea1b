"""Text encodings for addresses: bech32/bech32m and segwit, CRC16-XModem (and Base58).

The segwit decoder follows BIP173 and BIP350
(bech32 for witness version 0, bech32m for 1-16) and checks the human-readable part against the
one the caller expects.
"""

from __future__ import annotations

import binascii
from functools import lru_cache


def crc16_xmodem(data: bytes) -> int:
    """CRC-16/XMODEM (polynomial 0x1021, initial value 0), used by Stellar and TON."""
    return binascii.crc_hqx(data, 0)


# --- bech32 / bech32m (BIP173, BIP350) ---

BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
BECH32 = 1
BECH32M = 0x2BC830A3
_CHARSET_INDEX = {char: value for value, char in enumerate(BECH32_CHARSET)}
_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


def _top_term(top: int) -> int:
    """The XOR of the generator terms selected by the 5 bits shifted out of the checksum."""
    term = 0
    for bit, generator in enumerate(_GENERATOR):
        if top >> bit & 1:
            term ^= generator
    return term


_TOP_TERMS = tuple(_top_term(top) for top in range(32))


def _polymod(values: list[int] | bytes, checksum: int = 1) -> int:
    terms = _TOP_TERMS
    for value in values:
        checksum = ((checksum & 0x1FFFFFF) << 5) ^ value ^ terms[checksum >> 25]
    return checksum


@lru_cache(maxsize=64)
def _hrp_state(hrp: str) -> int:
    """The checksum state after the expanded human-readable part."""
    return _polymod([ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp])


def bech32_encode(hrp: str, data: list[int], constant: int = BECH32) -> str:
    """Encode 5-bit values under ``hrp`` with a bech32 (or bech32m) checksum."""
    state = _polymod([*data, 0, 0, 0, 0, 0, 0], _hrp_state(hrp)) ^ constant
    checksum = [(state >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(BECH32_CHARSET[v] for v in data + checksum)


def bech32_decode(text: str) -> tuple[str, list[int], int]:
    """Split and check a bech32 or bech32m string: (hrp, 5-bit data, checksum constant)."""
    if text.lower() != text and text.upper() != text:
        raise ValueError("bech32: mixed case")
    if len(text) > 90:
        raise ValueError("bech32: longer than 90 characters")
    if any(not 33 <= ord(c) <= 126 for c in text):
        raise ValueError("bech32: character out of range")
    text = text.lower()
    separator = text.rfind("1")
    if separator < 1 or separator + 7 > len(text):
        raise ValueError("bech32: bad separator position")
    hrp = text[:separator]
    try:
        values = [_CHARSET_INDEX[c] for c in text[separator + 1 :]]
    except KeyError:
        raise ValueError("bech32: invalid data character") from None
    constant = _polymod(values, _hrp_state(hrp))
    if constant not in (BECH32, BECH32M):
        raise ValueError("bech32: invalid checksum")
    return hrp, values[:-6], constant


def to_5bit(data: bytes) -> list[int]:
    """Regroup bytes into 5-bit values, zero-padding the last group."""
    bits = len(data) * 8
    groups = -(-bits // 5)
    number = int.from_bytes(data, "big") << (groups * 5 - bits)
    return [(number >> 5 * (groups - 1 - i)) & 31 for i in range(groups)]


def from_5bit(values: list[int]) -> bytes:
    """Regroup 5-bit values into bytes; padding must be under 5 bits and all zero."""
    bits = len(values) * 5
    padding = bits % 8
    if padding > 4:
        raise ValueError("bech32: more than 4 bits of padding")
    number = 0
    for value in values:
        number = number << 5 | value
    if number & ((1 << padding) - 1):
        raise ValueError("bech32: non-zero padding")
    return (number >> padding).to_bytes(bits // 8, "big")


def segwit_encode(hrp: str, version: int, program: bytes) -> str:
    """A segwit address: bech32 for version 0, bech32m for versions 1-16."""
    return bech32_encode(hrp, [version, *to_5bit(program)], BECH32 if version == 0 else BECH32M)


def segwit_decode(hrp: str, address: str) -> tuple[int, bytes]:
    """(witness version, program) of a segwit address for ``hrp``; ValueError if invalid."""
    found_hrp, data, constant = bech32_decode(address)
    if found_hrp != hrp:
        raise ValueError(f"segwit: human-readable part {found_hrp!r}, expected {hrp!r}")
    if not data:
        raise ValueError("segwit: empty data")
    version = data[0]
    if version > 16:
        raise ValueError("segwit: witness version above 16")
    if constant != (BECH32 if version == 0 else BECH32M):
        raise ValueError("segwit: wrong checksum variant for the witness version")
    program = from_5bit(data[1:])
    if not 2 <= len(program) <= 40:
        raise ValueError("segwit: program length out of range")
    if version == 0 and len(program) not in (20, 32):
        raise ValueError("segwit: version 0 program must be 20 or 32 bytes")
    return version, program


def segwit_script_pubkey(version: int, program: bytes) -> bytes:
    """The output script: OP_version, then a push of the program."""
    return bytes([version + 0x50 if version else 0, len(program)]) + program
