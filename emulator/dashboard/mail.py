"""An outbox message as a person would read it: a subject, a few lines, the link, the code.

The real service's templates are not public; these say what each message carries (the
OTP code, the magic link, the invitation) in plain words. A link is given as a link only
when it is ``http`` or ``https``: a ``magicLinkTemplate`` is the API caller's text, and a
``javascript:`` link in the dashboard's own page would run with its control token.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..recorders.outbox import Message

Json = dict[str, Any]

_SUBJECTS = {
    "otp": "Your one-time code",
    "email_auth": "Your login link",
    "email_recovery": "Recover your account",
    "invitation": "You are invited",
}


def safe_link(text: Any) -> str | None:
    """``text`` when it is an absolute http(s) URL, else ``None``."""
    if not isinstance(text, str):
        return None
    try:
        parts = urlsplit(text.strip())
    except ValueError:
        return None
    return text.strip() if parts.scheme in ("http", "https") and parts.netloc else None


def rendered_message(message: Message) -> Json:
    """``{subject, lines, link, linkText, code}`` for one message."""
    fields = message.fields
    app = fields.get("appName")
    code = fields.get("otpCode")
    lines: list[str] = []
    if message.channel == "sms":
        lines.append(str(fields.get("message") or f"Your code is {code}"))
    elif message.template == "otp":
        lines.append(f"Your {app or 'Turnkey'} code is {code}.")
        if fields.get("expirationSeconds"):
            lines.append(f"It expires in {int(fields['expirationSeconds']) // 60} minutes.")
    elif message.template in ("email_auth", "email_recovery"):
        lines.append(f"Log in to {app or 'your account'} with the link below.")
        if "magicLink" not in fields:
            lines.append("(no magicLinkTemplate: the bundle is in the credentialBundle field)")
    elif message.template == "invitation":
        lines.append(
            f"{fields.get('senderUserName', 'Someone')} invited "
            f"{fields.get('receiverUserName', 'you')} to {fields.get('organizationName', '')}."
        )
    link_text = fields.get("magicLink")
    return {
        "subject": _SUBJECTS.get(message.template, message.template) + (f" — {app}" if app else ""),
        "lines": lines,
        "link": safe_link(link_text),
        "linkText": link_text if isinstance(link_text, str) else None,
        "code": code if isinstance(code, str) else None,
    }
