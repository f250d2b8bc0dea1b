"""``@turnkey/http``'s TurnkeyClient runs Earn through the emulator with the TypeScript names
(``chainCaip2``): listEarnVaults, earnDeployWrapper, getEarnDeployStatus, earnDeposit,
getEarnDepositStatus, listEarnPositions, listEarnEnabledVaults, earnWithdraw (``MAX``) and
getEarnWithdrawStatus; balances are read back with eth-tester."""

from __future__ import annotations

import pytest

pytest.importorskip("eth_tester")

from emulator import Emulator
from emulator.accounts import account_spec

BASE = "eip155:8453"
USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
USDC_19 = f"{BASE}/erc20:{USDC}"
STEAKHOUSE = "0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183"


def test_the_typescript_client_deposits_and_withdraws():
    from emulator.crypto.api_keys import generate_key_pair
    from tests.typescript import client_calls, typescript_or_skip

    ts = typescript_or_skip()
    emu = Emulator(seed=41)
    root = generate_key_pair()
    org = emu.create_organization(api_public_key=root.public_key, api_private_key=root.private_key)
    alice, fees = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", i) for i in range(2)]
    )["addresses"]
    emu.chains.fund(BASE, alice, 10**18)
    emu.chains.fund(USDC_19, alice, 25 * 10**6)
    org_id = org.organization_id

    def activity(kind: str, parameters: dict) -> dict:
        return {
            "type": kind,
            "timestampMs": str(emu.clock.now_ms()),
            "organizationId": org_id,
            "parameters": parameters,
        }

    catalog, deployed = client_calls(
        ts,
        emu.world,
        root,
        [
            ("listEarnVaults", {"organizationId": org_id, "caip19": USDC_19}),
            (
                "earnDeployWrapper",
                activity(
                    "ACTIVITY_TYPE_EARN_DEPLOY_WRAPPER",
                    {
                        "vaultAddress": STEAKHOUSE,
                        "chainCaip2": BASE,
                        "clientFeeBps": "100",
                        "clientFeeWallet": fees,
                    },
                ),
            ),
        ],
    )
    assert catalog["vaults"][0]["vaultAddress"] == STEAKHOUSE
    result = deployed["activity"]["result"]["earnDeployWrapperResult"]
    wrapper = result["wrapperAddress"]
    (status, sent) = client_calls(
        ts,
        emu.world,
        root,
        [
            (
                "getEarnDeployStatus",
                {"organizationId": org_id, "deployRequestId": result["deployRequestId"]},
            ),
            (
                "earnDeposit",
                activity(
                    "ACTIVITY_TYPE_EARN_DEPOSIT",
                    {
                        "wrapperAddress": wrapper,
                        "signWith": alice,
                        "assets": "25000000",
                        "chainCaip2": BASE,
                        "sponsor": True,
                    },
                ),
            ),
        ],
    )
    assert status["status"] == "COMPLETED" and status["deployTxHash"].startswith("0x")
    request = sent["activity"]["result"]["earnDepositResult"]["depositRequestId"]
    polled, held, enabled, withdrawn = client_calls(
        ts,
        emu.world,
        root,
        [
            ("getEarnDepositStatus", {"organizationId": org_id, "depositRequestId": request}),
            ("listEarnPositions", {"organizationId": org_id, "walletAddress": alice}),
            ("listEarnEnabledVaults", {"organizationId": org_id}),
            (
                "earnWithdraw",
                activity(
                    "ACTIVITY_TYPE_EARN_WITHDRAW",
                    {
                        "wrapperAddress": wrapper,
                        "signWith": alice,
                        "chainCaip2": BASE,
                        "amountValue": "MAX",
                        "sponsor": True,
                    },
                ),
            ),
        ],
    )
    assert polled["status"] == "COMPLETED"
    (position,) = held["positions"]
    assert position["wrapperAddress"] == wrapper and position["totalDeposited"] == "25000000"
    assert int(position["currentValue"]) in (24_999_999, 25_000_000)  # ERC-4626 rounding
    (view,) = enabled["enabledVaults"]
    assert view["clientFeeBps"] == "100" and view["deployStatus"] == "COMPLETED"
    withdraw_id = withdrawn["activity"]["result"]["earnWithdrawResult"]["withdrawRequestId"]
    (final,) = client_calls(
        ts,
        emu.world,
        root,
        [("getEarnWithdrawStatus", {"organizationId": org_id, "withdrawRequestId": withdraw_id})],
    )
    assert final["status"] == "COMPLETED"
    tester = emu.chains.evm(BASE).tester
    receipt = tester.get_transaction_receipt(final["withdrawTxHash"])
    assert receipt["status"] == 1
    # every share redeemed: the wallet holds its USDC again (less ERC-4626 rounding), no ETH spent
    from eth_abi import decode, encode
    from eth_utils import keccak

    call = {
        "from": emu.chains.evm_sponsor_address,
        "to": USDC,
        "data": "0x" + (keccak(text="balanceOf(address)")[:4] + encode(["address"], [alice])).hex(),
    }
    (held_usdc,) = decode(["uint256"], bytes.fromhex(tester.call(call)[2:]))
    assert 24_999_998 <= held_usdc <= 25_000_100
    assert tester.get_balance(alice) == 10**18
