"""Policies: create (one or many), update, delete (one or many), get and list."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ground import messages, render
from ..ground.errors import InvalidArgument
from ..ground.schema import Array, Enum, String, label, obj, opt, uuid
from ..policy import selectors
from ..services import policies
from ..services.context import Context
from .registry import Version, activity, query

Params = dict[str, Any]

EFFECTS = ("EFFECT_ALLOW", "EFFECT_DENY")

# v1CreatePolicyIntentV3: absent expressions are not empty ones (an empty one fails to parse).
CREATE_POLICY_V3 = obj(
    policyName=label(),
    effect=Enum(EFFECTS),
    condition=opt(String()),
    consensus=opt(String()),
    notes=String(allow_empty=True),
    time=opt(String()),
)
UPDATE_POLICY = obj(
    policyId=uuid(),
    policyName=opt(label()),
    policyEffect=opt(Enum(EFFECTS)),
    policyCondition=opt(String()),
    policyConsensus=opt(String()),
    policyNotes=opt(String()),
)
UPDATE_POLICY_V2 = obj(**UPDATE_POLICY.fields, time=opt(String()))


# The legacy versions: a rule as selectors (policy/selectors.py), notes optional.
# (every field optional, as in v1Selector / v1SelectorV2; policy/selectors.py says what is missing)
SELECTOR = obj(subject=opt(String()), operator=opt(Enum(selectors.OPERATORS)), target=opt(String()))
SELECTOR_V2 = obj(
    subject=opt(String()),
    operator=opt(Enum(selectors.OPERATORS)),
    targets=opt(Array(String(allow_empty=True))),
)
CREATE_POLICY_V1 = obj(
    policyName=label(),
    selectors=Array(SELECTOR),
    effect=Enum(EFFECTS),
    notes=opt(String(allow_empty=True)),
)
CREATE_POLICY_V2 = obj(
    policyName=label(),
    selectors=Array(SELECTOR_V2),
    effect=Enum(EFFECTS),
    notes=opt(String(allow_empty=True)),
)


def _from_selectors(params: Params) -> Params:
    """A V1 or V2 policy in the V3 shape: its selectors read as one condition."""
    try:
        condition = selectors.condition(params["selectors"])
    except selectors.SelectorError as error:
        raise InvalidArgument(messages.invalid_policy_selectors(str(error))) from None
    upgraded = {
        "policyName": params["policyName"],
        "effect": params["effect"],
        "notes": params.get("notes", ""),
    }
    if condition is not None:
        upgraded["condition"] = condition
    return upgraded


def _seed_create_policy_intent(params: Params) -> Params:
    """The seed's ``createPolicyIntent``: the policy with ``selectors``, the legacy form of
    its rules. Expressions are not selectors, so the list is empty; the V3 intent beside it
    carries the condition and consensus."""
    intent = {
        "policyName": params["policyName"],
        "selectors": [],
        "effect": params["effect"],
        "notes": params["notes"],
    }
    return {"createPolicyIntent": intent}


@activity(
    "create_policy",
    summary="Create policy",
    default="ACTIVITY_TYPE_CREATE_POLICY_V3",
    in_seed=True,
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_POLICY",
            "createPolicyIntent",
            "createPolicyResult",
            CREATE_POLICY_V1,
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_POLICY_V2",
            "createPolicyIntentV2",
            "createPolicyResult",
            CREATE_POLICY_V2,
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_POLICY_V3",
            "createPolicyIntentV3",
            "createPolicyResult",
            CREATE_POLICY_V3,
            seed_intent_key="createPolicyIntent",
            seed_intent=_seed_create_policy_intent,
        ),
    ],
)
def create_policy(ctx: Context, params: Params) -> Params:
    if "selectors" in params:  # V1, V2: read here, after the policy engine, as V3's expressions
        params = _from_selectors(params)
    policy = policies.new_policy(ctx, params)
    policies.add_policies(ctx, [policy])
    return {"policyId": policy.policy_id}


@activity(
    "create_policies",
    summary="Create policies",
    default="ACTIVITY_TYPE_CREATE_POLICIES",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_POLICIES",
            "createPoliciesIntent",
            "createPoliciesResult",
            obj(policies=Array(CREATE_POLICY_V3, min_items=1)),
        )
    ],
)
def create_policies(ctx: Context, params: Params) -> Params:
    """Every policy or none: one bad expression or name fails them all."""
    made = [policies.new_policy(ctx, p) for p in params["policies"]]
    policies.add_policies(ctx, made)
    return {"policyIds": [p.policy_id for p in made]}


@activity(
    "update_policy",
    summary="Update policy",
    default="ACTIVITY_TYPE_UPDATE_POLICY_V2",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_POLICY",
            "updatePolicyIntent",
            "updatePolicyResult",
            UPDATE_POLICY,
        ),
        Version(
            "ACTIVITY_TYPE_UPDATE_POLICY_V2",
            "updatePolicyIntentV2",
            "updatePolicyResultV2",
            UPDATE_POLICY_V2,
        ),
    ],
)
def update_policy(ctx: Context, params: Params) -> Params:
    """Change the fields given; the rest stay. The record is replaced, never mutated."""
    old = policies.find_policy(ctx.org, params["policyId"])
    name = params.get("policyName", old.name)
    policies.check_name_free(ctx.org, name, except_id=old.policy_id)
    condition, consensus = params.get("policyCondition"), params.get("policyConsensus")
    time = params.get("time")
    new = replace(
        old,
        name=name,
        effect=params.get("policyEffect", old.effect),
        condition=old.condition
        if condition is None
        else policies.checked_expression(policies.CONDITION, condition),
        consensus=old.consensus
        if consensus is None
        else policies.checked_expression(policies.CONSENSUS, consensus),
        notes=params.get("policyNotes", old.notes),
        time=old.time if time is None else policies.checked_expression(policies.TIME, time),
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.policies, new.policy_id, new)
    return {"policyId": new.policy_id}


@activity(
    "delete_policy",
    summary="Delete policy",
    default="ACTIVITY_TYPE_DELETE_POLICY",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_POLICY",
            "deletePolicyIntent",
            "deletePolicyResult",
            obj(policyId=uuid()),
        )
    ],
)
def delete_policy(ctx: Context, params: Params) -> Params:
    policies.remove_policies(ctx, [params["policyId"]])
    return {"policyId": params["policyId"]}


@activity(
    "delete_policies",
    summary="Delete policies",
    default="ACTIVITY_TYPE_DELETE_POLICIES",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_POLICIES",
            "deletePoliciesIntent",
            "deletePoliciesResult",
            obj(policyIds=Array(uuid(), min_items=1)),
        )
    ],
)
def delete_policies(ctx: Context, params: Params) -> Params:
    """All the policies or none: one unknown id fails the activity."""
    return {"policyIds": policies.remove_policies(ctx, params["policyIds"])}


@query("get_policy", summary="Get policy", body=obj(policyId=uuid()), result_keys=("policy",))
def get_policy(ctx: Context, body: Params) -> Params:
    return {"policy": render.policy(policies.find_policy(ctx.org, body["policyId"]))}


@query(
    "list_policies",
    sdk_method="get_policies",
    summary="List policies",
    body=obj(),
    result_keys=("policies",),
)
def list_policies(ctx: Context, body: Params) -> Params:
    return {"policies": [render.policy(p) for p in ctx.org.policies.values()]}
