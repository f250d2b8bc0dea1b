"""Passkeys: create_authenticators, delete_authenticators, get_authenticator(s)."""

from __future__ import annotations

from typing import Any

from ..ground import messages, render
from ..ground.errors import NotFound
from ..ground.models import Authenticator, Organization
from ..ground.schema import Array, obj, uuid
from ..services.context import Context
from ..services.credentials import add_authenticator
from .params import (
    AUTHENTICATOR_PARAMS,
    AUTHENTICATOR_PARAMS_V2,
    downgrade_authenticator,
    upgrade_authenticator,
)
from .registry import Version, activity, query
from .users import find_user

Params = dict[str, Any]


def _seed_intent(params: Params) -> Params:
    """The seed's ``createAuthenticatorsIntent``: each passkey as a V1 ``PublicKeyCredential``."""
    user_id = params["userId"]
    return {
        "createAuthenticatorsIntent": {
            "authenticators": [
                downgrade_authenticator(a, user_id) for a in params["authenticators"]
            ],
            "userId": user_id,
        }
    }


def _upgrade(params: Params) -> Params:
    return {
        **params,
        "authenticators": [upgrade_authenticator(a) for a in params["authenticators"]],
    }


@activity(
    "create_authenticators",
    summary="Create authenticators",
    in_seed=True,
    self_service=True,
    default="ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_AUTHENTICATORS",
            "createAuthenticatorsIntent",
            "createAuthenticatorsResult",
            obj(authenticators=Array(AUTHENTICATOR_PARAMS, min_items=1), userId=uuid()),
            upgrade=_upgrade,
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
            "createAuthenticatorsIntentV2",
            "createAuthenticatorsResult",
            obj(authenticators=Array(AUTHENTICATOR_PARAMS_V2, min_items=1), userId=uuid()),
            seed_intent_key="createAuthenticatorsIntent",
            seed_intent=_seed_intent,
        ),
    ],
)
def create_authenticators(ctx: Context, params: Params) -> Params:
    user = find_user(ctx.org, params["userId"])
    created = [
        add_authenticator(ctx, user, a, f"authenticators.{i}")
        for i, a in enumerate(params["authenticators"])
    ]
    return {"authenticatorIds": [a.authenticator_id for a in created]}


@activity(
    "delete_authenticators",
    summary="Delete authenticators",
    self_service=True,
    default="ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
            "deleteAuthenticatorsIntent",
            "deleteAuthenticatorsResult",
            obj(userId=uuid(), authenticatorIds=Array(uuid(), min_items=1)),
        )
    ],
)
def delete_authenticators(ctx: Context, params: Params) -> Params:
    user = find_user(ctx.org, params["userId"])
    ids = list(dict.fromkeys(params["authenticatorIds"]))
    for authenticator_id in ids:
        if authenticator_id not in user.authenticators:
            raise NotFound(
                messages.authenticator_not_found(authenticator_id, ctx.org.organization_id)
            )
        ctx.tx.pop(user.authenticators, authenticator_id)
    return {"authenticatorIds": ids}


def find_authenticator(org: Organization, authenticator_id: str) -> Authenticator:
    for user in org.users.values():
        found = user.authenticators.get(authenticator_id)
        if found is not None:
            return found
    raise NotFound(messages.authenticator_not_found(authenticator_id, org.organization_id))


@query(
    "get_authenticator",
    summary="Get authenticator",
    body=obj(authenticatorId=uuid()),
    result_keys=("authenticator",),
)
def get_authenticator(ctx: Context, body: Params) -> Params:
    return {
        "authenticator": render.authenticator(find_authenticator(ctx.org, body["authenticatorId"]))
    }


@query(
    "get_authenticators",
    summary="Get authenticators",
    body=obj(userId=uuid()),
    result_keys=("authenticators",),
)
def get_authenticators(ctx: Context, body: Params) -> Params:
    user = find_user(ctx.org, body["userId"])
    return {"authenticators": [render.authenticator(a) for a in user.authenticators.values()]}
