"""Velocity controls: create_velocity_control, delete_velocity_control, get_velocity_control,
list_velocity_controls (in ``@turnkey/http`` only).

A control names a data source (executed activities, or transfers of on-chain assets in the
transactions Turnkey signs), an aggregation (``COUNT`` or ``SUM`` over a rolling or infinite
window, per organization, user or wallet, compared with a threshold) and an ``identifier``;
policies read it as ``controls.<identifier>``. ``services/velocity.py`` measures, answers
and records; this module checks and stores the definitions.

``delete_velocity_control`` takes both shapes the official clients know: the TypeScript
client's ``ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL`` (one ``velocityControlId``) and the Python
SDK types' ``ACTIVITY_TYPE_DELETE_VELOCITY_CONTROLS`` (a list of ``velocityControlIds``).
"""

from __future__ import annotations

import re
from typing import Any

from ..ground import messages, render
from ..ground.controls import VelocityControl
from ..ground.errors import InvalidArgument, NotFound
from ..ground.models import Organization
from ..ground.schema import Array, Enum, Integer, String, label, obj, opt, uuid
from ..services import asset_transfers, velocity
from ..services.context import Context
from ..services.pagination import PAGINATION, paginate
from .registry import Version, activity, query

Params = dict[str, Any]

METHODS = ("VELOCITY_CONTROL_AGGREGATION_METHOD_SUM", "VELOCITY_CONTROL_AGGREGATION_METHOD_COUNT")
OPERATORS = (
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN",
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL",
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_EQUAL",
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN_OR_EQUAL",
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN",
)

ACTIVITY_FILTER = obj(activity=opt(Array(obj(activityType=String()))))
DATA_SOURCE = obj(
    chainAssetTransfer=opt(
        obj(
            definition=Array(obj(caip19=String(), decimals=Integer(minimum=0, maximum=255))),
            filter=opt(ACTIVITY_FILTER),
            phase=opt(obj(signature=opt(obj()), submission=opt(obj()))),
        )
    ),
    activityExecution=opt(obj(filter=opt(ACTIVITY_FILTER))),
)
AGGREGATION = obj(
    method=Enum(METHODS),
    operator=Enum(OPERATORS),
    threshold=String(),
    window=obj(rolling=opt(obj(duration=Integer(minimum=1))), infinite=opt(obj())),
    groupBy=obj(organization=opt(obj()), user=opt(obj()), wallet=opt(obj())),
)

# Policies read ``controls.<identifier>``: an identifier of the policy language.
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_RESERVED = frozenset({"true", "false", "in"})
# "Non-negative base-10 decimal string with at most 38 total digits and 18 fractional digits."
_THRESHOLD = re.compile(r"([0-9]+)(?:\.([0-9]+))?", re.ASCII)
_ACTIVITY_TYPE = re.compile(r"ACTIVITY_TYPE_[A-Z0-9_]+")


def find_control(org: Organization, velocity_control_id: str) -> VelocityControl:
    found = org.velocity_controls.get(velocity_control_id)
    if found is None:
        raise NotFound(
            messages.velocity_control_not_found(velocity_control_id, org.organization_id)
        )
    return found


def _invalid(why: str) -> InvalidArgument:
    return InvalidArgument(messages.invalid_velocity_control(why))


def _one_of(value: Params, where: str) -> str:
    if len(value) != 1:
        raise _invalid(f"{where} must set exactly one of its fields")
    return next(iter(value))


def _checked_filter(filter_: Params | None, where: str) -> Params | None:
    if filter_ is None:
        return None
    for index, entry in enumerate(filter_.get("activity", [])):
        if not _ACTIVITY_TYPE.fullmatch(entry["activityType"]):
            raise _invalid(f"{where}.activity[{index}].activityType is not an activity type")
    return filter_


def _checked_data_source(source: Params) -> Params:
    kind = _one_of(source, "dataSource")
    if kind == "activityExecution":
        execution = source[kind]
        checked = _checked_filter(execution.get("filter"), "dataSource.activityExecution.filter")
        return {kind: {} if checked is None else {"filter": checked}}
    transfer = source[kind]
    if not transfer["definition"]:
        raise _invalid("dataSource.chainAssetTransfer.definition lists no asset")
    definitions = []
    for index, definition in enumerate(transfer["definition"]):
        if not asset_transfers.is_caip19(definition["caip19"]):
            raise _invalid(
                f"dataSource.chainAssetTransfer.definition[{index}].caip19 is not a CAIP-19 id"
            )
        definitions.append(
            {"caip19": definition["caip19"], "decimals": str(definition["decimals"])}
        )
    out: Params = {"definition": definitions}
    checked = _checked_filter(transfer.get("filter"), "dataSource.chainAssetTransfer.filter")
    if checked is not None:
        out["filter"] = checked
    phase = transfer.get("phase")
    if phase is not None:
        if _one_of(phase, "dataSource.chainAssetTransfer.phase") != "signature":
            raise _invalid("the submission phase is reserved for future use: measure at signature")
        out["phase"] = {"signature": {}}
    return {kind: out}


