"""The call log: every request that reaches the dispatcher, facade and wire alike."""

from __future__ import annotations

import json

import pytest

from emulator import Emulator, TurnkeyApiError
from emulator.ground import messages
from emulator.recorders.calls import Call, CallLog

from .helpers import NIL_UUID, activity_body, encode, new_key, stamped_headers, user_params

COMPLETED = "ACTIVITY_STATUS_COMPLETED"
CREATE_USERS_V3 = "ACTIVITY_TYPE_CREATE_USERS_V3"


@pytest.fixture
def emu(turnkey_emulator: Emulator) -> Emulator:
    """The test's emulator with a frozen clock and an empty call log."""
    turnkey_emulator.clock.freeze()
    turnkey_emulator.world.calls.clear()
    return turnkey_emulator


@pytest.fixture
def calls(emu: Emulator) -> CallLog:
    return emu.world.calls


def fields(call: Call) -> dict:
    """A call's fields, its duration (wall time, never the same twice) checked apart."""
    assert isinstance(call.duration_ns, int) and call.duration_ns > 0
    return {
        name: getattr(call, name) for name in Call.__dataclass_fields__ if name != "duration_ns"
    }


# ----- what one call records ---------------------------------------------------------


def test_a_facade_query_records_its_caller_request_and_response(emu, calls, turnkey_org):
    response = emu.get_whoami()
    (call,) = calls
    assert fields(call) == {
        "seq": 1,
        "time_ns": emu.clock.now_ns(),
        "operation": "whoami",
        "kind": "query",
        "activity_type": None,
        "organization_id": turnkey_org.organization_id,
        "user_id": turnkey_org.user_id,
        "api_public_key": turnkey_org.api_public_key,
        "http_status": 200,
        "error_code": None,
        "error_message": None,
        "turnkey_error_code": None,
        "activity_id": None,
        "activity_status": None,
        "result": response,
        "request": {"organizationId": turnkey_org.organization_id},
    }
    assert call.ok and not call.failed
    assert call.summary() == "#1 whoami -> 200"


def test_a_facade_activity_records_its_type_activity_and_body(emu, calls, turnkey_org):
    response = emu.create_users(users=[user_params("alice")])
    (call,) = calls
    activity = response["activity"]
    assert fields(call) == {
        "seq": 1,
        "time_ns": emu.clock.now_ns(),
        "operation": "create_users",
        "kind": "activity",
        "activity_type": CREATE_USERS_V3,
        "organization_id": turnkey_org.organization_id,
        "user_id": turnkey_org.user_id,
        "api_public_key": turnkey_org.api_public_key,
        "http_status": 200,
        "error_code": None,
        "error_message": None,
        "turnkey_error_code": None,
        "activity_id": activity["id"],
        "activity_status": COMPLETED,
        "result": {"activity": activity},
        "request": {
            "parameters": {"users": [user_params("alice")]},
            "organizationId": turnkey_org.organization_id,
            "timestampMs": activity["timestampMs"],
            "type": CREATE_USERS_V3,
        },
    }
    assert call.summary() == f"#1 create_users {CREATE_USERS_V3} -> 200 {COMPLETED}"


def test_an_unknown_organization_is_recorded_without_a_caller(emu, calls):
    with pytest.raises(TurnkeyApiError):
        emu.get_whoami(organization_id=NIL_UUID, caller=new_key())
    (call,) = calls
    assert (call.organization_id, call.user_id, call.api_public_key) == (NIL_UUID, None, None)
    assert (call.http_status, call.error_code, call.error_message, call.turnkey_error_code) == (
        404,
        5,
        messages.organization_not_found(NIL_UUID),
        "ORGANIZATION_NOT_FOUND",
    )
    assert (call.result, call.activity_id, call.activity_status) == (None, None, None)
    assert call.failed and not call.ok
    assert call.summary() == f"#1 whoami -> 404 (code 5: {call.error_message})"


