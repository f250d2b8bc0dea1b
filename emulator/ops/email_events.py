"""E-mail events: list_email_events, the provider's events about the organization's e-mails.

Fed by the outbox (``recorders/email_events.py``): a ``Send`` for every e-mail, and what a
test marks (``emu.outbox.mark_delivered``, ``mark_bounced``, ``mark_opened``...). The list
is the organization's events for one recipient (``email``, any case), optionally of one
``eventType``, most recent first, with the real cursor pagination (by event id).
"""

from __future__ import annotations

from typing import Any

from ..ground.schema import String, obj, opt
from ..services.context import Context
from ..services.pagination import PAGINATION, paginate
from .registry import query

Params = dict[str, Any]


@query(
    "list_email_events",
    summary="List email events",
    body=obj(email=String(), eventType=opt(String()), paginationOptions=opt(PAGINATION)),
    result_keys=("emailEvents",),
)
def list_email_events(ctx: Context, body: Params) -> Params:
    email = body["email"].lower()
    wanted = body.get("eventType")
    events = [
        e
        for e in reversed(ctx.world.outbox.email_events)
        if e.organization_id == ctx.org.organization_id
        and e.to_address.lower() == email
        and (not wanted or e.event_type == wanted)
    ]
    page = paginate(events, body.get("paginationOptions"), lambda e: e.id)
    return {"emailEvents": [e.render() for e in page]}
