"""Velocity controls: create, get, list, delete; controls.<identifier> enforced on signing, on
the emulator's clock; get_active_policies; state files and the journal; @turnkey/http."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rlp as pyrlp

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.ground import messages

from .helpers import add_user, error_of, fails, state_digest, violations

COMPLETED = "ACTIVITY_STATUS_COMPLETED"
COUNT = "VELOCITY_CONTROL_AGGREGATION_METHOD_COUNT"
SUM = "VELOCITY_CONTROL_AGGREGATION_METHOD_SUM"
LTE = "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL"
GT = "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN"
RAW = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD"
ETH_MAINNET = "eip155:1/slip44:60"
USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
SPEC = json.loads(
    (Path(__file__).parent.parent / "fixtures/openapi-typescript-only.json").read_text()
)


def control(
    identifier: str = "hourly",
    *,
    source: dict | None = None,
    method: str = COUNT,
    operator: str = LTE,
    threshold: str = "2",
    window: dict | None = None,
    group: str = "organization",
) -> dict:
    """A create_velocity_control intent: by default at most 2 raw payloads an hour."""
    return {
        "name": f"{identifier} limit",
        "identifier": identifier,
        "dataSource": source
        or {"activityExecution": {"filter": {"activity": [{"activityType": RAW}]}}},
        "aggregation": {
            "method": method,
            "operator": operator,
            "threshold": threshold,
            "window": window or {"rolling": {"duration": "3600"}},
            "groupBy": {group: {}},
        },
    }


def transfers(*assets: tuple[str, str]) -> dict:
    definition = [{"caip19": caip19, "decimals": decimals} for caip19, decimals in assets]
    return {"chainAssetTransfer": {"definition": definition, "phase": {"signature": {}}}}


@pytest.fixture
def world():
    """An organization, alice (not root), a wallet with an Ethereum account, and the frozen
    clock: ``(emu, alice's key, the address)``."""
    emu = Emulator(seed=21)
    emu.create_organization("Acme")
    emu.clock.freeze()
    _, key = add_user(emu, "alice")
    wallet = emu.create_wallet(wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")])
    return emu, key, wallet["addresses"][0]


def allow(emu, condition: str, name: str = "limited") -> None:
    emu.create_policy(policy_name=name, effect="EFFECT_ALLOW", notes="", condition=condition)


def sign_raw(emu, key, sign_with: str):
    return emu.sign_raw_payload(
        sign_with=sign_with,
        payload="00" * 32,
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function="HASH_FUNCTION_NO_OP",
        caller=key,
    )


def eth_tx(value: int = 0, *, to: str = "0x" + "11" * 20, data: bytes = b"", chain: int = 1):
    fields = [chain, 0, 1, 100, 90000, bytes.fromhex(to[2:]), value, data, []]
    return "02" + pyrlp.encode(fields).hex()


def sign_tx(emu, key, sign_with: str, unsigned: str):
    return emu.sign_transaction(
        sign_with=sign_with,
        unsigned_transaction=unsigned,
        type="TRANSACTION_TYPE_ETHEREUM",
        caller=key,
    )


# ----- create, get, list, delete --------------------------------------------------------------


def test_create_get_list_and_delete(world):
    emu, _, _ = world
    made = emu.create_velocity_control(
        name="daily ETH",
        identifier="daily_eth",
        data_source=transfers((ETH_MAINNET, 18)),
        aggregation={
            "method": SUM,
            "operator": LTE,
            "threshold": "1.5",
            "window": {"rolling": {"duration": 86400}},
            "groupBy": {"wallet": {}},
        },
    )
    assert made["activity"]["status"] == COMPLETED
    control_id = made["velocityControlId"]
    got = emu.get_velocity_control(velocity_control_id=control_id)["velocityControl"]
    assert set(got) == set(SPEC["definitions"]["v1VelocityControl"])
    assert got["identifier"] == "daily_eth" and got["name"] == "daily ETH"
    assert got["organizationId"] == emu.organization().organization_id
    # numbers travel as strings, as the OpenAPI document types them
    assert got["dataSource"] == {
        "chainAssetTransfer": {
            "definition": [{"caip19": ETH_MAINNET, "decimals": "18"}],
            "phase": {"signature": {}},
        }
    }
    assert got["aggregation"]["window"] == {"rolling": {"duration": "86400"}}
    assert got["aggregation"]["groupBy"] == {"wallet": {}}
    second = emu.call("create_velocity_control", control("hourly"))["velocityControlId"]
    listed = emu.list_velocity_controls()
    assert [c["velocityControlId"] for c in listed["velocityControls"]] == [control_id, second]
    assert listed["pageInfo"]["hasNextPage"] is False
    page = emu.list_velocity_controls(pagination_options={"limit": "1"})
    assert [c["identifier"] for c in page["velocityControls"]] == ["daily_eth"]
    assert page["pageInfo"] == {
        "hasNextPage": True,
        "hasPreviousPage": False,
        "startCursor": control_id,
        "endCursor": control_id,
    }
    gone = emu.delete_velocity_control(velocity_control_id=control_id)
    assert gone["velocityControlId"] == control_id
    assert gone["activity"]["type"] == "ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL"
    # the Python SDK types' plural shape, on the same path
    plural = emu.call(
        "delete_velocity_control",
        {"velocityControlIds": [second]},
        activity_type="ACTIVITY_TYPE_DELETE_VELOCITY_CONTROLS",
    )
    assert plural["activity"]["result"]["deleteVelocityControlsResult"] == {
        "velocityControlIds": [second]
    }
    assert emu.list_velocity_controls()["velocityControls"] == []


def _bad(intent_change) -> dict:
    intent = control()
    intent_change(intent)
    return intent


BAD_INTENTS = [
    ("identifier", lambda i: i.update(identifier="9lives"), "identifier must be"),
    ("keyword", lambda i: i.update(identifier="true"), "identifier must be"),
    (
        "two sources",
        lambda i: i["dataSource"].update(transfers((ETH_MAINNET, "18"))),
        "dataSource must set exactly one",
    ),
    ("no source", lambda i: i.update(dataSource={}), "dataSource must set exactly one"),
    (
        "two windows",
        lambda i: i["aggregation"]["window"].update(infinite={}),
        "aggregation.window must set exactly one",
    ),
    (
        "two groups",
        lambda i: i["aggregation"]["groupBy"].update(user={}),
        "aggregation.groupBy must set exactly one",
    ),
    ("negative", lambda i: i["aggregation"].update(threshold="-1"), "aggregation.threshold"),
    (
        "19 decimals",
        lambda i: i["aggregation"].update(threshold="0." + "1" * 19),
        "aggregation.threshold",
    ),
    ("39 digits", lambda i: i["aggregation"].update(threshold="9" * 39), "aggregation.threshold"),
    (
        "not CAIP-19",
        lambda i: i.update(dataSource=transfers(("ethereum", "18"))),
        "definition[0].caip19",
    ),
    (
        "no asset",
        lambda i: i.update(dataSource={"chainAssetTransfer": {"definition": []}}),
        "lists no asset",
    ),
    (
        "submission",
        lambda i: i.update(
            dataSource={
                "chainAssetTransfer": {
                    "definition": [{"caip19": ETH_MAINNET, "decimals": "18"}],
                    "phase": {"submission": {}},
                }
            }
        ),
        "submission phase is reserved",
    ),
    (
        "activity type",
        lambda i: i.update(
            dataSource={"activityExecution": {"filter": {"activity": [{"activityType": "X"}]}}}
        ),
        "is not an activity type",
    ),
]


@pytest.mark.parametrize(
    "change, why", [b[1:] for b in BAD_INTENTS], ids=[b[0] for b in BAD_INTENTS]
)
def test_bad_definitions_are_refused_and_change_nothing(world, change, why):
    emu, _, _ = world
    error = fails(emu, emu.call, "create_velocity_control", _bad(change))
    assert (error.status, error.code) == (400, 3)
    assert error.message.startswith("invalid velocity control: ") and why in error.message


def test_schema_errors_unique_identifiers_and_unknown_ids(world):
    emu, _, _ = world
    bad = control()
    bad["aggregation"]["window"] = {"rolling": {"duration": "0"}}
    error = fails(emu, emu.call, "create_velocity_control", bad)
    assert violations(error) == [
        {
            "field": "aggregation.window.rolling.duration",
            "description": "This field must be at least 1.",
        }
    ]
    bad = control()
    bad["aggregation"]["method"] = "VELOCITY_CONTROL_AGGREGATION_METHOD_AVERAGE"
    assert fails(emu, emu.call, "create_velocity_control", bad).status == 400
    emu.call("create_velocity_control", control("hourly"))
    error = fails(emu, emu.call, "create_velocity_control", control("hourly"))
    assert error.message == messages.velocity_identifier_not_unique("hourly")
    missing = "00000000-0000-4000-8000-000000000000"
    org_id = emu.organization().organization_id
    error = fails(emu, emu.get_velocity_control, velocity_control_id=missing)
    assert error_of(error)[:3] == (
        404,
        5,
        messages.velocity_control_not_found(missing, org_id),
    )
    assert fails(emu, emu.delete_velocity_control, velocity_control_id=missing).status == 404
    (kept,) = [c["velocityControlId"] for c in emu.list_velocity_controls()["velocityControls"]]
    error = fails(
        emu,
        emu.call,
        "delete_velocity_control",
        {"velocityControlIds": [kept, missing]},
        activity_type="ACTIVITY_TYPE_DELETE_VELOCITY_CONTROLS",
    )
    assert error.status == 404  # all or nothing: the existing one is still there
    error = fails(
        emu,
        emu.call,
        "delete_velocity_control",
        {"velocityControlIds": [kept, kept]},
        activity_type="ACTIVITY_TYPE_DELETE_VELOCITY_CONTROLS",
    )
    assert error.message == messages.VELOCITY_CONTROLS_TO_DELETE


# ----- enforcement ------------------------------------------------------------------------


def test_a_count_limit_holds_until_the_window_rolls_over(world):
    emu, key, address = world
    emu.call("create_velocity_control", control("hourly"))
    allow(emu, f"activity.type == '{RAW}_V2' && controls.hourly")
    assert sign_raw(emu, key, address)["activity"]["status"] == COMPLETED
    emu.clock.advance(1800)
    assert sign_raw(emu, key, address)["activity"]["status"] == COMPLETED
    denied = fails(emu, sign_raw, emu, key, address)
    assert (denied.status, denied.code) == (403, 7)
    emu.clock.advance(1799)  # the first is 3599 s old: still inside the hour
    assert fails(emu, sign_raw, emu, key, address).status == 403
    emu.clock.advance(1)  # now it has left the window: room for one
    assert sign_raw(emu, key, address)["activity"]["status"] == COMPLETED
    assert fails(emu, sign_raw, emu, key, address).status == 403
    emu.clock.advance(3600)  # both left: two more
    assert sign_raw(emu, key, address)["activity"]["status"] == COMPLETED
    assert sign_raw(emu, key, address)["activity"]["status"] == COMPLETED


def test_points_that_left_the_window_are_dropped_when_the_next_is_recorded(world):
    emu, key, address = world
    emu.call("create_velocity_control", control("hourly", threshold="5"))
    allow(emu, "controls.hourly")
    org = emu.world.store.organizations[emu.organization().organization_id]
    for _ in range(3):
        sign_raw(emu, key, address)
        emu.clock.advance(1000)
    (bucket,) = org.velocity_buckets.values()
    assert (bucket.total, bucket.first, bucket.next) == ("3", 0, 3)
    emu.clock.advance(600)  # 3600 s after the first, 2600 after the second
    sign_raw(emu, key, address)
    (bucket,) = org.velocity_buckets.values()
    assert (bucket.total, bucket.first, bucket.next) == ("3", 1, 4)
    assert sorted(p.point_id.rsplit("/", 1)[1] for p in org.velocity_points.values()) == [
        "1",
        "2",
        "3",
    ]


def test_a_denied_request_records_nothing_and_other_activities_do_not_count(world):
    emu, key, address = world
    emu.call("create_velocity_control", control("hourly", threshold="1"))
    allow(emu, f"activity.type == '{RAW}_V2' && controls.hourly")
    assert sign_raw(emu, key, address)["activity"]["status"] == COMPLETED
    for _ in range(3):
        assert fails(emu, sign_raw, emu, key, address).status == 403
    # the root signs past the limit (the root quorum bypasses policies), and it counts
    sign_raw(emu, None, address)
    emu.create_wallet(wallet_name="x", accounts=[])  # not a raw payload: not measured
    org = emu.world.store.organizations[emu.organization().organization_id]
    (bucket,) = org.velocity_buckets.values()
    assert (bucket.total, bucket.first, bucket.next) == ("2", 0, 2)
    assert [p.amount for p in org.velocity_points.values()] == ["1", "1"]


def test_a_deny_policy_on_a_control_that_is_over_its_threshold(world):
    emu, key, address = world
    emu.call("create_velocity_control", control("burst", operator=GT, threshold="2"))
    allow(emu, "true", name="everything")
    emu.create_policy(
        policy_name="no bursts",
        effect="EFFECT_DENY",
        notes="",
        condition=f"activity.type == '{RAW}_V2' && controls.burst",
    )
    for _ in range(2):
        assert sign_raw(emu, key, address)["activity"]["status"] == COMPLETED
    denied = fails(emu, sign_raw, emu, key, address)
    assert (denied.status, denied.message) == (403, messages.EXPLICIT_DENY)
    emu.create_wallet(wallet_name="other", accounts=[], caller=key)  # not governed


def test_a_sum_of_ether_per_wallet(world):
    emu, key, address = world
    other = emu.create_wallet(wallet_name="w2", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")])[
        "addresses"
    ][0]
    emu.call(
        "create_velocity_control",
        control(
            "daily_eth",
            source=transfers((ETH_MAINNET, "18")),
            method=SUM,
            threshold="1.5",
            window={"rolling": {"duration": "86400"}},
            group="wallet",
        ),
    )
    allow(emu, "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && controls.daily_eth")
    ether = 10**18
    assert sign_tx(emu, key, address, eth_tx(ether))["activity"]["status"] == COMPLETED
    assert sign_tx(emu, key, address, eth_tx(ether // 2))["activity"]["status"] == COMPLETED
    assert fails(emu, sign_tx, emu, key, address, eth_tx(1)).status == 403  # 1.5 ETH + 1 wei
    assert sign_tx(emu, key, address, eth_tx(0))["activity"]["status"] == COMPLETED  # no value
    assert fails(emu, sign_tx, emu, key, other, eth_tx(2 * ether)).status == 403
    assert sign_tx(emu, key, other, eth_tx(ether))["activity"]["status"] == COMPLETED  # its own
    # another chain is another asset: not measured
    assert sign_tx(emu, key, address, eth_tx(ether, chain=5))["activity"]["status"] == COMPLETED
    emu.clock.advance(86400)
    assert sign_tx(emu, key, address, eth_tx(ether))["activity"]["status"] == COMPLETED


def test_a_sum_of_an_erc20_token_in_its_decimals(world):
    emu, key, address = world
    caip19 = f"eip155:1/erc20:{USDC.lower()}"
    emu.call(
        "create_velocity_control",
        control("usdc", source=transfers((caip19, "6")), method=SUM, threshold="100"),
    )
    allow(emu, "controls.usdc")
    recipient = bytes(12) + bytes.fromhex("22" * 20)
    transfer = bytes.fromhex("a9059cbb") + recipient + (60 * 10**6).to_bytes(32, "big")
    assert sign_tx(emu, key, address, eth_tx(to=USDC, data=transfer))["activity"]["status"] == (
        COMPLETED
    )
    assert fails(emu, sign_tx, emu, key, address, eth_tx(to=USDC, data=transfer)).status == 403
    smaller = bytes.fromhex("a9059cbb") + recipient + (40 * 10**6).to_bytes(32, "big")
    assert sign_tx(emu, key, address, eth_tx(to=USDC, data=smaller))["activity"]["status"] == (
        COMPLETED
    )


def test_per_user_buckets(world):
    emu, alice, address = world
    _, bob = add_user(emu, "bob")
    emu.call("create_velocity_control", control("mine", threshold="1", group="user"))
    allow(emu, "controls.mine")
    assert sign_raw(emu, alice, address)["activity"]["status"] == COMPLETED
    assert fails(emu, sign_raw, emu, alice, address).status == 403
    assert sign_raw(emu, bob, address)["activity"]["status"] == COMPLETED
    assert fails(emu, sign_raw, emu, bob, address).status == 403


def test_an_infinite_window_never_rolls_over(world):
    emu, key, address = world
    emu.call("create_velocity_control", control("ever", threshold="1", window={"infinite": {}}))
    allow(emu, "controls.ever")
    assert sign_raw(emu, key, address)["activity"]["status"] == COMPLETED
    emu.clock.advance(10 * 365 * 86400)
    assert fails(emu, sign_raw, emu, key, address).status == 403


def test_an_activity_counts_when_its_consensus_completes_it(world):
    emu, alice, address = world
    _, bob = add_user(emu, "bob")
    emu.call("create_velocity_control", control("hourly", threshold="1"))
    allow(
        emu,
        f"activity.type == '{RAW}_V2' && controls.hourly",
        name="two signers",
    )
    emu.update_policy(
        policy_id=emu.get_policies()["policies"][0]["policyId"],
        policy_consensus="approvers.count() >= 2",
    )
    pending = sign_raw(emu, alice, address)["activity"]
    assert pending["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    org = emu.world.store.organizations[emu.organization().organization_id]
    assert org.velocity_buckets == {}  # nothing until it runs
    emu.approve_activity(fingerprint=pending["fingerprint"], caller=bob)
    assert emu.get_activity(activity_id=pending["id"])["activity"]["status"] == COMPLETED
    assert len(org.velocity_buckets) == 1
    # the limit is reached: the policy's condition no longer holds, so no vote can help
    assert fails(emu, sign_raw, emu, alice, address).status == 403


def test_an_unknown_control_is_an_evaluation_error(world):
    emu, key, address = world
    allow(emu, "controls.nowhere")
    assert fails(emu, sign_raw, emu, key, address).status == 403
    emu.call("create_velocity_control", control("somewhere"))
    assert fails(emu, sign_raw, emu, key, address).status == 403


def test_deleting_a_control_forgets_its_points(world):
    emu, key, address = world
    made = emu.call("create_velocity_control", control("hourly", threshold="1"))
    allow(emu, "controls.hourly")
    sign_raw(emu, key, address)
    assert fails(emu, sign_raw, emu, key, address).status == 403
    emu.delete_velocity_control(velocity_control_id=made["velocityControlId"])
    org = emu.world.store.organizations[emu.organization().organization_id]
    assert org.velocity_buckets == {} and org.velocity_points == {}
    emu.call("create_velocity_control", control("hourly", threshold="1"))
    assert sign_raw(emu, key, address)["activity"]["status"] == COMPLETED


# ----- get_active_policies ----------------------------------------------------------------


def test_get_active_policies_on_the_emulator_clock(world):
    emu, _, _ = world
    emu.clock.freeze(at_ms=1_772_323_200_000)  # 2026-03-01T00:00:00Z
    window = (
        "time.now >= Timestamp('2026-03-01T00:00:00Z') && "
        "time.now < Timestamp('2026-04-01T00:00:00Z')"
    )
    always = emu.create_policy(policy_name="always", effect="EFFECT_ALLOW", notes="")["policyId"]
    march = emu.create_policy(
        policy_name="march", effect="EFFECT_ALLOW", notes="", condition="true", time=window
    )["policyId"]
    broken = emu.create_policy(
        policy_name="broken", effect="EFFECT_ALLOW", notes="", time="time.now.day == 1"
    )["policyId"]
    org_id = emu.organization().organization_id
    answer = emu.get_active_policies()
    assert answer["evaluatedAtMs"] == "1772323200000"
    statuses = {s["policyId"]: s for s in answer["statuses"]}
    assert statuses[always] == {"organizationId": org_id, "policyId": always, "active": True}
    assert statuses[march] == {
        "organizationId": org_id,
        "policyId": march,
        "active": True,
        "timeExpr": window,
    }
    assert statuses[broken]["active"] is False and statuses[broken]["error"]
    emu.clock.advance(31 * 86400)  # April
    answer = emu.get_active_policies()
    assert answer["evaluatedAtMs"] == str(1_772_323_200_000 + 31 * 86400 * 1000)
    assert {s["policyId"]: s["active"] for s in answer["statuses"]}[march] is False


def test_get_active_policies_through_the_official_python_sdk(sdk, turnkey_emulator):
    from turnkey_sdk_types import GetActivePoliciesBody

    turnkey_emulator.create_policy(policy_name="p", effect="EFFECT_ALLOW", notes="")
    turnkey_emulator.clock.freeze()
    answer = sdk.get_active_policies(GetActivePoliciesBody())
    assert [s.active for s in answer.statuses] == [True]
    assert int(answer.evaluatedAtMs) == turnkey_emulator.clock.now_ms()


# ----- durable state ------------------------------------------------------------------------


def test_controls_and_their_points_survive_state_files_and_the_journal(tmp_path):
    from .test_state_journal import journaled, saved

    emu, journal = journaled(tmp_path, compact_every=10**9)
    emu.create_organization("Acme")
    emu.clock.freeze()
    _, key = add_user(emu, "alice")
    address = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"][0]
    made = emu.call("create_velocity_control", control("hourly", threshold="2"))
    emu.call("create_velocity_control", control("ever", window={"infinite": {}}, threshold="5"))
    allow(emu, "controls.hourly && controls.ever")
    sign_raw(emu, key, address)
    sign_raw(emu, key, address)
    document = saved(tmp_path)
    assert document == emu.to_document()
    again = Emulator.from_document(document, exact_order=False)
    assert state_digest(again) == state_digest(emu)
    again.clock.freeze(at_ms=emu.clock.now_ms())
    assert fails(again, sign_raw, again, key, address).status == 403  # the points came along
    again.clock.advance(3601)  # (freezing at a millisecond dropped the nanoseconds)
    assert sign_raw(again, key, address)["activity"]["status"] == COMPLETED
    emu.delete_velocity_control(velocity_control_id=made["velocityControlId"])
    assert saved(tmp_path) == emu.to_document()
    assert journal.compactions == 0


# ----- @turnkey/http ------------------------------------------------------------------------


def test_the_typescript_client_creates_reads_lists_and_deletes_a_control():
    from emulator.crypto.api_keys import generate_key_pair
    from tests.typescript import TypeScriptError, client_calls, typescript_or_skip

    ts = typescript_or_skip()
    emu = Emulator(seed=22)
    root = generate_key_pair()
    org = emu.create_organization(api_public_key=root.public_key, api_private_key=root.private_key)
    org_id = org.organization_id

    def submit(kind: str, parameters: dict) -> dict:
        return {
            "type": kind,
            "timestampMs": str(emu.clock.now_ms()),
            "organizationId": org_id,
            "parameters": parameters,
        }

    bad = control("9lives")
    refused, created, listed = client_calls(
        ts,
        emu.world,
        root,
        [
            ("createVelocityControl", submit("ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL", bad)),
            ("createVelocityControl", submit("ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL", control())),
            ("listVelocityControls", {"organizationId": org_id}),
        ],
    )
    assert isinstance(refused, TypeScriptError)
    assert "invalid velocity control: identifier must be" in str(refused)
    assert created["activity"]["status"] == COMPLETED
    control_id = created["activity"]["result"]["createVelocityControlResult"]["velocityControlId"]
    assert [c["velocityControlId"] for c in listed["velocityControls"]] == [control_id]
    got, gone, active = client_calls(
        ts,
        emu.world,
        root,
        [
            ("getVelocityControl", {"organizationId": org_id, "velocityControlId": control_id}),
            (
                "deleteVelocityControl",
                submit("ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL", {"velocityControlId": control_id}),
            ),
            ("getActivePolicies", {"organizationId": org_id}),
        ],
    )
    assert got["velocityControl"]["identifier"] == "hourly"
    assert gone["activity"]["result"]["deleteVelocityControlResult"] == {
        "velocityControlId": control_id
    }
    assert active["statuses"] == [] and active["evaluatedAtMs"].isdigit()
    assert emu.list_velocity_controls()["velocityControls"] == []


def test_a_parents_control_counts_the_flows_it_runs_in_sub_organizations(world):
    """email_auth run by the parent in a sub-organization is judged by the parent's policies,
    and so counted by the parent's controls."""
    from emulator.testing.client_crypto import TargetKey

    emu, key, _ = world
    emu.call(
        "create_velocity_control",
        control(
            "emails",
            threshold="2",
            source={
                "activityExecution": {
                    "filter": {"activity": [{"activityType": "ACTIVITY_TYPE_EMAIL_AUTH"}]}
                }
            },
        ),
    )
    allow(emu, "controls.emails")
    user_org = emu.create_sub_organization(
        sub_organization_name="bob's",
        root_quorum_threshold=1,
        root_users=[{"userName": "bob", "userEmail": "bob@example.com"}],
    )["subOrganizationId"]

    def send():
        return emu.email_auth(
            organization_id=user_org,
            email="bob@example.com",
            target_public_key=TargetKey.generate().public_key,
            email_customization={"appName": "Acme"},
            caller=key,
        )

    assert send()["activity"]["status"] == COMPLETED
    assert send()["activity"]["status"] == COMPLETED
    assert fails(emu, send).status == 403
    parent = emu.world.store.organizations[emu.organization().organization_id]
    (bucket,) = parent.velocity_buckets.values()
    assert bucket.total == "2"
    assert emu.world.store.organizations[user_org].velocity_buckets == {}


def test_sums_of_sol_and_of_an_spl_token_by_mint():
    from solders.hash import Hash
    from solders.instruction import AccountMeta, Instruction
    from solders.message import Message
    from solders.pubkey import Pubkey
    from solders.signature import Signature
    from solders.system_program import TransferParams, transfer
    from solders.transaction import VersionedTransaction

    emu = Emulator(seed=23)
    emu.create_organization("Acme")
    emu.clock.freeze()
    _, key = add_user(emu, "alice")
    address = emu.create_wallet(wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_SOLANA")])[
        "addresses"
    ][0]
    payer = Pubkey.from_string(address)
    mint = Pubkey(bytes([12]) * 32)
    token = Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
    mainnet = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
    emu.call(
        "create_velocity_control",
        control("sol", source=transfers((f"{mainnet}/slip44:501", "9")), method=SUM, threshold="1"),
    )
    emu.call(
        "create_velocity_control",
        control(
            "usdc", source=transfers((f"{mainnet}/token:{mint}", "6")), method=SUM, threshold="5"
        ),
    )
    allow(emu, "controls.sol && controls.usdc")

    def unsigned(*instructions) -> str:
        message = Message.new_with_blockhash(list(instructions), payer, Hash(bytes([9]) * 32))
        slots = [Signature.default()] * message.header.num_required_signatures
        return bytes(VersionedTransaction.populate(message, slots)).hex()

    def lamports(n: int):
        to = Pubkey(bytes([3]) * 32)
        return transfer(TransferParams(from_pubkey=payer, to_pubkey=to, lamports=n))

    def tokens(n: int):
        metas = [
            AccountMeta(Pubkey(bytes([10]) * 32), False, True),
            AccountMeta(mint, False, False),
            AccountMeta(Pubkey(bytes([11]) * 32), False, True),
            AccountMeta(payer, True, False),
        ]
        return Instruction(token, bytes([12]) + n.to_bytes(8, "little") + bytes([6]), metas)

    def sign(transaction: str):
        return emu.sign_transaction(
            sign_with=address,
            unsigned_transaction=transaction,
            type="TRANSACTION_TYPE_SOLANA",
            caller=key,
        )

    # two transfers in one transaction count together: 0.6 SOL, and 3 tokens
    done = sign(unsigned(lamports(300_000_000), lamports(300_000_000), tokens(3_000_000)))
    assert done["activity"]["status"] == COMPLETED
    assert fails(emu, sign, unsigned(lamports(400_000_001))).status == 403
    assert sign(unsigned(lamports(400_000_000)))["activity"]["status"] == COMPLETED  # 1 SOL
    assert fails(emu, sign, unsigned(tokens(2_000_001))).status == 403  # 5.000001 tokens
    emu.clock.advance(3600)
    assert sign(unsigned(lamports(10**9), tokens(5_000_000)))["activity"]["status"] == COMPLETED
