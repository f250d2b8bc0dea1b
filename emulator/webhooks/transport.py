"""How an attempt reaches its receiver: an in-process callable, or a POST with urllib
(``deliveries.py`` decides which, and what the answer means)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from .records import MAX_ANSWER_CHARS, Attempt, Receiver, WebhookRequest

if TYPE_CHECKING:
    import urllib.request


@functools.cache
def _opener() -> urllib.request.OpenerDirector:
    """urllib without redirects (a 3xx stays a 3xx: terminal, as on the real service),
    built on first use (urllib.request loads ssl, which an emulator without webhooks never
    needs)."""
    import urllib.request

    class NoRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    return urllib.request.build_opener(NoRedirects)


def call_receiver(receiver: Receiver, url: str, attempt: Attempt, body: bytes) -> None:
    try:
        answer = receiver(WebhookRequest(url, dict(attempt.headers), body))
    except TimeoutError:
        attempt.error, attempt.retryable = "timed out", True
        return
    except Exception as error:  # the receiver's failure is the delivery's, never ours
        attempt.error, attempt.retryable = f"receiver raised {type(error).__name__}", True
        return
    status, text = answer if isinstance(answer, tuple) else (answer, "")
    attempt.status = 200 if status is None else int(status)
    attempt.answer = str(text)[:MAX_ANSWER_CHARS]
    attempt.retryable = attempt.status >= 500


def post(url: str, attempt: Attempt, body: bytes, timeout_s: float) -> None:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=body, headers=attempt.headers, method="POST")
    try:
        with _opener().open(request, timeout=timeout_s) as answer:
            attempt.status = answer.status
            attempt.answer = answer.read(MAX_ANSWER_CHARS).decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        attempt.status = error.code
        attempt.answer = error.read(MAX_ANSWER_CHARS).decode("utf-8", "replace")
        attempt.retryable = error.code >= 500
        error.close()
    except TimeoutError:
        attempt.error, attempt.retryable = "timed out", True
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        if isinstance(reason, TimeoutError):
            attempt.error = "timed out"
        else:
            attempt.error = f"network error: {reason}"
        attempt.retryable = True
