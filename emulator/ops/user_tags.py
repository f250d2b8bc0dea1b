"""User tags: create_user_tag, update_user_tag, delete_user_tags, list_user_tags."""

from __future__ import annotations

from typing import Any

from .. import messages, render
from ..errors import InvalidArgument, NotFound, ResourceExhausted
from ..models import Organization, Tag
from ..schema import Array, label, obj, opt, uuid
from ..services.context import Context
from .registry import Version, activity, query
from .users import find_user

Params = dict[str, Any]
USER_TAG = "TAG_TYPE_USER"


def tag_count(org: Organization) -> int:
    """Tags of both kinds (user and private key) count against one organization limit."""
    return len(org.user_tags) + len(org.private_key_tags)


def _check_name_free(ctx: Context, name: str, except_id: str | None = None) -> None:
    if any(t.name == name and t.tag_id != except_id for t in ctx.org.user_tags.values()):
        raise InvalidArgument(messages.tag_name_taken(name), turnkey_error_code="REQUEST_INVALID")


def _tag_users(ctx: Context, tag_id: str, user_ids: list[str], *, add: bool) -> None:
    for user_id in dict.fromkeys(user_ids):
        user = find_user(ctx.org, user_id)
        tags = [t for t in user.tag_ids if t != tag_id]
        ctx.tx.set(user, "tag_ids", [*tags, tag_id] if add else tags)


@activity(
    "create_user_tag",
    summary="Create user tag",
    default="ACTIVITY_TYPE_CREATE_USER_TAG",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_USER_TAG",
            "createUserTagIntent",
            "createUserTagResult",
            obj(userTagName=label(), userIds=Array(uuid())),
        )
    ],
)
def create_user_tag(ctx: Context, params: Params) -> Params:
    if tag_count(ctx.org) >= ctx.settings.max_tags_per_organization:
        raise ResourceExhausted(messages.MAX_TAGS, turnkey_error_code="RATE_LIMIT_EXCEEDED")
    _check_name_free(ctx, params["userTagName"])
    tag = Tag(ctx.new_id(), params["userTagName"], USER_TAG, ctx.now_ns, ctx.now_ns)
    ctx.tx.put(ctx.org.user_tags, tag.tag_id, tag)
    _tag_users(ctx, tag.tag_id, params["userIds"], add=True)
    return {"userTagId": tag.tag_id, "userIds": list(dict.fromkeys(params["userIds"]))}


def _find_tag(ctx: Context, tag_id: str) -> Tag:
    tag = ctx.org.user_tags.get(tag_id)
    if tag is None:
        raise NotFound(messages.user_tag_not_found(tag_id, ctx.org.organization_id))
    return tag


@activity(
    "update_user_tag",
    summary="Update user tag",
    default="ACTIVITY_TYPE_UPDATE_USER_TAG",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_USER_TAG",
            "updateUserTagIntent",
            "updateUserTagResult",
            obj(
                userTagId=uuid(),
                newUserTagName=opt(label()),
                addUserIds=Array(uuid()),
                removeUserIds=Array(uuid()),
            ),
        )
    ],
)
def update_user_tag(ctx: Context, params: Params) -> Params:
    """Rename the tag and move users in and out of it, all or nothing."""
    tag = _find_tag(ctx, params["userTagId"])
    if params.get("newUserTagName"):
        _check_name_free(ctx, params["newUserTagName"], except_id=tag.tag_id)
        ctx.tx.set(tag, "name", params["newUserTagName"])
    _tag_users(ctx, tag.tag_id, params["addUserIds"], add=True)
    _tag_users(ctx, tag.tag_id, params["removeUserIds"], add=False)
    ctx.tx.set(tag, "updated_at", ctx.now_ns)
    return {"userTagId": tag.tag_id}


@activity(
    "delete_user_tags",
    summary="Delete user tags",
    default="ACTIVITY_TYPE_DELETE_USER_TAGS",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_USER_TAGS",
            "deleteUserTagsIntent",
            "deleteUserTagsResult",
            obj(userTagIds=Array(uuid(), min_items=1)),
        )
    ],
)
def delete_user_tags(ctx: Context, params: Params) -> Params:
    """Delete the tags and take them off every user; answer the users that had them."""
    tag_ids = list(dict.fromkeys(params["userTagIds"]))
    for tag_id in tag_ids:
        _find_tag(ctx, tag_id)
    doomed = set(tag_ids)
    touched = []
    for user in ctx.org.users.values():
        if doomed.intersection(user.tag_ids):
            ctx.tx.set(user, "tag_ids", [t for t in user.tag_ids if t not in doomed])
            touched.append(user.user_id)
    for tag_id in tag_ids:
        ctx.tx.pop(ctx.org.user_tags, tag_id)
    return {"userTagIds": tag_ids, "userIds": touched}


@query("list_user_tags", summary="List user tags", body=obj(), result_keys=("userTags",))
def list_user_tags(ctx: Context, body: Params) -> Params:
    return {"userTags": [render.tag(t) for t in ctx.org.user_tags.values()]}
