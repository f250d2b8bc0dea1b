"""Borsh-encoded values read by the types of an Anchor IDL, as the policy language sees them.

The types are the docs' list (concepts/policies/smart-contract-interfaces, "Supported Arg
Types"): booleans, integers of 8 to 128 bits (signed and unsigned, little-endian), ``f32`` and
``f64``, ``string`` (u32 length and UTF-8), ``bytes`` (u32 length), public keys (32 bytes),
``vec`` (u32 count), fixed ``array``, ``option`` (a 1-byte tag) and ``coption`` (a 4-byte
tag), and defined types: structs, enums (a 1-byte variant index) and aliases. Both IDL
spellings are read: legacy (``publicKey``, ``{"defined": "Name"}``) and Anchor 0.30
(``pubkey``, ``{"defined": {"name": "Name"}}``).

Values take the policy language's types: integers as ints, public keys as base58 text,
``bytes`` as lowercase hex (no ``0x``, as ``instruction_data_hex``), floats as their decimal
text (the language has no floats), structs as maps by field name (a tuple struct's fields by
position: ``'0'``, ``'1'``...), a unit enum variant as its name and a variant with fields as
``{name: {fields}}``. An absent ``option`` leaves its field out of the map that holds it.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from typing import Any

from ..crypto.base58 import base58_encode

MAX_DEPTH = 32  # nested defined types, against a type defined through itself
MAX_EMPTY_ITEMS = 65_536  # a vector's count past its bytes, for items that may take none


class BorshError(ValueError):
    """Data that does not decode as the type says (or a type that does not read)."""


ABSENT = object()  # an option that holds nothing: its field is left out

_INTEGERS = {
    f"{sign}{bits}": (bits // 8, sign == "i")
    for sign in ("u", "i")
    for bits in (8, 16, 32, 64, 128, 256)
}
_FLOATS = {"f32": ("<f", 4), "f64": ("<d", 8)}
_SCALARS = frozenset({*_INTEGERS, *_FLOATS, "bool", "string", "bytes", "publicKey", "pubkey"})

Resolve = Callable[[str], Mapping[str, Any]]  # a defined type's name -> its definition


class Reader:
    __slots__ = ("at", "data")

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, size: int) -> bytes:
        end = self.at + size
        if size < 0 or end > len(self.data):
            raise BorshError(f"{size} bytes needed at offset {self.at}, {len(self.data)} in all")
        chunk = self.data[self.at : end]
        self.at = end
        return chunk

    def uint(self, size: int) -> int:
        return int.from_bytes(self.take(size), "little")


def defined_name(kind: Mapping[str, Any]) -> str:
    """The name in ``{"defined": "Name"}`` or ``{"defined": {"name": "Name"}}``."""
    defined = kind["defined"]
    if isinstance(defined, Mapping):
        if defined.get("generics"):
            raise BorshError(f"generic type {defined.get('name')!r} is not supported")
        defined = defined.get("name")
    if not isinstance(defined, str) or not defined:
        raise BorshError(f"a defined type without a name: {kind!r}")
    return defined


def check_type(kind: Any, resolve: Resolve, depth: int = 0) -> None:
    """Raise ``BorshError`` unless ``kind`` (and every type it names) can be read."""
    if depth > MAX_DEPTH:
        raise BorshError("types nested too deep (a type defined through itself?)")
    if isinstance(kind, str):
        if kind not in _SCALARS:
            raise BorshError(f"unsupported type {kind!r}")
        return
    if not isinstance(kind, Mapping) or len(kind) != 1:
        raise BorshError(f"unsupported type {kind!r}")
    ((tag, inner),) = kind.items()
    if tag in ("vec", "option", "coption"):
        check_type(inner, resolve, depth + 1)
    elif tag == "array":
        if not (isinstance(inner, list) and len(inner) == 2 and type(inner[1]) is int):
            raise BorshError(f"an array needs [type, length]: {kind!r}")
        check_type(inner[0], resolve, depth + 1)
    elif tag == "defined":
        definition = resolve(defined_name(kind))
        for field_type in _field_types(definition):
            check_type(field_type, resolve, depth + 1)
    else:
        raise BorshError(f"unsupported type {kind!r}")


def _field_types(definition: Mapping[str, Any]) -> list[Any]:
    body = definition.get("type")
    if not isinstance(body, Mapping):
        raise BorshError(f"type {definition.get('name')!r} has no type")
    kind = body.get("kind")
    if kind == "struct":
        return [_field_type(f) for f in _list(body.get("fields", []), definition)]
    if kind == "enum":
        variants = _list(body.get("variants"), definition)
        return [
            _field_type(f)
            for v in variants
            for f in _list(v.get("fields", []) if isinstance(v, Mapping) else None, definition)
        ]
    if kind == "type" and "alias" in body:
        return [body["alias"]]
    if kind == "alias" and "value" in body:
        return [body["value"]]
    raise BorshError(f"type {definition.get('name')!r}: unsupported kind {kind!r}")


def _list(value: Any, definition: Mapping[str, Any]) -> list[Any]:
    if not isinstance(value, list):
        raise BorshError(f"type {definition.get('name')!r} is malformed")
    return value


def _field_type(field: Any) -> Any:
    """A named field's type, or a tuple field (a bare type)."""
    if isinstance(field, Mapping) and "name" in field and "type" in field:
        return field["type"]
    return field


