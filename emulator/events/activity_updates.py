"""``ACTIVITY_UPDATES``: every committed activity status, POSTed to the subscribed endpoints.

features/webhooks/overview.mdx: the delivery "contains the full activity object for the
triggering event"; endpoints of a parent organization receive the events of the parent
and of all its sub-organizations, a sub-organization's endpoints only its own. Only active
endpoints with an active ``ACTIVITY_UPDATES`` subscription receive them.

An event is an activity recorded (COMPLETED, CONSENSUS_NEEDED, or the status a fault
left), or a later status change (COMPLETED, FAILED or REJECTED after votes). It is noted
in the activity's transaction and built by its commit hook, so an activity that rolls
back (its request failed) sends nothing. The body is the activity as a viewer who is not
a member sees it (``canApprove`` false), as it stood at commit (its changing attributes kept
at commit, rendered by the sender, off the request path), so a later change does not alter an earlier
delivery. ``filtersJson`` is kept and answered but filters nothing
(its grammar is not documented).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import operator

from ..engine_state.store import Store
from ..engine_state.world import World
from ..ground import render
from ..ground.external_records import WebhookEndpoint
from ..ground.models import Activity, Organization
from ..ground.transaction import Transaction
from ..webhooks.records import Payload

ACTIVITY_UPDATES = "ACTIVITY_UPDATES"
BILLING_SCOPED = frozenset(
    {"BALANCE_CONFIRMED_UPDATES", "BALANCE_FINALIZED_UPDATES", "SEND_TRANSACTION_STATUS_UPDATES"}
)
DOCUMENTED_EVENT_TYPES = frozenset({ACTIVITY_UPDATES, *BILLING_SCOPED})
# The attributes of an activity a later status change replaces.
_CHANGING = ("status", "result", "votes", "updated_at", "failure", "app_proofs")
_changing = operator.attrgetter(*_CHANGING)


def _owners(store: Store, org: Organization) -> tuple[Organization, ...]:
    parent = store.organizations.get(org.parent_id) if org.parent_id is not None else None
    return (org,) if parent is None else (org, parent)


def subscribed(store: Store, org: Organization) -> list[tuple[Organization, WebhookEndpoint]]:
    """The endpoints that receive ``org``'s activity updates, with their organizations."""
    found = []
    for owner in _owners(store, org):
        for endpoint in owner.webhook_endpoints.values():
            if endpoint.is_active and any(
                s.is_active and s.event_type == ACTIVITY_UPDATES for s in endpoint.subscriptions
            ):
                found.append((owner, endpoint))
    return found


def note(world: World, tx: Transaction, org: Organization, activity: Activity) -> None:
    """Deliver ``activity`` as it stands when ``tx`` commits (nothing if it rolls back) to
    the endpoints subscribed now. Costs a lookup or two when there is none."""
    if not org.webhook_endpoints and org.parent_id is None:
        return  # no endpoint can receive it (the common case: skips the list and loop)
    targets = subscribed(world.store, org)
    if targets:
        tx.on_commit(functools.partial(emit, world, org, activity, targets))


def emit(
    world: World,
    org: Organization,
    activity: Activity,
    targets: list[tuple[Organization, WebhookEndpoint]],
) -> None:
    # The activity as it stands now: later transactions replace these attributes (never
    # change them in place), so they keep this status for the sender to render.
    now = _changing(activity)

    def body() -> bytes:
        with world.lock:
            status = dataclasses.replace(activity, **dict(zip(_CHANGING, now, strict=True)))
            rendered = render.activity(status, org, None)
        return json.dumps(rendered, separators=(",", ":")).encode()

    event = f"{activity.activity_id}:{activity.status}:{activity.updated_at}"
    world.webhooks.enqueue(
        ACTIVITY_UPDATES,
        Payload(body),
        world.clock.now_ns(),
        [
            (
                endpoint.endpoint_id,
                owner.organization_id,
                endpoint.url,
                functools.partial(event_id_of, f"{endpoint.endpoint_id}:{event}"),
            )
            for owner, endpoint in targets
        ],
    )


def event_id_of(seed: str) -> str:
    """A UUID naming one status of one activity for one endpoint (``seed``: their ids, the
    status and its time): the same on every retry, and run to run for a seeded emulator."""
    digest = bytearray(hashlib.sha256(seed.encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x80  # version 8 (custom), RFC 9562
    digest[8] = (digest[8] & 0x3F) | 0x80
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
