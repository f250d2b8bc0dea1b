"""``SEND_TRANSACTION_STATUS_UPDATES``: a broadcast transaction's statuses, POSTed to the
billing organization's subscribed endpoints (features/webhooks/overview.mdx, "Transaction
status updates").

A send is noted in its activity's transaction; at commit two deliveries are queued: its
``BROADCASTING`` now, and its outcome (``INCLUDED`` or ``FAILED``) when the emulator's clock
reaches the time the chain decides it (at once with no block time; ``--chain-block-time``
otherwise), so a receiver sees the real order. The body is the docs' ``transaction:status``
object: ``msg`` holds ``txHash`` only once included, and ``error`` for a failure or an
included transaction that reverted. The billing organization is the parent of a
sub-organization, else the organization itself; it owns the endpoints and is
``parentOrganizationId`` (``organizationId`` is the sender's organization).
"""

from __future__ import annotations

import functools
import json

from ..engine_state.store import Store
from ..engine_state.world import World
from ..ground.external_records import SentTransaction, WebhookEndpoint
from ..ground.models import Organization
from ..ground.transaction import Transaction
from ..webhooks.records import Payload
from .activity_updates import event_id_of

SEND_TRANSACTION_STATUS_UPDATES = "SEND_TRANSACTION_STATUS_UPDATES"
BROADCASTING = "BROADCASTING"
INCLUDED = "INCLUDED"


def billing_organization(store: Store, org: Organization) -> Organization:
    parent = store.organizations.get(org.parent_id) if org.parent_id is not None else None
    return parent if parent is not None else org


def subscribed(
    billing: Organization, event_type: str = SEND_TRANSACTION_STATUS_UPDATES
) -> list[WebhookEndpoint]:
    """The billing organization's active endpoints with an active ``event_type``
    subscription."""
    return [
        endpoint
        for endpoint in billing.webhook_endpoints.values()
        if endpoint.is_active
        and any(s.is_active and s.event_type == event_type for s in endpoint.subscriptions)
    ]


def note(world: World, tx: Transaction, org: Organization, sent: SentTransaction) -> None:
    """Queue ``sent``'s statuses when ``tx`` commits (nothing if it rolls back)."""
    billing = billing_organization(world.store, org)
    endpoints = subscribed(billing)
    if endpoints:
        tx.on_commit(functools.partial(_emit, world, org, billing, sent, endpoints))


def _emit(
    world: World,
    org: Organization,
    billing: Organization,
    sent: SentTransaction,
    endpoints: list[WebhookEndpoint],
) -> None:
    activity = (
        world.store.activities_by_fingerprint.get(sent.activity_fingerprint)
        if sent.activity_fingerprint
        else None
    )
    activity_id = activity.activity_id if activity is not None else None
    for status, at_ms in (
        (BROADCASTING, sent.submitted_at_ms),
        (sent.outcome, sent.included_at_ms),
    ):
        key = f"{sent.send_transaction_status_id}:{status}"
        body = _body(org, billing, sent, activity_id, status, at_ms, event_id_of(key))
        enqueue_billing_event(
            world, SEND_TRANSACTION_STATUS_UPDATES, billing, endpoints, key, body, at_ms
        )


def enqueue_billing_event(
    world: World,
    event_type: str,
    billing: Organization,
    endpoints: list[WebhookEndpoint],
    key: str,
    body: bytes,
    due_ms: int,
) -> None:
    """Queue one billing-scoped event (``body``, already rendered) for ``endpoints``, due at
    ``due_ms`` on the emulator's clock; each endpoint's event id derives from ``key``."""
    world.webhooks.enqueue(
        event_type,
        Payload(lambda: body),
        world.clock.now_ns(),
        [
            (e.endpoint_id, billing.organization_id, e.url, event_id_of(f"{e.endpoint_id}:{key}"))
            for e in endpoints
        ],
        due_ns=due_ms * 1_000_000,
    )


def _body(
    org: Organization,
    billing: Organization,
    sent: SentTransaction,
    activity_id: str | None,
    status: str,
    at_ms: int,
    idempotency_key: str,
) -> bytes:
    msg: dict[str, object] = {
        "sendTransactionStatusId": sent.send_transaction_status_id,
        "activityId": activity_id,
        "status": status,
        "caip2": sent.caip2,
        "idempotencyKey": idempotency_key,
        "timestamp": str(at_ms // 1000),
    }
    if status == INCLUDED and sent.tx_hash is not None:
        msg["txHash"] = sent.tx_hash
    if status != BROADCASTING and sent.error is not None:
        msg["error"] = sent.error
    event = {
        "type": "transaction:status",
        "organizationId": org.organization_id,
        "parentOrganizationId": billing.organization_id,
        "msg": msg,
    }
    return json.dumps(event, separators=(",", ":")).encode()