def test_an_unknown_key_is_recorded_without_a_caller(emu, calls, turnkey_org):
    stranger = new_key()
    with pytest.raises(TurnkeyApiError):
        emu.create_users(users=[user_params("x")], caller=stranger)
    (call,) = calls
    assert (call.user_id, call.api_public_key, call.activity_type) == (None, None, CREATE_USERS_V3)
    assert (call.http_status, call.error_code, call.turnkey_error_code) == (
        401,
        16,
        "PUBLIC_KEY_NOT_FOUND",
    )


def test_an_error_after_authentication_names_the_caller(emu, calls, turnkey_org):
    with pytest.raises(TurnkeyApiError):
        emu.create_users(users=[])  # at least one user
    (call,) = calls
    assert (call.user_id, call.api_public_key) == (turnkey_org.user_id, turnkey_org.api_public_key)
    assert (call.http_status, call.error_code, call.turnkey_error_code) == (
        400,
        3,
        "REQUEST_INVALID",
    )
    assert (call.activity_id, call.activity_status, call.result) == (None, None, None)


# ----- the wire -------------------------------------------------------------------------


def test_a_stamped_wire_request_records_the_response_body(wire, calls, turnkey_org):
    body = {"organizationId": turnkey_org.organization_id}
    status, answer = wire.post("/public/v1/query/whoami", body, turnkey_org.api_key)
    assert status == 200
    (call,) = calls
    assert (call.operation, call.kind, call.user_id, call.api_public_key) == (
        "whoami",
        "query",
        turnkey_org.user_id,
        turnkey_org.api_public_key,
    )
    assert (call.http_status, call.result, call.request) == (200, answer, body)


def test_a_wire_activity_records_its_activity(wire, calls, turnkey_org):
    body = activity_body(
        CREATE_USERS_V3, turnkey_org.organization_id, {"users": [user_params("bob")]}
    )
    status, answer = wire.post("/public/v1/submit/create_users", body, turnkey_org.api_key)
    assert status == 200
    (call,) = calls
    assert (call.activity_type, call.activity_id, call.activity_status) == (
        CREATE_USERS_V3,
        answer["activity"]["id"],
        COMPLETED,
    )
    assert (call.result, call.request) == (answer, body)


def test_a_bad_signature_on_the_wire_is_recorded_without_a_caller(wire, calls, turnkey_org):
    body = {"organizationId": turnkey_org.organization_id}
    headers = stamped_headers(encode({"other": "bytes"}), turnkey_org.api_key)
    status, answer = wire.post("/public/v1/query/whoami", body, headers=headers)
    assert status == 401
    (call,) = calls
    assert (call.user_id, call.api_public_key, call.http_status, call.error_code) == (
        None,
        None,
        401,
        16,
    )
    assert (call.error_message, call.turnkey_error_code) == (
        answer["message"],
        answer["turnkeyErrorCode"],
    )


def test_a_body_that_is_not_an_object_is_recorded_as_sent(wire, calls, turnkey_org):
    status, _ = wire.post("/public/v1/query/whoami", ["a", "list"], turnkey_org.api_key)
    assert status == 400
    (call,) = calls
    assert (call.request, call.organization_id, call.user_id, call.http_status) == (
        ["a", "list"],
        None,
        None,
        400,
    )


def test_requests_the_wire_turns_away_before_dispatch_are_not_recorded(wire, calls, turnkey_org):
    assert wire.post("/public/v1/query/no_such_thing", {}, turnkey_org.api_key)[0] == 404
    assert wire.post("/public/v1/query/whoami", None, raw=b"{not json")[0] == 400
    assert len(calls) == 0


