"""The documented rate limits (``emulator/engine_state/ratelimits.py``, docs/rate-limits.md), in-process.

Off by default; with ``Settings(rate_limits=PLAN)`` every request to a known organization
counts toward the plan's bucket of its tree (a minute of the plan's RPS), a sub-organization's
own bucket (10 RPS) and, for the three endpoints the FAQ names, an endpoint bucket (10 RPS),
all refilling continuously on the emulator's clock. The facade raises ``TurnkeyApiError``
429; a refused request changes nothing. The wire, the SDKs and the CLI are in
``test_rate_limits_wire.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pytest
from hypothesis import given, settings, target
from hypothesis import strategies as st

from emulator import Emulator, TurnkeyApiError
from emulator.engine_state.ratelimits import PLANS, RateLimits, plan_named
from emulator.engine_state.world import Settings
from tests.helpers import api_key_params, new_key

MESSAGE = "Too many requests. Please wait and try again in a few seconds"
BODY_429 = {
    "code": 8,
    "message": MESSAGE,
    "details": [
        {
            "@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail",
            "turnkeyErrorCode": "RATE_LIMIT_EXCEEDED",
        }
    ],
    "turnkeyErrorCode": "RATE_LIMIT_EXCEEDED",
}
PLAN_RPS = {"free": 1, "pay-as-you-go": 1, "pro": 3, "enterprise": 60}
NOT_OURS = "0x000000000000000000000000000000000000dEaD"


def limited(plan: str) -> Emulator:
    """An emulator with ``plan``'s limits, its clock frozen, one organization."""
    emu = Emulator(seed=5, settings=Settings(rate_limits=plan))
    emu.clock.freeze(at_ms=1_800_000_000_000)
    emu.create_organization("Limited")
    return emu


def admitted(call, limit: int = 10_000) -> int:
    """How many calls in a row succeed before the first 429 (which must come)."""
    for count in range(limit):
        try:
            call()
        except TurnkeyApiError as error:
            if error.status == 429:
                return count
    raise AssertionError(f"no 429 in {limit} calls")


def refused(call) -> TurnkeyApiError:
    with pytest.raises(TurnkeyApiError) as caught:
        call()
    assert caught.value.status == 429
    return caught.value


def sub_organization(emu: Emulator, name: str) -> tuple[str, object]:
    key = new_key()
    made = emu.create_sub_organization(
        sub_organization_name=name,
        root_users=[
            {
                "userName": "root",
                "apiKeys": [api_key_params(key)],
                "authenticators": [],
                "oauthProviders": [],
            }
        ],
        root_quorum_threshold=1,
    )
    return made["subOrganizationId"], key


# ----- the plans and the setting -----------------------------------------------------------


def test_the_plans_are_the_docs_four_with_their_rates():
    assert {name: plan.rps for name, plan in PLANS.items()} == PLAN_RPS
    assert [plan.title for plan in PLANS.values()] == ["Free", "Pay-as-you-go", "Pro", "Enterprise"]


def test_the_setting_takes_a_plan_in_any_case_and_refuses_others():
    assert Settings().rate_limits is None
    assert Settings(rate_limits="Pay-as-you-go").rate_limits == "pay-as-you-go"
    assert Settings(rate_limits=" PRO ").rate_limits == "pro"
    for bad in ("gold", "", "free-tier"):
        with pytest.raises(ValueError) as caught:
            Settings(rate_limits=bad)
        assert str(caught.value) == (
            f"unknown rate-limit plan {bad!r}: choose one of free, pay-as-you-go, pro, enterprise"
        )
    with pytest.raises(ValueError):
        plan_named(3)


def test_off_by_default_nothing_is_counted():
    emu = Emulator(seed=5)
    emu.clock.freeze()
    emu.create_organization("Unlimited")
    for _ in range(200):  # over three times the free plan's minute, in no time
        emu.get_whoami()
    assert emu.world.rate_limits is None


# ----- the plan's bucket: exact at its boundaries, refilled on the clock -----------------


@pytest.mark.parametrize("plan", list(PLAN_RPS))
def test_a_plan_admits_a_minute_of_its_rate_at_once_and_no_more(plan):
    emu = limited(plan)
    assert admitted(emu.get_whoami) == 60 * PLAN_RPS[plan]
    error = refused(emu.get_whoami)
    assert (error.status, error.code, error.body()) == (429, 8, BODY_429)


