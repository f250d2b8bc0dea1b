"""What a webhook delivery is made of, as tests read them: the request a receiver gets, each
attempt, the delivery with its attempts, and the body it shares with the other deliveries of
its event (``deliveries.py`` makes and sends them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ground import jsontext

Json = dict[str, Any]

PENDING = "pending"
DELIVERED = "delivered"
FAILED = "failed"
MAX_ANSWER_CHARS = 4096


@dataclass(frozen=True)
class WebhookRequest:
    """What an in-process receiver gets: the URL, the headers and the exact body bytes."""

    url: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return jsontext.loads(self.body)


# A receiver answers a status (None is 200), or (status, body).
Receiver = Callable[[WebhookRequest], "int | tuple[int, str] | None"]


@dataclass
class Attempt:
    """One try: when (the clock's milliseconds), what was sent, what came back."""

    number: int
    time_ms: int
    headers: dict[str, str]
    status: int | None = None
    answer: str = ""
    error: str | None = None
    retryable: bool = False

    def to_json(self) -> Json:
        return {
            "number": self.number,
            "timeMs": self.time_ms,
            "headers": dict(self.headers),
            "status": self.status,
            "answer": self.answer,
            "error": self.error,
        }


class Payload:
    """A body rendered on first need, once for every delivery that shares it: the event is
    noted under the world's lock at commit, and rendering it there would put its cost on the
    request. ``render`` must take what it needs itself (the world's lock)."""

    __slots__ = ("_bytes", "_render")

    def __init__(self, render: Callable[[], bytes]) -> None:
        self._bytes: bytes | None = None
        self._render = render

    def bytes(self) -> bytes:
        # Two threads may both render it once (the sender and a reader of the records): the
        # same bytes either way, and no lock on the commit path.
        rendered = self._bytes
        if rendered is None:
            rendered = self._bytes = self._render()
        return rendered


@dataclass(slots=True)
class Delivery:
    """One event for one endpoint, with every attempt so far."""

    id: str
    event_key: str | Callable[[], str]  # the event id, or how to make it (on first need)
    event_type: str
    endpoint_id: str
    organization_id: str  # the endpoint's organization (X-Turnkey-Organization-Id)
    url: str
    payload: Payload
    created_ms: int
    generation: int = 0  # the sender's generation it belongs to (``clear`` starts another)
    state: str = PENDING
    attempts: list[Attempt] = field(default_factory=list)
    due_ns: int | None = None  # the next attempt, on the emulator's clock

    @property
    def event_id(self) -> str:
        """``X-Turnkey-Event-Id``: the same on every attempt."""
        key = self.event_key
        if not isinstance(key, str):
            key = self.event_key = key()
        return key

    @property
    def body(self) -> bytes:
        """The exact bytes sent (rendered once, off the request path, on first need)."""
        return self.payload.bytes()

    def json(self) -> Any:
        return jsontext.loads(self.body)

    def to_json(self) -> Json:
        return {
            "id": self.id,
            "eventId": self.event_id,
            "eventType": self.event_type,
            "endpointId": self.endpoint_id,
            "organizationId": self.organization_id,
            "url": self.url,
            "body": self.body.decode(),
            "createdMs": self.created_ms,
            "state": self.state,
            "attempts": [a.to_json() for a in self.attempts],
            "nextAttemptMs": None if self.due_ns is None else self.due_ns // 1_000_000,
        }
