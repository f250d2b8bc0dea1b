"""The outbox: e-mails and SMS the service would send, kept for tests to read.

Delivered when the activity that sent them commits, never when it fails; an
observation like the call log (checkpoints, snapshots and documents leave it
alone); readable over the control endpoints; emptied between tests by the plugin.
"""

from __future__ import annotations

import io
import json

import pytest
import requests

from emulator import Emulator
from emulator.engine_state.world import World
from emulator.ground.transaction import Transaction
from emulator.http.control import Control
from emulator.http.server import serving
from emulator.http.wsgi import WsgiApp
from emulator.recorders.outbox import EMAIL, SMS, Message, Outbox

from .helpers import NIL_UUID, fails


def invite(emu, email: str = "carol@acme.test", sender: str | None = None) -> str:
    sender = sender or emu.organization().user_id
    made = emu.create_invitations(
        invitations=[
            {
                "receiverUserName": email.split("@")[0],
                "receiverUserEmail": email,
                "receiverUserTags": [],
                "accessType": "ACCESS_TYPE_WEB",
                "senderUserId": sender,
            }
        ]
    )
    return made["invitationIds"][0]


def send(outbox: Outbox, tx, to: str = "a@b.test", channel: str = EMAIL, **extra) -> None:
    fields = {
        "channel": channel,
        "to": to,
        "template": "otp",
        "organization_id": "org",
        "time_ns": 5_000_000,
        "fields": {"code": "123456"},
        **extra,
    }
    outbox.send(tx, **fields)


# --- delivery through the transaction ---------------------------------------------------


def test_a_message_is_delivered_when_its_transaction_commits():
    world = World()
    tx = world.transaction()
    send(world.outbox, tx)
    assert world.outbox.messages == []
    tx.commit()
    assert world.outbox.messages == [
        Message(
            id="message-1",
            time_ns=5_000_000,
            channel="email",
            to="a@b.test",
            template="otp",
            organization_id="org",
            fields={"code": "123456"},
        )
    ]


def test_a_rolled_back_transaction_sends_nothing():
    world = World()
    tx = world.transaction()
    send(world.outbox, tx)
    tx.rollback()
    tx.commit()  # nothing left to deliver
    assert world.outbox.messages == []


def test_a_checkpoint_rollback_does_not_unsend():
    world = World()
    mark = world.checkpoint()
    tx = world.transaction()
    send(world.outbox, tx)
    tx.commit()
    world.rollback(mark)
    assert [m.to for m in world.outbox] == ["a@b.test"]


def test_a_rollback_to_a_savepoint_drops_the_messages_sent_since():
    """An activity run after consensus undoes a failed handler to a savepoint: what that
    handler sent is dropped, what came before is delivered."""
    outbox = Outbox()
    tx = Transaction()
    send(outbox, tx, "kept@d.test")
    savepoint = tx.savepoint()
    send(outbox, tx, "dropped@d.test")
    tx.rollback_to(savepoint)
    assert len(outbox) == 0
    tx.commit()
    assert [(m.id, m.to) for m in outbox] == [("message-1", "kept@d.test")]


def test_channels_are_email_or_sms():
    outbox = Outbox()
    with pytest.raises(ValueError, match="channel must be one of email, sms"):
        send(outbox, Transaction(), channel="pigeon")


# --- reading --------------------------------------------------------------------------------


def test_find_last_clear_and_json():
    outbox = Outbox()
    tx = Transaction()
    send(outbox, tx, "Ann@Acme.test")
    send(outbox, tx, "+15555550100", channel=SMS, template="otp", organization_id="other")
    send(outbox, tx, "ann@acme.test", template="invitation", reply_to="help@acme.test")
    tx.commit()
    first, sms, third = outbox.messages
    assert outbox.find(to="ann@ACME.test") == [first, third]
    assert outbox.find(channel=SMS) == [sms]
    assert outbox.find(template="otp", channel=EMAIL) == [first]
    assert outbox.find(organization_id="other") == [sms]
    assert outbox.last(to="ann@acme.test") is third
    assert outbox.last(template="nothing") is None
    assert list(outbox) == [first, sms, third] and len(outbox) == 3
    assert repr(outbox) == "Outbox(3 messages)"
    assert outbox.to_json(channel=SMS) == {
        "messages": [
            {
                "id": "message-2",
                "timeNs": 5_000_000,
                "timeMs": 5,
                "channel": "sms",
                "to": "+15555550100",
                "senderAddress": "notifications@turnkey.com",
                "senderName": "Notifications",
                "replyTo": None,
                "template": "otp",
                "organizationId": "other",
                "fields": {"code": "123456"},
            }
        ]
    }
    assert third.reply_to == "help@acme.test"
    outbox.clear()
    assert outbox.messages == [] and outbox.to_json() == {"messages": []}
    tx = Transaction()
    send(outbox, tx)
    tx.commit()
    assert [m.id for m in outbox] == ["message-1"]


# --- the facade: an observation, not state ----------------------------------------------------


