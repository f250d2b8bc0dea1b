"""Invitations: create_invitations, delete_invitation, and the e-mails they send."""

from __future__ import annotations

import pytest

from emulator import Emulator, Settings
from emulator.ground import messages
from emulator.ground.models import Invitation

from .helpers import NIL_UUID, error_of, fails, violations

COMPLETED = "ACTIVITY_STATUS_COMPLETED"


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    return turnkey_emulator


def invitation(sender: str, email: str = "carol@acme.test", **extra) -> dict:
    return {
        "receiverUserName": "carol",
        "receiverUserEmail": email,
        "receiverUserTags": [],
        "accessType": "ACCESS_TYPE_WEB",
        "senderUserId": sender,
        **extra,
    }


def stored(emu, org_id: str) -> dict[str, Invitation]:
    return emu.world.store.organizations[org_id].invitations


def test_create_invitations(emu, turnkey_org):
    tag = emu.create_user_tag(user_tag_name="ops", user_ids=[])["userTagId"]
    params = {
        "invitations": [
            invitation(turnkey_org.user_id, receiverUserTags=[tag, tag]),
            invitation(
                turnkey_org.user_id,
                "dave@acme.test",
                receiverUserName="dave",
                accessType="ACCESS_TYPE_API",
            ),
        ]
    }
    made = emu.call("create_invitations", params)
    carol, dave = made["invitationIds"]
    activity = made["activity"]
    assert (activity["type"], activity["status"]) == ("ACTIVITY_TYPE_CREATE_INVITATIONS", COMPLETED)
    assert activity["intent"] == {"createInvitationsIntent": params}
    assert activity["result"]["createInvitationsResult"] == {"invitationIds": [carol, dave]}
    now = activity["createdAt"]
    created_ns = int(now["seconds"]) * 1_000_000_000 + int(now["nanos"])
    assert stored(emu, turnkey_org.organization_id) == {
        carol: Invitation(
            carol,
            "carol",
            "carol@acme.test",
            [tag],
            "ACCESS_TYPE_WEB",
            turnkey_org.user_id,
            created_ns,
            created_ns,
        ),
        dave: Invitation(
            dave,
            "dave",
            "dave@acme.test",
            [],
            "ACCESS_TYPE_API",
            turnkey_org.user_id,
            created_ns,
            created_ns,
        ),
    }
    # one e-mail each, in order
    first, second = emu.outbox.messages
    assert first.to_json() == {
        "id": "message-1",
        "timeNs": created_ns,
        "timeMs": created_ns // 1_000_000,
        "channel": "email",
        "to": "carol@acme.test",
        "senderAddress": "notifications@turnkey.com",
        "senderName": "Notifications",
        "replyTo": None,
        "template": "invitation",
        "organizationId": turnkey_org.organization_id,
        "fields": {
            "invitationId": carol,
            "organizationName": turnkey_org.organization_name,
            "senderUserId": turnkey_org.user_id,
            "senderUserName": turnkey_org.user_name,
            "receiverUserName": "carol",
            "accessType": "ACCESS_TYPE_WEB",
        },
    }
    assert (second.id, second.to, second.fields["invitationId"]) == (
        "message-2",
        "dave@acme.test",
        dave,
    )
    assert emu.outbox.last(to="DAVE@acme.test") is second


def test_the_sender_must_be_a_user_of_the_organization(emu, turnkey_org):
    error = fails(emu, emu.create_invitations, invitations=[invitation(NIL_UUID)])
    assert error_of(error) == (
        404,
        5,
        messages.user_not_found(NIL_UUID, turnkey_org.organization_id),
        "",
    )
    assert emu.outbox.messages == []


def test_receiver_tags_must_exist(emu, turnkey_org):
    params = invitation(turnkey_org.user_id, receiverUserTags=[NIL_UUID])
    error = fails(emu, emu.create_invitations, invitations=[params])
    assert error_of(error) == (
        404,
        5,
        messages.user_tag_not_found(NIL_UUID, turnkey_org.organization_id),
        "",
    )


def test_a_failed_batch_sends_nothing(emu, turnkey_org):
    batch = [invitation(turnkey_org.user_id), invitation(NIL_UUID, "eve@acme.test")]
    fails(emu, emu.create_invitations, invitations=batch)
    assert emu.outbox.messages == []
    assert stored(emu, turnkey_org.organization_id) == {}
    # and the numbering of the next message is not used up
    emu.create_invitations(invitations=[invitation(turnkey_org.user_id)])
    assert [m.id for m in emu.outbox] == ["message-1"]


def test_invitation_fields_are_checked(emu, turnkey_org):
    bad = invitation(turnkey_org.user_id, "carol@", accessType="ACCESS_TYPE_PHONE")
    error = fails(emu, emu.create_invitations, invitations=[bad])
    assert error_of(error) == (
        400,
        3,
        "invalid request (fieldViolations: invitations.0.receiverUserEmail, "
        "invitations.0.accessType)",
        "REQUEST_INVALID",
    )
    assert violations(error) == [
        {
            "field": "invitations.0.receiverUserEmail",
            "description": "This field must be a valid e-mail address.",
        },
        {
            "field": "invitations.0.accessType",
            "description": "This field must be one of ACCESS_TYPE_WEB, ACCESS_TYPE_API, "
            "ACCESS_TYPE_ALL.",
        },
    ]
    error = fails(emu, emu.create_invitations, invitations=[])
    assert violations(error) == [
        {"field": "invitations", "description": "This field must contain at least 1 item(s)."}
    ]


