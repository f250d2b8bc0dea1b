"""snake_case in Python, camelCase on the wire: the one place names are mapped."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=4096)
def camel(name: str) -> str:
    """``user_name`` to ``userName``; a camelCase name is left as it is."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def to_wire(value: Any) -> Any:
    """Turn the keys of nested dicts into camelCase (values are left alone)."""
    if isinstance(value, dict):
        return {camel(k) if isinstance(k, str) else k: to_wire(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_wire(v) for v in value]
    return value
