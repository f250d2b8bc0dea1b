"""list_email_events: the provider's events about the e-mails in the outbox, and the seams
that mark a message delivered, bounced, opened..."""

from __future__ import annotations

import pytest

from emulator import Emulator

from .helpers import fails


def invite(emu: Emulator, email: str, sender: str) -> None:
    emu.create_invitations(
        invitations=[
            {
                "receiverUserName": email.split("@")[0],
                "receiverUserEmail": email,
                "accessType": "ACCESS_TYPE_WEB",
                "senderUserId": sender,
            }
        ]
    )


def test_every_email_has_its_send_event_and_marks_add_more(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    emu.clock.freeze()
    invite(emu, "cy@acme.test", turnkey_org.user_id)
    message = emu.outbox.last(to="cy@acme.test")
    (sent,) = emu.list_email_events(email="cy@acme.test")["emailEvents"]
    assert sent["eventType"] == "Send"
    assert sent["organizationId"] == turnkey_org.organization_id
    assert (sent["fromAddress"], sent["toAddress"]) == ("notifications@turnkey.com", "cy@acme.test")
    assert sent["timestamp"] == sent["createdAt"] == str(message.time_ns // 1_000_000)
    assert sent["details"] == {}
    assert sent["messageId"].startswith("0100") and sent["messageId"].endswith("-000000")
    emu.clock.advance(2)
    emu.outbox.mark_delivered(message)
    emu.clock.advance(60)
    emu.outbox.mark_opened(message)
    emu.outbox.mark_bounced(message, bounce_type="Transient", bounce_sub_type="MailboxFull")
    events = emu.list_email_events(email="CY@ACME.TEST")["emailEvents"]
    assert [e["eventType"] for e in events] == ["Bounce", "Open", "Delivery", "Send"]
    assert len({e["messageId"] for e in events}) == 1  # one message, many events
    assert len({e["id"] for e in events}) == 4
    assert int(events[2]["timestamp"]) - int(sent["timestamp"]) == 2000
    assert events[2]["details"] == {
        "deliverySmtpResponse": "250 2.0.0 OK",
        "deliveryProcessingTimeMillis": "512",
    }
    assert events[0]["details"] == {
        "bounceType": "Transient",
        "bounceSubType": "MailboxFull",
        "diagnosticCode": "smtp; 550 5.1.1 user unknown",
    }
    bounces = emu.list_email_events(email="cy@acme.test", event_type="Bounce")["emailEvents"]
    assert bounces == events[:1]


def test_filters_and_pagination(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    for name in ("a", "b"):
        invite(emu, f"{name}@acme.test", turnkey_org.user_id)
    message = emu.outbox.last(to="a@acme.test")
    for _ in range(3):
        emu.outbox.mark_delayed(message)
    assert emu.list_email_events(email="nobody@acme.test")["emailEvents"] == []
    every = emu.list_email_events(email="a@acme.test")["emailEvents"]
    assert [e["eventType"] for e in every] == ["DeliveryDelay"] * 3 + ["Send"]
    assert every[0]["details"] == {"deliveryDelayType": "TransientCommunicationFailure"}
    first = emu.list_email_events(email="a@acme.test", pagination_options={"limit": "2"})
    assert first["emailEvents"] == every[:2]
    rest = emu.list_email_events(email="a@acme.test", pagination_options={"after": every[1]["id"]})
    assert rest["emailEvents"] == every[2:]
    bad = fails(emu, emu.list_email_events, email="a@acme.test", pagination_options={"limit": "0"})
    assert bad.status == 400


def test_other_organizations_do_not_see_them(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    invite(emu, "a@acme.test", turnkey_org.user_id)
    other = emu.create_organization("Other")
    listed = emu.list_email_events(email="a@acme.test", organization_id=other.organization_id)
    assert listed["emailEvents"] == []


def test_the_seams_refuse_what_cannot_be(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    invite(emu, "a@acme.test", turnkey_org.user_id)
    message = emu.outbox.last()
    with pytest.raises(ValueError, match="event_type must be one of"):
        emu.outbox.mark(message, "Exploded")
    with pytest.raises(TypeError, match="unknown e-mail event detail"):
        emu.outbox.mark(message, "Bounce", color="red")
    emu.outbox.clear()
    with pytest.raises(ValueError, match="is not in this outbox"):
        emu.outbox.mark_opened(message)
    assert emu.list_email_events(email="a@acme.test")["emailEvents"] == []


def test_the_python_sdk_reads_them(turnkey_client, turnkey_emulator, turnkey_org):
    from turnkey_sdk_types import ListEmailEventsBody

    invite(turnkey_emulator, "sdk@acme.test", turnkey_org.user_id)
    answer = turnkey_client.list_email_events(ListEmailEventsBody(email="sdk@acme.test"))
    (event,) = answer.emailEvents
    assert (event.eventType, event.toAddress) == ("Send", "sdk@acme.test")