def test_invitation_limit():
    emu = Emulator(settings=Settings(max_invitations_per_organization=2))
    org = emu.create_organization()
    assert emu.settings.max_invitations_per_organization == 2
    assert Settings().max_invitations_per_organization == 100
    first = emu.create_invitations(invitations=[invitation(org.user_id)])["invitationIds"][0]
    error = fails(
        emu,
        emu.create_invitations,
        invitations=[invitation(org.user_id, "x@acme.test"), invitation(org.user_id, "y@a.test")],
    )
    assert error_of(error) == (
        429,
        8,
        "organization has exceeded maximum invitations",
        "RATE_LIMIT_EXCEEDED",
    )
    assert len(emu.outbox) == 1
    emu.delete_invitation(invitation_id=first)
    assert (
        len(emu.create_invitations(invitations=[invitation(org.user_id)] * 2)["invitationIds"]) == 2
    )


def test_delete_invitation(emu, turnkey_org):
    made = emu.create_invitations(invitations=[invitation(turnkey_org.user_id)])
    (invitation_id,) = made["invitationIds"]
    deleted = emu.delete_invitation(invitation_id=invitation_id)
    assert deleted["invitationId"] == invitation_id
    assert deleted["activity"]["intent"] == {
        "deleteInvitationIntent": {"invitationId": invitation_id}
    }
    assert deleted["activity"]["result"]["deleteInvitationResult"] == {
        "invitationId": invitation_id
    }
    assert stored(emu, turnkey_org.organization_id) == {}
    # what was sent stays sent
    assert emu.outbox.last(template="invitation").fields["invitationId"] == invitation_id
    error = fails(emu, emu.delete_invitation, invitation_id=invitation_id)
    assert error_of(error) == (
        404,
        5,
        f"unable to find invitation {invitation_id} in organization {turnkey_org.organization_id}",
        "",
    )


def test_invitations_in_a_sub_organization(emu):
    from emulator.crypto.api_keys import generate_key_pair

    from .helpers import api_key_params, user_params

    key = generate_key_pair()
    made = emu.create_sub_organization(
        sub_organization_name="sub",
        root_users=[user_params("root", apiKeys=[api_key_params(key)])],
        root_quorum_threshold=1,
    )
    sub_id, (root,) = made["subOrganizationId"], made["rootUserIds"]
    emu.create_invitations(invitations=[invitation(root)], organization_id=sub_id, caller=key)
    (message,) = emu.outbox.find(organization_id=sub_id)
    assert (message.fields["organizationName"], message.fields["senderUserName"]) == ("sub", "root")


def test_invitations_survive_documents_and_roll_back_with_checkpoints(emu, turnkey_org):
    mark = emu.checkpoint()
    made = emu.create_invitations(invitations=[invitation(turnkey_org.user_id)])
    (invitation_id,) = made["invitationIds"]
    again = Emulator.from_document(emu.to_document())
    assert stored(again, turnkey_org.organization_id) == stored(emu, turnkey_org.organization_id)
    assert again.outbox.messages == []  # the outbox is not state
    emu.rollback(mark)
    assert stored(emu, turnkey_org.organization_id) == {}
    assert [m.fields["invitationId"] for m in emu.outbox] == [invitation_id]


def test_invitations_through_the_sdk(sdk, turnkey_emulator, turnkey_org):
    from turnkey_sdk_types import CreateInvitationsBody, DeleteInvitationBody, v1InvitationParams

    made = sdk.create_invitations(
        CreateInvitationsBody(
            invitations=[
                v1InvitationParams(
                    receiverUserName="carol",
                    receiverUserEmail="carol@acme.test",
                    receiverUserTags=[],
                    accessType="ACCESS_TYPE_ALL",
                    senderUserId=turnkey_org.user_id,
                )
            ]
        )
    )
    (invitation_id,) = made.invitationIds
    message = turnkey_emulator.outbox.last(channel="email", to="carol@acme.test")
    assert message.fields["invitationId"] == invitation_id
    assert message.fields["accessType"] == "ACCESS_TYPE_ALL"
    deleted = sdk.delete_invitation(DeleteInvitationBody(invitationId=invitation_id))
    assert deleted.invitationId == invitation_id


def test_an_invitation_awaiting_consensus_is_sent_once_approved(emu, turnkey_org):
    from .helpers import api_key_params, new_key, user_params

    key = new_key()
    made = emu.create_users(users=[user_params("bob", apiKeys=[api_key_params(key)])])
    emu.update_root_quorum(threshold=2, user_ids=[turnkey_org.user_id, made["userIds"][0]])
    pending = emu.create_invitations(invitations=[invitation(turnkey_org.user_id)])
    assert pending["activity"]["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    assert emu.outbox.messages == []
    approved = emu.approve_activity(fingerprint=pending["activity"]["fingerprint"], caller=key)
    assert approved["activity"]["status"] == COMPLETED
    (message,) = emu.outbox.messages
    result = approved["activity"]["result"]["createInvitationsResult"]
    assert message.fields["invitationId"] == result["invitationIds"][0]
