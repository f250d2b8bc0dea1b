"""API keys: create_api_keys, delete_api_keys, get_api_key, get_api_keys."""

from __future__ import annotations

from typing import Any

from ..ground import messages, render
from ..ground.errors import NotFound
from ..ground.models import ApiKey, Organization
from ..ground.schema import Array, obj, opt, uuid
from ..services.context import Context
from ..services.credentials import add_api_key
from .params import API_KEY_PARAMS, API_KEY_PARAMS_V2, upgrade_api_key
from .registry import Version, activity, query
from .users import find_user

Params = dict[str, Any]


def _seed_intent(params: Params) -> Params:
    """The seed's ``createApiKeysIntent``: the keys without ``curveType``."""
    keys = [{k: v for k, v in key.items() if k != "curveType"} for key in params["apiKeys"]]
    return {"createApiKeysIntent": {"apiKeys": keys, "userId": params["userId"]}}


def _upgrade(params: Params) -> Params:
    return {**params, "apiKeys": [upgrade_api_key(k) for k in params["apiKeys"]]}


@activity(
    "create_api_keys",
    summary="Create API keys",
    in_seed=True,
    self_service=True,
    default="ACTIVITY_TYPE_CREATE_API_KEYS_V2",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_API_KEYS",
            "createApiKeysIntent",
            "createApiKeysResult",
            obj(apiKeys=Array(API_KEY_PARAMS, min_items=1), userId=uuid()),
            upgrade=_upgrade,
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
            "createApiKeysIntentV2",
            "createApiKeysResult",
            obj(apiKeys=Array(API_KEY_PARAMS_V2, min_items=1), userId=uuid()),
            seed_intent_key="createApiKeysIntent",
            seed_intent=_seed_intent,
        ),
    ],
)
def create_api_keys(ctx: Context, params: Params) -> Params:
    user = find_user(ctx.org, params["userId"])
    keys = [add_api_key(ctx, user, key, f"apiKeys.{i}") for i, key in enumerate(params["apiKeys"])]
    return {"apiKeyIds": [k.api_key_id for k in keys]}


@activity(
    "delete_api_keys",
    summary="Delete API keys",
    self_service=True,
    default="ACTIVITY_TYPE_DELETE_API_KEYS",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_API_KEYS",
            "deleteApiKeysIntent",
            "deleteApiKeysResult",
            obj(userId=uuid(), apiKeyIds=Array(uuid(), min_items=1)),
        )
    ],
)
def delete_api_keys(ctx: Context, params: Params) -> Params:
    user = find_user(ctx.org, params["userId"])
    key_ids = list(dict.fromkeys(params["apiKeyIds"]))
    for key_id in key_ids:
        key = user.api_keys.get(key_id)
        if key is None:
            raise NotFound(messages.api_key_not_found(key_id, ctx.org.organization_id))
        ctx.store.remove_api_key(ctx.tx, ctx.org, user, key)
    return {"apiKeyIds": key_ids}


def find_api_key(org: Organization, api_key_id: str) -> ApiKey:
    for user in org.users.values():
        key = user.api_keys.get(api_key_id)
        if key is not None:
            return key
    raise NotFound(messages.api_key_not_found(api_key_id, org.organization_id))


@query("get_api_key", summary="Get API key", body=obj(apiKeyId=uuid()), result_keys=("apiKey",))
def get_api_key(ctx: Context, body: Params) -> Params:
    return {"apiKey": render.api_key(find_api_key(ctx.org, body["apiKeyId"]))}


@query(
    "get_api_keys",
    summary="Get API keys",
    body=obj(userId=opt(uuid())),
    result_keys=("apiKeys",),
)
def get_api_keys(ctx: Context, body: Params) -> Params:
    """The keys of ``userId``, or of the caller when it is not given."""
    user_id = body.get("userId") or ctx.caller.user.user_id
    if not body.get("userId") and ctx.caller.organization is not ctx.org:
        return {"apiKeys": []}
    user = find_user(ctx.org, user_id)
    return {"apiKeys": [render.api_key(k) for k in user.api_keys.values()]}