@pytest.mark.parametrize("plan", ["free", "pro", "enterprise"])
def test_the_bucket_refills_one_request_per_interval_of_the_rate(plan):
    emu = limited(plan)
    rps = PLAN_RPS[plan]
    admitted(emu.get_whoami)
    interval_ns = -(-1_000_000_000 // rps)  # the first whole ns at which one request is back
    emu.clock.advance((interval_ns - 1) / 1e9)
    refused(emu.get_whoami)
    emu.clock.advance(1e-9)
    emu.get_whoami()
    refused(emu.get_whoami)


def test_a_full_minute_refills_the_bucket_and_an_hour_no_more():
    emu = limited("free")
    admitted(emu.get_whoami)
    emu.clock.advance(30)
    assert admitted(emu.get_whoami) == 30
    emu.clock.advance(3600)
    assert admitted(emu.get_whoami) == 60


def test_a_clock_moved_back_refills_nothing_and_counts_no_time_twice():
    emu = limited("free")
    admitted(emu.get_whoami)
    emu.clock.advance(-10)
    refused(emu.get_whoami)
    emu.clock.advance(10)  # back where the bucket ran dry: still dry
    refused(emu.get_whoami)
    emu.clock.advance(2)
    assert admitted(emu.get_whoami) == 2


# ----- organizations: the tree shares the plan, a sub-organization has its own 10 RPS ----


def test_sub_organizations_share_their_parents_plan_bucket():
    emu = limited("free")
    sub_id, key = sub_organization(emu, "Sub")  # an activity: one request of the 60
    assert admitted(lambda: emu.get_whoami(organization_id=sub_id, caller=key)) == 59
    refused(emu.get_whoami)  # the parent's requests are out too


def test_another_tree_has_a_bucket_of_its_own():
    emu = limited("free")
    other = emu.create_organization("Other")
    admitted(emu.get_whoami)
    assert admitted(lambda: emu.get_whoami(organization_id=other.organization_id)) == 60


def test_each_sub_organization_has_its_own_ten_requests_a_second():
    emu = limited("enterprise")
    first, first_key = sub_organization(emu, "First")
    second, second_key = sub_organization(emu, "Second")
    assert admitted(lambda: emu.get_whoami(organization_id=first, caller=first_key)) == 600
    emu.get_whoami()  # the parent still has its plan: 3600 - 2 - 600 - 1 left
    assert admitted(lambda: emu.get_whoami(organization_id=second, caller=second_key)) == 600
    emu.clock.advance(0.1)  # one request back in the first's bucket
    emu.get_whoami(organization_id=first, caller=first_key)
    refused(lambda: emu.get_whoami(organization_id=first, caller=first_key))
    assert admitted(emu.get_whoami) == 3600 - 2 - 600 - 1 - 600 - 1 + 6  # 0.1 s of 60 RPS


# ----- endpoints: the three the FAQ names, 10 RPS each, within the plan ------------------


def balances(emu: Emulator) -> None:
    """A ``get_wallet_address_balances`` (a 400: the address is no wallet of ours)."""
    try:
        emu.get_wallet_address_balances(address=NOT_OURS, caip2="eip155:1")
    except TurnkeyApiError as error:
        if error.status != 400:
            raise


def test_an_endpoint_bucket_counts_every_request_of_its_endpoint_whatever_it_answers():
    emu = limited("enterprise")
    assert admitted(lambda: balances(emu)) == 600
    error = refused(lambda: balances(emu))
    assert error.body() == BODY_429
    emu.get_whoami()  # other endpoints go on: the plan's bucket has 3000 left
    emu.clock.advance(0.1)
    balances(emu)
    refused(lambda: balances(emu))


def test_each_endpoint_and_tree_has_its_own_bucket():
    emu = limited("enterprise")
    admitted(lambda: balances(emu))
    send = dict(from_=NOT_OURS, caip2="eip155:1", to=NOT_OURS)

    def eth_send() -> None:
        try:
            emu.eth_send_transaction(**send)
        except TurnkeyApiError as error:
            if error.status != 400:
                raise

    assert admitted(eth_send) == 600
    other = emu.create_organization("Other")
    with pytest.raises(TurnkeyApiError) as caught:
        emu.get_wallet_address_balances(
            address=NOT_OURS, caip2="eip155:1", organization_id=other.organization_id
        )
    assert caught.value.status == 400  # counted in its own tree's bucket, not refused


def test_a_free_plan_is_tighter_than_an_endpoint():
    emu = limited("free")
    assert admitted(lambda: balances(emu)) == 60


def test_reset_refills_and_snapshots_leave_the_buckets_alone():
    emu = limited("free")
    saved = emu.snapshot()
    admitted(emu.get_whoami)
    emu.restore(saved)  # the state's copy: the buckets are not state
    refused(emu.get_whoami)
    emu.reset()
    emu.create_organization("Again")
    assert emu.settings.rate_limits == "free"
    assert admitted(emu.get_whoami) == 60


# ----- a refused request changes nothing ---------------------------------------------------


def test_a_refused_activity_is_not_recorded_and_is_a_new_activity_later():
    emu = limited("free")
    admitted(emu.get_whoami)
    org = emu.world.store.organizations[emu.organization().organization_id]
    before = (len(org.activities), len(emu.world.store.activities_by_fingerprint), org.wallets)
    error = refused(lambda: emu.create_wallet(wallet_name="w", accounts=[]))
    assert error.body() == BODY_429
    after = (len(org.activities), len(emu.world.store.activities_by_fingerprint), org.wallets)
    assert after == before
    last = emu.world.calls.filter(operation="create_wallet")[-1]
    assert (last.http_status, last.error_code, last.activity_id) == (429, 8, None)
    emu.clock.advance(1)
    made = emu.create_wallet(wallet_name="w", accounts=[])
    assert made["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_a_request_to_an_unknown_organization_is_not_counted():
    emu = limited("free")
    for _ in range(100):
        with pytest.raises(TurnkeyApiError) as caught:
            emu.get_whoami(
                organization_id="00000000-0000-4000-8000-000000000000", caller=emu.organization()
            )
        assert caught.value.status == 404
    assert admitted(emu.get_whoami) == 60


# ----- a model: accepted exactly when the model's buckets have room --------------------------


@dataclass
class Org:
    organization_id: str
    parent_id: str | None = None


ORGS = [Org("parent"), Org("sub-a", "parent"), Org("sub-b", "parent"), Org("other")]
OPERATIONS = ["whoami", "get_wallet_address_balances", "eth_send_transaction"]
STEPS = st.one_of(
    st.tuples(
        st.just("burst"),
        st.sampled_from(range(len(ORGS))),
        st.sampled_from(OPERATIONS),
        st.integers(1, 700),
    ),
    st.tuples(st.just("advance"), st.integers(0, 90_000_000_000)),
)


def model_scopes(plan_rps: int, org: Org, operation: str) -> list[tuple[tuple, int]]:
    root = org.parent_id or org.organization_id
    scopes = [(("plan", root), plan_rps)]
    if org.parent_id:
        scopes.append((("org", org.organization_id), 10))
    if operation != "whoami":
        scopes.append((("endpoint", root, operation), 10))
    return scopes


@settings(max_examples=60, deadline=None)
@given(plan=st.sampled_from(list(PLAN_RPS)), steps=st.lists(STEPS, max_size=25))
def test_admission_matches_a_token_bucket_model(plan, steps):
    """Any sequence of bursts of requests and clock moves: a request is admitted exactly when
    each of its buckets (in the model, an exact fraction of requests) holds one whole."""
    limits = RateLimits(plan_named(plan))
    levels: dict[tuple, Fraction] = {}
    rates: dict[tuple, int] = {}
    now_ns = 1_000_000_000_000
    refusals = 0
    for step in steps:
        if step[0] == "advance":
            for key, rps in rates.items():
                levels[key] = min(60 * rps, levels[key] + Fraction(step[1] * rps, 10**9))
            now_ns += step[1]
            continue
        _, index, operation, count = step
        org = ORGS[index]
        scopes = model_scopes(PLAN_RPS[plan], org, operation)
        for key, rps in scopes:
            levels.setdefault(key, Fraction(60 * rps))
            rates[key] = rps
        for _ in range(count):
            room = all(levels[key] >= 1 for key, _ in scopes)
            try:
                left = limits.admit(org, operation, now_ns)  # type: ignore[arg-type]
            except TurnkeyApiError as error:
                assert not room and error.status == 429
                refusals += 1
                continue
            assert room
            for key, _ in scopes:
                levels[key] -= 1
            assert left == min(int(levels[key]) for key, _ in scopes)
    target(refusals)  # steer toward sequences that run buckets dry


@pytest.fixture(scope="module")
def tree() -> tuple[Emulator, str, object]:
    emu = limited("free")
    sub_id, key = sub_organization(emu, "Sub")
    return emu, sub_id, key


@settings(max_examples=30, deadline=None)
@given(
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("calls"), st.booleans(), st.integers(1, 80)),
            st.tuples(st.just("advance"), st.integers(0, 70_000)),
        ),
        max_size=12,
    )
)
def test_the_facade_admits_exactly_what_the_free_plans_bucket_allows(tree, steps):
    """Through dispatch: whoami from the parent or its sub-organization, and clock moves in
    milliseconds; the shared bucket (60, 1 RPS) decides, as an exact model says."""
    emu, sub_id, key = tree
    emu.world.rate_limits = None  # full buckets for each example
    level = Fraction(60)
    for step in steps:
        if step[0] == "advance":
            emu.clock.advance(step[1] / 1000)
            level = min(Fraction(60), level + Fraction(step[1], 1000))
            continue
        _, from_sub, count = step
        for _ in range(count):
            try:
                if from_sub:
                    emu.get_whoami(organization_id=sub_id, caller=key)
                else:
                    emu.get_whoami()
            except TurnkeyApiError as error:
                assert error.status == 429 and level < 1
                continue
            assert level >= 1
            level -= 1