def read(kind: Any, reader: Reader, resolve: Resolve, name_of: Callable[[str], str]) -> Any:
    """One value of type ``kind``; ``name_of`` spells field names (legacy IDLs' camelCase
    names are read as snake_case, as Anchor's conversion of them does)."""
    return _read(kind, reader, resolve, name_of, 0)


def _read(kind: Any, reader: Reader, resolve: Resolve, name_of, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise BorshError("values nested too deep")
    if isinstance(kind, str):
        return _scalar(kind, reader)
    ((tag, inner),) = kind.items()
    if tag == "vec":
        count = reader.uint(4)
        left = len(reader.data) - reader.at
        if count > left and (not _may_be_empty(inner) or count > MAX_EMPTY_ITEMS):
            raise BorshError(f"a vector of {count} items in {len(reader.data)} bytes")
        return [_item(inner, reader, resolve, name_of, depth) for _ in range(count)]
    if tag == "array":
        element, length = inner
        return [_item(element, reader, resolve, name_of, depth) for _ in range(length)]
    if tag in ("option", "coption"):
        present = reader.uint(1 if tag == "option" else 4)
        if present == 0:
            return ABSENT
        if present != 1:
            raise BorshError(f"an {tag} tag of {present}")
        return _read(inner, reader, resolve, name_of, depth + 1)
    definition = resolve(defined_name(kind))
    return _defined(definition, reader, resolve, name_of, depth + 1)


def _may_be_empty(kind: Any) -> bool:
    return not isinstance(kind, str)  # a defined type may take no bytes (an empty struct)


def _item(kind: Any, reader: Reader, resolve: Resolve, name_of, depth: int) -> Any:
    value = _read(kind, reader, resolve, name_of, depth + 1)
    return None if value is ABSENT else value


def _scalar(kind: str, reader: Reader) -> Any:
    integer = _INTEGERS.get(kind)
    if integer is not None:
        size, signed = integer
        return int.from_bytes(reader.take(size), "little", signed=signed)
    if kind == "bool":
        flag = reader.uint(1)
        if flag > 1:
            raise BorshError(f"a bool of {flag}")
        return flag == 1
    if kind in ("publicKey", "pubkey"):
        return base58_encode(reader.take(32))
    if kind == "string":
        try:
            return reader.take(reader.uint(4)).decode()
        except UnicodeDecodeError:
            raise BorshError("a string that is not UTF-8") from None
    if kind == "bytes":
        return reader.take(reader.uint(4)).hex()
    if kind in _FLOATS:
        code, size = _FLOATS[kind]
        return repr(struct.unpack(code, reader.take(size))[0])
    raise BorshError(f"unsupported type {kind!r}")


def _defined(definition: Mapping[str, Any], reader: Reader, resolve, name_of, depth: int) -> Any:
    body = definition["type"]
    kind = body["kind"]
    if kind == "struct":
        return fields_of(body.get("fields", []), reader, resolve, name_of, depth)
    if kind == "enum":
        variants = body["variants"]
        index = reader.uint(1)
        if index >= len(variants):
            raise BorshError(f"variant {index} of an enum of {len(variants)}")
        variant = variants[index]
        if not variant.get("fields"):
            return variant["name"]
        return {variant["name"]: fields_of(variant["fields"], reader, resolve, name_of, depth)}
    alias = body["alias"] if kind == "type" else body["value"]
    return _read(alias, reader, resolve, name_of, depth)


def fields_of(fields: list[Any], reader: Reader, resolve: Resolve, name_of, depth: int = 0) -> dict:
    """Named fields (or a tuple's, by position) as a map; absent options left out."""
    out: dict[str, Any] = {}
    for index, field in enumerate(fields):
        named = isinstance(field, Mapping) and "name" in field and "type" in field
        value = _read(field["type"] if named else field, reader, resolve, name_of, depth + 1)
        if value is not ABSENT:
            out[name_of(field["name"]) if named else str(index)] = value
    return out
