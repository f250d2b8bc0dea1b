"""The small checks of seed-file entries, each raising a ``SeedError`` that names the entry."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..ground.codec import camel

Json = dict[str, Any]


class SeedError(ValueError):
    """A seed file that cannot be applied; ``where`` names the bad entry."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}" if where else problem)
        self.where = where
        self.problem = problem


def fields(data: Any, where: str, allowed: set[str], required: tuple[str, ...] = ()) -> Json:
    """``data`` as an object with camelCase keys, each one ``allowed``, ``required`` present."""
    if not isinstance(data, Mapping):
        raise SeedError(where, f"expected an object, got {type(data).__name__}")
    out: Json = {}
    for key, value in data.items():
        name = camel(key) if isinstance(key, str) else key
        if name not in allowed:
            raise SeedError(where, f"unknown key {key!r} (known: {', '.join(sorted(allowed))})")
        if name in out:
            raise SeedError(where, f"{key!r} is given twice (as camelCase and snake_case)")
        out[name] = value
    for name in required:
        if name not in out:
            raise SeedError(where, f"missing {name!r}")
    return out


def labelled(data: Any, where: str) -> str:
    """``where`` with the entry's name, when it has one: ``users[1] ('bob')``."""
    name = data.get("name") if isinstance(data, Mapping) else None
    return f"{where} ({name!r})" if isinstance(name, str) and name.strip() else where


def as_list(data: Any, where: str) -> list:
    if not isinstance(data, list):
        raise SeedError(where, f"expected a list, got {type(data).__name__}")
    return data


def text(data: Any, where: str) -> str:
    if not isinstance(data, str) or not data.strip():
        raise SeedError(where, "expected a non-empty string")
    return data


def optional_text(data: Any, where: str) -> str | None:
    return None if data is None else text(data, where)


def tag_names(data: Any, where: str) -> list[str]:
    names = [text(entry, f"{where}[{i}]") for i, entry in enumerate(as_list(data, where))]
    unique(names, where, "tag")
    return names


def references(data: Any, where: str, declared: list[str], section: str) -> list[str]:
    names = [text(entry, f"{where}[{i}]") for i, entry in enumerate(as_list(data, where))]
    for i, name in enumerate(names):
        if name not in declared:
            raise SeedError(f"{where}[{i}]", f"no tag {name!r} in the organization's {section}")
    return names


def words(kind: str) -> str:
    """``privateKeyTag`` as ``private key tag``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", kind).lower()


def unique(names: list[str], where: str, what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise SeedError(
                where, f"two of them are named {name!r}: each {what} needs its own name"
            )
        seen.add(name)
