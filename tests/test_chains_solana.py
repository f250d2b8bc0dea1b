"""Broadcasting on the embedded Solana runtime (LiteSVM): transfers verified on the runtime,
preflight failures, the gas station, history and policies on sends."""

from __future__ import annotations

import pytest

pytest.importorskip("solders.litesvm")

from solders.hash import Hash
from solders.message import Message
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import Transaction

from emulator import Emulator
from emulator.accounts import account_spec

from .helpers import add_user, fails

DEVNET = "solana:devnet"
SOL = 10**9


def unsigned_transfer(payer: str, to: str, lamports: int, blockhash: str) -> str:
    instruction = transfer(
        TransferParams(
            from_pubkey=Pubkey.from_string(payer),
            to_pubkey=Pubkey.from_string(to),
            lamports=lamports,
        )
    )
    message = Message.new_with_blockhash(
        [instruction], Pubkey.from_string(payer), Hash.from_string(blockhash)
    )
    return bytes(Transaction.new_unsigned(message)).hex()


@pytest.fixture
def world():
    emu = Emulator(seed=11)
    emu.create_organization("Sol")
    wallet = emu.create_wallet(
        wallet_name="sol",
        accounts=[account_spec("ADDRESS_FORMAT_SOLANA"), account_spec("ADDRESS_FORMAT_SOLANA", 1)],
    )
    return emu, wallet["addresses"]


def send(emu, payer, to, lamports, **options):
    runtime = emu.chains.solana(DEVNET)
    unsigned = unsigned_transfer(payer, to, lamports, runtime.latest_blockhash())
    done = emu.sol_send_transaction(
        unsigned_transaction=unsigned, sign_withs=[payer], caip2=DEVNET, **options
    )
    answer = emu.get_send_transaction_status(
        send_transaction_status_id=done["sendTransactionStatusId"]
    )
    answer.pop("activity")
    return answer


def test_a_transfer_lands_on_the_runtime(world):
    emu, (alice, bob) = world
    emu.chains.fund(DEVNET, alice, SOL)
    answer = send(emu, alice, bob, 10**7)
    assert answer["txStatus"] == "INCLUDED"
    svm = emu.chains.solana(DEVNET).svm
    assert svm.get_balance(Pubkey.from_string(bob)) == 10**7
    assert svm.get_balance(Pubkey.from_string(alice)) == SOL - 10**7 - 5000
    from solders.signature import Signature

    assert svm.get_transaction(Signature.from_string(answer["solana"]["signature"])) is not None
    (item,) = emu.list_sol_transaction_history(address=bob, caip2=DEVNET)["transactions"]
    assert item["signature"] == answer["solana"]["signature"]
    assert item["feePayer"] == alice and item["signers"] == [{"address": alice, "writable": True}]
    assert item["fee"] == {
        "amount": "5000",
        "caip19": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1/slip44:501",
    }
    assert [(t["direction"], t["amount"], t["counterparty"]) for t in item["transfers"]] == [
        ("IN", str(10**7), alice)
    ]
    (out,) = emu.list_sol_transaction_history(address=alice, caip2=DEVNET)["transactions"]
    assert [(t["direction"], t["amount"]) for t in out["transfers"]] == [("OUT", str(10**7))]
    (balance,) = emu.get_wallet_address_balances(address=bob, caip2="solana:devnet")["balances"]
    assert (balance["symbol"], balance["balance"], balance["decimals"]) == ("SOL", str(10**7), 9)


def test_a_preflight_failure_fails_with_the_runtimes_details(world):
    emu, (alice, bob) = world
    emu.chains.fund(DEVNET, alice, 10**6)
    answer = send(emu, alice, bob, 10 * SOL)
    assert answer["txStatus"] == "FAILED" and "solana" not in answer
    failure = answer["error"]["solana"]
    assert failure["source"] == "preflight" and failure["rpcCode"] == -32002
    assert any("insufficient lamports" in line for line in failure["logs"])
    assert answer["error"]["message"].startswith("Transaction simulation failed")
    assert emu.chains.solana(DEVNET).balance(alice) == 10**6  # nothing charged


def test_the_gas_station_pays_the_solana_fee(world):
    emu, (alice, bob) = world
    emu.chains.fund(DEVNET, alice, SOL)
    sponsor = emu.chains.solana(DEVNET).balance(emu.chains.solana_sponsor_address)
    answer = send(emu, alice, bob, 10**7, sponsor=True)
    assert answer["txStatus"] == "INCLUDED"
    assert emu.chains.solana(DEVNET).balance(alice) == SOL - 10**7
    assert emu.chains.solana(DEVNET).balance(emu.chains.solana_sponsor_address) == sponsor - 5000
    assert float(emu.get_gas_usage()["usageUsd"]) == pytest.approx(5000 / 10**9 * 150)


def test_a_policy_sees_the_send_as_solana_tx(world):
    emu, (alice, bob) = world
    emu.chains.fund(DEVNET, alice, SOL)
    _, key = add_user(emu, "sender")
    emu.create_policy(
        policy_name="transfers to bob",
        effect="EFFECT_ALLOW",
        condition=f"solana.tx.transfers.all(t, t.to == '{bob}')",
        notes="",
    )
    runtime = emu.chains.solana(DEVNET)
    ok = unsigned_transfer(alice, bob, 10**7, runtime.latest_blockhash())
    done = emu.sol_send_transaction(
        unsigned_transaction=ok, sign_withs=[alice], caip2=DEVNET, caller=key
    )
    assert done["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    other = str(Pubkey.new_unique())
    denied = unsigned_transfer(alice, other, 10**7, runtime.latest_blockhash())
    error = fails(
        emu,
        emu.sol_send_transaction,
        unsigned_transaction=denied,
        sign_withs=[alice],
        caip2=DEVNET,
        caller=key,
    )
    assert error.status == 403
    assert runtime.balance(other) == 0