def test_the_official_sdk_calls_are_recorded(sdk, calls, turnkey_org):
    from turnkey_sdk_types import GetWhoamiBody

    sdk.get_whoami(GetWhoamiBody())
    (call,) = calls
    assert (call.operation, call.user_id, call.api_public_key, call.http_status) == (
        "whoami",
        turnkey_org.user_id,
        turnkey_org.api_public_key,
        200,
    )
    assert call.request == {"organizationId": turnkey_org.organization_id}
    assert call.result["userId"] == turnkey_org.user_id


# ----- filters ------------------------------------------------------------------------


@pytest.fixture
def history(emu, calls, turnkey_org):
    """whoami, create_users (alice), list_users, a 404 whoami, whoami as alice."""
    alice_key = new_key()
    alice = {
        **user_params("alice"),
        "apiKeys": [
            {"apiKeyName": "k", "publicKey": alice_key.public_key, "curveType": alice_key.curve}
        ],
    }
    emu.get_whoami()
    (alice_id,) = emu.create_users(users=[alice])["userIds"]
    emu.list_users()
    with pytest.raises(TurnkeyApiError):
        emu.get_whoami(organization_id=NIL_UUID, caller=turnkey_org)
    emu.get_whoami(caller=alice_key)
    return alice_id


def seqs(found) -> list[int]:
    return [call.seq for call in found]


def test_filters_match_every_given_field(calls, history, turnkey_org):
    alice_id = history
    assert seqs(calls) == seqs(calls.all()) == [1, 2, 3, 4, 5]
    assert seqs(calls.filter()) == [1, 2, 3, 4, 5]
    assert seqs(calls.filter(operation="whoami")) == [1, 4, 5]
    assert seqs(calls.filter(operation="get_whoami")) == [1, 4, 5]  # the SDK's name
    assert seqs(calls.filter(operation="get_users")) == [3]
    assert seqs(calls.filter(status=200)) == [1, 2, 3, 5]
    assert seqs(calls.filter(status=404)) == [4]
    assert seqs(calls.filter(status=COMPLETED)) == [2]
    assert seqs(calls.filter(user_id=turnkey_org.user_id)) == [1, 2, 3]
    assert seqs(calls.filter(user_id=alice_id)) == [5]
    assert seqs(calls.filter(organization_id=turnkey_org.organization_id)) == [1, 2, 3, 5]
    assert seqs(calls.filter(organization_id=NIL_UUID)) == [4]
    assert seqs(calls.filter(kind="activity")) == [2]
    assert seqs(calls.filter(kind="query")) == [1, 3, 4, 5]
    assert seqs(calls.filter(activity_type=CREATE_USERS_V3)) == [2]
    assert seqs(calls.filter(failed=True)) == [4]
    assert seqs(calls.filter(failed=False)) == [1, 2, 3, 5]
    assert seqs(calls.filter(operation="whoami", status=200, user_id=turnkey_org.user_id)) == [1]
    assert calls.last().seq == 5
    assert calls.last(operation="whoami", failed=True).seq == 4
    assert calls.last(operation="delete_users") is None
    assert calls.count() == len(calls) == 5
    assert calls.count(operation="whoami") == 3
    assert calls.count(kind="activity", status=404) == 0
    assert calls[0].seq == 1 and calls[-1].seq == 5


def test_an_unknown_operation_name_is_an_error_not_an_empty_match(calls, history):
    with pytest.raises(ValueError, match="no operation named 'whoamii'"):
        calls.filter(operation="whoamii")


def test_assert_called_answers_the_matching_calls(calls, history):
    assert seqs(calls.assert_called("whoami")) == [1, 4, 5]
    assert seqs(calls.assert_called("get_whoami", times=2, status=200)) == [1, 5]
    assert calls.assert_called("delete_users", times=0) == []


def test_assert_called_says_what_was_called(calls, history, turnkey_org):
    with pytest.raises(AssertionError) as caught:
        calls.assert_called("create_users", times=2, status=200)
    message = messages.organization_not_found(NIL_UUID)
    assert str(caught.value) == "\n".join(
        [
            "expected create_users (status=200) to be called 2 times, it was called once; "
            "5 calls recorded:",
            "  #1 whoami -> 200",
            f"  #2 create_users {CREATE_USERS_V3} -> 200 {COMPLETED}",
            "  #3 list_users -> 200",
            f"  #4 whoami -> 404 (code 5: {message})",
            "  #5 whoami -> 200",
        ]
    )
    with pytest.raises(AssertionError) as caught:
        calls.assert_called("delete_users")
    assert str(caught.value).startswith(
        "expected delete_users to be called at least once, it was called 0 times; "
        "5 calls recorded:\n  #1 whoami -> 200\n"
    )


def test_assert_called_on_an_empty_log(calls):
    with pytest.raises(AssertionError) as caught:
        calls.assert_called("whoami", times=1)
    assert str(caught.value) == (
        "expected whoami to be called once, it was called 0 times; no calls recorded"
    )


def test_assert_called_lists_only_the_last_twenty_calls(emu, calls):
    for _ in range(25):
        emu.get_whoami()
    with pytest.raises(AssertionError) as caught:
        calls.assert_called("list_users")
    lines = str(caught.value).splitlines()
    assert lines[0].endswith("25 calls recorded (the last 20):")
    assert lines[1:] == [f"  #{n} whoami -> 200" for n in range(6, 26)]


# ----- size, clearing, and what the log is not -----------------------------------------------


def test_the_log_keeps_the_last_max_entries_calls():
    emu = Emulator()
    emu.create_organization()
    emu.world.calls = CallLog(max_entries=3)
    for _ in range(5):
        emu.get_whoami()
    assert seqs(emu.world.calls) == [3, 4, 5]
    assert (len(emu.world.calls), emu.world.calls.total) == (3, 5)
    assert (CallLog().max_entries, CallLog().max_bodies) == (10_000, 1_000)
    with pytest.raises(ValueError):
        CallLog(max_entries=0)


def test_only_the_last_max_bodies_calls_keep_their_bodies():
    emu = Emulator()
    emu.create_organization()
    emu.world.calls = CallLog(max_entries=5, max_bodies=2)
    for _ in range(4):
        emu.get_whoami()
    calls = emu.world.calls.all()
    assert [c.seq for c in calls] == [1, 2, 3, 4]
    assert [(c.request is None, c.result is None) for c in calls] == [
        (True, True),
        (True, True),
        (False, False),
        (False, False),
    ]
    assert [c.summary() for c in calls] == [f"#{n} whoami -> 200" for n in range(1, 5)]
    assert calls[3].result["organizationId"] == calls[3].organization_id
    with pytest.raises(ValueError):
        CallLog(max_bodies=-1)


def test_clear_forgets_every_call_and_numbers_from_one_again(emu, calls):
    emu.get_whoami()
    emu.get_whoami()
    calls.clear()
    assert (len(calls), calls.all(), calls.total) == (0, [], 0)
    emu.list_users()
    assert [(c.seq, c.operation) for c in calls] == [(1, "list_users")]


def test_checkpoints_and_snapshots_leave_the_log_alone_and_reset_empties_it():
    emu = Emulator()
    emu.create_organization()
    checkpoint = emu.checkpoint()
    saved = emu.snapshot()
    emu.get_whoami()
    emu.faults.fail_next("whoami")
    emu.rollback(checkpoint)
    emu.restore(saved)
    assert [(c.seq, c.operation) for c in emu.calls] == [(1, "whoami")]
    assert len(emu.faults.pending()) == 1
    emu.reset()  # a new emulator's state: no calls seen, no faults waiting
    assert (emu.calls.all(), emu.faults.pending()) == ([], [])


def test_the_log_holds_the_response_itself_not_a_copy(emu, calls):
    response = emu.get_whoami()
    assert calls.last().result is response
    assert json.loads(json.dumps(calls.last().result)) == response