def test_the_outbox_is_not_state():
    emu = Emulator(seed=3)
    org = emu.create_organization()
    assert emu.outbox is emu.world.outbox
    mark = emu.checkpoint()
    snap = emu.snapshot()
    invite(emu)
    (activity,) = emu.list_activities()["activities"]
    created = activity["createdAt"]
    assert emu.outbox.messages[0].time_ns == (
        int(created["seconds"]) * 1_000_000_000 + int(created["nanos"])
    )
    emu.rollback(mark)
    emu.restore(snap)
    assert emu.list_activities()["activities"] == []
    assert [m.to for m in emu.outbox] == ["carol@acme.test"]
    document = json.dumps(emu.to_document())
    assert "carol@acme.test" not in document and "outbox" not in document
    assert Emulator.from_document(emu.to_document()).outbox.messages == []
    emu.reset()
    assert emu.outbox.messages == []
    assert org.organization_id not in emu.world.store.organizations


def test_a_failed_activity_sends_nothing_and_a_fault_sends_nothing(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    fails(emu, invite, emu, sender=NIL_UUID)
    emu.faults.fail_next("create_invitations", activity_status="ACTIVITY_STATUS_FAILED")
    with pytest.raises(KeyError):  # a FAILED activity has no result: the handler never ran
        invite(emu)
    emu.faults.fail_next("create_invitations", status=503, message="later")
    fails(emu, invite, emu)
    assert emu.outbox.messages == []


# --- the control endpoints -------------------------------------------------------------------


def wsgi(emu: Emulator, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    """One request to the WSGI app with control endpoints, in-process."""
    raw = json.dumps(body).encode() if body is not None else b""
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "CONTENT_LENGTH": str(len(raw)),
        "CONTENT_TYPE": "application/json",
        "wsgi.input": io.BytesIO(raw),
    }
    seen: list[str] = []
    app = WsgiApp(emu.world, control=Control(emu))
    payload = b"".join(app(environ, lambda status, headers: seen.append(status)))
    return int(seen[0].split()[0]), json.loads(payload)


def test_outbox_over_the_control_endpoints_in_process(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    first = invite(emu)
    invite(emu, "dave@acme.test")
    status, body = wsgi(emu, "GET", "/emulator/v1/outbox")
    assert status == 200
    assert [(m["id"], m["to"]) for m in body["messages"]] == [
        ("message-1", "carol@acme.test"),
        ("message-2", "dave@acme.test"),
    ]
    assert body["messages"][0] == emu.outbox.messages[0].to_json()
    assert body["messages"][0]["fields"]["invitationId"] == first
    status, body = wsgi(emu, "POST", "/emulator/v1/outbox", {"to": "DAVE@acme.test"})
    assert status == 200 and [m["id"] for m in body["messages"]] == ["message-2"]
    filters = {
        "channel": "email",
        "template": "invitation",
        "organizationId": turnkey_org.organization_id,
    }
    assert len(wsgi(emu, "POST", "/emulator/v1/outbox", filters)[1]["messages"]) == 2
    assert wsgi(emu, "POST", "/emulator/v1/outbox", {"channel": "sms"}) == (200, {"messages": []})
    assert wsgi(emu, "POST", "/emulator/v1/outbox/clear") == (200, {})
    assert wsgi(emu, "GET", "/emulator/v1/outbox") == (200, {"messages": []})
    assert not Control.changes_state("/emulator/v1/outbox/clear")


def test_outbox_over_a_real_socket():
    emu = Emulator(seed=4)
    emu.create_organization()
    invite(emu)
    with serving(emu.world, control=Control(emu)) as url:
        answer = requests.get(f"{url}/emulator/v1/outbox", timeout=10)
        assert answer.status_code == 200
        assert [m["to"] for m in answer.json()["messages"]] == ["carol@acme.test"]
        cleared = requests.post(f"{url}/emulator/v1/outbox/clear", json={}, timeout=10)
        assert (cleared.status_code, cleared.json()) == (200, {})
        answer = requests.post(f"{url}/emulator/v1/outbox", json={}, timeout=10)
        assert answer.json() == {"messages": []}
        # reset empties it too
        invite(emu)
        requests.post(f"{url}/emulator/v1/reset", json={}, timeout=10)
        assert requests.get(f"{url}/emulator/v1/outbox", timeout=10).json() == {"messages": []}


# --- the pytest plugin ------------------------------------------------------------------------


def test_the_plugin_empties_the_outbox_between_tests(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        def _invite(emu, org):
            emu.create_invitations(invitations=[{
                "receiverUserName": "carol", "receiverUserEmail": "carol@acme.test",
                "receiverUserTags": [], "accessType": "ACCESS_TYPE_WEB",
                "senderUserId": org.user_id,
            }])

        def test_first(turnkey_emulator, turnkey_org):
            _invite(turnkey_emulator, turnkey_org)
            assert len(turnkey_emulator.outbox) == 1

        def test_second(turnkey_emulator, turnkey_org):
            assert turnkey_emulator.outbox.messages == []
            _invite(turnkey_emulator, turnkey_org)
            assert [m.id for m in turnkey_emulator.outbox] == ["message-1"]
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
