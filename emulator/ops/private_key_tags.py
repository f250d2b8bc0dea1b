"""Private key tags: create, update, delete and list; each key lists its tags."""

from __future__ import annotations

from typing import Any

from .. import messages, render
from ..errors import InvalidArgument, NotFound, ResourceExhausted
from ..models import Tag
from ..schema import Array, label, obj, opt, uuid
from ..services.context import Context
from .private_keys import find_private_key
from .registry import Version, activity, query
from .user_tags import tag_count

Params = dict[str, Any]
PRIVATE_KEY_TAG = "TAG_TYPE_PRIVATE_KEY"


def _check_name_free(ctx: Context, name: str, except_id: str | None = None) -> None:
    tags = ctx.org.private_key_tags.values()
    if any(t.name == name and t.tag_id != except_id for t in tags):
        raise InvalidArgument(messages.tag_name_taken(name), turnkey_error_code="REQUEST_INVALID")


def _find_tag(ctx: Context, tag_id: str) -> Tag:
    tag = ctx.org.private_key_tags.get(tag_id)
    if tag is None:
        raise NotFound(messages.private_key_tag_not_found(tag_id, ctx.org.organization_id))
    return tag


def _tag_keys(ctx: Context, tag_id: str, key_ids: list[str], *, add: bool) -> None:
    for key_id in dict.fromkeys(key_ids):
        key = find_private_key(ctx.org, key_id)
        tags = [t for t in key.tag_ids if t != tag_id]
        ctx.tx.set(key, "tag_ids", [*tags, tag_id] if add else tags)


@activity(
    "create_private_key_tag",
    summary="Create private key tag",
    default="ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
            "createPrivateKeyTagIntent",
            "createPrivateKeyTagResult",
            obj(privateKeyTagName=label(), privateKeyIds=Array(uuid())),
        )
    ],
)
def create_private_key_tag(ctx: Context, params: Params) -> Params:
    if tag_count(ctx.org) >= ctx.settings.max_tags_per_organization:
        raise ResourceExhausted(messages.MAX_TAGS, turnkey_error_code="RATE_LIMIT_EXCEEDED")
    _check_name_free(ctx, params["privateKeyTagName"])
    tag = Tag(ctx.new_id(), params["privateKeyTagName"], PRIVATE_KEY_TAG, ctx.now_ns, ctx.now_ns)
    ctx.tx.put(ctx.org.private_key_tags, tag.tag_id, tag)
    _tag_keys(ctx, tag.tag_id, params["privateKeyIds"], add=True)
    return {
        "privateKeyTagId": tag.tag_id,
        "privateKeyIds": list(dict.fromkeys(params["privateKeyIds"])),
    }


@activity(
    "update_private_key_tag",
    summary="Update private key tag",
    default="ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG",
    in_seed=True,
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG",
            "updatePrivateKeyTagIntent",
            "updatePrivateKeyTagResult",
            obj(
                privateKeyTagId=uuid(),
                newPrivateKeyTagName=opt(label()),
                addPrivateKeyIds=Array(uuid()),
                removePrivateKeyIds=Array(uuid()),
            ),
        )
    ],
)
def update_private_key_tag(ctx: Context, params: Params) -> Params:
    """Rename the tag and move keys in and out of it: every change or none."""
    tag = _find_tag(ctx, params["privateKeyTagId"])
    if params.get("newPrivateKeyTagName"):
        _check_name_free(ctx, params["newPrivateKeyTagName"], except_id=tag.tag_id)
        ctx.tx.set(tag, "name", params["newPrivateKeyTagName"])
    _tag_keys(ctx, tag.tag_id, params["addPrivateKeyIds"], add=True)
    _tag_keys(ctx, tag.tag_id, params["removePrivateKeyIds"], add=False)
    ctx.tx.set(tag, "updated_at", ctx.now_ns)
    return {"privateKeyTagId": tag.tag_id}


@activity(
    "delete_private_key_tags",
    summary="Delete private key tags",
    default="ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS",
            "deletePrivateKeyTagsIntent",
            "deletePrivateKeyTagsResult",
            obj(privateKeyTagIds=Array(uuid(), min_items=1)),
        )
    ],
)
def delete_private_key_tags(ctx: Context, params: Params) -> Params:
    """Delete the tags and take them off every key; answer the keys that had them."""
    tag_ids = list(dict.fromkeys(params["privateKeyTagIds"]))
    for tag_id in tag_ids:
        _find_tag(ctx, tag_id)
    doomed = set(tag_ids)
    touched = []
    for key in ctx.org.private_keys.values():
        if doomed.intersection(key.tag_ids):
            ctx.tx.set(key, "tag_ids", [t for t in key.tag_ids if t not in doomed])
            touched.append(key.private_key_id)
    for tag_id in tag_ids:
        ctx.tx.pop(ctx.org.private_key_tags, tag_id)
    return {"privateKeyTagIds": tag_ids, "privateKeyIds": touched}


@query(
    "list_private_key_tags",
    summary="List private key tags",
    body=obj(),
    result_keys=("privateKeyTags",),
)
def list_private_key_tags(ctx: Context, body: Params) -> Params:
    return {"privateKeyTags": [render.tag(t) for t in ctx.org.private_key_tags.values()]}
