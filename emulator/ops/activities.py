"""Reading activities: get_activity, list_activities (newest first, paginated)."""

from __future__ import annotations

from typing import Any

from .. import messages, render
from ..enums import ACTIVITY_STATUSES, ACTIVITY_TYPES
from ..errors import NotFound
from ..schema import Array, Enum, obj, opt, uuid
from ..services.context import Context
from ..services.pagination import PAGINATION, paginate
from .registry import query

Params = dict[str, Any]


@query(
    "get_activity", summary="Get activity", body=obj(activityId=uuid()), result_keys=("activity",)
)
def get_activity(ctx: Context, body: Params) -> Params:
    activity = ctx.org.activities.get(body["activityId"])
    if activity is None:
        raise NotFound(messages.activity_not_found(body["activityId"], ctx.org.organization_id))
    return {"activity": render.activity(activity, ctx.org, ctx.caller.user.user_id)}


@query(
    "list_activities",
    sdk_method="get_activities",
    summary="List activities",
    body=obj(
        filterByStatus=opt(Array(Enum(ACTIVITY_STATUSES))),
        filterByType=opt(Array(Enum(ACTIVITY_TYPES))),
        paginationOptions=opt(PAGINATION),
    ),
    result_keys=("activities",),
)
def list_activities(ctx: Context, body: Params) -> Params:
    statuses = set(body.get("filterByStatus") or ())
    types = set(body.get("filterByType") or ())
    newest_first = [
        a
        for a in reversed(ctx.org.activities.values())
        if (not statuses or a.status in statuses) and (not types or a.activity_type in types)
    ]
    page = paginate(newest_first, body.get("paginationOptions"), lambda a: a.activity_id)
    viewer = ctx.caller.user.user_id
    return {"activities": [render.activity(a, ctx.org, viewer) for a in page]}
