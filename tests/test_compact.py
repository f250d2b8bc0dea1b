"""Compact records of settled activities (``emulator/ground/compact.py``): the same answers before
and after, through the facade, the wire, documents and snapshots."""

from __future__ import annotations

import base64
import copy
import json
import pickle
from typing import Any

import pytest

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.stamps import sign_stamp
from emulator.ground import compact, render
from emulator.ground.compact import DERIVED
from emulator.ground.models import Vote
from emulator.ground.packed import PackedVote, pack, unpack
from emulator.http.app import handle

from .helpers import add_user
from .test_consensus import CREATE_WALLET, TWO_APPROVERS


@pytest.fixture
def emu() -> Emulator:
    made = Emulator(seed=3)
    made.create_organization("Acme")
    return made


def _address(emu: Emulator) -> str:
    wallet = emu.create_wallet(wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")])
    return wallet["addresses"][0]


def _sign(emu: Emulator, address: str, i: int) -> dict:
    return emu.sign_raw_payload(
        sign_with=address,
        payload=f"{i:064x}",
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function="HASH_FUNCTION_NO_OP",
    )["activity"]


def _views(emu: Emulator, activity_id: str) -> tuple:
    org = emu.world.store.organizations[emu.organization().organization_id]
    record = org.activities[activity_id]
    return (
        emu.get_activity(activity_id=activity_id),
        emu.get_activities(pagination_options={"limit": "100"}),
        render.activity(record, org, None),
        emu.to_document(),
    )


def test_a_settled_activity_is_compacted_and_answers_the_same(emu: Emulator) -> None:
    address = _address(emu)
    first = _sign(emu, address, 0)
    before = _views(emu, first["id"])
    for i in range(1, compact.YOUNG + 2):
        _sign(emu, address, i)
    record = emu.world.store.activities_by_id[first["id"]]
    assert record.intent is DERIVED and record.seed_intent is DERIVED
    assert record.timestamp_ms is DERIVED and record.result is compact.IN_VOTE
    assert record.mfa == () and record.app_proofs == ()
    (vote,) = record.votes
    assert type(vote) is PackedVote and len(vote.packed) < 300
    after = _views(emu, first["id"])
    assert after[0] == before[0]
    assert after[2] == before[2]
    assert [a for a in after[1]["activities"] if a["id"] == first["id"]] == [
        a for a in before[1]["activities"] if a["id"] == first["id"]
    ]
    assert _saved(after[3], first["id"]) == _saved(before[3], first["id"])


def _saved(document: dict, activity_id: str) -> dict:
    return next(
        a
        for o in document["organizations"]
        for a in o["activities"]
        if a["activityId"] == activity_id
    )


def test_a_wire_body_in_its_own_key_order_derives_its_intent_as_checked(emu: Emulator) -> None:
    """The intent is the body's parameters as checked (the schema's order, unknown keys
    dropped), derived again from the body kept as the vote's message."""
    address = _address(emu)
    org = emu.organization()
    raw = json.dumps(
        {
            "organizationId": org.organization_id,
            "type": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
            "timestampMs": str(emu.clock.now_ms()),
            "parameters": {
                "hashFunction": "HASH_FUNCTION_NO_OP",
                "payload": "ab" * 32,
                "unknownKey": 1,
                "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                "signWith": address,
            },
        },
        separators=(",", ":"),
    ).encode()
    headers = {"x-stamp": sign_stamp(raw, org.api_key).header_value()}
    path = "/public/v1/submit/sign_raw_payload"
    status, answer = handle(emu.world, "POST", path, headers, raw)
    assert status == 200
    activity_id = json.loads(answer)["activity"]["id"]
    before = emu.get_activity(activity_id=activity_id)
    for i in range(compact.YOUNG + 1):
        _sign(emu, address, i)
    assert emu.world.store.activities_by_id[activity_id].intent is DERIVED
    after = emu.get_activity(activity_id=activity_id)
    assert json.dumps(after) == json.dumps(before)  # key order included
    assert "unknownKey" not in json.dumps(after["activity"]["intent"])
    # The same body again is the same activity.
    again = json.loads(handle(emu.world, "POST", path, headers, raw)[1])
    assert again["activity"] == before["activity"]
    # The vote kept the exact bytes the client signed and its stamp's signature.
    (vote,) = emu.world.store.activities_by_id[activity_id].votes
    assert type(vote) is PackedVote
    assert vote.message.encode() == raw
    stamp = json.loads(base64.urlsafe_b64decode(headers["x-stamp"] + "=="))
    assert vote.signature == stamp["signature"]


def test_snapshots_and_documents_carry_compacted_activities(emu: Emulator) -> None:
    address = _address(emu)
    made = [_sign(emu, address, i)["id"] for i in range(compact.YOUNG + 5)]
    answers = [emu.get_activity(activity_id=i) for i in made]
    saved = emu.snapshot()
    assert pickle.loads(pickle.dumps(DERIVED)) is DERIVED
    assert pickle.loads(pickle.dumps(compact.IN_VOTE)) is compact.IN_VOTE
    _sign(emu, address, 10_000)
    emu.restore(saved)
    assert [emu.get_activity(activity_id=i) for i in made] == answers
    loaded = Emulator.from_document(emu.to_document())
    assert [loaded.get_activity(activity_id=i) for i in made] == answers


def test_an_activity_awaiting_votes_is_compacted_only_once_settled(emu: Emulator) -> None:
    address = _address(emu)
    _, alice = add_user(emu, "alice")
    _, bob = add_user(emu, "bob")
    emu.create_policy(
        policy_name="two of us",
        effect="EFFECT_ALLOW",
        condition=CREATE_WALLET,
        consensus=TWO_APPROVERS,
        notes="",
    )
    proposal = emu.create_wallet(
        wallet_name="shared", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")], caller=alice
    )["activity"]
    for i in range(compact.YOUNG + 2):
        _sign(emu, address, i)
    record = emu.world.store.activities_by_id[proposal["id"]]
    assert type(record.intent) is dict  # still awaiting: votes change it
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=bob)["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert emu.get_activity(activity_id=proposal["id"])["activity"] == {**done, "canApprove": False}


def test_a_packed_vote_reads_as_the_vote_it_replaces(emu: Emulator) -> None:
    address = _address(emu)
    first = _sign(emu, address, 0)
    org = emu.world.store.organizations[emu.organization().organization_id]
    plain = org.activities[first["id"]].votes[0]
    kept = {name: getattr(plain, name) for name in Vote.__dataclass_fields__}
    kept["policy_outcomes"] = ()  # an empty list becomes the shared empty tuple
    for i in range(1, compact.YOUNG + 2):
        _sign(emu, address, i)
    (packed,) = org.activities[first["id"]].votes
    assert type(packed) is PackedVote and isinstance(packed, Vote)
    assert {name: getattr(packed, name) for name in Vote.__dataclass_fields__} == kept
    for copied in (pickle.loads(pickle.dumps(packed)), copy.deepcopy(packed)):
        assert type(copied) is PackedVote and copied.packed == packed.packed
        assert copied.message == plain.message and copied.vote_id == plain.vote_id
    assert "message" not in repr(packed) and "signature" not in repr(packed)


@pytest.mark.parametrize(
    "message",
    ["", "{}", "é" * 300 + "\u0000", '{"parameters":{"payload":"' + "ab" * 5000 + '"}}'],
)
def test_pack_gives_back_what_it_was_given(message: str) -> None:
    parts = (message, bytes(range(256)), "30440220" + "ff" * 30, "a-vote-id")
    for kind in ("ACTIVITY_TYPE_TEST_PACK", "ACTIVITY_TYPE_TEST_PACK", "ANOTHER"):
        assert unpack(pack(kind, *parts)) == parts


def test_a_vote_of_an_activity_with_several_votes_is_not_packed(emu: Emulator) -> None:
    address = _address(emu)
    _, alice = add_user(emu, "alice")
    _, bob = add_user(emu, "bob")
    emu.create_policy(
        policy_name="two of us",
        effect="EFFECT_ALLOW",
        condition=CREATE_WALLET,
        consensus=TWO_APPROVERS,
        notes="",
    )
    proposal = emu.create_wallet(
        wallet_name="shared", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")], caller=alice
    )["activity"]
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=bob)["activity"]
    for i in range(compact.YOUNG + 2):
        _sign(emu, address, i)
    record = emu.world.store.activities_by_id[proposal["id"]]
    assert type(record.result) is bytes and all(type(v) is Vote for v in record.votes)
    assert emu.get_activity(activity_id=proposal["id"])["activity"]["result"] == done["result"]


