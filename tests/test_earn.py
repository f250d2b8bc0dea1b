"""Earn on the embedded EVM (issue 25, item 3): the catalog, CREATE2 wrappers, deposits and
withdrawals that move real tokens and shares, yield on the emulator's clock with the client's
fee on the yield only, fee and reward claims, pausing, the refusals, policies and state
documents. Balances and contracts are read with eth-tester's own API and eth-abi / eth-utils
(independent of the emulator's chain code)."""

from __future__ import annotations

import pytest

pytest.importorskip("eth_tester")

from eth_abi import decode, encode
from eth_utils import keccak, to_checksum_address

from emulator import Emulator
from emulator.accounts import account_spec

from .helpers import add_user, error_of, fails

BASE = "eip155:8453"
USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
USDC_19 = f"{BASE}/erc20:{USDC}"
MORPHO = "0xBAa5CC21fd487B8Fcc2F632f3F4E8D37262a0842"
STEAKHOUSE = "0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183"
GAUNTLET = "0xeE8F4eC5672F09119b96Ab6fB59C27E1b7e44b61"
YEAR_S = 365 * 24 * 3600
ONE_ETH = 10**18


@pytest.fixture(scope="module")
def world():
    emu = Emulator(seed=11)
    emu.clock.freeze()  # yield accrues only when a test moves the clock
    emu.create_organization("Earn")
    wallet = emu.create_wallet(
        wallet_name="hot",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", i) for i in range(4)],
    )
    return emu, wallet["addresses"]


def read(emu, to: str, signature: str, args: list, types: list[str], out: list[str]):
    """An eth_call through eth-tester, encoded and decoded with eth-abi."""
    data = keccak(text=signature)[:4] + encode(types, args)
    call = {
        "from": emu.chains.evm_sponsor_address,  # an account with funds for the call's gas
        "to": to,
        "data": "0x" + data.hex(),
    }
    result = emu.chains.evm(BASE).tester.call(call)
    return decode(out, bytes.fromhex(result[2:]))


def balance(emu, token: str, holder: str) -> int:
    return read(emu, token, "balanceOf(address)", [holder], ["address"], ["uint256"])[0]


