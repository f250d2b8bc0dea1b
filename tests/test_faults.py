"""Fault injection: HTTP errors, FAILED / CONSENSUS_NEEDED / PENDING activities, odds."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from emulator import Emulator, TurnkeyApiError
from emulator.ground.errors import TURNKEY_ERROR_DETAIL, PermissionDenied
from emulator.recorders.faults import Fault, Faults, InjectedError

from .helpers import NIL_UUID, activity_body, error_of, state_digest, user_params

CREATE_USERS_V3 = "ACTIVITY_TYPE_CREATE_USERS_V3"
FAILED = "ACTIVITY_STATUS_FAILED"
CONSENSUS_NEEDED = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
PENDING = "ACTIVITY_STATUS_PENDING"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
DEFAULT_BODY = {
    "code": 13,
    "message": "internal server error",
    "details": [],
    "turnkeyErrorCode": "",
}


@pytest.fixture
def emu(turnkey_emulator: Emulator) -> Emulator:
    turnkey_emulator.clock.freeze()
    turnkey_emulator.world.calls.clear()
    turnkey_emulator.world.faults.clear()
    return turnkey_emulator


@pytest.fixture
def faults(emu: Emulator) -> Faults:
    return emu.world.faults


def tk_detail(code: str) -> dict:
    return {"@type": TURNKEY_ERROR_DETAIL, "turnkeyErrorCode": code}


def user_names(emu: Emulator) -> list[str]:
    return sorted(u["userName"] for u in emu.list_users()["users"])


def injected(emu: Emulator, call, *args, **kwargs) -> TurnkeyApiError:
    """``call`` fails with a TurnkeyApiError and changes nothing (ids included)."""
    before = state_digest(emu)
    with pytest.raises(TurnkeyApiError) as caught:
        call(*args, **kwargs)
    assert state_digest(emu) == before
    return caught.value


# ----- HTTP errors ----------------------------------------------------------------------


def test_the_default_fault_is_a_500_and_changes_nothing(emu, faults):
    faults.fail_next()
    error = injected(emu, emu.create_users, users=[user_params("alice")])
    assert error_of(error) == (500, 13, "internal server error", "")
    assert error.body() == DEFAULT_BODY
    assert faults.pending() == []
    assert emu.create_users(users=[user_params("alice")])["activity"]["status"] == COMPLETED


def test_a_configured_error_is_answered_exactly_on_the_wire(emu, faults, wire, turnkey_org):
    faults.fail_next(
        "create_users", status=429, message="slow down", turnkey_error_code="RATE_LIMITED"
    )
    body = activity_body(CREATE_USERS_V3, turnkey_org.organization_id, {"users": [user_params()]})
    before = state_digest(emu)
    status, answer = wire.post("/public/v1/submit/create_users", body, turnkey_org.api_key)
    assert state_digest(emu) == before
    assert (status, answer) == (
        429,
        {
            "code": 8,
            "message": "slow down",
            "details": [tk_detail("RATE_LIMITED")],
            "turnkeyErrorCode": "RATE_LIMITED",
        },
    )
    (call,) = emu.world.calls
    assert (call.http_status, call.error_code, call.error_message, call.turnkey_error_code) == (
        429,
        8,
        "slow down",
        "RATE_LIMITED",
    )
    assert (call.user_id, call.activity_id) == (turnkey_org.user_id, None)


@pytest.mark.parametrize(
    ("status", "code", "message"),
    [
        (400, 3, "bad request"),
        (401, 16, "unauthorized"),
        (403, 7, "forbidden"),
        (404, 5, "not found"),
        (409, 6, "conflict"),
        (429, 8, "too many requests"),
        (500, 13, "internal server error"),
        (501, 12, "not implemented"),
        (502, 2, "bad gateway"),  # no gRPC code maps to 502: UNKNOWN, the status kept
        (503, 14, "service unavailable"),
    ],
)
def test_a_status_alone_maps_to_the_gateways_code(emu, faults, status, code, message):
    faults.fail_next("whoami", status=status)
    assert error_of(injected(emu, emu.get_whoami)) == (status, code, message, "")


@pytest.mark.parametrize(("code", "status"), [(14, 503), (9, 400), (5, 404), (2, 500)])
def test_a_code_alone_maps_to_its_status(emu, faults, code, status):
    faults.fail_next("whoami", code=code, message="m")
    assert error_of(injected(emu, emu.get_whoami)) == (status, code, "m", "")


def test_status_and_code_together_are_kept_as_given(emu, faults):
    faults.fail_next("whoami", status=503, code=13, message="overloaded")
    assert error_of(injected(emu, emu.get_whoami)) == (503, 13, "overloaded", "")


def test_a_given_error_is_raised_as_is_each_time_a_fresh_exception(emu, faults):
    faults.fail_next(
        "whoami", 2, error=PermissionDenied("nope", turnkey_error_code="POLICY_DENIED")
    )
    first = injected(emu, emu.get_whoami)
    second = injected(emu, emu.get_whoami)
    assert first is not second
    for error in (first, second):
        assert type(error) is PermissionDenied
        assert error.body() == {
            "code": 7,
            "message": "nope",
            "details": [tk_detail("POLICY_DENIED")],
            "turnkeyErrorCode": "POLICY_DENIED",
        }
    emu.get_whoami()


def test_count_is_used_up_one_matching_request_at_a_time(emu, faults):
    fault = faults.fail_next("whoami", 2, status=503)
    assert faults.pending() == [fault]
    assert fault.remaining == 2
    injected(emu, emu.get_whoami)
    (left,) = faults.pending()
    assert (left.operation, left.remaining, left.probability, left.error.status) == (
        "whoami",
        1,
        None,
        503,
    )
    injected(emu, emu.get_whoami)
    assert faults.pending() == []
    emu.get_whoami()
    assert [c.http_status for c in emu.world.calls] == [503, 503, 200]


def test_only_the_named_operation_fails(emu, faults):
    faults.fail_next("create_users")
    emu.get_whoami()
    emu.list_users()
    emu.create_user_tag(user_tag_name="t", user_ids=[])
    assert len(faults.pending()) == 1
    injected(emu, emu.create_users, users=[user_params()])
    assert faults.pending() == []


def test_an_sdk_method_name_names_the_operation(emu, faults):
    assert faults.fail_next("get_whoami").operation == "whoami"
    injected(emu, emu.whoami)
    with pytest.raises(ValueError, match="no operation named 'whoamii'"):
        faults.fail_next("whoamii")


def test_an_organization_filter_spares_the_others(emu, faults, turnkey_org):
    other = emu.create_organization("Other")
    faults.fail_next(organization_id=other.organization_id)
    emu.get_whoami(organization_id=turnkey_org.organization_id)
    injected(emu, emu.get_whoami, organization_id=other.organization_id)


def test_rules_are_tried_in_the_order_they_were_added(emu, faults):
    faults.fail_next("whoami", status=404)
    faults.fail_next(status=503)
    assert injected(emu, emu.get_whoami).status == 404
    assert injected(emu, emu.get_whoami).status == 503
    emu.get_whoami()


def test_a_request_that_fails_a_check_gets_its_real_error_and_keeps_the_rule(
    emu, faults, turnkey_org
):
    faults.fail_next(status=503)
    unknown = injected(emu, emu.get_whoami, organization_id=NIL_UUID, caller=turnkey_org)
    invalid = injected(emu, emu.create_users, users=[])
    assert (unknown.status, invalid.status) == (404, 400)
    assert len(faults.pending()) == 1
    assert injected(emu, emu.get_whoami).status == 503


def test_a_resubmitted_body_is_the_recorded_activity_and_uses_no_rule(
    emu, faults, wire, turnkey_org
):
    body = activity_body(
        CREATE_USERS_V3, turnkey_org.organization_id, {"users": [user_params("alice")]}
    )
    path = "/public/v1/submit/create_users"
    status, first = wire.post(path, body, turnkey_org.api_key)
    assert (status, first["activity"]["status"]) == (200, COMPLETED)
    faults.fail_next()
    assert wire.post(path, body, turnkey_org.api_key) == (200, first)
    assert len(faults.pending()) == 1


def test_clear_removes_every_rule_and_checkpoints_leave_rules_alone(emu, faults):
    faults.fail_next("whoami")
    faults.fail_randomly(0.5, seed=1)
    checkpoint = emu.checkpoint()
    emu.rollback(checkpoint)
    assert len(faults) == len(faults.pending()) == 2
    faults.clear()
    assert faults.pending() == []
    emu.get_whoami()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"operation": "whoami", "activity_status": FAILED}, "whoami is a query"),
        ({"activity_status": COMPLETED}, "activity_status must be one of"),
        ({"activity_status": PENDING, "message": "m"}, "carries no error"),
        ({"activity_status": CONSENSUS_NEEDED, "status": 500}, "carries no error"),
        ({"error": PermissionDenied("x"), "status": 403}, "not both"),
        ({"count": 0}, "count must be a positive integer"),
        ({"status": 200}, "status must be an HTTP error status"),
        ({"code": 0}, "code must be a gRPC error code"),
    ],
)
def test_bad_rules_are_refused(faults, kwargs, message):
    with pytest.raises(ValueError, match=message):
        faults.fail_next(**kwargs)
    assert faults.pending() == []


def test_bad_odds_are_refused(faults):
    for probability in (-0.1, 1.5, True):
        with pytest.raises(ValueError, match="probability must be between 0 and 1"):
            faults.fail_randomly(probability)


# ----- activities that do not complete ------------------------------------------------


def test_a_failed_activity_is_recorded_without_running_the_handler(emu, faults, turnkey_org):
    faults.fail_next("create_users", activity_status=FAILED)
    response = emu.create_users(users=[user_params("alice")])
    activity = response["activity"]
    (call,) = emu.world.calls
    raw = json.dumps(call.request).encode()  # the facade's exact body bytes
    assert set(response) == {"activity"}
    now = {"seconds": str(emu.clock.now_ns() // 10**9), "nanos": str(emu.clock.now_ns() % 10**9)}
    assert {k: v for k, v in activity.items() if k not in ("id", "votes")} == {
        "organizationId": turnkey_org.organization_id,
        "status": FAILED,
        "type": CREATE_USERS_V3,
        "intent": {"createUsersIntentV3": {"users": [user_params("alice")]}},
        "result": {},
        "fingerprint": "sha256:" + hashlib.sha256(raw).hexdigest(),
        "canApprove": False,
        "canReject": False,
        "createdAt": now,
        "updatedAt": now,
        "failure": {"code": 13, "message": "internal server error", "details": []},
        "timestampMs": call.request["timestampMs"],
    }
    (vote,) = activity["votes"]
    assert (vote["userId"], vote["selection"], vote["message"], vote["activityId"]) == (
        turnkey_org.user_id,
        "VOTE_SELECTION_APPROVED",
        raw.decode(),
        activity["id"],
    )
    assert user_names(emu) == ["Root User"]
    assert emu.get_activity(activity_id=activity["id"]) == {"activity": activity}
    listed = emu.list_activities(filter_by_status=[FAILED])["activities"]
    assert [a["id"] for a in listed] == [activity["id"]]
    assert (call.http_status, call.activity_id, call.activity_status) == (
        200,
        activity["id"],
        FAILED,
    )


def test_a_failed_activity_carries_the_configured_failure(emu, faults):
    faults.fail_next(
        "create_users",
        activity_status=FAILED,
        code=9,
        message="enclave unavailable",
        turnkey_error_code="ENCLAVE_DOWN",
    )
    activity = emu.create_users(users=[user_params()])["activity"]
    assert activity["failure"] == {
        "code": 9,
        "message": "enclave unavailable",
        "details": [tk_detail("ENCLAVE_DOWN")],
    }


@pytest.mark.parametrize("status", [CONSENSUS_NEEDED, PENDING])
def test_an_unfinished_activity_stays_so(emu, faults, turnkey_org, status):
    faults.fail_next("create_users", activity_status=status)
    activity = emu.create_users(users=[user_params("alice")])["activity"]
    assert (activity["status"], activity["result"], activity.get("failure")) == (status, {}, None)
    assert (activity["canApprove"], activity["canReject"]) == (False, False)  # the proposer
    assert user_names(emu) == ["Root User"]
    assert emu.get_activity(activity_id=activity["id"])["activity"] == activity
    assert emu.world.calls.last(operation="create_users").activity_status == status


def test_an_activity_status_rule_without_an_operation_skips_queries(emu, faults):
    faults.fail_next(activity_status=PENDING)
    emu.get_whoami()
    emu.list_users()
    assert emu.create_users(users=[user_params()])["activity"]["status"] == PENDING
    assert faults.pending() == []


def test_an_unfinished_activity_over_the_wire_answers_200(emu, faults, wire, turnkey_org):
    faults.fail_next("create_users", activity_status=CONSENSUS_NEEDED)
    body = activity_body(CREATE_USERS_V3, turnkey_org.organization_id, {"users": [user_params()]})
    status, answer = wire.post("/public/v1/submit/create_users", body, turnkey_org.api_key)
    assert (status, answer["activity"]["status"]) == (200, CONSENSUS_NEEDED)
    assert answer["activity"]["fingerprint"] == (
        "sha256:" + hashlib.sha256(json.dumps(body).encode()).hexdigest()
    )
    assert wire.post("/public/v1/submit/create_users", body, turnkey_org.api_key) == (200, answer)


# ----- the official SDK -----------------------------------------------------------------


def test_the_sdk_raises_a_network_error_for_an_http_fault(sdk, emu, faults):
    from turnkey_sdk_types import GetWhoamiBody, TurnkeyErrorCodes, TurnkeyNetworkError

    faults.fail_next("whoami", status=503, turnkey_error_code="BUSY")
    with pytest.raises(TurnkeyNetworkError) as caught:
        sdk.get_whoami(GetWhoamiBody())
    error = caught.value
    assert (str(error), error.status_code, error.code) == (
        "service unavailable",
        503,
        TurnkeyErrorCodes.BAD_RESPONSE,
    )
    assert json.loads(error.cause) == {
        "code": 14,
        "message": "service unavailable",
        "details": [tk_detail("BUSY")],
        "turnkeyErrorCode": "BUSY",
    }


def sdk_create_user(sdk):
    from turnkey_sdk_types import CreateUsersBody, v1UserParamsV3

    params = v1UserParamsV3(
        userName="alice", apiKeys=[], authenticators=[], oauthProviders=[], userTags=[]
    )
    return sdk.create_users(CreateUsersBody(users=[params]))


def test_the_sdk_raises_an_activity_error_for_a_failed_activity(sdk, emu, faults):
    from turnkey_sdk_types import GetActivityBody, TurnkeyActivityError, TurnkeyErrorCodes

    faults.fail_next("create_users", activity_status=FAILED, message="boom")
    with pytest.raises(TurnkeyActivityError) as caught:
        sdk_create_user(sdk)
    error = caught.value
    activity_id = emu.world.calls.last().activity_id
    assert type(error) is TurnkeyActivityError
    assert (error.message, error.code, error.activity_id) == (
        f"Activity {activity_id} failed",
        TurnkeyErrorCodes.ACTIVITY_FAILED,
        activity_id,
    )
    assert (error.activity_status, error.activity_type, error.failure) == (
        FAILED,
        CREATE_USERS_V3,
        "boom",
    )
    assert str(error) == (
        f"Activity {activity_id} failed: boom "
        f"(activity_id={activity_id}, status={FAILED}, type={CREATE_USERS_V3})"
    )
    assert [c.operation for c in emu.world.calls] == ["create_users"]  # terminal: no polling
    fetched = sdk.get_activity(GetActivityBody(activityId=activity_id)).activity
    assert (fetched.status.value, fetched.failure.code, fetched.failure.message) == (
        FAILED,
        13,
        "boom",
    )
    assert user_names(emu) == ["Root User"]


def test_the_sdk_raises_consensus_needed_without_polling(sdk, emu, faults):
    from turnkey_sdk_types import (
        GetActivityBody,
        TurnkeyActivityConsensusNeededError,
        TurnkeyErrorCodes,
    )

    faults.fail_next("create_users", activity_status=CONSENSUS_NEEDED)
    with pytest.raises(TurnkeyActivityConsensusNeededError) as caught:
        sdk_create_user(sdk)
    error = caught.value
    activity_id = emu.world.calls.last().activity_id
    assert (error.message, error.code, error.activity_id, error.activity_status, error.failure) == (
        f"Consensus needed for activity {activity_id}",
        TurnkeyErrorCodes.ACTIVITY_CONSENSUS_NEEDED,
        activity_id,
        CONSENSUS_NEEDED,
        None,
    )
    assert [c.operation for c in emu.world.calls] == ["create_users"]
    fetched = sdk.get_activity(GetActivityBody(activityId=activity_id)).activity
    assert (fetched.status.value, fetched.canApprove, fetched.canReject) == (
        CONSENSUS_NEEDED,
        False,
        False,
    )


def test_the_sdk_polls_a_pending_activity_then_gives_up(sdk, emu, faults):
    from turnkey_sdk_types import TurnkeyActivityError, TurnkeyErrorCodes

    # The SDK sleeps polling_interval_ms between polls: no sleep, three polls.
    sdk.polling_interval_ms = 0
    sdk.max_polling_retries = 3
    faults.fail_next("create_users", activity_status=PENDING)
    with pytest.raises(TurnkeyActivityError) as caught:
        sdk_create_user(sdk)
    error = caught.value
    activity_id = emu.world.calls[0].activity_id
    assert type(error) is TurnkeyActivityError
    assert (error.message, error.code, error.activity_status) == (
        f"Activity {activity_id} did not reach a terminal status after polling",
        TurnkeyErrorCodes.ACTIVITY_FAILED,
        PENDING,
    )
    calls = emu.world.calls
    assert [(c.operation, c.http_status) for c in calls] == [("create_users", 200)] + [
        ("get_activity", 200)
    ] * 3
    for poll in calls.filter(operation="get_activity"):
        assert poll.request["activityId"] == activity_id
        assert poll.result["activity"]["status"] == PENDING


def test_the_sdk_poll_of_a_pending_activity_meets_the_next_fault(sdk, emu, faults):
    from turnkey_sdk_types import TurnkeyNetworkError

    sdk.polling_interval_ms = 0
    faults.fail_next("create_users", activity_status=PENDING)
    faults.fail_next("get_activity", status=503)
    with pytest.raises(TurnkeyNetworkError) as caught:
        sdk_create_user(sdk)
    assert caught.value.status_code == 503
    assert [(c.operation, c.http_status) for c in emu.world.calls] == [
        ("create_users", 200),
        ("get_activity", 503),
    ]


# ----- odds -------------------------------------------------------------------------------


def failure_pattern(emu: Emulator, n: int) -> list[bool]:
    pattern = []
    for _ in range(n):
        try:
            emu.get_whoami()
            pattern.append(False)
        except TurnkeyApiError as error:
            assert error.status == 500
            pattern.append(True)
    return pattern


def test_a_seeded_random_rule_fails_the_same_requests_every_time(emu, faults):
    faults.fail_randomly(0.3, seed=7, operation="whoami")
    first = failure_pattern(emu, 200)
    faults.clear()
    faults.fail_randomly(0.3, seed=7, operation="whoami")
    second = failure_pattern(emu, 200)
    expected_draws = random.Random(7)
    assert first == second == [expected_draws.random() < 0.3 for _ in range(200)]
    assert 40 <= sum(first) <= 80  # roughly 0.3 of 200
    (rule,) = faults.pending()
    assert (rule.probability, rule.seed, rule.remaining) == (0.3, 7, None)


def test_a_random_rule_draws_only_for_matching_requests(emu, faults):
    faults.fail_randomly(0.5, seed=3, operation="whoami")
    pattern = []
    for _ in range(20):
        emu.list_users()  # not matched: draws nothing
        pattern.extend(failure_pattern(emu, 1))
    draws = random.Random(3)
    assert pattern == [draws.random() < 0.5 for _ in range(20)]


def test_odds_of_zero_and_one(emu, faults):
    faults.fail_randomly(0.0, seed=1)
    assert failure_pattern(emu, 10) == [False] * 10
    faults.clear()
    faults.fail_randomly(1.0, operation="whoami", activity_status=None, status=500)
    assert failure_pattern(emu, 10) == [True] * 10


def test_a_random_rule_can_fail_activities(emu, faults):
    faults.fail_randomly(1.0, seed=1, activity_status=FAILED)
    statuses = {
        emu.create_users(users=[user_params(f"u{i}")])["activity"]["status"] for i in range(3)
    }
    assert statuses == {FAILED}
    emu.get_whoami()  # an activity-status rule skips queries


def test_injected_errors_are_turnkey_api_errors(faults):
    fault = faults.fail_next(status=418, message="teapot")
    assert isinstance(fault, Fault)
    assert isinstance(fault.error, InjectedError) and isinstance(fault.error, TurnkeyApiError)
    assert (fault.error.status, fault.error.code) == (418, 2)
