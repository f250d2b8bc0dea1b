"""The control plane's JSON: its error (``ControlError``, answered in the API's error shape)
and the encoding of the records its endpoints and the dashboard show (``jsonable``)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..ground.codec import camel
from ..ground.errors import INVALID_ARGUMENT, NOT_FOUND, UNIMPLEMENTED

Json = dict[str, Any]

_CODES = {400: INVALID_ARGUMENT, 404: NOT_FOUND, 405: UNIMPLEMENTED, 501: UNIMPLEMENTED}


class ControlError(Exception):
    """A refusal of the control plane, its message as given (a ``ValueError`` raised by an
    endpoint is answered 400 too, its message after "bad control request: ")."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def body(self) -> Json:
        return {
            "code": _CODES.get(self.status, INVALID_ARGUMENT),
            "message": self.message,
            "details": [],
            "turnkeyErrorCode": "",
        }


def call_json(call: Any) -> Json:
    """A call log entry's fields, camelCase."""
    data = jsonable(call)
    return {camel(k): v for k, v in data.items()} if isinstance(data, dict) else data


def jsonable(value: Any) -> Any:
    """A record (dataclasses, mappings, sequences of them) as JSON values; anything else
    as its ``repr``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return repr(value)
