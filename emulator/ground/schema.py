"""A small declarative schema for request parameters.

Each operation version declares its parameters once with these specs. Checking
a value returns the cleaned value (unknown keys and ``null`` dropped, the way
the real gateway reads proto JSON) and collects every violation with its
dotted field path (``users.0.apiKeys.1.curveType``), which becomes the
``google.rpc.BadRequest`` detail of a 400.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .ids import is_uuid
from .numbers import integer, is_decimal

MISSING = object()

LABEL_MAX_LENGTH = 256
_HEX = re.compile(r"^[0-9a-fA-F]*$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_E164 = re.compile(r"^\+[1-9][0-9]{1,14}$", re.ASCII)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class Violation:
    field: str
    description: str


class Violations(list):
    """The violations found while checking one request."""

    def add(self, path: str, rule: str) -> None:
        """Record that the field at ``path`` breaks ``rule`` ("is required", ...)."""
        self.append(Violation(path or "body", f"This field {rule}."))


_PATHS_KEPT = 256  # parent paths an Object keeps its fields' paths for


def _join(path: str, key: str | int) -> str:
    return f"{path}.{key}" if path else str(key)


class Spec:
    """Base of all specs: ``check`` returns the cleaned value or ``MISSING``."""

    type_name = "value"

    def check(self, value: object, path: str, errors: Violations) -> object:
        raise NotImplementedError

    def describe(self) -> str:
        return self.type_name


@dataclass(frozen=True)
class String(Spec):
    """A string; ``fmt`` adds a format rule, ``max_length`` a length bound. A required
    string may not be empty unless ``allow_empty`` (free text such as a policy's notes)."""

    fmt: str | None = None
    max_length: int | None = None
    allow_empty: bool = False
    type_name = "string"

    def check(self, value, path, errors):
        if not isinstance(value, str):
            errors.add(path, "must be a string")
            return MISSING
        if self.max_length is not None and len(value) > self.max_length:
            errors.add(path, f"must be at most {self.max_length} characters long")
            return MISSING
        if value and self.fmt is not None and not _FORMATS[self.fmt](value):
            errors.add(path, f"must be a valid {_FORMAT_NAMES[self.fmt]}")
            return MISSING
        return value

    def describe(self) -> str:
        return f"string ({_FORMAT_NAMES[self.fmt]})" if self.fmt else "string"


_FORMATS = {
    "uuid": is_uuid,
    "hex": lambda v: _HEX.fullmatch(v) is not None,
    "email": lambda v: _EMAIL.fullmatch(v) is not None,
    "e164": lambda v: _E164.match(v) is not None,
    "uint": is_decimal,
}
_FORMAT_NAMES = {
    "uuid": "UUID",
    "hex": "hexadecimal string",
    "email": "e-mail address",
    "e164": "phone number in E.164 format",
    "uint": "non-negative integer string",
}


@dataclass(frozen=True)
class Enum(Spec):
    values: tuple[str, ...]
    type_name = "enum"

    def check(self, value, path, errors):
        if not isinstance(value, str) or value not in self.values:
            errors.add(path, f"must be one of {', '.join(self.values)}")
            return MISSING
        return value

    def describe(self) -> str:
        return "enum " + " | ".join(self.values)


@dataclass(frozen=True)
class Boolean(Spec):
    type_name = "boolean"

    def check(self, value, path, errors):
        if not isinstance(value, bool):
            errors.add(path, "must be a boolean")
            return MISSING
        return value


@dataclass(frozen=True)
class Integer(Spec):
    """A proto integer: a JSON number or a decimal string, as proto JSON allows (ASCII
    digits only, ``numbers.integer``), within 64 bits unless bounded tighter."""

    minimum: int | None = None
    maximum: int | None = None
    type_name = "integer"

    def check(self, value, path, errors):
        number = integer(value, signed=True, floats=True)
        if number is None:
            errors.add(path, "must be an integer")
            return MISSING
        if not _INT64_MIN <= number <= _INT64_MAX:
            errors.add(path, "must be a 64-bit integer")
            return MISSING
        if self.minimum is not None and number < self.minimum:
            errors.add(path, f"must be at least {self.minimum}")
            return MISSING
        if self.maximum is not None and number > self.maximum:
            errors.add(path, f"must be at most {self.maximum}")
            return MISSING
        return number


@dataclass(frozen=True)
class Array(Spec):
    items: Spec
    min_items: int = 0
    type_name = "array"

    def check(self, value, path, errors):
        if not isinstance(value, list):
            errors.add(path, "must be an array")
            return MISSING
        if len(value) < self.min_items:
            errors.add(path, f"must contain at least {self.min_items} item(s)")
            return MISSING
        out = []
        for index, item in enumerate(value):
            item_path = _join(path, index)
            if item is None:
                errors.add(item_path, "must not be null")
                continue
            cleaned = self.items.check(item, item_path, errors)
            if cleaned is not MISSING:
                out.append(cleaned)
        return out

    def describe(self) -> str:
        return f"[{self.items.describe()}]"


@dataclass(frozen=True)
class Field:
    spec: Spec
    required: bool = True


@dataclass(frozen=True)
class Object(Spec):
    """A JSON object with named fields; unknown keys are ignored and dropped."""

    fields: Mapping[str, Field] = field(default_factory=dict)
    # Each field's path under a parent path, joined once (the fields are fixed).
    _paths: dict[str, tuple[str, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    type_name = "object"

    def check(self, value, path, errors):
        if not isinstance(value, dict):
            errors.add(path, "must be an object")
            return MISSING
        out = {}
        paths = self._paths.get(path)
        if paths is None:
            paths = tuple(_join(path, name) for name in self.fields)
            if len(self._paths) < _PATHS_KEPT:  # array items add a path per index
                self._paths[path] = paths
        for (name, fld), field_path in zip(self.fields.items(), paths, strict=True):
            raw = value.get(name)
            if raw is None:
                if fld.required:
                    errors.add(field_path, "is required")
                continue
            if fld.required and raw == "" and _empty_is_missing(fld.spec):
                errors.add(field_path, "is required")
                continue
            cleaned = fld.spec.check(raw, field_path, errors)
            if cleaned is not MISSING:
                out[name] = cleaned
        return out

    def describe(self) -> str:
        return "object"

    def field_names(self) -> Iterable[str]:
        return self.fields.keys()


def _empty_is_missing(spec: Spec) -> bool:
    """An empty string is a missing value for strings and enums (not free text)."""
    return isinstance(spec, Enum) or (isinstance(spec, String) and not spec.allow_empty)


def obj(**fields: Spec | Field) -> Object:
    """Declare an object; a bare spec is a required field, ``opt(spec)`` an optional one."""
    return Object({k: v if isinstance(v, Field) else Field(v) for k, v in fields.items()})


def opt(spec: Spec) -> Field:
    return Field(spec, required=False)


def label() -> String:
    """A human-readable name (the real ``tk_label``): non-empty, bounded length."""
    return String(max_length=LABEL_MAX_LENGTH)


def uuid() -> String:
    return String(fmt="uuid")


def check(spec: Spec, value: object) -> tuple[object, Violations]:
    """Check ``value`` against ``spec``; return the cleaned value and the violations."""
    errors = Violations()
    cleaned = spec.check(value, "", errors)
    return cleaned, errors
