"""MFA policies: create_mfa_policy, update_mfa_policy, delete_mfa_policy, get_mfa_policies,
get_mfa_policy, get_mfa_status.

What a policy does to the activities its user stamps (``ACTIVITY_STATUS_AUTHENTICATORS_NEEDED``
until the methods are presented) is ``services/mfa.py``'s and the dispatcher's.
"""

from __future__ import annotations

from typing import Any

from ..ground import messages, render
from ..ground.controls import MfaPolicy
from ..ground.errors import NotFound
from ..ground.models import Organization
from ..ground.schema import Array, Enum, Integer, String, label, obj, opt, uuid
from ..services import mfa
from ..services.context import Context
from .activities import find_activity
from .registry import Version, activity, query
from .users import find_user

Params = dict[str, Any]

_METHOD = obj(type=Enum(mfa.TYPES), id=opt(String(allow_empty=True)))
_STEPS = Array(obj(any=Array(_METHOD)))
_ORDER = Integer(minimum=0)


def find_policy(org: Organization, user_id: str, mfa_policy_id: str) -> MfaPolicy:
    policy = org.mfa_policies.get(mfa_policy_id)
    if policy is None or policy.user_id != user_id:
        raise NotFound(messages.mfa_policy_not_found(mfa_policy_id, user_id))
    return policy


@activity(
    "create_mfa_policy",
    summary="Create MFA policy",
    default="ACTIVITY_TYPE_CREATE_MFA_POLICY",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_MFA_POLICY",
            "createMfaPolicyIntent",
            "createMfaPolicyResult",
            obj(
                userId=uuid(),
                mfaPolicyName=label(),
                condition=String(),
                requiredAuthenticationMethods=_STEPS,
                order=_ORDER,
                notes=opt(String(allow_empty=True)),
            ),
        )
    ],
)
def create_mfa_policy(ctx: Context, params: Params) -> Params:
    user = find_user(ctx.org, params["userId"])
    mfa.check_condition(params["condition"])
    required = mfa.steps_from(params["requiredAuthenticationMethods"])
    mfa.check_satisfiable(ctx.store, ctx.org, user, params["mfaPolicyName"], required)
    policy = MfaPolicy(
        mfa_policy_id=ctx.new_id(),
        user_id=user.user_id,
        name=params["mfaPolicyName"],
        condition=params["condition"],
        required=required,
        order=params["order"],
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        notes=params.get("notes", ""),
    )
    ctx.tx.put(ctx.org.mfa_policies, policy.mfa_policy_id, policy)
    return {"mfaPolicyId": policy.mfa_policy_id}


@activity(
    "update_mfa_policy",
    summary="Update MFA policy",
    default="ACTIVITY_TYPE_UPDATE_MFA_POLICY",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_MFA_POLICY",
            "updateMfaPolicyIntent",
            "updateMfaPolicyResult",
            obj(
                userId=uuid(),
                mfaPolicyId=uuid(),
                mfaPolicyName=opt(label()),
                condition=opt(String()),
                requiredAuthenticationMethods=opt(_STEPS),
                order=opt(_ORDER),
                notes=opt(String(allow_empty=True)),
            ),
        )
    ],
)
def update_mfa_policy(ctx: Context, params: Params) -> Params:
    """Only the fields given change; the result must still be one its user can meet."""
    user = find_user(ctx.org, params["userId"])
    policy = find_policy(ctx.org, user.user_id, params["mfaPolicyId"])
    name = params.get("mfaPolicyName", policy.name)
    condition = params.get("condition", policy.condition)
    mfa.check_condition(condition)
    required = policy.required
    if "requiredAuthenticationMethods" in params:
        required = mfa.steps_from(params["requiredAuthenticationMethods"])
    mfa.check_satisfiable(ctx.store, ctx.org, user, name, required)
    for attribute, value in (
        ("name", name),
        ("condition", condition),
        ("required", required),
        ("order", params.get("order", policy.order)),
        ("notes", params.get("notes", policy.notes)),
        ("updated_at", ctx.now_ns),
    ):
        ctx.tx.set(policy, attribute, value)
    return {"mfaPolicyId": policy.mfa_policy_id}


@activity(
    "delete_mfa_policy",
    summary="Delete MFA policy",
    default="ACTIVITY_TYPE_DELETE_MFA_POLICY",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_MFA_POLICY",
            "deleteMfaPolicyIntent",
            "deleteMfaPolicyResult",
            obj(userId=uuid(), mfaPolicyId=uuid()),
        )
    ],
)
def delete_mfa_policy(ctx: Context, params: Params) -> Params:
    user = find_user(ctx.org, params["userId"])
    policy = find_policy(ctx.org, user.user_id, params["mfaPolicyId"])
    ctx.tx.pop(ctx.org.mfa_policies, policy.mfa_policy_id)
    return {"mfaPolicyId": policy.mfa_policy_id}


@query(
    "get_mfa_policies",
    summary="Get MFA policies",
    body=obj(userId=uuid()),
    result_keys=("mfaPolicies",),
)
def get_mfa_policies(ctx: Context, body: Params) -> Params:
    user = find_user(ctx.org, body["userId"])
    return {"mfaPolicies": [render.mfa_policy(p) for p in ctx.org.mfa_policies_of(user.user_id)]}


@query(
    "get_mfa_policy",
    summary="Get MFA policy",
    body=obj(userId=uuid(), mfaPolicyId=uuid()),
    result_keys=("mfaPolicy",),
)
def get_mfa_policy(ctx: Context, body: Params) -> Params:
    user = find_user(ctx.org, body["userId"])
    return {"mfaPolicy": render.mfa_policy(find_policy(ctx.org, user.user_id, body["mfaPolicyId"]))}


@query(
    "get_mfa_status",
    summary="Get MFA status",
    body=obj(activityId=uuid(), userId=opt(uuid())),
    result_keys=("mfaStatuses",),
)
def get_mfa_status(ctx: Context, body: Params) -> Params:
    """One status per voter an MFA policy held on the activity (or only ``userId``'s)."""
    found = find_activity(ctx.org, body["activityId"], ctx.world)
    wanted = body.get("userId")
    return {
        "mfaStatuses": [
            {
                "mfaPolicyId": p.mfa_policy_id,
                "userId": p.user_id,
                "satisfied": p.satisfied,
                "satisfiedMethods": [
                    render.auth_method(m) for m in mfa.satisfying(p.required, p.presented)
                ],
                "requiredMethods": render.auth_steps(p.required),
            }
            for p in found.mfa
            if wanted is None or p.user_id == wanted
        ]
    }
