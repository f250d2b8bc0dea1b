"""Base58 and Base58Check, with Bitcoin's alphabet or another (Ripple's)."""

from __future__ import annotations

import hashlib

BITCOIN_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
RIPPLE_ALPHABET = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz"


def base58_encode(data: bytes, alphabet: str = BITCOIN_ALPHABET) -> str:
    """Base58: the big-endian number in base 58, plus one zero digit per leading zero byte."""
    number = int.from_bytes(data, "big")
    digits = []
    while number:
        number, digit = divmod(number, 58)
        digits.append(alphabet[digit])
    zeros = len(data) - len(data.lstrip(b"\0"))
    return alphabet[0] * zeros + "".join(reversed(digits))


def base58check_encode(payload: bytes, alphabet: str = BITCOIN_ALPHABET) -> str:
    """Base58 of the payload followed by the first 4 bytes of its double SHA-256."""
    checksum = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    return base58_encode(payload + checksum, alphabet)


def base58_decode(text: str, alphabet: str = BITCOIN_ALPHABET) -> bytes:
    """The bytes ``base58_encode`` made; raise ``ValueError`` for a foreign character."""
    number = 0
    for char in text:
        digit = alphabet.find(char)
        if digit < 0:
            raise ValueError(f"not a base58 character: {char!r}")
        number = number * 58 + digit
    zeros = len(text) - len(text.lstrip(alphabet[0]))
    body = number.to_bytes((number.bit_length() + 7) // 8, "big")
    return b"\0" * zeros + body


def base58check_decode(text: str, alphabet: str = BITCOIN_ALPHABET) -> bytes:
    """The payload of a Base58Check string; raise ``ValueError`` if its checksum is wrong."""
    raw = base58_decode(text, alphabet)
    payload, checksum = raw[:-4], raw[-4:]
    if len(raw) < 4 or hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4] != checksum:
        raise ValueError("base58check checksum mismatch")
    return payload
