"""Records to JSON and back, driven by the dataclasses' field types.

One codec per field type (scalars, optional, lists, mappings, keyed maps, nested
records, a vote's voter); ``record(cls)`` builds the codec of a model class, so a
field added to a model later is saved without a change here. Decoding checks
every value and names the bad place (``organizations[0].users[0].createdAt``).
"""

from __future__ import annotations

import types
import typing
from dataclasses import MISSING, fields, is_dataclass
from typing import Any, Union

from ..ground.codec import camel
from ..ground.compact import expanded
from ..ground.models import Activity, Organization, User, Vote

Json = dict[str, Any]


class DocumentError(ValueError):
    """A state document that cannot be loaded; the message names the bad place."""


# ----- records <-> JSON, driven by the dataclasses' field types ---------------------------

CURRENT = object()  # a vote's voter is the organization's live record of that user


class Context:
    __slots__ = ("org",)

    def __init__(self, org: Organization | None) -> None:
        self.org = org


class _Codec:
    def encode(self, value: Any, ctx: Context | None) -> Any:
        raise NotImplementedError

    def decode(self, data: Any, where: str) -> Any:
        raise NotImplementedError


class _Scalar(_Codec):
    def __init__(self, kind: type) -> None:
        self.kind = kind

    def encode(self, value: Any, ctx: Context | None) -> Any:
        return value

    def decode(self, data: Any, where: str) -> Any:
        kind = self.kind
        if kind is float and _is_number(data):
            return float(data)
        if kind is int and is_int(data):
            return data
        if kind in (str, bool) and isinstance(data, kind):
            return data
        raise DocumentError(f"{where}: expected {kind.__name__}, got {_json_type(data)}")


class _Plain(_Codec):
    """Any JSON value (intents, results, failures): copied, never shared."""

    def encode(self, value: Any, ctx: Context | None) -> Any:
        return _copied(value)  # the emulator's own values: JSON already, no checks needed

    def decode(self, data: Any, where: str) -> Any:
        return _plain(data, where)


class _Optional(_Codec):
    def __init__(self, inner: _Codec) -> None:
        self.inner = inner

    def encode(self, value: Any, ctx: Context | None) -> Any:
        return None if value is None else self.inner.encode(value, ctx)

    def decode(self, data: Any, where: str) -> Any:
        return None if data is None else self.inner.decode(data, where)


class _List(_Codec):
    def __init__(self, inner: _Codec, make: type = list) -> None:
        self.inner, self.make = inner, make

    def encode(self, value: Any, ctx: Context | None) -> Any:
        return [self.inner.encode(item, ctx) for item in value]

    def decode(self, data: Any, where: str) -> Any:
        items = json_list(data, where)
        return self.make(self.inner.decode(item, f"{where}[{i}]") for i, item in enumerate(items))


class _Mapping(_Codec):
    def __init__(self, inner: _Codec) -> None:
        self.inner = inner

    def encode(self, value: Any, ctx: Context | None) -> Any:
        return {key: self.inner.encode(item, ctx) for key, item in value.items()}

    def decode(self, data: Any, where: str) -> Any:
        items = json_object(data, where)
        return {key: self.inner.decode(item, f"{where}.{key}") for key, item in items.items()}


class _Keyed(_Codec):
    """``dict[id, Record]`` as a list of records, each keyed by its first field (its id)."""

    def __init__(self, record: _Record) -> None:
        self.record = record

    def encode(self, value: Any, ctx: Context | None) -> Any:
        out = []
        for key, item in value.items():
            if getattr(item, self.record.id_field) != key:
                raise RuntimeError(f"{type(item).__name__} {key} is stored under another id")
            out.append(self.record.encode(item, ctx))
        return out

    def decode(self, data: Any, where: str) -> Any:
        out: dict[str, Any] = {}
        for i, item in enumerate(json_list(data, where)):
            record = self.record.decode(item, f"{where}[{i}]")
            key = getattr(record, self.record.id_field)
            if key in out:
                raise DocumentError(f"{where}[{i}]: duplicate id {key}")
            out[key] = record
        return out


