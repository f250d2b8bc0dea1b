"""IP allowlists: set_ip_allowlist, remove_ip_allowlist, get_ip_allowlist.

Each call of ``set_ip_allowlist`` replaces the whole allowlist of its scope: the
organization's (no ``publicKey``) or one API key's. The rules and the enforcement are
``services/ip_allowlists.py``'s.
"""

from __future__ import annotations

from typing import Any

from ..ground import messages
from ..ground.controls import IpAllowlist
from ..ground.errors import InvalidArgument, NotFound
from ..ground.schema import Array, Boolean, Enum, String, obj, opt
from ..services import ip_allowlists
from ..services.context import Context
from .registry import Version, activity, query

Params = dict[str, Any]

RULE = obj(cidr=String(), label=opt(String(allow_empty=True)))


def _scope(ctx: Context, params: Params) -> str:
    """The allowlist's key: ``""`` for the organization's, else the API key's public key
    (lower case), which must be a key of a user of this organization."""
    if ctx.org.parent_id is not None:
        raise InvalidArgument(messages.IP_ALLOWLIST_SUB_ORGANIZATION)
    public_key = (params.get("publicKey") or "").lower()
    if public_key and not any(
        key.public_key.lower() == public_key
        for user in ctx.org.users.values()
        for key in user.api_keys.values()
    ):
        raise NotFound(
            messages.api_key_not_found_by_public_key(params["publicKey"], ctx.org.organization_id)
        )
    return public_key


@activity(
    "set_ip_allowlist",
    summary="Set IP Allowlist",
    default="ACTIVITY_TYPE_SET_IP_ALLOWLIST",
    versions=[
        Version(
            "ACTIVITY_TYPE_SET_IP_ALLOWLIST",
            "setIpAllowlistIntent",
            "setIpAllowlistResult",
            obj(
                publicKey=opt(String(allow_empty=True)),
                enabled=opt(Boolean()),
                rules=opt(Array(RULE)),
                onEvaluationError=opt(Enum(ip_allowlists.ON_ERROR)),
            ),
        )
    ],
)
def set_ip_allowlist(ctx: Context, params: Params) -> Params:
    scope = _scope(ctx, params)
    rules = ip_allowlists.rules_of(params.get("rules", []), ctx.now_ns // 1_000_000)
    allowlist = IpAllowlist(
        public_key=scope,
        rules=rules,
        enabled=None if scope else bool(params.get("enabled", False)),
        on_evaluation_error=params.get("onEvaluationError", "DENY"),
    )
    ctx.tx.put(ctx.org.ip_allowlists, scope, allowlist)
    return {}


@activity(
    "remove_ip_allowlist",
    summary="Remove IP Allowlist",
    default="ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST",
    versions=[
        Version(
            "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST",
            "removeIpAllowlistIntent",
            "removeIpAllowlistResult",
            obj(publicKey=opt(String(allow_empty=True))),
        )
    ],
)
def remove_ip_allowlist(ctx: Context, params: Params) -> Params:
    """Removing one that does not exist changes nothing and succeeds."""
    scope = _scope(ctx, params)
    if scope in ctx.org.ip_allowlists:
        ctx.tx.pop(ctx.org.ip_allowlists, scope)
    return {}


@query(
    "get_ip_allowlist",
    summary="Get IP Allowlist",
    body=obj(publicKey=opt(String(allow_empty=True))),
    result_keys=("allowlist",),
)
def get_ip_allowlist(ctx: Context, body: Params) -> Params:
    scope = (body.get("publicKey") or "").lower()
    allowlist = ctx.org.ip_allowlists.get(scope)
    return {"allowlist": ip_allowlists.render(ctx.org, allowlist, body.get("publicKey") or "")}
