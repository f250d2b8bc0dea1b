"""Earn around the activity: a deposit's ``SEND_TRANSACTION_STATUS_UPDATES`` webhooks and its
``PENDING`` then ``COMPLETED`` status on the chain's block time, a deposit held for consensus
and broadcast on approval, velocity controls counting a deposit's transfer, and the Earn
records in the journal's state file."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("eth_tester")

from emulator import Emulator, Settings
from emulator.accounts import account_spec

from .helpers import add_user

BASE = "eip155:8453"
USDC_19 = f"{BASE}/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
STEAKHOUSE = "0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183"
HOOK = "https://hooks.example.test/earn"


def _wallet(emu) -> tuple[str, str]:
    accounts = [account_spec("ADDRESS_FORMAT_ETHEREUM", i) for i in range(2)]
    alice, fees = emu.create_wallet(wallet_name="w", accounts=accounts)["addresses"]
    emu.chains.fund(BASE, alice, 10**18)
    emu.chains.fund(USDC_19, alice, 100 * 10**6)
    return alice, fees


def _wrapper(emu, fees: str) -> str:
    return emu.earn_deploy_wrapper(
        vault_address=STEAKHOUSE, caip2=BASE, client_fee_bps="500", client_fee_wallet=fees
    )["wrapperAddress"]


def test_a_deposit_reports_its_status_by_webhook_and_poll_on_the_block_time():
    emu = Emulator(seed=51, settings=Settings(webhook_synchronous=True, chain_block_time_s=12))
    emu.create_organization("Earn hooks")
    emu.clock.freeze()
    received: list = []
    emu.webhooks.route(HOOK, received.append)
    emu.create_webhook_endpoint(
        url=HOOK, name="tx", subscriptions=[{"eventType": "SEND_TRANSACTION_STATUS_UPDATES"}]
    )
    alice, fees = _wallet(emu)
    deployed = emu.earn_deploy_wrapper(
        vault_address=STEAKHOUSE, caip2=BASE, client_fee_bps="500", client_fee_wallet=fees
    )
    deploy_id = deployed["deployRequestId"]
    assert emu.get_earn_deploy_status(deploy_request_id=deploy_id) == {
        "status": "PENDING",
        "activity": emu.get_earn_deploy_status(deploy_request_id=deploy_id)["activity"],
    }
    listed = emu.list_earn_enabled_vaults()["enabledVaults"][0]
    assert (listed["deployStatus"], listed["deployRequestId"]) == ("PENDING", deploy_id)
    error = None
    try:
        emu.earn_deposit(
            wrapper_address=deployed["wrapperAddress"], sign_with=alice, assets="1", caip2=BASE
        )
    except Exception as caught:  # the deploy has not landed yet
        error = caught
    assert error is not None and error.message.startswith("EARN_SETUP_REQUIRED: ")
    emu.clock.advance(12)
    assert emu.get_earn_deploy_status(deploy_request_id=deploy_id)["status"] == "COMPLETED"
    made = emu.earn_deposit(
        wrapper_address=deployed["wrapperAddress"], sign_with=alice, assets="5000000", caip2=BASE
    )
    request = made["depositRequestId"]
    polled = emu.get_earn_deposit_status(deposit_request_id=request)
    assert polled["status"] == "PENDING" and "depositTxHash" not in polled
    (first,) = [json.loads(d.body) for d in received]
    assert first["msg"]["status"] == "BROADCASTING"
    assert first["msg"]["activityId"] == made["activity"]["id"]
    emu.clock.advance(12)
    polled = emu.get_earn_deposit_status(deposit_request_id=request)
    assert polled["status"] == "COMPLETED"
    second = json.loads(received[1].body)["msg"]
    assert (second["status"], second["txHash"]) == ("INCLUDED", polled["depositTxHash"])
    emu.close()


def test_a_deposit_held_for_consensus_is_broadcast_on_approval():
    emu = Emulator(seed=52)
    emu.create_organization("Earn consensus")
    alice, fees = _wallet(emu)
    wrapper = _wrapper(emu, fees)
    (_, ann), (_, ben) = add_user(emu, "ann"), add_user(emu, "ben")
    emu.create_policy(
        policy_name="two to deposit",
        effect="EFFECT_ALLOW",
        condition="activity.type == 'ACTIVITY_TYPE_EARN_DEPOSIT'",
        consensus="approvers.count() >= 2",
        notes="",
    )
    nonce = emu.chains.evm(BASE).nonce(alice)
    proposal = emu.earn_deposit(
        wrapper_address=wrapper, sign_with=alice, assets="2000000", caip2=BASE, caller=ann
    )["activity"]
    assert proposal["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    assert emu.chains.evm(BASE).nonce(alice) == nonce  # nothing broadcast yet
    assert emu.list_earn_positions(wallet_address=alice)["positions"] == []
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=ben)["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
    request = done["result"]["earnDepositResult"]["depositRequestId"]
    assert emu.get_earn_deposit_status(deposit_request_id=request)["status"] == "COMPLETED"
    (row,) = emu.list_earn_positions(wallet_address=alice)["positions"]
    assert row["totalDeposited"] == "2000000"


def test_a_velocity_control_counts_a_deposits_transfer():
    emu = Emulator(seed=53)
    emu.create_organization("Earn velocity")
    alice, fees = _wallet(emu)
    wrapper = _wrapper(emu, fees)
    _, key = add_user(emu, "spender")
    emu.create_velocity_control(
        name="earn USDC",
        identifier="usdc_out",
        data_source={"chainAssetTransfer": {"definition": [{"caip19": USDC_19, "decimals": 6}]}},
        aggregation={
            "method": "VELOCITY_CONTROL_AGGREGATION_METHOD_SUM",
            "operator": "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL",
            "threshold": "10",
            "window": {"infinite": {}},
            "groupBy": {"organization": {}},
        },
    )
    emu.create_policy(
        policy_name="deposits up to 10 USDC",
        effect="EFFECT_ALLOW",
        condition="activity.type == 'ACTIVITY_TYPE_EARN_DEPOSIT' && controls.usdc_out",
        notes="",
    )

    def deposit(amount: int):
        return emu.earn_deposit(
            wrapper_address=wrapper, sign_with=alice, assets=str(amount), caip2=BASE, caller=key
        )

    deposit(6 * 10**6)
    with pytest.raises(Exception) as caught:
        deposit(5 * 10**6)  # 11 USDC in all: over the control
    assert caught.value.status == 403
    deposit(4 * 10**6)


def test_earn_records_are_journaled(tmp_path):
    from emulator.state.journal import Journal
    from emulator.state.persistence import StateFile

    emu = Emulator(seed=54)
    state = StateFile.create(tmp_path / "state.sqlite", emu.to_document())
    Journal(emu, state, compact_every=10**9).attach()
    emu.create_organization("Earn journal")
    alice, fees = _wallet(emu)
    wrapper = _wrapper(emu, fees)
    request = emu.earn_deposit(
        wrapper_address=wrapper, sign_with=alice, assets="3000000", caip2=BASE
    )["depositRequestId"]
    emu.earn_set_wrapper_state(wrapper_address=wrapper, deposits_disabled=True)
    reread = StateFile.open(tmp_path / "state.sqlite")
    try:
        document = reread.read()
    finally:
        reread.close()
    assert document == emu.to_document()
    again = Emulator.from_document(document, exact_order=False)
    org = again.world.store.organizations[emu.organization().organization_id]
    assert org.earn_wrappers[wrapper.lower()].deposits_disabled is True
    (totals,) = org.earn_positions.values()
    assert (totals.wallet_address, totals.total_deposited) == (alice, "3000000")
    assert org.earn_requests[request].kind == "DEPOSIT"


def test_the_control_plane_seeds_rewards_and_sets_an_apy():
    import requests

    from emulator.http.control import Control
    from emulator.http.server import serving

    emu = Emulator(seed=55)
    emu.create_organization("Earn control")
    emu.clock.freeze()
    alice, _ = _wallet(emu)
    morpho = f"{BASE}/erc20:0xBAa5CC21fd487B8Fcc2F632f3F4E8D37262a0842"
    with serving(emu.world, control=Control(emu)) as url:

        def post(path: str, body: dict) -> tuple[int, dict]:
            answer = requests.post(f"{url}/emulator/v1/earn/{path}", json=body, timeout=60)
            return answer.status_code, answer.json()

        body = {"caip2": BASE, "walletAddress": alice, "amount": "700"}
        assert post("rewards", body) == (
            200,
            {"rewards": [{"caip19": morpho, "claimable": "0", "claimed": "0", "pending": "700"}]},
        )
        status, error = post("rewards", {**body, "amount": "-1"})
        assert (status, error["code"]) == (400, 3)
        assert error["message"] == (
            "bad control request: amount must be a string of base units (digits only)"
        )
        vault = {"caip2": BASE, "vaultAddress": STEAKHOUSE}
        assert post("apy", {**vault, "apyPct": "0.09"}) == (200, {**vault, "apyPct": "0.09"})
        assert post("apy", {**vault, "apyPct": "lots"})[0] == 400
        assert (
            post("apy", {"caip2": "eip155:10", "vaultAddress": STEAKHOUSE, "apyPct": "0.1"})[0]
            == 400
        )
    catalog = emu.list_earn_vaults(caip19=USDC_19)["vaults"]
    assert {v["vaultAddress"]: v["apyPct"] for v in catalog}[STEAKHOUSE] == "0.09"
    emu.clock.advance(8 * 3600)
    (row,) = emu.list_earn_rewards(wallet_address=alice, caip2=BASE)["rewards"]
    assert (row["claimable"], row["pending"]) == ("700", "0")


def test_a_sub_organization_deposits_into_its_parents_wrapper():
    from emulator.crypto.api_keys import generate_key_pair

    from .helpers import api_key_params

    emu = Emulator(seed=56)
    emu.create_organization("Earn parent")
    emu.clock.freeze()
    _, fees = _wallet(emu)
    wrapper = _wrapper(emu, fees)
    key = generate_key_pair()
    made = emu.create_sub_organization(
        sub_organization_name="End user",
        root_users=[
            {
                "userName": "root",
                "apiKeys": [api_key_params(key)],
                "authenticators": [],
                "oauthProviders": [],
            }
        ],
        root_quorum_threshold=1,
        wallet={"walletName": "main", "accounts": [account_spec("ADDRESS_FORMAT_ETHEREUM")]},
    )
    sub_id, (user,) = made["subOrganizationId"], made["wallet"]["addresses"]
    emu.chains.fund(BASE, user, 10**18)
    emu.chains.fund(USDC_19, user, 4 * 10**6)
    as_sub = {"organization_id": sub_id, "caller": key}
    (view,) = emu.list_earn_enabled_vaults(**as_sub)["enabledVaults"]
    assert view["wrapperAddress"] == wrapper
    assert "claimableClientFee" not in view and "clientFeeWallet" not in view
    request = emu.earn_deposit(
        wrapper_address=wrapper, sign_with=user, assets="4000000", caip2=BASE, **as_sub
    )["depositRequestId"]
    assert emu.get_earn_deposit_status(deposit_request_id=request, **as_sub)["status"] == (
        "COMPLETED"
    )
    (row,) = emu.list_earn_positions(wallet_address=user, **as_sub)["positions"]
    assert (row["wrapperAddress"], row["totalDeposited"]) == (wrapper, "4000000")
    for call, params in (
        (emu.list_earn_vaults, {"caip19": USDC_19}),
        (emu.earn_set_wrapper_state, {"wrapper_address": wrapper, "deposits_disabled": True}),
        (emu.claim_earn_fees, {"wrapper_address": wrapper}),
    ):
        with pytest.raises(Exception) as caught:
            call(**params, **as_sub)
        assert (caught.value.status, caught.value.message) == (
            400,
            "this endpoint is only callable by a parent organization",
        )
