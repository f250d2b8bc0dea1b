"""get_active_policies: for each policy of the organization,
whether its ``time`` expression holds now, on the emulator's clock.

A policy without ``time`` is always active and has no ``timeExpr``; one whose ``time`` fails
to evaluate is reported inactive with the evaluation ``error``. ``evaluatedAtMs`` is the one
instant every policy was judged at (the docs' "trusted server time").
"""

from __future__ import annotations

from typing import Any

from ..ground.schema import obj
from ..policy import PolicyEvaluationError, Timestamp, parse
from ..services.context import Context
from .registry import query

Params = dict[str, Any]


@query(
    "get_active_policies",
    summary="Get active policies",
    body=obj(),
    result_keys=("statuses", "evaluatedAtMs"),
)
def get_active_policies(ctx: Context, body: Params) -> Params:
    now_ns = ctx.world.clock.now_ns()
    env = {"time": {"now": Timestamp.from_ns(now_ns)}}
    statuses = []
    for policy in ctx.org.policies.values():
        status: Params = {"organizationId": ctx.org.organization_id, "policyId": policy.policy_id}
        if not policy.time:
            status["active"] = True
        else:
            status["timeExpr"] = policy.time
            try:
                status["active"] = parse(policy.time).test(env)
            except PolicyEvaluationError as error:
                status["active"] = False
                status["error"] = str(error)
        statuses.append(status)
    return {"statuses": statuses, "evaluatedAtMs": str(now_ns // 1_000_000)}
