"""Around the swaps: the refusals (each in the API's error shape, changing nothing), the
parent's fee configuration and claims, the sponsorship and fixed-rate windows on the clock,
the policy engine, velocity controls, webhooks and consensus on the swap's transaction, state
documents, the older versions, the control plane and the official Python SDK."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("eth_tester")
pytest.importorskip("solders.litesvm")

import requests

from emulator import Emulator, Settings
from emulator.accounts import account_spec
from emulator.http.control import Control
from emulator.http.server import serving

from .helpers import add_user, api_key_params, error_of, fails, new_key
from .swap_helpers import (
    ARB_USDC,
    BASE,
    HUNDRED_USDC,
    SOL_USDC,
    USDC,
    USDT,
    WETH,
    erc20_balance,
    execute,
    new_world,
    quote,
    status,
)

FEE_SPONSORSHIP = "FEATURE_NAME_SWAP_FEE_SPONSORSHIP"
FIXED_RATE = "FEATURE_NAME_SWAP_FIXED_RATE"


def record(emu):
    """The organization's record (its swaps, quotes, configuration)."""
    return emu.world.store.organizations[emu.organization().organization_id]


@pytest.fixture
def world():
    emu, alice, bob, sol = new_world(71)
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    yield emu, alice, bob, sol
    emu.close()


def terms(q: dict, **changes) -> dict:
    base = {
        "quote_id": q["quoteId"],
        "input_token": USDC,
        "output_token": WETH,
        "input_amount": str(HUNDRED_USDC),
        "quoted_output_amount": q["outputAmount"],
        "min_output_amount": q["minOutputAmount"],
        "sponsor": False,
    }
    return {**base, **changes}


def test_execution_refusals_change_nothing(world):
    emu, alice, _, _ = world
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    error = fails(emu, emu.execute_swap, **terms(q, quote_id="sq_v1_" + "0" * 64))
    assert error_of(error) == (404, 5, "swap quote not found: sq_v1_" + "0" * 64, "")
    for field, value in (
        ("input_token", USDT),
        ("output_token", f"{BASE}/slip44:60"),
        ("input_amount", str(HUNDRED_USDC - 1)),
        ("quoted_output_amount", str(int(q["outputAmount"]) + 1)),
        ("min_output_amount", "1"),
    ):
        error = fails(emu, emu.execute_swap, **terms(q, **{field: value}))
        assert error.status == 400 and "does not match the quote" in error.message
    error = fails(emu, emu.execute_swap, **terms(q, destination_address="0x" + "12" * 20))
    assert error.status == 400 and error.message.startswith("destinationAddress")
    emu.clock.advance(31)
    error = fails(emu, emu.execute_swap, **terms(q))
    assert error_of(error) == (
        400,
        9,
        f"swap quote {q['quoteId']} expired at {q['expiresAt']}; request a new quote",
        "",
    )
    assert erc20_balance(emu, USDC, alice) == HUNDRED_USDC
    fresh = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    execute(emu, fresh, USDC, WETH, HUNDRED_USDC)
    error = fails(emu, emu.execute_swap, **terms(fresh))
    assert error.message == f"swap quote {fresh['quoteId']} was already executed"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"input_amount": str(HUNDRED_USDC + 1)},
            "insufficient balance: {alice} holds 100000000 of {usdc}, the swap needs 100000001",
        ),
        ({"output_token": USDC}, "inputToken and outputToken must differ"),
        (
            {"output_token": SOL_USDC},
            "cross-chain swaps between EVM and Solana are not supported yet",
        ),
        (
            {"input_amount": "0"},
            "invalid inputAmount: must be a positive base-unit integer, got '0'",
        ),
        (
            {"input_amount": "1.5"},
            "invalid inputAmount: must be a positive base-unit integer, got '1.5'",
        ),
        (
            {"slippage_bps": "10001"},
            "invalid slippageBps: must be an integer number of basis points from 0 to 10000, got '10001'",
        ),
        (
            {"input_token": "eip155:84532/erc20:0x036CbD53842c5426634e7929541eC2318f3dCF7e"},
            "invalid inputToken: swaps are not supported on eip155:84532",
        ),
        (
            {"input_token": f"{BASE}/erc20:0x" + "12" * 20},
            f"invalid inputToken: unsupported asset: {BASE}/erc20:0x" + "12" * 20,
        ),
        ({"sign_with": "0x" + "34" * 20}, None),
        ({"fixed_rate": True}, "a fixed-rate quote needs two supported stablecoins"),
        ({"fee_sponsorship": True}, f"{FEE_SPONSORSHIP} is not enabled for this organization"),
    ],
)
def test_quote_refusals_change_nothing(world, change, message):
    emu, alice, _, _ = world
    params = {
        "sign_with": alice,
        "input_token": USDC,
        "output_token": WETH,
        "input_amount": str(HUNDRED_USDC),
        **change,
    }
    error = fails(emu, emu.create_swap_quote, **params)
    assert error.status in (400, 404)
    if message is not None:
        assert error.message == message.format(alice=alice, usdc=USDC)
    assert record(emu).swap_quotes == {}


