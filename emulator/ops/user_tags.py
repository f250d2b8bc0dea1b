"""User tags: create_user_tag, update_user_tag, delete_user_tags, list_user_tags."""

from __future__ import annotations

from typing import Any

from ..ground import messages, render
from ..ground.schema import Array, label, obj, opt, uuid
from ..services import tags
from ..services.context import Context
from .registry import Version, activity, query
from .users import find_user

Params = dict[str, Any]

USER_TAGS = tags.TagKind(
    tag_type="TAG_TYPE_USER",
    tags=lambda org: org.user_tags,
    holders=lambda org: org.users,
    find_holder=find_user,
    not_found=messages.user_tag_not_found,
)


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
    tag = tags.create_tag(ctx, USER_TAGS, params["userTagName"], params["userIds"])
    return {"userTagId": tag.tag_id, "userIds": list(dict.fromkeys(params["userIds"]))}


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
    tag = tags.update_tag(
        ctx,
        USER_TAGS,
        params["userTagId"],
        params.get("newUserTagName"),
        params["addUserIds"],
        params["removeUserIds"],
    )
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
    return {"userTagIds": tag_ids, "userIds": tags.delete_tags(ctx, USER_TAGS, tag_ids)}


@query("list_user_tags", summary="List user tags", body=obj(), result_keys=("userTags",))
def list_user_tags(ctx: Context, body: Params) -> Params:
    return {"userTags": [render.tag(t) for t in ctx.org.user_tags.values()]}
