"""JSON text from clients, parsed with a bound on nesting.

The standard library's C parser recurses once per level and can exhaust the C
stack on a deeply nested document before it raises ``RecursionError``. Any
text that could nest deeper than ``MAX_DEPTH`` is measured first; ordinary
bodies, with few brackets, skip the measurement.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class TooDeep(ValueError):
    """The document nests more than ``MAX_DEPTH`` levels."""


def nesting_depth(text: str) -> int:
    """The deepest bracket nesting outside JSON strings (an upper bound for malformed text)."""
    depth = deepest = 0
    for char in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):
        depth = depth + 1 if char in "[{" else depth - 1
        deepest = max(deepest, depth)
    return deepest


def loads(data: str | bytes, **options: Any) -> Any:
    """``json.loads`` that raises ``TooDeep`` (a ``ValueError``) instead of going too deep."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    if text.count("[") + text.count("{") > MAX_DEPTH and nesting_depth(text) > MAX_DEPTH:
        raise TooDeep(f"JSON nested more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(text, **options)
    except RecursionError:
        raise TooDeep("JSON nested too deeply") from None