def test_the_fee_configuration_is_the_parents_and_is_capped(world):
    emu, alice, _, _ = world
    error = fails(emu, emu.upsert_swap_config, fee_receiver_wallet_address=alice, fee_bps="501")
    assert error_of(error) == (
        400,
        3,
        "invalid feeBps: must be an integer number of basis points from 0 to 500, got '501'",
        "",
    )
    error = fails(
        emu, emu.upsert_swap_config, fee_receiver_wallet_address="0x" + "77" * 20, fee_bps="5"
    )
    assert "is not an EVM wallet account or private key of the parent" in error.message
    done = emu.upsert_swap_config(fee_receiver_wallet_address=alice.lower(), fee_bps="50")
    assert {k: v for k, v in done.items() if k != "activity"} == {
        "feeReceiverWalletAddress": alice,
        "feeBps": "50",
    }
    # without a receiver one is made: a new wallet of the parent
    made = emu.upsert_swap_config(fee_bps="25")
    receiver = made["feeReceiverWalletAddress"]
    assert receiver != alice
    wallets = emu.get_wallets()["wallets"]
    assert any(w["walletName"].startswith("Swap fee receiver") for w in wallets)
    enterprise_off = Emulator(seed=3, settings=Settings(swap_enterprise=False))
    enterprise_off.create_organization("payg")
    error = fails(
        enterprise_off, enterprise_off.upsert_swap_config, fee_bps="5", stable_fee_bps="1"
    )
    assert error.message == "stableFeeBps is available on Enterprise plans only"


