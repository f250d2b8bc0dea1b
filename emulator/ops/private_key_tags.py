"""Private key tags: create, update, delete and list; each key lists its tags."""

from __future__ import annotations

from typing import Any

from ..ground import messages, render
from ..ground.schema import Array, label, obj, opt, uuid
from ..services import tags
from ..services.context import Context
from .private_keys import find_private_key
from .registry import Version, activity, query

Params = dict[str, Any]

PRIVATE_KEY_TAGS = tags.TagKind(
    tag_type="TAG_TYPE_PRIVATE_KEY",
    tags=lambda org: org.private_key_tags,
    holders=lambda org: org.private_keys,
    find_holder=find_private_key,
    not_found=messages.private_key_tag_not_found,
)


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
    key_ids = params["privateKeyIds"]
    tag = tags.create_tag(ctx, PRIVATE_KEY_TAGS, params["privateKeyTagName"], key_ids)
    return {"privateKeyTagId": tag.tag_id, "privateKeyIds": list(dict.fromkeys(key_ids))}


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
    tag = tags.update_tag(
        ctx,
        PRIVATE_KEY_TAGS,
        params["privateKeyTagId"],
        params.get("newPrivateKeyTagName"),
        params["addPrivateKeyIds"],
        params["removePrivateKeyIds"],
    )
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
    touched = tags.delete_tags(ctx, PRIVATE_KEY_TAGS, tag_ids)
    return {"privateKeyTagIds": tag_ids, "privateKeyIds": touched}


@query(
    "list_private_key_tags",
    summary="List private key tags",
    body=obj(),
    result_keys=("privateKeyTags",),
)
def list_private_key_tags(ctx: Context, body: Params) -> Params:
    return {"privateKeyTags": [render.tag(t) for t in ctx.org.private_key_tags.values()]}