def deploy(emu, fee_wallet: str, bps: str = "2000", vault: str = STEAKHOUSE) -> dict:
    done = emu.earn_deploy_wrapper(
        vault_address=vault, caip2=BASE, client_fee_bps=bps, client_fee_wallet=fee_wallet
    )
    assert done["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    return done


def deposit(emu, wrapper: str, sender: str, assets: int, **options) -> str:
    done = emu.earn_deposit(
        wrapper_address=wrapper, sign_with=sender, assets=str(assets), caip2=BASE, **options
    )
    return done["depositRequestId"]


def positions(emu, wallet: str) -> dict[str, dict]:
    rows = emu.list_earn_positions(wallet_address=wallet)["positions"]
    return {row["wrapperAddress"]: row for row in rows}


def enabled(emu, wrapper: str) -> dict:
    rows = emu.list_earn_enabled_vaults()["enabledVaults"]
    return next(row for row in rows if row["wrapperAddress"] == wrapper)


def test_the_catalog_is_sorted_by_tvl_filtered_and_paged(world):
    emu, _ = world
    vaults = emu.list_earn_vaults(caip19=USDC_19)
    names = [v["name"] for v in vaults["vaults"]]
    assert names == ["Steakhouse USDC", "Gauntlet USDC Prime", "USDC", "Moonwell Flagship USDC"]
    tvls = [int(v["tvl"]) for v in vaults["vaults"]]
    assert tvls == sorted(tvls, reverse=True)
    steak = vaults["vaults"][0]
    # the TVL is the real vault contract's, at its real address
    (assets,) = read(emu, STEAKHOUSE, "totalAssets()", [], [], ["uint256"])
    assert int(steak["tvl"]) == assets
    assert (
        steak["provider"] == "EARN_PROVIDER_MORPHO" and steak["curator"] == "Steakhouse Financial"
    )
    assert steak["caip19"] == USDC_19 and steak["apyPct"] == "0.0512"
    assert steak["display"]["crypto"] == str(assets // 10**6)
    aave = emu.list_earn_vaults(caip19=USDC_19, provider="EARN_PROVIDER_AAVE")["vaults"]
    assert [(v["vaultAddress"], v["curator"], v["name"]) for v in aave] == [(USDC, "", "USDC")]
    first = emu.list_earn_vaults(caip19=USDC_19, pagination_options={"limit": "2"})
    assert [v["name"] for v in first["vaults"]] == names[:2]
    assert first["pageInfo"]["hasNextPage"] is True
    assert first["pageInfo"]["hasPreviousPage"] is False
    after = first["pageInfo"]["endCursor"]
    second = emu.list_earn_vaults(caip19=USDC_19, pagination_options={"limit": "2", "after": after})
    assert [v["name"] for v in second["vaults"]] == names[2:]
    assert second["pageInfo"]["hasNextPage"] is False
    assert second["pageInfo"]["hasPreviousPage"] is True
    # the $100k floor: the seeded ETH vault holds 30,000 WETH and is listed; no vault for MORPHO
    assert emu.list_earn_vaults(caip19=f"{BASE}/erc20:{MORPHO}")["vaults"] == []


def test_a_wrapper_lands_at_its_create2_address_and_redeploying_is_idempotent(world):
    emu, (_, fees, *_) = world
    done = deploy(emu, fees, "1500")
    wrapper, splitter = done["wrapperAddress"], done["splitterAddress"]
    tester = emu.chains.evm(BASE).tester
    status = emu.get_earn_deploy_status(deploy_request_id=done["deployRequestId"])
    assert status["status"] == "COMPLETED"
    receipt = tester.get_transaction_receipt(status["deployTxHash"])
    assert receipt["status"] == 1
    factory = receipt["to"]
    # CREATE2 from the factory, the salt bound to (vault, fee, fee wallet)
    salt = keccak(encode(["address", "uint256", "address"], [STEAKHOUSE, 1500, fees]))
    artifact = emu.earn.chain(BASE)  # the contracts' init code is the committed artifact's
    from emulator.chains.earn import init_code

    turnkey = read(emu, factory, "turnkey()", [], [], ["address"])[0]
    splitter_init = init_code("FeeSplitter") + encode(
        ["address", "uint256", "address", "uint256"], [fees, 1500, turnkey, 1000]
    )
    expected = keccak(b"\xff" + bytes.fromhex(factory[2:]) + salt + keccak(splitter_init))[12:]
    assert splitter == to_checksum_address(expected)
    assert tester.get_code(wrapper) != "0x" and tester.get_code(splitter) != "0x"
    assert read(emu, wrapper, "vault()", [], [], ["address"])[0].lower() == STEAKHOUSE.lower()
    assert read(emu, wrapper, "feeBps()", [], [], ["uint256"])[0] == 2500
    assert read(emu, wrapper, "asset()", [], [], ["address"])[0].lower() == USDC.lower()
    again = deploy(emu, fees, "1500")
    assert (again["wrapperAddress"], again["splitterAddress"]) == (wrapper, splitter)
    assert again["deployRequestId"] == done["deployRequestId"]  # nothing was broadcast
    other = deploy(emu, fees, "1600")
    assert other["wrapperAddress"] != wrapper
    catalog = emu.list_earn_vaults(caip19=USDC_19)["vaults"]
    assert {v["name"]: v["enabled"] for v in catalog}["Steakhouse USDC"] is True
    assert artifact.factory == factory


def test_a_year_of_yield_pays_the_depositor_net_of_fees_and_the_client_its_fee(world):
    emu, (alice, fees, *_) = world
    wrapper = deploy(emu, fees, "2000", GAUNTLET)["wrapperAddress"]
    emu.chains.fund(BASE, alice, ONE_ETH)
    emu.earn.mint(USDC_19, alice, 1_000 * 10**6)
    before = balance(emu, USDC, alice)
    request = deposit(emu, wrapper, alice, 1_000 * 10**6)
    status = emu.get_earn_deposit_status(deposit_request_id=request)
    assert status["status"] == "COMPLETED"
    tx = emu.chains.evm(BASE).tester.get_transaction_receipt(status["depositTxHash"])
    assert tx["status"] == 1
    assert balance(emu, USDC, alice) == before - 1_000 * 10**6
    assert balance(emu, wrapper, alice) > 0  # wrapper shares, minted atomically
    row = positions(emu, alice)[wrapper]
    assert (row["currentValue"], row["totalDeposited"], row["totalWithdrawn"]) == (
        "1000000000",
        "1000000000",
        "0",
    )
    emu.clock.advance(YEAR_S)
    # gross 4.87% (the first deposit has a share price of exactly 1 at a frozen clock); fees 20% (client) + 10% (Turnkey) of the yield: net 3.409%
    row = positions(emu, alice)[wrapper]
    assert int(row["currentValue"]) in range(1_034_089_000, 1_034_090_001)
    view = enabled(emu, wrapper)
    assert view["apyPct"] == "0.0487" and view["netApyPct"] == "0.03409"
    assert int(view["claimableClientFee"]) in range(9_739_000, 9_740_001)  # 20% of 48.7
    partial = emu.earn_withdraw(
        wrapper_address=wrapper, sign_with=alice, caip2=BASE, amount_value="100000000"
    )
    assert (
        emu.get_earn_withdraw_status(withdraw_request_id=partial["withdrawRequestId"])["status"]
        == "COMPLETED"
    )
    assert positions(emu, alice)[wrapper]["totalWithdrawn"] == "100000000"
    value = int(positions(emu, alice)[wrapper]["currentValue"])
    emu.earn_withdraw(wrapper_address=wrapper, sign_with=alice, caip2=BASE, amount_value="MAX")
    assert wrapper not in positions(emu, alice)
    assert balance(emu, wrapper, alice) == 0
    assert balance(emu, USDC, alice) == before - 1_000 * 10**6 + 100 * 10**6 + value
    claimable = int(enabled(emu, wrapper)["claimableClientFee"])
    fee_before = balance(emu, USDC, fees)
    claim = emu.claim_earn_fees(wrapper_address=wrapper)
    assert (
        emu.get_claim_earn_fees_status(claim_request_id=claim["claimRequestId"])["status"]
        == "COMPLETED"
    )
    assert balance(emu, USDC, fees) - fee_before in range(claimable - 1, claimable + 1)
    assert enabled(emu, wrapper)["claimableClientFee"] == "0"
    error = fails(emu, emu.claim_earn_fees, wrapper_address=wrapper)
    assert error_of(error) == (400, 3, f"no fees to claim for wrapper {wrapper}", "")


def test_paused_deposits_are_refused_and_withdrawals_still_work(world):
    emu, (alice, fees, *_) = world
    wrapper = deploy(emu, fees, "300")["wrapperAddress"]
    emu.chains.fund(BASE, alice, ONE_ETH)
    emu.earn.mint(USDC_19, alice, 50 * 10**6)
    deposit(emu, wrapper, alice, 50 * 10**6)
    paused = emu.earn_set_wrapper_state(wrapper_address=wrapper, deposits_disabled=True)
    assert (paused["wrapperAddress"], paused["depositsDisabled"]) == (wrapper, True)
    assert enabled(emu, wrapper)["depositsDisabled"] is True
    assert positions(emu, alice)[wrapper]["depositsDisabled"] is True
    emu.earn.mint(USDC_19, alice, 10**6)
    error = fails(emu, deposit, emu, wrapper, alice, 10**6)
    assert error_of(error) == (
        400,
        3,
        f"deposits to wrapper {wrapper} are disabled",
        "",
    )
    out = emu.earn_withdraw(
        wrapper_address=wrapper, sign_with=alice, caip2=BASE, amount_value="MAX"
    )
    assert (
        emu.get_earn_withdraw_status(withdraw_request_id=out["withdrawRequestId"])["status"]
        == "COMPLETED"
    )
    emu.earn_set_wrapper_state(wrapper_address=wrapper, deposits_disabled=False)
    deposit(emu, wrapper, alice, 10**6)


def test_the_documented_refusals_change_nothing(world):
    emu, (alice, fees, bob, _) = world
    unknown = "0x" + "ab" * 20
    cases = [
        (
            dict(
                vault_address=STEAKHOUSE, caip2=BASE, client_fee_bps="4001", client_fee_wallet=fees
            ),
            "exceeds the maximum of 4000 bps",
        ),
        (
            dict(vault_address=unknown, caip2=BASE, client_fee_bps="100", client_fee_wallet=fees),
            "is not in the Earn catalog",
        ),
        (
            dict(
                vault_address=STEAKHOUSE,
                caip2=BASE,
                client_fee_bps="100",
                client_fee_wallet=unknown,
            ),
            "must be a wallet account owned by this organization",
        ),
        (
            dict(
                vault_address=STEAKHOUSE,
                caip2="eip155:10",
                client_fee_bps="100",
                client_fee_wallet=fees,
            ),
            "Earn is not supported on chain eip155:10",
        ),
    ]
    for params, words in cases:
        error = fails(emu, emu.earn_deploy_wrapper, **params)
        assert (error.status, error.code, error.turnkey_error_code) == (400, 3, "")
        assert words in error.message
    error = fails(emu, deposit, emu, unknown, alice, 1)
    assert error.message == (
        f"EARN_SETUP_REQUIRED: no Earn wrapper {unknown} is deployed for this organization "
        f"on {BASE}"
    )
    wrapper = deploy(emu, fees, "50")["wrapperAddress"]
    emu.chains.fund(BASE, bob, ONE_ETH)
    nonce = emu.chains.evm(BASE).nonce(bob)
    error = fails(emu, deposit, emu, wrapper, bob, 10**12)
    assert error.status == 400 and error.message.startswith("insufficient balance: ")
    for bad in ("0", "-1", "1.5", "lots"):
        assert fails(emu, deposit, emu, wrapper, bob, bad).status == 400
    error = fails(
        emu,
        emu.earn_withdraw,
        wrapper_address=wrapper,
        sign_with=bob,
        caip2=BASE,
        amount_value="MAX",
    )
    assert error.message == f"{bob} has no position in wrapper {wrapper}"
    assert emu.chains.evm(BASE).nonce(bob) == nonce  # nothing was broadcast
    error = fails(emu, emu.get_earn_deposit_status, deposit_request_id="nope")
    assert error.status == 404


def test_a_policy_deny_on_eth_tx_to_stops_the_deposit_before_broadcast(world):
    emu, (alice, fees, *_) = world
    wrapper = deploy(emu, fees, "700")["wrapperAddress"]
    _, key = add_user(emu, "depositor")
    emu.create_policy(
        policy_name="earn deposits",
        effect="EFFECT_ALLOW",
        notes="",
        condition="activity.type == 'ACTIVITY_TYPE_EARN_DEPOSIT'",
    )
    emu.create_policy(
        policy_name="not this wrapper",
        effect="EFFECT_DENY",
        notes="",
        condition=f"eth.tx.to == '{wrapper}'",
    )
    emu.chains.fund(BASE, alice, ONE_ETH)
    emu.earn.mint(USDC_19, alice, 10**6)
    nonce, held = emu.chains.evm(BASE).nonce(alice), balance(emu, USDC, alice)
    error = fails(
        emu,
        emu.earn_deposit,
        wrapper_address=wrapper,
        sign_with=alice,
        assets="1000000",
        caip2=BASE,
        caller=key,
    )
    assert error.status == 403
    assert (emu.chains.evm(BASE).nonce(alice), balance(emu, USDC, alice)) == (nonce, held)
    other = deploy(emu, fees, "701")["wrapperAddress"]
    done = emu.earn_deposit(
        wrapper_address=other, sign_with=alice, assets="1000000", chain_caip2=BASE, caller=key
    )
    assert (
        emu.get_earn_deposit_status(deposit_request_id=done["depositRequestId"])["status"]
        == "COMPLETED"
    )


def test_seeded_rewards_become_claimable_at_the_next_root_and_pay_out(world):
    emu, (alice, *_) = world
    emu.chains.fund(BASE, alice, ONE_ETH)
    emu.earn.add_rewards(BASE, alice, 5 * 10**18)
    (row,) = emu.list_earn_rewards(wallet_address=alice, caip2=BASE)["rewards"]
    assert (row["symbol"], row["claimable"], row["pending"]) == ("MORPHO", "0", str(5 * 10**18))
    error = fails(emu, emu.earn_claim_rewards, sign_with=alice, caip2=BASE)
    assert error.message == f"no rewards are claimable for {alice} on {BASE}"
    emu.clock.advance(8 * 3600)
    (row,) = emu.list_earn_rewards(wallet_address=alice, caip2=BASE)["rewards"]
    assert (row["claimable"], row["pending"], row["claimed"]) == (str(5 * 10**18), "0", "0")
    before = balance(emu, MORPHO, alice)
    done = emu.earn_claim_rewards(sign_with=alice, caip2=BASE)
    status = emu.get_earn_claim_rewards_status(claim_request_id=done["claimRequestId"])
    assert status["status"] == "COMPLETED"
    assert balance(emu, MORPHO, alice) == before + 5 * 10**18
    (row,) = emu.list_earn_rewards(wallet_address=alice, caip2=BASE)["rewards"]
    assert (row["claimable"], row["claimed"]) == ("0", str(5 * 10**18))
    assert row["caip19"] == f"{BASE}/erc20:{MORPHO}" and row["display"]["claimedUsd"] == "10.00"


def test_earn_records_survive_state_documents(world):
    emu, (alice, fees, *_) = world
    done = deploy(emu, fees, "900")
    wrapper = done["wrapperAddress"]
    emu.chains.fund(BASE, alice, ONE_ETH)
    emu.earn.mint(USDC_19, alice, 7 * 10**6)
    request = deposit(emu, wrapper, alice, 7 * 10**6)
    emu.earn_set_wrapper_state(wrapper_address=wrapper, deposits_disabled=True)
    loaded = Emulator.from_document(emu.to_document())
    loaded.world.chains = emu.world.chains  # the chain is the outside world: the same one
    status = loaded.get_earn_deposit_status(deposit_request_id=request)
    assert status["status"] == "COMPLETED"
    view = next(
        v
        for v in loaded.list_earn_enabled_vaults()["enabledVaults"]
        if v["wrapperAddress"] == wrapper
    )
    assert view["depositsDisabled"] is True and view["clientFeeBps"] == "900"
    assert (
        loaded.get_earn_deploy_status(deploy_request_id=done["deployRequestId"])["status"]
        == "COMPLETED"
    )
    saved = emu.snapshot()
    emu.reset()  # the embedded chains start afresh; the records come back
    emu.restore(saved)
    assert emu.get_earn_deposit_status(deposit_request_id=request)["status"] == "COMPLETED"


def test_the_official_python_sdk_runs_the_earn_lifecycle():
    pytest.importorskip("turnkey_http")
    from turnkey_sdk_types import (
        EarnDeployWrapperBody,
        EarnDepositBody,
        GetEarnDepositStatusBody,
        ListEarnPositionsBody,
        ListEarnVaultsBody,
    )

    emu = Emulator(seed=12)  # its clock is the wall clock's, as the SDK's timestamps are
    emu.create_organization("Earn SDK")
    accounts = [account_spec("ADDRESS_FORMAT_ETHEREUM", i) for i in range(2)]
    fees, carol = emu.create_wallet(wallet_name="sdk", accounts=accounts)["addresses"]
    emu.chains.fund(BASE, carol, ONE_ETH)
    emu.chains.fund(USDC_19, carol, 3 * 10**6)  # the token layer's funding seam
    client = emu.client(emu.organization())
    with emu.intercept():
        catalog = client.list_earn_vaults(ListEarnVaultsBody(caip19=USDC_19))
        assert catalog.vaults[0].vaultAddress == STEAKHOUSE
        deployed = client.earn_deploy_wrapper(
            EarnDeployWrapperBody(
                vaultAddress=STEAKHOUSE, caip2=BASE, clientFeeBps="123", clientFeeWallet=fees
            )
        )
        wrapper = deployed.activity.result.earnDeployWrapperResult.wrapperAddress
        sent = client.earn_deposit(
            EarnDepositBody(
                wrapperAddress=wrapper, signWith=carol, assets="3000000", caip2=BASE, sponsor=True
            )
        )
        request = sent.activity.result.earnDepositResult.depositRequestId
        polled = client.get_earn_deposit_status(GetEarnDepositStatusBody(depositRequestId=request))
        held = client.list_earn_positions(ListEarnPositionsBody(walletAddress=carol))
    assert polled.status == "COMPLETED" and polled.depositTxHash
    # ERC-4626 rounds in the vault's favour: a unit may be lost to the share price
    assert [int(p.currentValue) for p in held.positions] in ([3000000], [2999999])
    # sponsored: the gas station paid; carol's ETH is untouched
    assert emu.chains.evm(BASE).tester.get_balance(carol) == ONE_ETH
