"""The world's observations as the dashboard shows them: the outbox, the call log, the
clock and fault rules, webhook deliveries. Pages newest first, read by position: a page costs
its rows, not the log."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

from ..engine_state.world import World
from ..ground.clock import NANOS_PER_MILLI
from .mail import rendered_message
from .params import ViewError, page

if TYPE_CHECKING:
    from ..facade.api import Emulator

Json = dict[str, Any]


def outbox(emulator: Emulator, params: Json) -> Json:
    """A page of the e-mails and SMS sent, newest first, each rendered."""
    offset, limit = page(params)
    box = emulator.world.outbox
    sent = box._messages  # read in place (a list only appended to, or replaced by clear())
    total = len(sent)
    rows = [sent[i] for i in range(total - 1 - offset, max(total - 1 - offset - limit, -1), -1)]
    return {
        "messages": [{**m.to_json(), "rendered": rendered_message(m)} for m in rows],
        "offset": offset,
        "limit": limit,
        "total": total,
        "more": offset + limit < total,
    }


def calls(emulator: Emulator, params: Json) -> Json:
    """A page of the call log, newest first (summaries: the bodies stay in the log)."""
    offset, limit = page(params)
    log = emulator.world.calls
    kept = len(log)
    rows = [log[kept - 1 - i] for i in range(offset, min(offset + limit, kept))]
    return {
        "calls": [
            {
                "seq": call.seq,
                "timeMs": call.time_ns // NANOS_PER_MILLI,
                "operation": call.operation,
                "kind": call.kind,
                "activityType": call.activity_type,
                "organizationId": call.organization_id
                if isinstance(call.organization_id, str)
                else None,
                "userId": call.user_id,
                "httpStatus": call.http_status,
                "errorMessage": call.error_message,
                "activityId": call.activity_id,
                "activityStatus": call.activity_status,
            }
            for call in rows
        ],
        "offset": offset,
        "limit": limit,
        "total": kept,
        "recorded": log.total,
        "more": offset + limit < kept,
    }


def clock(world: World) -> Json:
    return {"nowMs": world.clock.now_ms(), "frozen": world.clock.frozen}


def controls(emulator: Emulator) -> Json:
    """The clock and the pending fault rules."""
    from ..http.control_json import jsonable

    world = emulator.world
    return {
        "clock": clock(world),
        "faults": [jsonable(rule) for rule in world.faults.pending()],
    }


def webhooks_of(emulator: Emulator) -> Any:
    """The emulator's webhook deliveries (``emu.webhooks``, where the engine has them), or
    ``None``: the dashboard shows the panel only when they exist. Read by duck typing: a
    ``deliveries`` list (or the object itself iterated), each delivery's ``to_json()`` where
    it has one."""
    found = getattr(emulator.world, "webhooks", None)
    return found if found is not None else getattr(emulator, "webhooks", None)


def _deliveries(webhooks: Any) -> list[Any]:
    deliveries = getattr(webhooks, "deliveries", webhooks)
    if callable(deliveries):
        deliveries = deliveries()
    return list(deliveries) if isinstance(deliveries, Iterable) else []


def webhook_state(webhooks: Any) -> tuple[Any, ...]:
    """What the live view compares of the deliveries: their number, and the state and
    attempts of the last few (a delivery is retried after it is made). The one part of the
    version that is not constant time: ``emu.webhooks`` hands out a copy of its list."""
    if webhooks is None:
        return ()
    deliveries = _deliveries(webhooks)
    recent = deliveries[-_WATCHED_DELIVERIES:]
    return (
        len(deliveries),
        *((getattr(d, "state", None), len(getattr(d, "attempts", ()))) for d in recent),
    )


_WATCHED_DELIVERIES = 20


def _delivery_json(delivery: Any) -> Any:
    from ..http.control_json import jsonable

    to_json = getattr(delivery, "to_json", None)
    return to_json() if callable(to_json) else jsonable(delivery)


def webhooks(emulator: Emulator, params: Json) -> Json:
    """A page of webhook deliveries, newest first (404 where the engine has none)."""
    found = webhooks_of(emulator)
    if found is None:
        raise ViewError(404, "this emulator has no webhooks")
    offset, limit = page(params)
    deliveries = _deliveries(found)
    newest: Iterator[Any] = reversed(deliveries)
    return {
        "deliveries": [_delivery_json(d) for d in islice(newest, offset, offset + limit)],
        "offset": offset,
        "limit": limit,
        "total": len(deliveries),
        "more": offset + limit < len(deliveries),
    }
