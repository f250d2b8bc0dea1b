"""Activities: reading them (get_activity, list_activities newest first, paginated, and
their policy evaluations) and voting on them (approve_activity, reject_activity)."""

from __future__ import annotations

import hashlib
from typing import Any

from ..engine_state.world import World
from ..ground import messages, render
from ..ground.enums import ACTIVITY_STATUSES, ACTIVITY_TYPES
from ..ground.errors import InvalidArgument, NotFound
from ..ground.ids import uuid7_from
from ..ground.models import Activity, Organization
from ..ground.schema import Array, Enum, String, obj, opt, uuid
from ..services import activity_lookup, consensus, mfa
from ..services.activities import new_vote
from ..services.context import Context
from ..services.pagination import PAGINATION, paginate
from .registry import Version, activity, query

Params = dict[str, Any]


@query(
    "get_activity", summary="Get activity", body=obj(activityId=uuid()), result_keys=("activity",)
)
def get_activity(ctx: Context, body: Params) -> Params:
    found = find_activity(ctx.org, body["activityId"], ctx.world)
    return {"activity": render.activity(found, ctx.org, ctx.caller.user.user_id)}


def find_activity(org: Organization, activity_id: str, world: World | None = None) -> Activity:
    """The organization's activity (with ``world``: archived ones too, ``state/archive.py``)."""
    found = (
        org.activities.get(activity_id)
        if world is None
        else activity_lookup.find(world, org, activity_id)
    )
    if found is None:
        raise NotFound(messages.activity_not_found(activity_id, org.organization_id))
    return found


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
        for a in activity_lookup.newest_first(ctx.world, ctx.org)
        if (not statuses or a.status in statuses) and (not types or a.activity_type in types)
    ]
    page = paginate(newest_first, body.get("paginationOptions"), lambda a: a.activity_id)
    viewer = ctx.caller.user.user_id
    return {
        "activities": [
            render.activity(activity_lookup.loaded(ctx.world, a), ctx.org, viewer) for a in page
        ]
    }


@query(
    "get_policy_evaluations",
    summary="Get policy evaluations",
    body=obj(activityId=uuid()),
    result_keys=("policyEvaluations",),
)
def get_policy_evaluations(ctx: Context, body: Params) -> Params:
    """One evaluation per vote: how each policy took part when that vote was judged
    (policies whose condition did not hold took no part and are not listed)."""
    found = find_activity(ctx.org, body["activityId"], ctx.world)
    return {
        "policyEvaluations": [
            {
                "id": _evaluation_id(v.vote_id, v.created_at),
                "activityId": found.activity_id,
                "organizationId": found.organization_id,
                "voteId": v.vote_id,
                "policyEvaluations": [
                    {"policyId": o.policy_id, "outcome": o.outcome} for o in v.policy_outcomes
                ],
                "createdAt": render.timestamp(v.created_at),
            }
            for v in found.votes
        ]
    }


def _evaluation_id(vote_id: str, created_at_ns: int) -> str:
    """A stable id for a vote's evaluation, derived from the vote (nothing is stored)."""
    return uuid7_from(created_at_ns // 1_000_000, hashlib.sha256(vote_id.encode()).digest())


_VOTE_PARAMS = obj(fingerprint=String())


@activity(
    "approve_activity",
    summary="Approve activity",
    default="ACTIVITY_TYPE_APPROVE_ACTIVITY",
    vote_selection=consensus.APPROVED,
    versions=[
        Version(
            "ACTIVITY_TYPE_APPROVE_ACTIVITY",
            "approveActivityIntent",
            "",  # no result of its own: the answer is the activity voted on
            _VOTE_PARAMS,
        )
    ],
)
def approve_activity(ctx: Context, params: Params) -> Params:
    return _vote(ctx, consensus.APPROVED, params["fingerprint"])


@activity(
    "reject_activity",
    summary="Reject activity",
    default="ACTIVITY_TYPE_REJECT_ACTIVITY",
    vote_selection=consensus.REJECTED,
    versions=[
        Version(
            "ACTIVITY_TYPE_REJECT_ACTIVITY",
            "rejectActivityIntent",
            "",
            _VOTE_PARAMS,
        )
    ],
)
def reject_activity(ctx: Context, params: Params) -> Params:
    return _vote(ctx, consensus.REJECTED, params["fingerprint"])


def _vote(ctx: Context, selection: str, target_fingerprint: str) -> Params:
    """A vote on the organization's activity with that fingerprint, answered with that
    activity (votes are not activities of their own). The same vote again changes nothing;
    the other one is refused, and so is a vote on an activity that awaits none. From a user
    who owes MFA on the activity, an approval presents the method its stamp proves; while
    the proposer owes it, nobody else may vote."""
    target = activity_lookup.by_fingerprint(ctx.world, target_fingerprint)
    if target is None or target.organization_id != ctx.org.organization_id:
        raise NotFound(messages.ACTIVITY_FINGERPRINT_NOT_FOUND)
    user_id = ctx.caller.user.user_id
    if selection == consensus.APPROVED and mfa.owes(target, user_id):
        consensus.present(ctx.world, ctx.org, target, ctx.caller, ctx.now_ns, ctx.tx)
        return {"activity": render.activity(target, ctx.org, user_id)}
    mine = consensus.live_vote(target, user_id, ctx.now_ns)
    if mine is not None and mine.selection != selection:
        raise InvalidArgument(messages.already_voted(target.activity_id, user_id))
    if mine is None:
        if target.status == consensus.AUTHENTICATORS_NEEDED_STATUS:
            raise InvalidArgument(messages.awaiting_proposer_authenticators(target.activity_id))
        if target.status != consensus.CONSENSUS_NEEDED_STATUS:
            raise InvalidArgument(
                messages.activity_not_awaiting_consensus(target.activity_id, target.status)
            )
        vote = new_vote(ctx.world, ctx.caller, target.activity_id, selection, ctx.raw, ctx.now_ns)
        consensus.cast(ctx.world, ctx.org, target, vote, ctx.now_ns, ctx.tx, ctx.caller)
    return {"activity": render.activity(target, ctx.org, user_id)}
