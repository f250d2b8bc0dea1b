"""E-mail events: what the mail provider reports about each e-mail in the outbox.

``list_email_events`` answers ``v1EmailEvent`` records, the provider's (Amazon SES) event
types: ``Send``, ``Delivery``, ``Bounce``, ``Complaint``, ``DeliveryDelay``, ``Reject``,
``Open``, ``Click``. Every e-mail that lands in the outbox has its ``Send`` event; the others
happen only when a test says so, through the seams on ``emu.outbox``
(``mark_delivered``, ``mark_bounced``, ``mark_opened``, ``mark_complained``,
``mark_delayed``, or ``mark(message, event_type, **details)``), for a receiver of e-mail
that never arrives. Events are observations like the messages: ``outbox.clear()`` and
``reset`` forget them, checkpoints and saved states leave them alone.

``messageId`` is the provider's id of the message, shared by all its events, in SES's
shape (``0100…-<uuid>-000000``); ids are derived from the outbox's message ids, so a run
repeats itself.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]

SEND = "Send"
DELIVERY = "Delivery"
BOUNCE = "Bounce"
COMPLAINT = "Complaint"
DELIVERY_DELAY = "DeliveryDelay"
REJECT = "Reject"
OPEN = "Open"
CLICK = "Click"
EVENT_TYPES = (SEND, DELIVERY, BOUNCE, COMPLAINT, DELIVERY_DELAY, REJECT, OPEN, CLICK)
# v1EmailEventDetails, by event type: the keyword a seam takes -> the wire's field name.
DETAIL_FIELDS = {
    "bounce_type": "bounceType",
    "bounce_sub_type": "bounceSubType",
    "diagnostic_code": "diagnosticCode",
    "delivery_smtp_response": "deliverySmtpResponse",
    "delivery_processing_time_millis": "deliveryProcessingTimeMillis",
    "delivery_delay_type": "deliveryDelayType",
    "complaint_feedback_type": "complaintFeedbackType",
}


def _uuid_from(text: str) -> str:
    digest = bytearray(hashlib.sha256(text.encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x80
    digest[8] = (digest[8] & 0x3F) | 0x80
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def provider_message_id(outbox_id: str, time_ns: int) -> str:
    """An SES-shaped message id for the outbox message ``outbox_id``."""
    return f"0100{time_ns // 1_000_000:012x}-{_uuid_from('ses:' + outbox_id)}-000000"


@dataclass(frozen=True)
class EmailEvent:
    id: str
    organization_id: str
    message_id: str
    event_type: str
    from_address: str
    to_address: str
    timestamp_ms: int
    details: dict[str, str] = field(default_factory=dict)

    def render(self) -> Json:
        """``v1EmailEvent``."""
        return {
            "id": self.id,
            "organizationId": self.organization_id,
            "messageId": self.message_id,
            "eventType": self.event_type,
            "fromAddress": self.from_address,
            "toAddress": self.to_address,
            "timestamp": str(self.timestamp_ms),
            "createdAt": str(self.timestamp_ms),
            "details": dict(self.details),
        }


def new_event(
    *,
    sequence: int,
    outbox_id: str,
    organization_id: str,
    message_id: str,
    event_type: str,
    from_address: str,
    to_address: str,
    time_ns: int,
    details: dict[str, Any],
) -> EmailEvent:
    if event_type not in EVENT_TYPES:
        raise ValueError(f"event_type must be one of {', '.join(EVENT_TYPES)}")
    wire = {}
    for name, value in details.items():
        if name not in DETAIL_FIELDS:
            raise TypeError(f"unknown e-mail event detail {name!r}")
        wire[DETAIL_FIELDS[name]] = str(value)
    return EmailEvent(
        id=_uuid_from(f"email-event:{outbox_id}:{sequence}"),
        organization_id=organization_id,
        message_id=message_id,
        event_type=event_type,
        from_address=from_address,
        to_address=to_address,
        timestamp_ms=time_ns // 1_000_000,
        details=wire,
    )