def _checked_aggregation(aggregation: Params) -> Params:
    threshold = _THRESHOLD.fullmatch(aggregation["threshold"])
    whole, fraction = threshold.groups() if threshold else ("", None)
    if threshold is None or len(whole) + len(fraction or "") > 38 or len(fraction or "") > 18:
        raise _invalid(
            "aggregation.threshold must be a non-negative decimal of at most 38 digits, "
            "18 of them after the point"
        )
    window_kind = _one_of(aggregation["window"], "aggregation.window")
    window: Params = (
        {"rolling": {"duration": str(aggregation["window"]["rolling"]["duration"])}}
        if window_kind == "rolling"
        else {"infinite": {}}
    )
    group_kind = _one_of(aggregation["groupBy"], "aggregation.groupBy")
    return {
        "method": aggregation["method"],
        "operator": aggregation["operator"],
        "threshold": aggregation["threshold"],
        "window": window,
        "groupBy": {group_kind: {}},
    }


def render_control(org: Organization, control: VelocityControl) -> Params:
    """``v1VelocityControl``."""
    return {
        "velocityControlId": control.velocity_control_id,
        "organizationId": org.organization_id,
        "name": control.name,
        "dataSource": control.data_source,
        "aggregation": control.aggregation,
        "createdAt": render.timestamp(control.created_at),
        "updatedAt": render.timestamp(control.created_at),
        "identifier": control.identifier,
    }


@activity(
    "create_velocity_control",
    summary="Create velocity control",
    default="ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL",
    in_python_sdk=False,
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL",
            "createVelocityControlIntent",
            "createVelocityControlResult",
            obj(name=label(), dataSource=DATA_SOURCE, aggregation=AGGREGATION, identifier=String()),
        )
    ],
)
def create_velocity_control(ctx: Context, params: Params) -> Params:
    identifier = params["identifier"]
    if not _IDENTIFIER.fullmatch(identifier) or identifier in _RESERVED:
        raise _invalid(
            "identifier must be a policy-language name (a letter or _, then letters, digits "
            "or _; at most 64), as policies read it as controls.<identifier>"
        )
    if any(c.identifier == identifier for c in ctx.org.velocity_controls.values()):
        raise InvalidArgument(messages.velocity_identifier_not_unique(identifier))
    made = VelocityControl(
        velocity_control_id=ctx.new_id(),
        identifier=identifier,
        name=params["name"],
        data_source=_checked_data_source(params["dataSource"]),
        aggregation=_checked_aggregation(params["aggregation"]),
        created_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.velocity_controls, made.velocity_control_id, made)
    return {"velocityControlId": made.velocity_control_id}


@activity(
    "delete_velocity_control",
    summary="Delete velocity control",
    default="ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL",
    in_python_sdk=False,
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_VELOCITY_CONTROLS",
            "deleteVelocityControlsIntent",
            "deleteVelocityControlsResult",
            obj(velocityControlIds=Array(uuid(), min_items=1)),
        ),
        Version(
            "ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL",
            "deleteVelocityControlIntent",
            "deleteVelocityControlResult",
            obj(velocityControlId=uuid()),
            upgrade=lambda p: {"velocityControlIds": [p["velocityControlId"]]},
            downgrade_result=lambda r: {"velocityControlId": r["velocityControlIds"][0]},
        ),
    ],
)
def delete_velocity_control(ctx: Context, params: Params) -> Params:
    ids = params["velocityControlIds"]
    if len(set(ids)) != len(ids):
        raise InvalidArgument(messages.VELOCITY_CONTROLS_TO_DELETE)
    found = [find_control(ctx.org, i) for i in ids]
    for control in found:
        ctx.tx.pop(ctx.org.velocity_controls, control.velocity_control_id)
        velocity.forget(ctx.tx, ctx.org, control)
    return {"velocityControlIds": ids}


@query(
    "get_velocity_control",
    summary="Get velocity control",
    in_python_sdk=False,
    body=obj(velocityControlId=uuid()),
    result_keys=("velocityControl",),
)
def get_velocity_control(ctx: Context, body: Params) -> Params:
    found = find_control(ctx.org, body["velocityControlId"])
    return {"velocityControl": render_control(ctx.org, found)}


@query(
    "list_velocity_controls",
    summary="List velocity controls",
    in_python_sdk=False,
    body=obj(paginationOptions=opt(PAGINATION)),
    result_keys=("velocityControls", "pageInfo"),
)
def list_velocity_controls(ctx: Context, body: Params) -> Params:
    controls = list(ctx.org.velocity_controls.values())
    page = paginate(controls, body.get("paginationOptions"), lambda c: c.velocity_control_id)
    return {
        "velocityControls": [render_control(ctx.org, c) for c in page],
        "pageInfo": _page_info(controls, page),
    }


def _page_info(items: list[VelocityControl], page: list[VelocityControl]) -> Params:
    """``v1PageInfo``: whether there is more after and before the page, and its cursors."""
    if not page:
        return {"hasNextPage": False, "hasPreviousPage": False}
    first, last = items.index(page[0]), items.index(page[-1])
    return {
        "hasNextPage": last < len(items) - 1,
        "hasPreviousPage": first > 0,
        "startCursor": page[0].velocity_control_id,
        "endCursor": page[-1].velocity_control_id,
    }
