"""``@turnkey/http``'s TurnkeyClient sends through the emulator: ethSendTransaction,
ethSendRawTransaction and ethUndelegate7702 (the last two are in the TypeScript client only),
then getSendTransactionStatus, getNonces and getWalletAddressBalances."""

from __future__ import annotations

import pytest

pytest.importorskip("eth_tester")

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.chains.evm_tx import unsigned_1559

BASE = "eip155:8453"
RECIPIENT = "0x" + "55" * 20


def test_the_typescript_client_sends_and_polls():
    from emulator.crypto.api_keys import generate_key_pair
    from tests.typescript import client_calls, typescript_or_skip

    ts = typescript_or_skip()
    emu = Emulator(seed=31)
    root = generate_key_pair()
    org = emu.create_organization(api_public_key=root.public_key, api_private_key=root.private_key)
    (alice,) = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"]
    emu.chains.fund(BASE, alice, 10**18)
    unsigned = unsigned_1559(8453, 1, 10**9, 10**10, 21000, RECIPIENT, 5, b"")
    signed = emu.sign_transaction(
        sign_with=alice, unsigned_transaction=unsigned, type="TRANSACTION_TYPE_ETHEREUM"
    )["signedTransaction"]

    def activity(kind: str, parameters: dict) -> dict:
        return {
            "type": kind,
            "timestampMs": str(emu.clock.now_ms()),
            "organizationId": org.organization_id,
            "parameters": parameters,
        }

    sent, raw, undelegated = client_calls(
        ts,
        emu.world,
        root,
        [
            (
                "ethSendTransaction",
                activity(
                    "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2",
                    {"from": alice, "caip2": BASE, "calls": [{"to": RECIPIENT, "value": "9"}]},
                ),
            ),
            (
                "ethSendRawTransaction",
                activity(
                    "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION",
                    {"signedTransaction": "0x" + signed, "caip2": BASE},
                ),
            ),
            (
                "ethUndelegate7702",
                activity("ACTIVITY_TYPE_ETH_UNDELEGATE_7702", {"from": alice, "caip2": BASE}),
            ),
        ],
    )
    status_id = sent["activity"]["result"]["ethSendTransactionResultV2"]["sendTransactionStatusId"]
    tx_hash = raw["activity"]["result"]["ethSendRawTransactionResult"]["transactionHash"]
    undelegation = undelegated["activity"]["result"]["ethUndelegate7702Result"]
    status, nonces, balances = client_calls(
        ts,
        emu.world,
        root,
        [
            (
                "getSendTransactionStatus",
                {"organizationId": org.organization_id, "sendTransactionStatusId": status_id},
            ),
            (
                "getNonces",
                {
                    "organizationId": org.organization_id,
                    "address": alice,
                    "caip2": BASE,
                    "nonce": True,
                },
            ),
            (
                "getWalletAddressBalances",
                {"organizationId": org.organization_id, "address": alice, "caip2": BASE},
            ),
        ],
    )
    tester = emu.chains.evm(BASE).tester
    assert status["txStatus"] == "INCLUDED"
    assert tester.get_transaction_by_hash(status["eth"]["txHash"])["value"] == 9
    assert tester.get_transaction_by_hash(tx_hash)["value"] == 5
    undone = emu.get_send_transaction_status(
        send_transaction_status_id=undelegation["sendTransactionStatusId"]
    )
    assert undone["txStatus"] == "INCLUDED"
    assert nonces["nonce"] == str(tester.get_nonce(alice)) == "4"  # 2 sends + 7702 (tx, auth)
    (balance,) = balances["balances"]
    assert balance["balance"] == str(tester.get_balance(alice)) and balance["symbol"] == "ETH"