def test_client_fees_accrue_and_are_claimed_in_usdc_on_base(world):
    emu, alice, bob, _ = world
    emu.upsert_swap_config(fee_receiver_wallet_address=bob, fee_bps="50")
    error = fails(emu, emu.claim_swap_fees)
    assert error_of(error) == (400, 9, "there are no accrued swap fees to claim", "")
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    execute(emu, q, USDC, WETH, HUNDRED_USDC)
    claimed = emu.claim_swap_fees()
    assert claimed["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert claimed["requestId"]
    assert erc20_balance(emu, USDC, bob) == HUNDRED_USDC * 50 // 10_000  # 0.5 USDC
    assert fails(emu, emu.claim_swap_fees).message == "there are no accrued swap fees to claim"


def test_the_fee_sponsorship_window_bounds_usd_usage_on_the_clock(world):
    emu, alice, _, _ = world
    limits = {
        "org_window_limit_usd": "0.06",
        "sub_org_window_limit_usd": "0.01",
        "window_duration_minutes": "60",
        "enabled": True,
    }
    error = fails(emu, emu.upsert_swap_fee_sponsorship_limit_config, **limits)
    assert error.message == f"{FEE_SPONSORSHIP} is not enabled for this organization"
    usage = emu.get_swap_sponsorship_usage()
    assert (usage["feeSponsorship"], usage["fixedRate"]) == (
        {"permitted": False},
        {"permitted": False},
    )
    emu.set_organization_feature(name=FEE_SPONSORSHIP, value="true")
    saved = emu.upsert_swap_fee_sponsorship_limit_config(**limits)
    assert saved["organizationId"] == emu.organization().organization_id
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC, fee_sponsorship=True)
    assert q["feeSponsorship"] is True
    # no provider fee when Turnkey pays it: 20 bps of Turnkey's only
    assert q["outputAmount"] == str(HUNDRED_USDC * 10**12 // 3000 * 9_980 // 10_000)
    execute(emu, q, USDC, WETH, HUNDRED_USDC)
    window = emu.get_swap_sponsorship_usage()["feeSponsorship"]["window"]
    assert window == {
        "windowDurationMinutes": 60,
        "windowLimitUsd": "0.06",
        "usageUsd": "0.05",
        "remainingUsd": "0.01",
        "enabled": True,
        "subOrgWindowLimitUsd": "0.01",
    }
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    error = fails(
        emu,
        emu.create_swap_quote,
        sign_with=alice,
        input_token=USDC,
        output_token=WETH,
        input_amount=str(HUNDRED_USDC),
        fee_sponsorship=True,
    )
    assert error.message.startswith(f"the {FEE_SPONSORSHIP} spending window")
    emu.clock.advance(3601)  # the window rolls over
    assert emu.get_swap_sponsorship_usage()["feeSponsorship"]["window"]["usageUsd"] == "0"
    assert quote(emu, alice, USDC, WETH, HUNDRED_USDC, fee_sponsorship=True)["feeSponsorship"]


def test_a_fixed_rate_quote_converts_one_to_one_and_reports_its_cost(world):
    emu, alice, _, _ = world
    emu.set_organization_feature(name=FIXED_RATE, value="true")
    emu.upsert_swap_fixed_rate_limit_config(
        org_window_limit_usd="10",
        sub_org_window_limit_usd="1",
        window_duration_minutes="1440",
        enabled=True,
    )
    emu.swap.set_price(USDT, "0.999")
    q = quote(emu, alice, USDC, USDT, HUNDRED_USDC, fixed_rate=True)
    assert q["fixedRate"] is True
    assert q["outputAmount"] == str(HUNDRED_USDC * 9_985 // 10_000)
    # 100 USDT at 1:1 instead of 100.1001 at the market: an earning of 0.1 USD (negative)
    assert q["estimatedFixedRateAdjustmentUsd"] == "-0.1"
    execute(emu, q, USDC, USDT, HUNDRED_USDC)
    assert erc20_balance(emu, USDT, alice) == int(q["outputAmount"])
    assert emu.get_swap_sponsorship_usage()["fixedRate"]["window"]["usageUsd"] == "0"


def test_a_policy_deny_on_the_router_stops_the_swap_before_broadcast(world):
    emu, alice, _, _ = world
    _, key = add_user(emu, "trader")
    router = emu.swap.provider.router
    emu.create_policy(
        policy_name="swaps",
        effect="EFFECT_ALLOW",
        condition="activity.kind == 'EXECUTE_SWAP' || activity.kind == 'CREATE_SWAP_QUOTE'",
        notes="",
    )
    emu.create_policy(
        policy_name="not that router",
        effect="EFFECT_DENY",
        condition=f"eth.tx.to == '{router.lower()}'",
        notes="",
    )
    q = emu.create_swap_quote(
        sign_with=alice,
        input_token=USDC,
        output_token=WETH,
        input_amount=str(HUNDRED_USDC),
        caller=key,
    )["quotes"][0]
    nonce = emu.chains.evm(BASE).nonce(alice)
    error = fails(emu, emu.execute_swap, **terms(q), caller=key)
    assert error.status == 403
    assert emu.chains.evm(BASE).nonce(alice) == nonce
    assert erc20_balance(emu, USDC, alice) == HUNDRED_USDC


def test_a_velocity_control_counts_the_swap_input(world):
    emu, alice, _, _ = world
    _, key = add_user(emu, "trader")
    emu.call(
        "create_velocity_control",
        {
            "name": "daily USDC",
            "identifier": "daily_usdc",
            "dataSource": {
                "chainAssetTransfer": {
                    "definition": [{"caip19": USDC, "decimals": "6"}],
                    "phase": {"signature": {}},
                }
            },
            "aggregation": {
                "method": "VELOCITY_CONTROL_AGGREGATION_METHOD_SUM",
                "operator": "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL",
                "threshold": "150",
                "window": {"rolling": {"duration": "86400"}},
                "groupBy": {"wallet": {}},
            },
        },
    )
    emu.create_policy(
        policy_name="swaps under the limit",
        effect="EFFECT_ALLOW",
        condition="activity.kind == 'CREATE_SWAP_QUOTE' || (activity.kind == 'EXECUTE_SWAP' && controls.daily_usdc)",
        notes="",
    )
    emu.chains.fund(USDC, alice, 3 * HUNDRED_USDC)
    first = emu.create_swap_quote(
        sign_with=alice,
        input_token=USDC,
        output_token=WETH,
        input_amount=str(HUNDRED_USDC),
        caller=key,
    )["quotes"][0]
    assert (
        emu.execute_swap(**terms(first), caller=key)["activity"]["status"]
        == "ACTIVITY_STATUS_COMPLETED"
    )
    second = emu.create_swap_quote(
        sign_with=alice,
        input_token=USDC,
        output_token=WETH,
        input_amount=str(HUNDRED_USDC),
        caller=key,
    )["quotes"][0]
    assert fails(emu, emu.execute_swap, **terms(second), caller=key).status == 403  # 200 > 150


def test_the_swap_transaction_fires_the_send_status_webhook():
    emu, alice, _, _ = new_world(72, Settings(webhook_synchronous=True))
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    hook, received = "https://hooks.example.test/swaps", []
    emu.webhooks.route(hook, received.append)
    emu.create_webhook_endpoint(
        url=hook, name="tx", subscriptions=[{"eventType": "SEND_TRANSACTION_STATUS_UPDATES"}]
    )
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    done = execute(emu, q, USDC, WETH, HUNDRED_USDC)
    answer = status(emu, done["swapRequestId"])
    messages = [json.loads(d.body)["msg"] for d in received]
    assert [m["status"] for m in messages] == ["BROADCASTING", "INCLUDED"]
    assert messages[-1]["txHash"] == answer["originTxHash"]
    assert messages[0]["activityId"] == done["activity"]["id"]


def test_consensus_holds_the_swap_until_the_second_approval(world):
    emu, alice, _, _ = world
    (_, carol), (_, dave) = add_user(emu, "carol"), add_user(emu, "dave")
    emu.create_policy(
        policy_name="quotes",
        effect="EFFECT_ALLOW",
        condition="activity.kind == 'CREATE_SWAP_QUOTE'",
        notes="",
    )
    emu.create_policy(
        policy_name="two to swap",
        effect="EFFECT_ALLOW",
        condition="activity.kind == 'EXECUTE_SWAP'",
        consensus="approvers.count() >= 2",
        notes="",
    )
    q = emu.create_swap_quote(
        sign_with=alice,
        input_token=USDC,
        output_token=WETH,
        input_amount=str(HUNDRED_USDC),
        caller=carol,
    )["quotes"][0]
    proposal = emu.execute_swap(**terms(q), caller=carol)["activity"]
    assert proposal["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    assert erc20_balance(emu, USDC, alice) == HUNDRED_USDC
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=dave)["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
    swap_id = done["result"]["executeSwapResult"]["swapRequestId"]
    assert status(emu, swap_id)["status"] == "COMPLETED"
    assert erc20_balance(emu, USDC, alice) == 0


def test_swaps_survive_state_documents_and_snapshots(world):
    emu, alice, _, _ = world
    emu.upsert_swap_config(fee_receiver_wallet_address=alice, fee_bps="30")
    q = quote(emu, alice, USDC, ARB_USDC, HUNDRED_USDC)
    done = execute(emu, q, USDC, ARB_USDC, HUNDRED_USDC)
    pending = status(emu, done["swapRequestId"])
    loaded = Emulator.from_document(emu.to_document())
    again = loaded.get_swap_status(swap_request_id=done["swapRequestId"])
    again.pop("activity")
    assert again == pending
    org = record(loaded)
    assert org.swap_quotes[q["quoteId"]].swap_request_id == done["swapRequestId"]
    assert org.swap_configs["swap"].fee_bps == "30"
    snap = emu.snapshot()
    emu.clock.advance(30)
    assert status(emu, done["swapRequestId"])["status"] == "COMPLETED"
    assert len(record(emu).swap_fees) == 1
    emu.restore(snap)
    assert record(emu).swap_fees == {}


def test_the_older_versions(world):
    emu, alice, _, _ = world
    v1 = emu.call(
        "create_swap_quote",
        {
            "signWith": alice,
            "inputToken": USDC,
            "outputToken": WETH,
            "inputAmount": str(HUNDRED_USDC),
        },
        activity_type="ACTIVITY_TYPE_CREATE_SWAP_QUOTE",
    )
    (q,) = v1["activity"]["result"]["createSwapQuoteResult"]["quotes"]
    assert "feeSponsorship" not in q and "fixedRate" not in q
    v2 = emu.call(
        "execute_swap",
        {
            "quoteId": q["quoteId"],
            "inputToken": USDC,
            "outputToken": WETH,
            "inputAmount": str(HUNDRED_USDC),
            "quotedOutputAmount": q["outputAmount"],
            "minOutputAmount": q["minOutputAmount"],
            "sponsor": False,
        },
        activity_type="ACTIVITY_TYPE_EXECUTE_SWAP_V2",
    )
    swap_id = v2["activity"]["result"]["executeSwapResult"]["swapRequestId"]
    assert status(emu, swap_id)["status"] == "COMPLETED"
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    v1_exec = emu.call(
        "execute_swap",
        {
            "walletAccount": alice,
            "inputToken": USDC,
            "outputToken": WETH,
            "inputAmount": str(HUNDRED_USDC),
            "minOutputAmount": "1",
            "slippage": "30",
            "provider": "relay",
        },
        activity_type="ACTIVITY_TYPE_EXECUTE_SWAP",
    )
    swap_id = v1_exec["activity"]["result"]["executeSwapResult"]["swapRequestId"]
    assert status(emu, swap_id)["status"] == "COMPLETED"
    assert erc20_balance(emu, USDC, alice) == 0


def test_the_control_plane_sets_prices_and_fill_failures(world):
    emu, alice, _, _ = world
    with serving(emu.world, control=Control(emu)) as url:
        answer = requests.post(
            f"{url}/emulator/v1/swap/prices", json={"prices": {WETH: "2000"}}, timeout=30
        )
        assert answer.status_code == 200 and answer.json() == {"prices": {WETH: "2000"}}
        bad = requests.post(
            f"{url}/emulator/v1/swap/prices", json={"prices": {WETH: "-1"}}, timeout=30
        )
        assert bad.status_code == 400 and set(bad.json()) == {
            "code",
            "message",
            "details",
            "turnkeyErrorCode",
        }
        bad = requests.post(
            f"{url}/emulator/v1/swap/prices", json={"prices": {"nope": "1"}}, timeout=30
        )
        assert bad.status_code == 400
        assert emu.swap.prices() == {WETH: "2000"}  # all or nothing
        failing = requests.post(
            f"{url}/emulator/v1/swap/fill_failures", json={"count": 2}, timeout=30
        )
        assert failing.json() == {"pending": ["NO_LIQUIDITY", "NO_LIQUIDITY"]}
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    assert q["outputAmount"] == str(HUNDRED_USDC * 10**12 // 2000 * 9_975 // 10_000)


def test_the_official_python_sdk_quotes_executes_and_polls(world):
    pytest.importorskip("turnkey_http")
    from turnkey_sdk_types import (
        CreateSwapQuoteBody,
        ExecuteSwapBody,
        GetSwapSponsorshipUsageBody,
        GetSwapStatusBody,
        UpsertSwapConfigBody,
    )

    emu, alice, bob, _ = world
    client = emu.client(emu.organization())
    with emu.intercept():
        config = client.upsert_swap_config(
            UpsertSwapConfigBody(feeReceiverWalletAddress=bob, feeBps="40")
        )
        assert (config.feeReceiverWalletAddress, config.feeBps) == (bob, "40")
        quoted = client.create_swap_quote(
            CreateSwapQuoteBody(
                signWith=alice,
                inputToken=USDC,
                outputToken=WETH,
                inputAmount=str(HUNDRED_USDC),
                slippageBps="75",
            )
        )
        (q,) = quoted.activity.result.createSwapQuoteResultV2.quotes
        assert (q.clientFeeBps, q.slippageBps, q.provider) == ("40", "75", "relay")
        done = client.execute_swap(
            ExecuteSwapBody(
                quoteId=q.quoteId,
                inputToken=USDC,
                outputToken=WETH,
                inputAmount=str(HUNDRED_USDC),
                quotedOutputAmount=q.outputAmount,
                minOutputAmount=q.minOutputAmount,
                sponsor=False,
            )
        )
        assert done.activity.type == "ACTIVITY_TYPE_EXECUTE_SWAP_V3"
        polled = client.get_swap_status(GetSwapStatusBody(swapRequestId=done.swapRequestId))
        usage = client.get_swap_sponsorship_usage(GetSwapSponsorshipUsageBody())
    assert polled.status == "COMPLETED" and polled.outputAmount == q.outputAmount
    assert erc20_balance(emu, WETH, alice) == int(q.outputAmount)
    assert usage.feeSponsorship.permitted is False


def test_a_sub_organization_swaps_under_its_parents_configuration(world):
    emu, alice, bob, _ = world
    emu.upsert_swap_config(fee_receiver_wallet_address=bob, fee_bps="30")
    key = new_key()
    sub = emu.create_sub_organization(
        sub_organization_name="child",
        root_quorum_threshold=1,
        root_users=[
            {
                "userName": "kid",
                "apiKeys": [api_key_params(key, "kid")],
                "authenticators": [],
                "oauthProviders": [],
            }
        ],
    )["subOrganizationId"]
    kid = emu.create_wallet(
        wallet_name="kid",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")],
        organization_id=sub,
        caller=key,
    )["addresses"][0]
    emu.chains.fund(BASE, kid, 10**18)
    emu.chains.fund(USDC, kid, HUNDRED_USDC)
    q = emu.create_swap_quote(
        sign_with=kid,
        input_token=USDC,
        output_token=WETH,
        input_amount=str(HUNDRED_USDC),
        organization_id=sub,
        caller=key,
    )["quotes"][0]
    assert q["clientFeeBps"] == "30"
    error = fails(emu, emu.upsert_swap_config, fee_bps="1", organization_id=sub, caller=key)
    assert error.message == "this activity must be submitted against the parent organization"
    # the parent's wallet is not the sub-organization's to swap
    error = fails(
        emu,
        emu.create_swap_quote,
        sign_with=alice,
        input_token=USDC,
        output_token=WETH,
        input_amount="1",
        organization_id=sub,
        caller=key,
    )
    assert error.status in (400, 404)
    done = emu.execute_swap(**{**terms(q), "output_token": WETH}, organization_id=sub, caller=key)
    swap_id = done["swapRequestId"]
    answer = emu.get_swap_status(swap_request_id=swap_id, organization_id=sub, caller=key)
    assert answer["status"] == "COMPLETED"
    emu.claim_swap_fees()
    assert erc20_balance(emu, USDC, bob) == HUNDRED_USDC * 30 // 10_000


def test_swaps_and_their_settlement_are_journaled(tmp_path):
    from emulator.state.journal import Journal
    from emulator.state.persistence import StateFile

    emu = Emulator(seed=73)
    state = StateFile.create(tmp_path / "state.sqlite", emu.to_document())
    Journal(emu, state, compact_every=10**9).attach()
    emu.create_organization()
    emu.clock.freeze()
    (gina,) = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"]
    emu.chains.fund(BASE, gina, 10**18)
    emu.chains.fund(USDC, gina, HUNDRED_USDC)
    emu.upsert_swap_config(fee_receiver_wallet_address=gina, fee_bps="20")
    q = quote(emu, gina, USDC, ARB_USDC, HUNDRED_USDC)
    done = execute(emu, q, USDC, ARB_USDC, HUNDRED_USDC)
    emu.clock.advance(30)
    settled = status(emu, done["swapRequestId"])  # the fill runs in a transaction of its own
    assert settled["status"] == "COMPLETED"
    reread = StateFile.open(tmp_path / "state.sqlite")
    try:
        document = reread.read()
    finally:
        reread.close()
    assert document == emu.to_document()
    again = Emulator.from_document(document, exact_order=False)
    again.clock.freeze(emu.clock.now_ms())
    answer = again.get_swap_status(swap_request_id=done["swapRequestId"])
    answer.pop("activity")
    assert answer == settled
    assert len(record(again).swap_fees) == 1


def test_balance_webhooks_report_the_tokens_of_a_swap():
    emu, alice, _, _ = new_world(74, Settings(webhook_synchronous=True))
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    hook, received = "https://hooks.example.test/balances", []
    emu.webhooks.route(hook, received.append)
    emu.create_webhook_endpoint(
        url=hook, name="balances", subscriptions=[{"eventType": "BALANCE_CONFIRMED_UPDATES"}]
    )
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    answer = status(emu, execute(emu, q, USDC, WETH, HUNDRED_USDC)["swapRequestId"])
    events = [json.loads(d.body)["msg"] for d in received]
    moves = [
        (m["operation"], m["address"], m["asset"]["symbol"], m["asset"]["amount"]) for m in events
    ]
    assert moves == [
        ("withdraw", alice, "USDC", str(HUNDRED_USDC)),
        ("deposit", alice, "WETH", q["outputAmount"]),
    ]
    assert {m["txHash"] for m in events} == {answer["originTxHash"]}
    assert events[1]["asset"]["caip19"] == WETH and events[1]["asset"]["decimals"] == "18"