class _Voter(_Codec):
    """``Vote.voter``: ``"current"`` while the voter is a member, else their last record."""

    def encode(self, value: Any, ctx: Context | None) -> Any:
        if value is None:
            return None
        if ctx is not None and ctx.org is not None and ctx.org.users.get(value.user_id) is value:
            return "current"
        return record(User).encode(value, ctx)

    def decode(self, data: Any, where: str) -> Any:
        if data is None:
            return None
        if data == "current":
            return CURRENT
        return record(User).decode(data, where)


class _Record(_Codec):
    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.id_field = fields(cls)[0].name
        self.fields: list[tuple[str, str, _Codec, bool]] = []  # name, json name, codec, required

    def build(self) -> None:
        hints = typing.get_type_hints(self.cls)
        for f in fields(self.cls):
            if (self.cls, f.name) in _SKIPPED:
                continue
            codec = _SPECIAL.get((self.cls, f.name)) or _codec(hints[f.name])
            required = f.default is MISSING and f.default_factory is MISSING
            self.fields.append((f.name, camel(f.name), codec, required))

    def encode(self, value: Any, ctx: Context | None) -> Any:
        if self.cls is Activity:
            value = expanded(value)  # its intents and result as dicts (``compact.py``)
        return {key: codec.encode(getattr(value, name), ctx) for name, key, codec, _ in self.fields}

    def decode(self, data: Any, where: str) -> Any:
        data = json_object(data, where)
        kwargs = {}
        for name, key, codec, required in self.fields:
            if key in data:
                kwargs[name] = codec.decode(data[key], f"{where}.{key}")
            elif required:
                raise DocumentError(f"{where}: missing field {key!r}")
        if len(kwargs) != len(data):
            known = {key for _, key, _, _ in self.fields}
            extra = sorted(set(data) - known)
            raise DocumentError(f"{where}: unknown field {extra[0]!r}")
        return self.cls(**kwargs)


# Fields not saved as they are: rebuilt from the records, or saved another way.
# rebuilt from the wallets and private keys
_SKIPPED = {
    (Organization, "signers"),
    (Organization, "wallet_names"),
    (Organization, "private_key_names"),
}
_SPECIAL: dict[tuple[type, str], _Codec] = {(Vote, "voter"): _Voter()}
_RECORDS: dict[type, _Record] = {}


def record(cls: type) -> _Record:
    record = _RECORDS.get(cls)
    if record is None:
        record = _RECORDS[cls] = _Record(cls)
        record.build()
    return record


def _codec(hint: Any) -> _Codec:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return _Plain()
    if origin in (Union, types.UnionType):
        others = [a for a in args if a is not type(None)]
        if len(others) == 1 and len(args) == 2:
            return _Optional(_codec(others[0]))
    elif is_dataclass(hint):
        return record(hint)  # type: ignore[arg-type]
    elif origin is dict and args[0] is str:
        if is_dataclass(args[1]):
            return _Keyed(record(args[1]))
        return _Mapping(_codec(args[1]))
    elif origin is list:
        return _List(_codec(args[0]))
    elif origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _List(_codec(args[0]), tuple)
    elif hint in (str, int, float, bool):
        return _Scalar(hint)
    raise TypeError(f"state document: no JSON form for fields of type {hint!r}")


def _copied(value: Any) -> Any:
    """A deep copy of a JSON value (tuples become lists), without the checks of ``_plain``."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_copied(item) for item in value]
    return value


def _plain(value: Any, where: str) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise DocumentError(f"{where}: object keys are strings")
            out[key] = _plain(item, f"{where}.{key}")
        return out
    if isinstance(value, list | tuple):
        return [_plain(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise DocumentError(f"{where or 'value'}: {type(value).__name__} is not JSON")


def json_object(data: Any, where: str) -> Json:
    if not isinstance(data, dict):
        raise DocumentError(f"{where}: expected an object, got {_json_type(data)}")
    return data


def json_list(data: Any, where: str) -> list:
    if not isinstance(data, list):
        raise DocumentError(f"{where}: expected an array, got {_json_type(data)}")
    return data


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number" if _is_number(value) else type(value).__name__)
