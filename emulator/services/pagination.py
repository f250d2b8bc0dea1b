"""Cursor pagination as the real API does it: ``{limit, before, after}``.

``limit`` is a string from "1" to "100" (default 10); ``after`` and ``before``
are the id of an object in the list, and the page is the objects after or
before it in list order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from ..ground import messages
from ..ground.errors import InvalidArgument, ValidationFailed
from ..ground.numbers import integer
from ..ground.schema import String, Violations, obj, opt

T = TypeVar("T")

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
PAGINATION = obj(limit=opt(String(fmt="uint")), before=opt(String()), after=opt(String()))


def paginate(
    items: Sequence[T],
    options: Mapping[str, Any] | None,
    id_of: Callable[[T], str],
    *,
    field: str = "paginationOptions",
) -> list[T]:
    options = options or {}
    limit = _limit(options.get("limit"), field)
    page = list(items)
    after, before = options.get("after"), options.get("before")
    if after:
        page = page[_index(page, after, id_of) + 1 :]
    if before:
        page = page[: _index(page, before, id_of)]
        return page[-limit:]
    return page[:limit]


def _limit(raw: str | None, field: str) -> int:
    if raw in (None, ""):
        return DEFAULT_LIMIT
    limit = integer(raw)
    if limit is None or not 1 <= limit <= MAX_LIMIT:
        errors = Violations()
        errors.add(f"{field}.limit", f"must be between 1 and {MAX_LIMIT}")
        raise ValidationFailed(errors)
    return limit


def _index(items: Sequence[T], cursor: str, id_of: Callable[[T], str]) -> int:
    for index, item in enumerate(items):
        if id_of(item) == cursor:
            return index
    raise InvalidArgument(
        messages.invalid_pagination_cursor(cursor), turnkey_error_code="REQUEST_INVALID"
    )
