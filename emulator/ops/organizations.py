"""The organization itself: whoami, get_organization and get_organization_configs."""

from __future__ import annotations

from typing import Any

from ..ground import render
from ..ground.models import Organization
from ..ground.schema import obj
from ..services.context import Context
from . import contract_interfaces
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


def _features(org: Organization) -> list[Params]:
    return [{"name": name, "value": value} for name, value in org.features.items()]


def _quorum(org: Organization) -> Params:
    return {"threshold": org.root_quorum.threshold, "userIds": list(org.root_quorum.user_ids)}


@query(
    "get_organization",
    summary="Get organization",
    body=obj(),
    result_keys=("organizationData",),
    in_python_sdk=False,
)
def get_organization(ctx: Context, body: Params) -> Params:
    """``v1OrganizationData``: everything the organization holds, in one answer."""
    org = ctx.org
    tags = [*org.user_tags.values(), *org.private_key_tags.values()]
    return {
        "organizationData": {
            "organizationId": org.organization_id,
            "name": org.name,
            "users": [render.user(u, org) for u in org.users.values()],
            "policies": [render.policy(p) for p in org.policies.values()],
            "privateKeys": [render.private_key(k) for k in org.private_keys.values()],
            "invitations": [render.invitation(i) for i in org.invitations.values()],
            "tags": [render.tag(t) for t in tags],
            "rootQuorum": _quorum(org),
            "features": _features(org),
            "wallets": [render.wallet(w) for w in org.wallets.values()],
            "smartContractInterfaceReferences": [
                contract_interfaces.reference(i) for i in org.smart_contract_interfaces.values()
            ],
        }
    }


@query("get_organization_configs", summary="Get configs", body=obj(), result_keys=("configs",))
def get_organization_configs(ctx: Context, body: Params) -> Params:
    return {"configs": {"features": _features(ctx.org), "quorum": _quorum(ctx.org)}}
