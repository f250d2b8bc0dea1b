"""The organization itself: whoami and get_organization_configs."""

from __future__ import annotations

from typing import Any

from ..schema import obj
from ..services.context import Context
from .registry import query

Params = dict[str, Any]


@query(
    "whoami",
    sdk_method="get_whoami",
    summary="Who am I?",
    body=obj(),
    result_keys=("organizationId", "organizationName", "userId", "username"),
)
def whoami(ctx: Context, body: Params) -> Params:
    """The caller's organization and user (a parent's user answers for the parent)."""
    org, user = ctx.caller.organization, ctx.caller.user
    return {
        "organizationId": org.organization_id,
        "organizationName": org.name,
        "userId": user.user_id,
        "username": user.name,
    }


@query("get_organization_configs", summary="Get configs", body=obj(), result_keys=("configs",))
def get_organization_configs(ctx: Context, body: Params) -> Params:
    org = ctx.org
    return {
        "configs": {
            "features": [{"name": name, "value": value} for name, value in org.features.items()],
            "quorum": {
                "threshold": org.root_quorum.threshold,
                "userIds": list(org.root_quorum.user_ids),
            },
        }
    }