def _wire_sign(s: Any, address: str, i: int) -> Any:
    """``sign_raw_payload`` of payload ``i`` through the served API, stamped by ``s``'s key."""
    import requests

    body = json.dumps(
        {
            "type": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
            "timestampMs": str(s.emu.clock.now_ms() + i),
            "organizationId": s.org.organization_id,
            "parameters": {
                "signWith": address,
                "payload": f"{i:064x}",
                "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                "hashFunction": "HASH_FUNCTION_NO_OP",
            },
        }
    ).encode()
    return requests.post(
        f"{s.url}/public/v1/submit/sign_raw_payload",
        data=body,
        headers={"X-Stamp": s.stamp(body), "Content-Type": "application/json"},
        timeout=10,
    )


def test_serve_answers_first_and_compacts_after():
    """With ``compact_after_answer`` (``serve``'s) the compaction a request makes due runs
    after its answer is written (``Young.deferring``/``settle``): the answers are the plain
    ones, and before the next request is read everything due is compacted."""
    import requests

    from emulator.http.options import WireOptions

    from .wire import served

    with served(WireOptions(compact_after_answer=True)) as s:
        address = _address(s.emu)
        org = s.emu.world.store.organizations[s.org.organization_id]
        young = s.emu.world.young
        made = []
        for i in range(compact.YOUNG + 3):
            answer = _wire_sign(s, address, i)
            assert answer.status_code == 200, answer.text
            made.append(answer.json()["activity"])
        # The next request is read after the last one's compaction: then all is settled.
        whoami = s.whoami_body()
        requests.post(
            f"{s.url}/public/v1/query/whoami",
            data=whoami,
            headers={"X-Stamp": s.stamp(whoami), "Content-Type": "application/json"},
            timeout=10,
        ).raise_for_status()
        with s.emu.world.lock:  # (``deferring`` may still be up for the whoami: no matter)
            assert len(young.recent) <= compact.YOUNG
            compacted = [a for a in made if org.activities[a["id"]].intent is DERIVED]
        assert [a["id"] for a in compacted] == [a["id"] for a in made[:3]]
        for activity in made:  # the same answer, compacted or not
            assert s.emu.get_activity(activity_id=activity["id"])["activity"] == activity


def test_serving_compacts_before_it_answers():
    """``serving()`` (a test's own server) keeps the option off: when an answer arrives the
    records are as they stay, so a snapshot taken at once equals one taken later."""
    from emulator.cli import _parser, wire_options

    from .wire import served

    assert wire_options(_parser().parse_args(["serve"])).compact_after_answer  # ``serve``'s
    with served() as s:
        address = _address(s.emu)
        for i in range(compact.YOUNG + 2):
            _wire_sign(s, address, i).raise_for_status()
            at_once = s.emu.snapshot()
            assert len(s.emu.world.young.recent) <= compact.YOUNG
            assert s.emu.snapshot() == at_once
