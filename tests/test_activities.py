"""The activity engine: records, fingerprints, idempotency, liveness, listing."""

from __future__ import annotations

import hashlib
import re

import pytest

from emulator import Emulator

from .helpers import NIL_UUID, activity_body, encode, state_digest, user_params

UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def submit_users(
    wire, org, *names, timestamp_ms=None, activity_type="ACTIVITY_TYPE_CREATE_USERS_V3"
):
    body = activity_body(
        activity_type, org.organization_id, {"users": [user_params(n) for n in names]}, timestamp_ms
    )
    raw = encode(body)
    return raw, wire.post("/public/v1/submit/create_users", None, org.api_key, raw=raw)


def test_activity_record_has_every_field_the_sdks_require(wire, turnkey_emulator, turnkey_org):
    raw, (status, body) = submit_users(wire, turnkey_org, "alice")
    assert status == 200
    activity = body["activity"]
    assert UUID7.match(activity["id"])
    assert activity["organizationId"] == turnkey_org.organization_id
    assert activity["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert activity["type"] == "ACTIVITY_TYPE_CREATE_USERS_V3"
    assert activity["fingerprint"] == "sha256:" + hashlib.sha256(raw).hexdigest()
    assert activity["canApprove"] is False and activity["canReject"] is False
    assert "failure" not in activity  # optional in the official schema: only when failed
    for stamp in ("createdAt", "updatedAt"):
        assert set(activity[stamp]) == {"seconds", "nanos"}
        assert all(isinstance(v, str) and v.isdigit() for v in activity[stamp].values())
    intent = activity["intent"]["createUsersIntentV3"]
    assert intent["users"][0]["userName"] == "alice"
    user_ids = activity["result"]["createUsersResult"]["userIds"]
    assert len(user_ids) == 1
    (vote,) = activity["votes"]
    assert vote["userId"] == turnkey_org.user_id and vote["activityId"] == activity["id"]
    assert vote["selection"] == "VOTE_SELECTION_APPROVED"
    assert vote["message"] == raw.decode() and vote["publicKey"] == turnkey_org.api_public_key
    assert (
        vote["scheme"] == "SIGNATURE_SCHEME_TK_API_P256"
        and vote["user"]["userId"] == turnkey_org.user_id
    )


def test_activity_validates_against_the_sdk_model(wire, turnkey_org):
    sdk_types = pytest.importorskip("turnkey_sdk_types")
    _, (_, body) = submit_users(wire, turnkey_org, "alice")
    parsed = sdk_types.GetActivityResponse(**body)
    assert (
        parsed.activity.result.createUsersResult.userIds
        == body["activity"]["result"]["createUsersResult"]["userIds"]
    )
    assert parsed.activity.votes[0].user.mfaPolicies == []


def test_seed_envelope_of_an_activity(wire, turnkey_org):
    _, (_, body) = submit_users(wire, turnkey_org, "alice")
    activity = body["activity"]
    seed = activity["result"]["activity"]
    assert seed["type"] == "ACTIVITY_TYPE_CREATE_USERS_V3"
    assert seed["intent"] == activity["intent"]
    assert seed["result"] == {"createUsersResult": activity["result"]["createUsersResult"]}
    assert activity["timestampMs"].isdigit()


def test_same_body_twice_is_the_same_activity_and_changes_nothing_more(
    wire, turnkey_emulator, turnkey_org
):
    raw, (_, first) = submit_users(wire, turnkey_org, "alice")
    after_first = state_digest(turnkey_emulator)
    status, second = wire.post("/public/v1/submit/create_users", None, turnkey_org.api_key, raw=raw)
    assert status == 200 and second["activity"] == first["activity"]
    assert state_digest(turnkey_emulator) == after_first
    assert [u["userName"] for u in turnkey_emulator.list_users()["users"]].count("alice") == 1


def test_a_new_timestamp_is_a_new_activity(wire, turnkey_emulator, turnkey_org):
    now = turnkey_emulator.clock.now_ms()
    _, (_, a) = submit_users(wire, turnkey_org, "alice", timestamp_ms=now)
    _, (_, b) = submit_users(wire, turnkey_org, "alice", timestamp_ms=now + 1)
    assert a["activity"]["id"] != b["activity"]["id"]
    assert a["activity"]["fingerprint"] != b["activity"]["fingerprint"]


def test_activity_ids_are_time_ordered(wire, turnkey_emulator, turnkey_org):
    ids = []
    for i in range(5):
        turnkey_emulator.clock.advance(0.002)
        ids.append(submit_users(wire, turnkey_org, f"u{i}")[1][1]["activity"]["id"])
    assert ids == sorted(ids)


# reference/faq.mdx: "less than an hour old, and up to 5 minutes in the future"
@pytest.mark.parametrize("offset_s", [-3600, -3601, 301, 3600, -7200])
def test_timestamp_outside_the_window_is_rejected(wire, turnkey_emulator, turnkey_org, offset_s):
    before = state_digest(turnkey_emulator)
    stale = turnkey_emulator.clock.now_ms() + offset_s * 1000
    _, (status, body) = submit_users(wire, turnkey_org, "alice", timestamp_ms=stale)
    assert status == 400 and body["code"] == 3 and body["turnkeyErrorCode"] == "INVALID_TIME"
    assert "outside the allowed window" in body["message"] and str(stale) in body["message"]
    assert state_digest(turnkey_emulator) == before


@pytest.mark.parametrize("offset_ms", [-3_599_000, 0, 299_999, 300_000])
def test_timestamp_inside_the_window_is_accepted(wire, turnkey_emulator, turnkey_org, offset_ms):
    _, (status, _) = submit_users(
        wire, turnkey_org, "alice", timestamp_ms=turnkey_emulator.clock.now_ms() + offset_ms
    )
    assert status == 200


def test_window_follows_the_emulator_clock_and_can_be_turned_off(
    turnkey_emulator, turnkey_org, wire
):
    turnkey_emulator.clock.advance(3600)
    _, (status, _) = submit_users(
        wire, turnkey_org, "alice", timestamp_ms=turnkey_emulator.clock.now_ms()
    )
    assert status == 200
    turnkey_emulator.settings.timestamp_window_s = None
    _, (status, _) = submit_users(wire, turnkey_org, "bob", timestamp_ms=1)
    assert status == 200


@pytest.mark.parametrize("value", ["soon", "", None, "12.5", True])
def test_timestamp_must_be_milliseconds(wire, turnkey_org, value):
    body = activity_body(
        "ACTIVITY_TYPE_CREATE_USERS_V3", turnkey_org.organization_id, {"users": [user_params()]}
    )
    body["timestampMs"] = value
    status, answer = wire.post("/public/v1/submit/create_users", body, turnkey_org.api_key)
    assert status == 400 and "timestampMs" in answer["message"]


def test_get_activity(turnkey_emulator, turnkey_org):
    created = turnkey_emulator.create_users(users=[user_params()])
    got = turnkey_emulator.get_activity(activity_id=created["activity"]["id"])
    assert set(got) == {"activity"} and got["activity"] == created["activity"]


def test_get_activity_unknown_and_of_another_organization(turnkey_emulator, turnkey_org):
    other = turnkey_emulator.create_organization("Other")
    foreign = turnkey_emulator.create_users(
        users=[user_params()], organization_id=other.organization_id
    )
    from emulator import TurnkeyApiError

    for activity_id in (NIL_UUID, foreign["activity"]["id"]):
        with pytest.raises(TurnkeyApiError) as caught:
            turnkey_emulator.get_activity(activity_id=activity_id)
        assert caught.value.status == 404 and activity_id in caught.value.message


def _make_activities(emu, n):
    ids = []
    for i in range(n):
        emu.clock.advance(0.001)
        ids.append(emu.create_users(users=[user_params(f"user{i}")])["activity"]["id"])
    return ids


def test_list_activities_newest_first_with_default_limit(turnkey_emulator, turnkey_org):
    ids = _make_activities(turnkey_emulator, 12)
    listed = [a["id"] for a in turnkey_emulator.list_activities()["activities"]]
    assert listed == list(reversed(ids))[:10]


def test_list_activities_pages_with_after_and_before(turnkey_emulator, turnkey_org):
    ids = list(reversed(_make_activities(turnkey_emulator, 7)))
    page1 = [
        a["id"]
        for a in turnkey_emulator.list_activities(pagination_options={"limit": "3"})["activities"]
    ]
    page2 = [
        a["id"]
        for a in turnkey_emulator.list_activities(
            pagination_options={"limit": "3", "after": page1[-1]}
        )["activities"]
    ]
    page3 = [
        a["id"]
        for a in turnkey_emulator.list_activities(
            pagination_options={"limit": "3", "after": page2[-1]}
        )["activities"]
    ]
    assert page1 + page2 + page3 == ids
    back = [
        a["id"]
        for a in turnkey_emulator.list_activities(
            pagination_options={"limit": "2", "before": page3[0]}
        )["activities"]
    ]
    assert back == ids[4:6]


def test_list_activities_unknown_cursor(turnkey_emulator, turnkey_org):
    from emulator import TurnkeyApiError

    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.list_activities(pagination_options={"after": NIL_UUID})
    assert caught.value.status == 400


def test_list_activities_filters(turnkey_emulator, turnkey_org):
    turnkey_emulator.create_users(users=[user_params()])
    tag = turnkey_emulator.create_user_tag(user_tag_name="t", user_ids=[])
    by_type = turnkey_emulator.list_activities(filter_by_type=["ACTIVITY_TYPE_CREATE_USER_TAG"])[
        "activities"
    ]
    assert [a["id"] for a in by_type] == [tag["activity"]["id"]]
    assert (
        turnkey_emulator.list_activities(filter_by_status=["ACTIVITY_STATUS_FAILED"])["activities"]
        == []
    )
    assert (
        len(
            turnkey_emulator.list_activities(filter_by_status=["ACTIVITY_STATUS_COMPLETED"])[
                "activities"
            ]
        )
        == 2
    )


def test_query_answers_both_contracts(turnkey_emulator, turnkey_org):
    body = turnkey_emulator.list_users()
    envelope = body["activity"]
    assert envelope["type"] == "ACTIVITY_TYPE_UNKNOWN_V1"
    assert envelope["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert envelope["organizationId"] == turnkey_org.organization_id
    assert envelope["result"]["users"] == body["users"]
    assert UUID7.match(envelope["id"]) and envelope["timestampMs"].isdigit()


def test_seeded_emulators_make_the_same_ids():
    def run():
        emu = Emulator(seed=7)
        org = emu.create_organization("Acme")
        made = emu.create_users(users=[user_params()], timestamp_ms=emu.clock.now_ms())
        return org.organization_id, org.user_id, org.api_public_key, made["userIds"]

    assert run() == run()
    assert Emulator(seed=8).create_organization().organization_id != run()[0]


def test_a_failed_activity_does_not_move_the_id_stream(turnkey_emulator, turnkey_org):
    clone = Emulator(seed=3)
    clone_org = clone.create_organization()
    emu = Emulator(seed=3)
    org = emu.create_organization()
    from emulator import TurnkeyApiError

    with pytest.raises(TurnkeyApiError):
        emu.create_users(users=[user_params(user_tags=[NIL_UUID])])
    assert (
        emu.create_users(users=[user_params()])["userIds"]
        == clone.create_users(users=[user_params()])["userIds"]
    )
    assert org.organization_id == clone_org.organization_id
