"""Byte encodings used on the wire."""

from __future__ import annotations

import base64


def b64url_decode(value: str) -> bytes:
    """Decode base64url with or without padding; raise ``ValueError`` if it is not."""
    text = value.strip()
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, UnicodeError) as exc:
        raise ValueError(f"not base64url: {exc}") from exc


def b64url_encode(data: bytes) -> str:
    """base64url without padding."""
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")
