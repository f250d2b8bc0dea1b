"""An answer of the HTTP layer (status, headers, body) and its error shape, shared by the
routes of ``site.py`` and the dashboard they mount (which must not import the site)."""

from __future__ import annotations

import json
from http import HTTPStatus

DASHBOARD_PREFIX = "/emulator/ui"

Headers = list[tuple[str, str]]
Answer = tuple[int, Headers, bytes]
JSON_TYPE = ("Content-Type", "application/json")


def error_answer(
    status: int, code: int, message: str, turnkey_error_code: str = "", headers: Headers = ()
) -> Answer:
    """An answer of the HTTP layer itself, in the API's error shape."""
    details = (
        [
            {
                "@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail",
                "turnkeyErrorCode": turnkey_error_code,
            }
        ]
        if turnkey_error_code
        else []
    )
    body = {
        "code": code,
        "message": message,
        "details": details,
        "turnkeyErrorCode": turnkey_error_code,
    }
    return status, [JSON_TYPE, *headers], json.dumps(body).encode()


def status_line(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def answer_bytes(status: int, headers: list[tuple[str, str]], payload: bytes) -> bytes:
    """A whole HTTP/1.1 answer that closes its connection (the protocol's own refusals)."""
    lines = [f"HTTP/1.1 {status_line(status)}"]
    lines += [f"{name}: {value}" for name, value in headers]
    lines += [f"Content-Length: {len(payload)}", "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload
