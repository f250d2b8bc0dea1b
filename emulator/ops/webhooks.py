"""Webhook endpoints: create_webhook_endpoint, update_webhook_endpoint,
delete_webhook_endpoint, list_webhook_endpoints (features/webhooks/overview.mdx).

An endpoint is a URL, a name, whether it is active, and its subscriptions (an event type,
optional ``filtersJson``, active or not). What the docs state is enforced: the URL rules of
``webhooks/urls.py``; a non-empty name; event types inside ``subscriptions[]`` (at
least one on create, each once); balance and transaction status endpoints only in the
billing (top-level) organization, ``PermissionDenied`` from a sub-organization. Unknown
event types are accepted as the docs say they still are ("may be rejected in the future")
but produce no deliveries. Deliveries themselves are ``emulator/events/``'s.
"""

from __future__ import annotations

import re
from typing import Any

from ..events.activity_updates import BILLING_SCOPED
from ..ground import jsontext, messages
from ..ground.errors import InvalidArgument, NotFound, PermissionDenied
from ..ground.external_records import WebhookEndpoint, WebhookSubscription
from ..ground.models import Organization
from ..ground.schema import Array, Boolean, String, label, obj, opt, uuid
from ..services.context import Context
from ..webhooks import urls as webhook_urls
from .registry import Version, activity, query

Params = dict[str, Any]

_EVENT_TYPE = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")

SUBSCRIPTION = obj(  # v1WebhookSubscriptionParams
    eventType=String(),
    filtersJson=opt(String(allow_empty=True)),
    isActive=opt(Boolean()),
)


def find_endpoint(org: Organization, endpoint_id: str) -> WebhookEndpoint:
    found = org.webhook_endpoints.get(endpoint_id)
    if found is None:
        raise NotFound(messages.webhook_endpoint_not_found(endpoint_id, org.organization_id))
    return found


def render_endpoint(org: Organization, endpoint: WebhookEndpoint) -> Params:
    """``v1WebhookEndpointData``."""
    return {
        "endpointId": endpoint.endpoint_id,
        "organizationId": org.organization_id,
        "url": endpoint.url,
        "name": endpoint.name,
        "isActive": endpoint.is_active,
        "subscriptions": [render_subscription(s) for s in endpoint.subscriptions],
    }


def render_subscription(subscription: WebhookSubscription) -> Params:
    out: Params = {"eventType": subscription.event_type, "isActive": subscription.is_active}
    if subscription.filters_json is not None:
        out["filtersJson"] = subscription.filters_json
    return out


def _checked_url(ctx: Context, url: str) -> str:
    try:
        return webhook_urls.check_url(url, allow_loopback=ctx.settings.webhook_allow_loopback)
    except webhook_urls.UrlRefused as refused:
        raise InvalidArgument(messages.invalid_webhook_url(str(refused))) from None


def _checked_name(name: str) -> str:
    if not name.strip():
        raise InvalidArgument(messages.WEBHOOK_NAME_EMPTY)
    return name


def _subscriptions(ctx: Context, specs: list[Params]) -> tuple[WebhookSubscription, ...]:
    if not specs:
        raise InvalidArgument(messages.WEBHOOK_SUBSCRIPTIONS_REQUIRED)
    seen: set[str] = set()
    out = []
    for index, spec in enumerate(specs):
        event_type = spec["eventType"]
        if not _EVENT_TYPE.fullmatch(event_type):
            raise InvalidArgument(messages.invalid_webhook_event_type(index, event_type))
        if event_type in seen:
            raise InvalidArgument(messages.duplicate_webhook_event_type(event_type))
        seen.add(event_type)
        if event_type in BILLING_SCOPED and ctx.org.parent_id is not None:
            raise PermissionDenied(messages.webhook_billing_scoped(event_type))
        filters = spec.get("filtersJson")
        if filters:
            try:
                parsed = jsontext.loads(filters)
            except ValueError:
                parsed = None
            if not isinstance(parsed, dict):
                raise InvalidArgument(messages.invalid_webhook_filters(index))
        out.append(
            WebhookSubscription(
                event_type=event_type,
                filters_json=filters if filters is not None else None,
                is_active=spec.get("isActive", True),
            )
        )
    return tuple(out)


@activity(
    "create_webhook_endpoint",
    summary="Create webhook endpoint",
    default="ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT",
            "createWebhookEndpointIntent",
            "createWebhookEndpointResult",
            obj(url=String(), name=label(), subscriptions=opt(Array(SUBSCRIPTION))),
        )
    ],
)
def create_webhook_endpoint(ctx: Context, params: Params) -> Params:
    url = _checked_url(ctx, params["url"])
    name = _checked_name(params["name"])
    subscriptions = _subscriptions(ctx, params.get("subscriptions", []))
    limit = ctx.settings.max_webhook_endpoints_per_organization
    if limit is not None and len(ctx.org.webhook_endpoints) >= limit:
        raise InvalidArgument(messages.webhook_endpoint_limit(limit))
    endpoint = WebhookEndpoint(
        endpoint_id=ctx.new_id(),
        url=url,
        name=name,
        is_active=True,
        subscriptions=subscriptions,
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.webhook_endpoints, endpoint.endpoint_id, endpoint)
    return {
        "endpointId": endpoint.endpoint_id,
        "webhookEndpoint": render_endpoint(ctx.org, endpoint),
    }


@activity(
    "update_webhook_endpoint",
    summary="Update webhook endpoint",
    default="ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT",
            "updateWebhookEndpointIntent",
            "updateWebhookEndpointResult",
            obj(
                endpointId=uuid(),
                url=opt(String()),
                name=opt(label()),
                isActive=opt(Boolean()),
            ),
        )
    ],
)
def update_webhook_endpoint(ctx: Context, params: Params) -> Params:
    endpoint = find_endpoint(ctx.org, params["endpointId"])
    changes: Params = {}
    if "url" in params:
        changes["url"] = _checked_url(ctx, params["url"])
    if "name" in params:
        changes["name"] = _checked_name(params["name"])
    if "isActive" in params:
        changes["is_active"] = params["isActive"]
    updated = WebhookEndpoint(
        endpoint_id=endpoint.endpoint_id,
        url=changes.get("url", endpoint.url),
        name=changes.get("name", endpoint.name),
        is_active=changes.get("is_active", endpoint.is_active),
        subscriptions=endpoint.subscriptions,
        created_at=endpoint.created_at,
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.webhook_endpoints, endpoint.endpoint_id, updated)
    return {
        "endpointId": updated.endpoint_id,
        "webhookEndpoint": render_endpoint(ctx.org, updated),
    }


@activity(
    "delete_webhook_endpoint",
    summary="Delete webhook endpoint",
    default="ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT",
            "deleteWebhookEndpointIntent",
            "deleteWebhookEndpointResult",
            obj(endpointId=uuid()),
        )
    ],
)
def delete_webhook_endpoint(ctx: Context, params: Params) -> Params:
    endpoint = find_endpoint(ctx.org, params["endpointId"])
    ctx.tx.pop(ctx.org.webhook_endpoints, endpoint.endpoint_id)
    return {"endpointId": endpoint.endpoint_id}


@query(
    "list_webhook_endpoints",
    summary="List webhook endpoints",
    body=obj(),
    result_keys=("webhookEndpoints",),
)
def list_webhook_endpoints(ctx: Context, body: Params) -> Params:
    return {
        "webhookEndpoints": [
            render_endpoint(ctx.org, e) for e in ctx.org.webhook_endpoints.values()
        ]
    }
