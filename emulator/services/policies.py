"""Policies as records: checked expressions, unique names, the per-organization limit.

A policy's ``condition``, ``consensus`` and ``time`` are parsed when the policy
is created or updated, so a malformed one is the real 400 ("invalid policy
condition: ...") then, never a surprise at evaluation time. An absent
expression is stored as ``""`` (the real ``v1Policy`` always carries both
strings); an empty one that was sent is a parse error, as it is live.
Policies are never mutated in place: an update stores a new record, which lets
the engine cache per-policy-set work by identity.
"""

from __future__ import annotations

from ..ground import messages
from ..ground.errors import InvalidArgument, NotFound, ResourceExhausted
from ..ground.models import Organization, Policy
from ..policy import PolicySyntaxError, parse
from .context import Context

# Which expression a message names: the field of the request and its word in the text.
CONDITION, CONSENSUS, TIME = "condition", "consensus", "time"


def checked_expression(kind: str, text: str | None) -> str:
    """``text`` once it parses (``""`` when absent); the real 400 when it does not."""
    if text is None:
        return ""
    try:
        parse(text)
    except PolicySyntaxError as error:
        raise InvalidArgument(messages.invalid_policy_expression(kind, str(error))) from None
    return text


def find_policy(org: Organization, policy_id: str) -> Policy:
    policy = org.policies.get(policy_id)
    if policy is None:
        raise NotFound(messages.policy_not_found(policy_id, org.organization_id))
    return policy


def check_name_free(org: Organization, name: str, except_id: str | None = None) -> None:
    if any(p.name == name and p.policy_id != except_id for p in org.policies.values()):
        raise InvalidArgument(messages.POLICY_LABEL_NOT_UNIQUE)


def new_policy(ctx: Context, params: dict) -> Policy:
    """A policy from create-policy parameters (V3 names), checked but not yet stored."""
    return Policy(
        policy_id=ctx.new_id(),
        name=params["policyName"],
        effect=params["effect"],
        condition=checked_expression(CONDITION, params.get("condition")),
        consensus=checked_expression(CONSENSUS, params.get("consensus")),
        notes=params["notes"],
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        time=_checked_time(params.get("time")),
    )


def add_policies(ctx: Context, policies: list[Policy]) -> None:
    """Store new policies: names unique among themselves and the organization's, and
    room for all of them under the limit."""
    org, limit = ctx.org, ctx.settings.max_policies_per_organization
    if len(org.policies) + len(policies) > limit:
        raise ResourceExhausted(messages.MAX_POLICIES)
    names = [p.name for p in policies]
    if len(set(names)) != len(names):
        raise InvalidArgument(messages.POLICY_LABEL_NOT_UNIQUE)
    for policy in policies:
        check_name_free(org, policy.name)
        ctx.tx.put(org.policies, policy.policy_id, policy)


def remove_policies(ctx: Context, policy_ids: list[str]) -> list[str]:
    """Delete the policies (all must exist); answer their ids without repeats."""
    unique = list(dict.fromkeys(policy_ids))
    for policy_id in unique:
        find_policy(ctx.org, policy_id)
    for policy_id in unique:
        ctx.tx.pop(ctx.org.policies, policy_id)
    return unique


def _checked_time(text: str | None) -> str | None:
    return None if text is None else checked_expression(TIME, text)
