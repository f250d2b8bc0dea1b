"""Invitations: create_invitations, delete_invitation.

An invitation asks someone, by e-mail, to join the organization as a user with
the given name, tags and access type; the organization's own user sends it.
The e-mail the real service sends lands in the outbox (``emu.outbox``, template
``invitation``) once the activity commits. At most 100 invitations per
organization (``Settings.max_invitations_per_organization``).
"""

from __future__ import annotations

from typing import Any

from ..ground import messages
from ..ground.errors import NotFound, ResourceExhausted
from ..ground.models import Invitation, Organization
from ..ground.schema import Array, Enum, String, label, obj, uuid
from ..recorders.outbox import EMAIL
from ..services.context import Context
from .registry import Version, activity
from .users import check_user_tags, find_user

Params = dict[str, Any]

ACCESS_TYPES = ("ACCESS_TYPE_WEB", "ACCESS_TYPE_API", "ACCESS_TYPE_ALL")
INVITATION_PARAMS = obj(  # v1InvitationParams
    receiverUserName=label(),
    receiverUserEmail=String(fmt="email", max_length=256),
    receiverUserTags=Array(uuid()),
    accessType=Enum(ACCESS_TYPES),
    senderUserId=uuid(),
)
INVITATION_TEMPLATE = "invitation"


def find_invitation(org: Organization, invitation_id: str) -> Invitation:
    invitation = org.invitations.get(invitation_id)
    if invitation is None:
        raise NotFound(messages.invitation_not_found(invitation_id, org.organization_id))
    return invitation


def _invite(ctx: Context, spec: Params) -> Invitation:
    if len(ctx.org.invitations) >= ctx.settings.max_invitations_per_organization:
        raise ResourceExhausted(messages.MAX_INVITATIONS, turnkey_error_code="RATE_LIMIT_EXCEEDED")
    sender = find_user(ctx.org, spec["senderUserId"])
    check_user_tags(ctx.org, spec["receiverUserTags"])
    invitation = Invitation(
        invitation_id=ctx.new_id(),
        receiver_user_name=spec["receiverUserName"],
        receiver_user_email=spec["receiverUserEmail"],
        receiver_user_tags=list(dict.fromkeys(spec["receiverUserTags"])),
        access_type=spec["accessType"],
        sender_user_id=sender.user_id,
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.invitations, invitation.invitation_id, invitation)
    ctx.world.outbox.send(
        ctx.tx,
        channel=EMAIL,
        to=invitation.receiver_user_email,
        template=INVITATION_TEMPLATE,
        organization_id=ctx.org.organization_id,
        time_ns=ctx.now_ns,
        fields={
            "invitationId": invitation.invitation_id,
            "organizationName": ctx.org.name,
            "senderUserId": sender.user_id,
            "senderUserName": sender.name,
            "receiverUserName": invitation.receiver_user_name,
            "accessType": invitation.access_type,
        },
    )
    return invitation


@activity(
    "create_invitations",
    summary="Create invitations",
    default="ACTIVITY_TYPE_CREATE_INVITATIONS",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_INVITATIONS",
            "createInvitationsIntent",
            "createInvitationsResult",
            obj(invitations=Array(INVITATION_PARAMS, min_items=1)),
        )
    ],
)
def create_invitations(ctx: Context, params: Params) -> Params:
    made = [_invite(ctx, spec) for spec in params["invitations"]]
    return {"invitationIds": [i.invitation_id for i in made]}


@activity(
    "delete_invitation",
    summary="Delete invitation",
    default="ACTIVITY_TYPE_DELETE_INVITATION",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_INVITATION",
            "deleteInvitationIntent",
            "deleteInvitationResult",
            obj(invitationId=uuid()),
        )
    ],
)
def delete_invitation(ctx: Context, params: Params) -> Params:
    invitation = find_invitation(ctx.org, params["invitationId"])
    ctx.tx.pop(ctx.org.invitations, invitation.invitation_id)
    return {"invitationId": invitation.invitation_id}
