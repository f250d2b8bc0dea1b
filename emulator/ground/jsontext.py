"""JSON text from clients, parsed with a bound on nesting.

The standard library's C parser recurses once per level and can exhaust the C
stack on a deeply nested document before it raises ``RecursionError``. Any
text that could nest deeper than ``MAX_DEPTH`` is measured first; ordinary
bodies, with few brackets, skip the measurement.
"""

from __future__ import annotations

import json
import re
import threading
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


def _make_encoder() -> Any:
    """The C encoder ``json.dumps`` builds on every call with its defaults, or ``None``."""
    from json import encoder

    if encoder.c_make_encoder is None:  # pragma: no cover - CPython has the accelerator
        return None
    return encoder.c_make_encoder(
        {}, encoder.JSONEncoder().default, encoder.encode_basestring_ascii,
        None, ": ", ", ", False, False, True,
    )  # fmt: skip


_encoders = threading.local()  # one per thread: an encoder keeps the containers it is inside


def dumps(value: Any) -> str:
    """``json.dumps(value)`` with the default options, to the byte, for about half its
    cost: the C encoder is built once a thread instead of per call (``json.dumps`` builds
    it, and a closure, each time). After a failed encoding (a value JSON cannot hold, a
    cycle) the encoder's record of the containers it was inside is stale: it is rebuilt."""
    encode = getattr(_encoders, "encode", None)
    if encode is None:
        encode = _encoders.encode = _make_encoder()
        if encode is None:  # pragma: no cover
            return json.dumps(value)
    if not isinstance(value, dict | list):  # the encoder's entry point takes containers
        return json.dumps(value)
    try:
        return "".join(encode(value, 0))
    except BaseException:
        _encoders.encode = None
        raise
