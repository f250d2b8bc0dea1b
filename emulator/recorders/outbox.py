"""The outbox: every e-mail and SMS the real service would send lands here instead.

The real service mails invitations, OTP codes, credential bundles and magic
links; a test double must not, yet a test needs to read them (the OTP code to
type back, the invitation's id). ``world.outbox`` (``emu.outbox``, and
``/emulator/v1/outbox`` on the server) keeps them in order as ``Message``
records: the channel, the recipient, the sender, the template that would have
been rendered and the ``fields`` it would have carried.

Like the call log, the outbox is an observation, not state: checkpoints,
snapshots and saved documents leave it alone, ``reset()`` and ``clear()`` empty
it. A message is delivered only when the activity that sent it commits: a
handler sends through its transaction (``send(tx, ...)``), a rollback cancels
the message, and a committed message stays even when a checkpoint rolls the
state back past it (what was sent was sent).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..ground.redact import Sealed
from . import email_events
from .email_events import EmailEvent

if TYPE_CHECKING:
    from ..ground.transaction import Transaction

EMAIL = "email"
SMS = "sms"
CHANNELS = (EMAIL, SMS)

# The sender of the service's own mail. The real address is not public; the name is the
# documented default ("if left empty, will default to 'Notifications'").
DEFAULT_SENDER_ADDRESS = "notifications@turnkey.com"
DEFAULT_SENDER_NAME = "Notifications"

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Message:
    """One e-mail or SMS the service sent.

    ``id`` is ``message-1``, ``message-2``... in delivery order since the outbox was made
    or cleared; ``time_ns`` is on the emulator's clock (when the activity ran);
    ``template`` names what the real service would render (``invitation``...);
    ``fields`` holds what the message carries (ids, names, later codes and bundles).
    """

    id: str
    time_ns: int
    channel: str  # "email" | "sms"
    to: str
    template: str
    organization_id: str
    # The codes and bundles the message carries: a Sealed dict, out of every repr.
    fields: dict[str, Any] = field(repr=False)
    sender_address: str | None = DEFAULT_SENDER_ADDRESS
    sender_name: str | None = DEFAULT_SENDER_NAME
    reply_to: str | None = None

    def to_json(self) -> Json:
        """The message as the control endpoint answers it (camelCase keys)."""
        return {
            "id": self.id,
            "timeNs": self.time_ns,
            "timeMs": self.time_ns // 1_000_000,
            "channel": self.channel,
            "to": self.to,
            "senderAddress": self.sender_address,
            "senderName": self.sender_name,
            "replyTo": self.reply_to,
            "template": self.template,
            "organizationId": self.organization_id,
            "fields": dict(self.fields),
        }


@dataclass
class Outbox:
    """The messages sent so far, oldest first; ``find``, ``last``, ``clear``, ``to_json``;
    and the provider's events about the e-mails (``email_events``, the ``mark_*`` seams)."""

    _messages: list[Message] = field(default_factory=list, repr=False)
    _seq: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _events: list[EmailEvent] = field(default_factory=list, repr=False)
    # The emulator's clock, for the time of an event a test marks (set by the world).
    clock: Any = field(default=None, repr=False)

    # ----- sending (the handlers) -----------------------------------------------------

    def send(
        self,
        tx: Transaction,
        *,
        channel: str,
        to: str,
        template: str,
        organization_id: str,
        time_ns: int,
        fields: dict[str, Any],
        sender_address: str | None = DEFAULT_SENDER_ADDRESS,
        sender_name: str | None = DEFAULT_SENDER_NAME,
        reply_to: str | None = None,
    ) -> None:
        """Send a message once ``tx`` commits; a rollback of ``tx`` cancels it.

        ``tx`` is the handler's transaction: the message is delivered by its commit hook,
        which a rollback drops.
        """
        if channel not in CHANNELS:
            raise ValueError(f"channel must be one of {', '.join(CHANNELS)}")
        draft = {
            "time_ns": time_ns,
            "channel": channel,
            "to": to,
            "template": template,
            "organization_id": organization_id,
            "fields": dict(fields),
            "sender_address": sender_address,
            "sender_name": sender_name,
            "reply_to": reply_to,
        }
        tx.on_commit(lambda: self._append(draft))

    def _append(self, draft: dict[str, Any]) -> Message:
        with self._lock:
            self._seq += 1
            draft["fields"] = Sealed(draft["fields"])
            message = Message(id=f"message-{self._seq}", **draft)
            self._messages.append(message)
            if message.channel == EMAIL:
                self._add_event(message, email_events.SEND, message.time_ns, {})
            return message

    # ----- e-mail events (list_email_events) ------------------------------------------

    def _add_event(
        self, message: Message, event_type: str, time_ns: int, details: dict[str, Any]
    ) -> EmailEvent:
        event = email_events.new_event(
            sequence=len(self._events),
            outbox_id=message.id,
            organization_id=message.organization_id,
            message_id=email_events.provider_message_id(message.id, message.time_ns),
            event_type=event_type,
            from_address=message.sender_address or DEFAULT_SENDER_ADDRESS,
            to_address=message.to,
            time_ns=time_ns,
            details=details,
        )
        self._events.append(event)
        return event

    def mark(self, message: Message, event_type: str, **details: Any) -> EmailEvent:
        """Record that the provider reported ``event_type`` (``Delivery``, ``Bounce``,
        ``Open``...) for the e-mail ``message``, now on the emulator's clock; ``details`` are
        ``v1EmailEventDetails`` in snake_case (``bounce_type``, ``diagnostic_code``...)."""
        if message.channel != EMAIL:
            raise ValueError("only e-mails have e-mail events")
        time_ns = self.clock.now_ns() if self.clock is not None else message.time_ns
        with self._lock:
            if message not in self._messages:
                raise ValueError(f"{message.id} is not in this outbox")
            return self._add_event(message, event_type, time_ns, details)

    def mark_delivered(self, message: Message, **details: Any) -> EmailEvent:
        details.setdefault("delivery_smtp_response", "250 2.0.0 OK")
        details.setdefault("delivery_processing_time_millis", 512)
        return self.mark(message, email_events.DELIVERY, **details)

    def mark_bounced(
        self,
        message: Message,
        bounce_type: str = "Permanent",
        bounce_sub_type: str = "General",
        diagnostic_code: str = "smtp; 550 5.1.1 user unknown",
    ) -> EmailEvent:
        return self.mark(
            message,
            email_events.BOUNCE,
            bounce_type=bounce_type,
            bounce_sub_type=bounce_sub_type,
            diagnostic_code=diagnostic_code,
        )

    def mark_opened(self, message: Message) -> EmailEvent:
        return self.mark(message, email_events.OPEN)

    def mark_complained(self, message: Message, feedback_type: str = "abuse") -> EmailEvent:
        return self.mark(message, email_events.COMPLAINT, complaint_feedback_type=feedback_type)

    def mark_delayed(
        self, message: Message, delay_type: str = "TransientCommunicationFailure"
    ) -> EmailEvent:
        return self.mark(message, email_events.DELIVERY_DELAY, delivery_delay_type=delay_type)

    @property
    def email_events(self) -> list[EmailEvent]:
        """Every e-mail event, oldest first (a copy)."""
        with self._lock:
            return list(self._events)

    # ----- reading --------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """Every message, oldest first (a copy)."""
        with self._lock:
            return list(self._messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self._messages)

    def __repr__(self) -> str:
        return f"Outbox({len(self)} messages)"

    def find(
        self,
        channel: str | None = None,
        to: str | None = None,
        template: str | None = None,
        organization_id: str | None = None,
    ) -> list[Message]:
        """The messages matching every given filter, oldest first (``to`` ignores case)."""
        wanted_to = to.lower() if to is not None else None
        return [
            m
            for m in self.messages
            if (channel is None or m.channel == channel)
            and (wanted_to is None or m.to.lower() == wanted_to)
            and (template is None or m.template == template)
            and (organization_id is None or m.organization_id == organization_id)
        ]

    def last(self, **filters: Any) -> Message | None:
        """The most recent matching message, or ``None``."""
        found = self.find(**filters)
        return found[-1] if found else None

    def clear(self) -> None:
        """Forget every message; numbering starts again at 1."""
        with self._lock:
            self._messages = []
            self._events = []
            self._seq = 0

    def to_json(self, **filters: Any) -> Json:
        """``{"messages": [...]}``, filtered as ``find`` filters."""
        return {"messages": [m.to_json() for m in self.find(**filters)]}
