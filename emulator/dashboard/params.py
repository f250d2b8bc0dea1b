"""The parameters of the dashboard's views, checked: a bad one is a ``ViewError`` (400)."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]

DEFAULT_LIMIT = 50
MAX_LIMIT = 200


class ViewError(Exception):
    """A request the views cannot answer: ``status`` 400 or 404, with a clear message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def text(params: Json, name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise ViewError(400, f"{name} must be a non-empty string")
    return value


def page(params: Json) -> tuple[int, int]:
    """``(offset, limit)``: non-negative integers, the limit at most ``MAX_LIMIT``."""
    offset = params.get("offset", 0)
    limit = params.get("limit", DEFAULT_LIMIT)
    for name, value in (("offset", offset), ("limit", limit)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ViewError(400, f"{name} must be a non-negative integer")
    return offset, min(max(limit, 1), MAX_LIMIT)
