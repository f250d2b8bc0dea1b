"""Parsing and signing of chain transactions for sign_transaction (ACTIVITY_TYPE_SIGN_TRANSACTION_V2).

The chain modules are ``ethereum`` and ``solana``; this package module holds what they share.
"""

from __future__ import annotations

import re

ETHEREUM = "TRANSACTION_TYPE_ETHEREUM"
SOLANA = "TRANSACTION_TYPE_SOLANA"

PARSE_ERROR = "failed to parse transaction"
SIGN_ERROR = "failed to sign transaction"

_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")


class TransactionError(ValueError):
    """A transaction that cannot be parsed or signed; ``str(exc)`` is the API error message."""


def parse_error(reason: str) -> TransactionError:
    """``failed to parse transaction: <reason>``."""
    return TransactionError(f"{PARSE_ERROR}: {reason}")


def sign_error(reason: str) -> TransactionError:
    """``failed to sign transaction: <reason>``."""
    return TransactionError(f"{SIGN_ERROR}: {reason}")


def unsigned_bytes(unsigned_hex: str) -> bytes:
    """Decode ``unsignedTransaction``: hex of any case, optional ``0x``, at least one byte."""
    if not isinstance(unsigned_hex, str):
        raise parse_error("unsigned transaction must be a hex string")
    text = unsigned_hex[2:] if unsigned_hex[:2] in ("0x", "0X") else unsigned_hex
    if not text:
        raise parse_error("unsigned transaction is empty")
    if _HEX.fullmatch(text) is None:
        raise parse_error("unsigned transaction is not valid hex")
    return bytes.fromhex(text)
