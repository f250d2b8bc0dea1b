"""EIP-712 typed-data hashing (https://eips.ethereum.org/EIPS/eip-712).

The input is the JSON document wallets and viem's ``serializeTypedData`` produce:
``{"types": …, "primaryType": …, "domain": …, "message": …}``, where integers may arrive as
JSON numbers or as decimal or ``0x`` hex strings. When ``types`` has no ``EIP712Domain`` entry
the domain type is derived from the domain fields present, in the canonical order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..ground import jsontext
from ..ground.jsontext import MAX_DEPTH
from ..ground.numbers import quantity
from .hashing import keccak256

DOMAIN_TYPE = "EIP712Domain"

# The canonical domain fields, in the order a derived EIP712Domain type lists them.
_DOMAIN_FIELDS = (
    ("name", "string"),
    ("version", "string"),
    ("chainId", "uint256"),
    ("verifyingContract", "address"),
    ("salt", "bytes32"),
)
_DOMAIN_FIELD_NAMES = frozenset(name for name, _ in _DOMAIN_FIELDS)

_INTEGER = re.compile(r"(u?)int([0-9]*)")
_FIXED_BYTES = re.compile(r"bytes([0-9]+)")
_ARRAY = re.compile(r"(.+)\[([0-9]*)\]")
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_DECIMAL = re.compile(r"-?[0-9]+")
_HEX_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+")
_HEX_BYTES = re.compile(r"0[xX]((?:[0-9a-fA-F]{2})*)")


class TypedDataError(ValueError):
    """The typed-data document is malformed; the message names the problem."""


def parse_typed_data(payload: str) -> dict:
    """Parse typed-data JSON text and check its top-level shape."""
    if not isinstance(payload, str):
        raise TypedDataError("typed data must be a JSON string")
    try:
        document = jsontext.loads(payload, parse_constant=_reject_constant)
    except jsontext.TooDeep:
        raise TypedDataError(f"typed data is nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:
        raise TypedDataError(f"typed data is not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise TypedDataError("typed data must be a JSON object")
    _check_shape(document)
    return document


def typed_data_digest(typed_data: Mapping[str, Any]) -> bytes:
    """keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message)), 32 bytes.

    With ``primaryType`` ``EIP712Domain`` the message part is left out, as viem does.
    """
    if not isinstance(typed_data, Mapping):
        raise TypedDataError("typed data must be an object")
    _check_shape(typed_data)
    domain = typed_data.get("domain")
    domain = {} if domain is None else domain
    types = _checked_types(typed_data["types"], domain)
    primary = typed_data["primaryType"]
    if primary not in types:
        raise TypedDataError(f"primaryType {primary!r} is not defined in types")
    encoder = _Encoder(types)
    try:
        parts = [b"\x19\x01", encoder.hash_struct(DOMAIN_TYPE, domain, "domain")]
        if primary != DOMAIN_TYPE:
            if "message" not in typed_data or typed_data["message"] is None:
                raise TypedDataError("typed data has no message")
            parts.append(encoder.hash_struct(primary, typed_data["message"], "message"))
    except RecursionError:
        raise TypedDataError("typed data is nested too deeply") from None
    return keccak256(b"".join(parts))


def encode_type(primary_type: str, types: Mapping[str, list]) -> str:
    """The EIP-712 ``encodeType`` string: the primary type, then its references sorted."""
    return _Encoder(_checked_types(types, None)).encode_type(primary_type)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _check_shape(document: Mapping[str, Any]) -> None:
    if not isinstance(document.get("types"), Mapping):
        raise TypedDataError("typed data needs a 'types' object")
    if not isinstance(document.get("primaryType"), str):
        raise TypedDataError("typed data needs a 'primaryType' string")
    domain = document.get("domain")
    if domain is not None and not isinstance(domain, Mapping):
        raise TypedDataError("typed data 'domain' must be an object")
    message = document.get("message")
    if message is not None and not isinstance(message, Mapping):
        raise TypedDataError("typed data 'message' must be an object")


def _checked_types(types: Mapping[str, Any], domain: Mapping[str, Any] | None) -> dict:
    """Validate the type definitions; add a derived EIP712Domain when a domain needs one."""
    checked: dict[str, tuple[tuple[str, str], ...]] = {}
    for name, fields in types.items():
        if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
            raise TypedDataError(f"invalid type name {name!r}")
        if _is_atomic(name):
            raise TypedDataError(f"type name {name!r} clashes with an atomic type")
        if not isinstance(fields, list):
            raise TypedDataError(f"type {name!r} must be a list of fields")
        seen: set[str] = set()
        members = []
        for field in fields:
            if not isinstance(field, Mapping):
                raise TypedDataError(f"type {name!r} has a field that is not an object")
            field_name, field_type = field.get("name"), field.get("type")
            if not isinstance(field_name, str) or not field_name:
                raise TypedDataError(f"type {name!r} has a field without a name")
            if not isinstance(field_type, str):
                raise TypedDataError(f"field {name}.{field_name} has no type")
            if field_name in seen:
                raise TypedDataError(f"type {name!r} repeats the field {field_name!r}")
            seen.add(field_name)
            members.append((field_name, field_type))
        checked[name] = tuple(members)
    if DOMAIN_TYPE not in checked and domain is not None:
        unknown = sorted(str(key) for key in domain if key not in _DOMAIN_FIELD_NAMES)
        if unknown:
            raise TypedDataError(f"unknown EIP712Domain field {unknown[0]!r}")
        checked[DOMAIN_TYPE] = tuple(
            (name, kind) for name, kind in _DOMAIN_FIELDS if domain.get(name) is not None
        )
    for name, members in checked.items():
        for field_name, field_type in members:
            base = _element_base(field_type, f"{name}.{field_name}")
            if not _is_atomic(base) and base not in checked:
                raise TypedDataError(f"unknown type {base!r} in {name}.{field_name}")
    return checked


def _element_base(type_name: str, where: str) -> str:
    """Strip array suffixes, checking each fixed length."""
    while match := _ARRAY.fullmatch(type_name):
        type_name, length = match.groups()
        if length and int(length) == 0:
            raise TypedDataError(f"zero-length array type in {where}")
    return type_name


def _is_atomic(type_name: str) -> bool:
    if type_name in ("address", "bool", "string", "bytes"):
        return True
    if match := _INTEGER.fullmatch(type_name):
        bits = match.group(2)
        return not bits or (bits[0] != "0" and int(bits) % 8 == 0 and 8 <= int(bits) <= 256)
    if match := _FIXED_BYTES.fullmatch(type_name):
        size = match.group(1)
        return size[0] != "0" and 1 <= int(size) <= 32
    return False


class _Encoder:
    """hashStruct and encodeData over one validated set of types."""

    def __init__(self, types: dict[str, tuple[tuple[str, str], ...]]) -> None:
        self.types = types
        self._type_hashes: dict[str, bytes] = {}

    def encode_type(self, primary: str) -> str:
        if primary not in self.types:
            raise TypedDataError(f"unknown type {primary!r}")
        found: set[str] = set()
        pending = [primary]
        while pending:
            name = pending.pop()
            if name in found:
                continue
            found.add(name)
            for _, field_type in self.types[name]:
                base = _element_base(field_type, name)
                if base in self.types:
                    pending.append(base)
        ordered = [primary, *sorted(found - {primary})]
        return "".join(
            f"{name}({','.join(f'{kind} {field}' for field, kind in self.types[name])})"
            for name in ordered
        )

    def type_hash(self, name: str) -> bytes:
        cached = self._type_hashes.get(name)
        if cached is None:
            cached = keccak256(self.encode_type(name).encode())
            self._type_hashes[name] = cached
        return cached

    def hash_struct(self, name: str, data: Any, where: str) -> bytes:
        if not isinstance(data, Mapping):
            raise TypedDataError(f"{where} must be an object of type {name}")
        parts = [self.type_hash(name)]
        for field, kind in self.types[name]:
            if field not in data or data[field] is None:
                raise TypedDataError(f"{where} is missing the field {field!r} ({name})")
            parts.append(self.encode_value(kind, data[field], f"{where}.{field}"))
        return keccak256(b"".join(parts))

    def encode_value(self, kind: str, value: Any, where: str) -> bytes:
        if match := _ARRAY.fullmatch(kind):
            element, length = match.groups()
            if not isinstance(value, list):
                raise TypedDataError(f"{where} must be an array ({kind})")
            if length and len(value) != int(length):
                raise TypedDataError(f"{where} must have {length} elements, not {len(value)}")
            return keccak256(
                b"".join(
                    self.encode_value(element, item, f"{where}[{index}]")
                    for index, item in enumerate(value)
                )
            )
        if kind in self.types:
            return self.hash_struct(kind, value, where)
        return _encode_atomic(kind, value, where)


def _encode_atomic(kind: str, value: Any, where: str) -> bytes:
    if kind == "string":
        if not isinstance(value, str):
            raise TypedDataError(f"{where} must be a string")
        try:
            return keccak256(value.encode("utf-8"))
        except UnicodeEncodeError:
            raise TypedDataError(f"{where} is not valid UTF-8 text") from None
    if kind == "bytes":
        return keccak256(_hex_bytes(value, where))
    if kind == "bool":
        if not isinstance(value, bool):
            raise TypedDataError(f"{where} must be true or false")
        return int(value).to_bytes(32, "big")
    if kind == "address":
        raw = _hex_bytes(value, where)
        if len(raw) != 20:
            raise TypedDataError(f"{where} must be a 20-byte address")
        return raw.rjust(32, b"\0")
    if match := _FIXED_BYTES.fullmatch(kind):
        raw = _hex_bytes(value, where)
        if len(raw) != int(match.group(1)):
            raise TypedDataError(f"{where} must be exactly {match.group(1)} bytes ({kind})")
        return raw.ljust(32, b"\0")
    if match := _INTEGER.fullmatch(kind):
        signed = match.group(1) != "u"
        bits = int(match.group(2) or 256)
        number = _integer(value, where)
        low, high = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
        if not low <= number < high:
            raise TypedDataError(f"{where} is out of range for {kind}")
        return (number % (1 << 256)).to_bytes(32, "big")
    raise TypedDataError(f"unknown type {kind!r} at {where}")  # unreachable after validation


def _hex_bytes(value: Any, where: str) -> bytes:
    if not isinstance(value, str) or not (match := _HEX_BYTES.fullmatch(value)):
        raise TypedDataError(f"{where} must be 0x-prefixed hex with whole bytes")
    return bytes.fromhex(match.group(1))


def _integer(value: Any, where: str) -> int:
    if isinstance(value, bool):
        raise TypedDataError(f"{where} must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    if isinstance(value, str) and (_DECIMAL.fullmatch(value) or _HEX_NUMBER.fullmatch(value)):
        number = quantity(value, signed=True)
        if number is None:  # longer than any 256-bit number needs; int() caps digits
            raise TypedDataError(f"{where} is out of range")
        return number
    raise TypedDataError(f"{where} must be an integer, a decimal string or a 0x hex string")
