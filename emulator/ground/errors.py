"""Errors the emulator answers with, shaped like the real service's.

On the wire an error is a non-2xx status with the gRPC-gateway body
``{code, message, details, turnkeyErrorCode}`` where ``code`` is the gRPC
status number. The Python facade raises the same error as an exception that
carries the same code, status and message. Message texts live in
``messages.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .messages import validation_message
from .schema import Violation

# gRPC status numbers and the HTTP status the gateway maps each to.
OK = 0
UNKNOWN = 2
INVALID_ARGUMENT = 3
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
UNAUTHENTICATED = 16

HTTP_STATUS = {
    INVALID_ARGUMENT: 400,
    FAILED_PRECONDITION: 400,
    UNAUTHENTICATED: 401,
    PERMISSION_DENIED: 403,
    NOT_FOUND: 404,
    ALREADY_EXISTS: 409,
    RESOURCE_EXHAUSTED: 429,
    UNKNOWN: 500,
    INTERNAL: 500,
    UNIMPLEMENTED: 501,
    UNAVAILABLE: 503,
}

TURNKEY_ERROR_DETAIL = "type.googleapis.com/errors.v1.TurnkeyErrorDetail"
BAD_REQUEST_DETAIL = "type.googleapis.com/google.rpc.BadRequest"


class TurnkeyApiError(Exception):
    """An error answer of the API: gRPC code, HTTP status, message and details."""

    def __init__(
        self,
        code: int,
        message: str,
        *,
        turnkey_error_code: str = "",
        details: Iterable[dict[str, Any]] = (),
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.turnkey_error_code = turnkey_error_code
        extra = list(details)
        if turnkey_error_code:
            extra.insert(0, {"@type": TURNKEY_ERROR_DETAIL, "turnkeyErrorCode": turnkey_error_code})
        self.details = extra

    @property
    def status(self) -> int:
        """The HTTP status the gateway answers with."""
        return HTTP_STATUS.get(self.code, 500)

    def body(self) -> dict[str, Any]:
        """The JSON body of the error on the wire."""
        return {
            "code": self.code,
            "message": self.message,
            "details": self.details,
            "turnkeyErrorCode": self.turnkey_error_code,
        }

    def __str__(self) -> str:
        return f"Turnkey error {self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, code={self.code}, message={self.message!r})"


class InvalidArgument(TurnkeyApiError):
    def __init__(self, message: str, *, turnkey_error_code: str = "", details=()) -> None:
        super().__init__(
            INVALID_ARGUMENT, message, turnkey_error_code=turnkey_error_code, details=details
        )


class Unauthenticated(TurnkeyApiError):
    def __init__(self, message: str, *, turnkey_error_code: str = "", details=()) -> None:
        super().__init__(
            UNAUTHENTICATED, message, turnkey_error_code=turnkey_error_code, details=details
        )


class PermissionDenied(TurnkeyApiError):
    def __init__(self, message: str, *, turnkey_error_code: str = "", details=()) -> None:
        super().__init__(
            PERMISSION_DENIED, message, turnkey_error_code=turnkey_error_code, details=details
        )


class NotFound(TurnkeyApiError):
    def __init__(self, message: str, *, turnkey_error_code: str = "", details=()) -> None:
        super().__init__(NOT_FOUND, message, turnkey_error_code=turnkey_error_code, details=details)


class ResourceExhausted(TurnkeyApiError):
    def __init__(self, message: str, *, turnkey_error_code: str = "", details=()) -> None:
        super().__init__(
            RESOURCE_EXHAUSTED, message, turnkey_error_code=turnkey_error_code, details=details
        )


class ValidationFailed(InvalidArgument):
    """A request whose fields break the schema: a 400 naming every bad field."""

    def __init__(self, violations: Iterable[Violation]) -> None:
        self.violations = list(violations)
        super().__init__(
            validation_message([v.field for v in self.violations]),
            turnkey_error_code="REQUEST_INVALID",
            details=[
                {
                    "@type": BAD_REQUEST_DETAIL,
                    "fieldViolations": [
                        {"field": v.field, "description": v.description} for v in self.violations
                    ],
                }
            ],
        )
