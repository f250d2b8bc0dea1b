"""Tags of both kinds (user tags, private key tags): one set of rules.

A tag has a unique name in its organization and is listed on each of its
holders (``tag_ids`` of a user or a private key). Both kinds count against the
organization's one tag limit, which is lower in a sub-organization (10) than in
a parent (100). The operations modules only map parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..ground import messages
from ..ground.errors import InvalidArgument, NotFound, ResourceExhausted
from ..ground.models import Organization, Tag
from .context import Context


@dataclass(frozen=True)
class TagKind:
    tag_type: str  # TAG_TYPE_USER | TAG_TYPE_PRIVATE_KEY
    tags: Callable[[Organization], dict[str, Tag]]
    holders: Callable[[Organization], dict[str, Any]]  # id -> record with ``tag_ids``
    find_holder: Callable[[Organization, str], Any]  # the record, or the real 404
    not_found: Callable[[str, str], str]  # (tag id, organization id) -> message


def tag_count(org: Organization) -> int:
    return len(org.user_tags) + len(org.private_key_tags)


def tag_limit(ctx: Context) -> int:
    settings = ctx.settings
    if ctx.org.parent_id is not None:
        return settings.max_tags_per_sub_organization
    return settings.max_tags_per_organization


def find_tag(ctx: Context, kind: TagKind, tag_id: str) -> Tag:
    tag = kind.tags(ctx.org).get(tag_id)
    if tag is None:
        raise NotFound(kind.not_found(tag_id, ctx.org.organization_id))
    return tag


def _check_name_free(ctx: Context, kind: TagKind, name: str, except_id: str | None) -> None:
    if any(t.name == name and t.tag_id != except_id for t in kind.tags(ctx.org).values()):
        raise InvalidArgument(messages.tag_name_taken(name), turnkey_error_code="REQUEST_INVALID")


def _tag_holders(ctx: Context, kind: TagKind, tag_id: str, ids: list[str], *, add: bool) -> None:
    for holder_id in dict.fromkeys(ids):
        holder = kind.find_holder(ctx.org, holder_id)
        tags = [t for t in holder.tag_ids if t != tag_id]
        ctx.tx.set(holder, "tag_ids", [*tags, tag_id] if add else tags)


def create_tag(ctx: Context, kind: TagKind, name: str, holder_ids: list[str]) -> Tag:
    if tag_count(ctx.org) >= tag_limit(ctx):
        raise ResourceExhausted(messages.MAX_TAGS, turnkey_error_code="RATE_LIMIT_EXCEEDED")
    _check_name_free(ctx, kind, name, None)
    tag = Tag(ctx.new_id(), name, kind.tag_type, ctx.now_ns, ctx.now_ns)
    ctx.tx.put(kind.tags(ctx.org), tag.tag_id, tag)
    _tag_holders(ctx, kind, tag.tag_id, holder_ids, add=True)
    return tag


def update_tag(
    ctx: Context,
    kind: TagKind,
    tag_id: str,
    new_name: str | None,
    add_ids: list[str],
    remove_ids: list[str],
) -> Tag:
    """Rename the tag and move holders in and out of it, all or nothing."""
    tag = find_tag(ctx, kind, tag_id)
    if new_name:
        _check_name_free(ctx, kind, new_name, tag.tag_id)
        ctx.tx.set(tag, "name", new_name)
    _tag_holders(ctx, kind, tag.tag_id, add_ids, add=True)
    _tag_holders(ctx, kind, tag.tag_id, remove_ids, add=False)
    ctx.tx.set(tag, "updated_at", ctx.now_ns)
    return tag


def delete_tags(ctx: Context, kind: TagKind, tag_ids: list[str]) -> list[str]:
    """Delete the tags and take them off every holder; answer the holders that had them."""
    for tag_id in tag_ids:
        find_tag(ctx, kind, tag_id)
    doomed = set(tag_ids)
    touched = []
    for holder_id, holder in kind.holders(ctx.org).items():
        if doomed.intersection(holder.tag_ids):
            ctx.tx.set(holder, "tag_ids", [t for t in holder.tag_ids if t not in doomed])
            touched.append(holder_id)
    for tag_id in tag_ids:
        ctx.tx.pop(kind.tags(ctx.org), tag_id)
    return touched
