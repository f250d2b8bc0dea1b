"""Integers read from a request: the one parser of numbers given as JSON numbers or text.

Proto JSON carries a 64-bit integer as a JSON number or a decimal string, and the chains'
quantities (wei, nonces, chain ids) come as decimal or ``0x`` hex strings. Python reads far
more than that: ``int()`` takes digits of other scripts ("١٢٣", "１２３"), whitespace around
the digits, a leading "+", and underscores ("1_000"), and refuses more than 4,300 digits
with a ``ValueError``; ``str.isdigit`` accepts digits ``int()`` refuses ("²", "①"). The
real service, written in Go, reads ASCII digits only (``strconv.ParseInt``/``ParseUint``).

So every reader of a number in a request goes through ``integer`` (decimal) or
``quantity`` (decimal or ``0x`` hex). Both answer ``None`` for anything that is not such
a number, and each reader refuses ``None`` with its own INVALID_ARGUMENT message (the
schema's field violation, "invalid api key expiration", ...). This module imports nothing
of the emulator: the schema, the services and the primitives below them all use it.
"""

from __future__ import annotations

import re

# The longest number text read: a uint256 has 78 decimal digits, 64 hex digits. Longer
# text names no number any field takes (and ``int()`` refuses over 4,300 digits).
MAX_DIGITS = 100

_TOO_LONG = 10**MAX_DIGITS
_DECIMAL = re.compile(r"-?[0-9]+", re.ASCII)
_UNSIGNED_DECIMAL = re.compile(r"[0-9]+", re.ASCII)
_HEX = re.compile(r"0[xX][0-9a-fA-F]+", re.ASCII)


def integer(value: object, *, signed: bool = False, floats: bool = False) -> int | None:
    """The integer a JSON number or a decimal string of ASCII digits names, else ``None``.

    ``signed`` lets a leading "-" through (and a negative JSON number); ``floats`` lets a
    JSON number with a zero fraction (``3.0``, as JavaScript writes big numbers) through.
    No whitespace, "+", underscores, exponents or digits of other scripts.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not floats or not value.is_integer():  # NaN and the infinities are not
            return None
        number = int(value)
    elif isinstance(value, str) and len(value) <= MAX_DIGITS:
        pattern = _DECIMAL if signed else _UNSIGNED_DECIMAL
        if not pattern.fullmatch(value):
            return None
        number = int(value)
    else:
        return None
    if not -_TOO_LONG < number < _TOO_LONG:  # a JSON number as long as text past MAX_DIGITS
        return None
    return number if signed or number >= 0 else None


def quantity(value: object, *, signed: bool = False) -> int | None:
    """``integer``, or a ``0x`` hex string of ASCII hex digits: a chain's quantity."""
    if isinstance(value, str) and len(value) <= MAX_DIGITS and _HEX.fullmatch(value):
        return int(value, 16)
    return integer(value, signed=signed)


def is_decimal(value: object, *, signed: bool = False) -> bool:
    """Whether ``value`` is text ``integer`` reads (a format check for strings)."""
    return isinstance(value, str) and integer(value, signed=signed) is not None


def positive(value: object) -> int | None:
    """A whole number above zero (a lifetime in seconds, a count), else ``None``."""
    number = integer(value)
    return number if number is not None and number > 0 else None
