"""Swaps executed for real on the embedded chains: a quote priced from the price table with
the docs' fees, an execution that builds, signs and broadcasts the swap (the ERC-20 approval
batched with the router call, the gas station when sponsored, a two-signer SPL swap on
LiteSVM), cross-chain fills after the delay on the clock, and injected fill failures. Every
balance is read with a client other than the emulator's: eth-tester's ``call`` and solders'
account decoders."""

from __future__ import annotations

from fractions import Fraction

import pytest

pytest.importorskip("eth_tester")
pytest.importorskip("solders.litesvm")

from emulator import Settings

from .swap_helpers import (
    ARB_USDC,
    ARBITRUM,
    BASE,
    ETH,
    HUNDRED_USDC,
    ONE_ETH,
    SOL,
    SOL_USDC,
    SOL_USDC_MINT,
    SOLANA,
    USDC,
    USDT,
    WETH,
    erc20_balance,
    execute,
    expected_output,
    lamports,
    native_balance,
    new_world,
    quote,
    spl_balance,
    status,
)


@pytest.fixture
def world():
    emu, alice, bob, sol = new_world()
    yield emu, alice, bob, sol
    emu.close()


def test_a_quote_is_priced_net_of_the_fees_with_its_floor_and_expiry(world):
    emu, alice, _, _ = world
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC, slippage_bps="100")
    # Turnkey 20 bps + the provider's 5 bps, no client fee configured; ETH at 3000 USD
    out = expected_output(HUNDRED_USDC, Fraction(1), 6, Fraction(3000), 18, 25)
    assert q["outputAmount"] == str(out)
    assert q["minOutputAmount"] == str(out * 9_900 // 10_000)
    assert q["expiresAt"] == str(emu.clock.now_ms() + 30_000)
    assert (q["provider"], q["slippageBps"], q["clientFeeBps"]) == ("relay", "100", "0")
    assert (q["estimatedTimeSeconds"], q["feeSponsorship"], q["fixedRate"]) == ("2", False, False)
    assert q["quoteId"].startswith("sq_v1_") and len(q["quoteId"]) == 70
    emu.swap.set_price(WETH, "2500")  # a new price moves new quotes, not this one
    again = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    assert again["outputAmount"] == str(
        expected_output(HUNDRED_USDC, Fraction(1), 6, Fraction(2500), 18, 25)
    )
    assert again["slippageBps"] == "50"  # the provider's default


def test_an_erc20_swap_batches_the_approval_and_moves_both_tokens(world):
    emu, alice, _, _ = world
    emu.chains.fund(USDC, alice, 3 * HUNDRED_USDC)
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    done = execute(emu, q, USDC, WETH, HUNDRED_USDC)
    assert done["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert (done["provider"], done["quoteId"]) == ("relay", q["quoteId"])
    assert done["swapRequestId"].startswith("sha256:")
    answer = status(emu, done["swapRequestId"])
    assert answer["status"] == "COMPLETED" and answer["swapKind"] == "SAME_CHAIN"
    assert answer["outputAmount"] == q["outputAmount"]
    assert "destinationTxHashes" not in answer and "error" not in answer
    assert (erc20_balance(emu, USDC, alice), erc20_balance(emu, WETH, alice)) == (
        2 * HUNDRED_USDC,
        int(q["outputAmount"]),
    )
    tester = emu.chains.evm(BASE).tester
    tx = tester.get_transaction_by_hash(answer["originTxHash"])
    assert tx["type"] == "0x4" and tx["to"] == alice  # the account's own gas-station batch
    receipt = tester.get_transaction_receipt(answer["originTxHash"])
    router = emu.swap.provider.router
    transfers = [
        (log["address"], log["topics"][1][-40:], log["topics"][2][-40:], int(log["data"], 16))
        for log in receipt["logs"]
        if len(log["topics"]) == 3
        and log["topics"][0].endswith(
            "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
        )
    ]
    usdc, weth = USDC.split(":")[-1], WETH.split(":")[-1]
    assert (usdc, alice[2:].lower(), router[2:].lower(), HUNDRED_USDC) in transfers
    assert (weth, router[2:].lower(), alice[2:].lower(), int(q["outputAmount"])) in transfers
    # the history and the balances API see the swap
    assert {
        b["symbol"] for b in emu.get_wallet_address_balances(address=alice, caip2=BASE)["balances"]
    } == {"ETH", "USDC", "WETH"}


def test_a_native_input_is_one_transaction_to_the_router(world):
    emu, alice, _, _ = world
    emu.chains.fund(BASE, alice, 2 * ONE_ETH)
    q = quote(emu, alice, ETH, USDC, ONE_ETH // 10)
    answer = status(emu, execute(emu, q, ETH, USDC, ONE_ETH // 10)["swapRequestId"])
    tester = emu.chains.evm(BASE).tester
    tx = tester.get_transaction_by_hash(answer["originTxHash"])
    assert tx["type"] == "0x2" and tx["to"] == emu.swap.provider.router
    assert tx["value"] == ONE_ETH // 10
    receipt = tester.get_transaction_receipt(answer["originTxHash"])
    fee = receipt["gas_used"] * receipt["effective_gas_price"]
    assert native_balance(emu, BASE, alice) == 2 * ONE_ETH - ONE_ETH // 10 - fee
    assert (
        erc20_balance(emu, USDC, alice)
        == int(q["outputAmount"])
        == expected_output(ONE_ETH // 10, Fraction(3000), 18, Fraction(1), 6, 25)
    )


def test_a_sponsored_swap_is_paid_for_by_the_gas_station(world):
    emu, alice, _, _ = world
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    before = native_balance(emu, BASE, alice)
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    answer = status(emu, execute(emu, q, USDC, WETH, HUNDRED_USDC, sponsor=True)["swapRequestId"])
    tx = emu.chains.evm(BASE).tester.get_transaction_by_hash(answer["originTxHash"])
    assert tx["from"] == emu.chains.evm_sponsor_address
    assert native_balance(emu, BASE, alice) == before  # not a wei of gas from the wallet
    assert erc20_balance(emu, WETH, alice) == int(q["outputAmount"])
    usage = emu.get_gas_usage()
    assert float(usage["usageUsd"]) > 0


def test_a_solana_swap_is_one_transaction_of_the_wallet_and_the_solver(world):
    emu, _, _, sol = world
    emu.chains.fund(SOL, sol, 5 * 10**9)
    q = quote(emu, sol, SOL, SOL_USDC, 10**9)
    assert q["outputAmount"] == str(expected_output(10**9, Fraction(150), 9, Fraction(1), 6, 25))
    answer = status(emu, execute(emu, q, SOL, SOL_USDC, 10**9)["swapRequestId"])
    assert answer["status"] == "COMPLETED"
    assert spl_balance(emu, SOL_USDC_MINT, sol) == int(q["outputAmount"])
    from solders.signature import Signature

    svm = emu.chains.solana(SOLANA).svm
    landed = svm.get_transaction(Signature.from_string(answer["originTxHash"]))
    assert landed is not None
    assert lamports(emu, sol) == 5 * 10**9 - 10**9 - 10_000 - 2_039_280  # two signatures, the ATA
    # and back: SPL in, lamports out
    q = quote(emu, sol, SOL_USDC, SOL, 50_000_000)
    before = lamports(emu, sol)
    answer = status(emu, execute(emu, q, SOL_USDC, SOL, 50_000_000)["swapRequestId"])
    assert answer["status"] == "COMPLETED"
    assert (
        spl_balance(emu, SOL_USDC_MINT, sol)
        == int(expected_output(10**9, Fraction(150), 9, Fraction(1), 6, 25)) - 50_000_000
    )
    assert lamports(emu, sol) == before + int(q["outputAmount"]) - 10_000


def test_a_cross_chain_swap_fills_on_the_destination_after_the_delay(world):
    emu, alice, _, _ = world
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    q = quote(emu, alice, USDC, ARB_USDC, HUNDRED_USDC)
    assert q["estimatedTimeSeconds"] == "30"
    # a stable pair: Turnkey's Enterprise stable-pair fee (10 bps) and the provider's 5
    assert q["outputAmount"] == str(HUNDRED_USDC * 9_985 // 10_000)
    done = execute(emu, q, USDC, ARB_USDC, HUNDRED_USDC)
    pending = status(emu, done["swapRequestId"])
    assert pending["status"] == "PENDING" and pending["swapKind"] == "CROSS_CHAIN"
    assert "originTxHash" in pending and "destinationTxHashes" not in pending
    assert erc20_balance(emu, USDC, alice) == 0
    assert erc20_balance(emu, ARB_USDC, alice) == 0  # nothing on the other chain yet
    emu.clock.advance(29)
    assert status(emu, done["swapRequestId"])["status"] == "PENDING"
    emu.clock.advance(1)
    filled = status(emu, done["swapRequestId"])
    assert filled["status"] == "COMPLETED" and filled["outputAmount"] == q["outputAmount"]
    (fill_hash,) = filled["destinationTxHashes"]
    tester = emu.chains.evm(ARBITRUM).tester
    assert tester.get_transaction_receipt(fill_hash)["status"] == 1
    assert erc20_balance(emu, ARB_USDC, alice) == int(q["outputAmount"])
    assert status(emu, done["swapRequestId"]) == filled  # settled once


def test_a_failed_fill_is_refunded_on_the_origin_chain(world):
    emu, alice, _, _ = world
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    emu.swap.fail_next_fill(reason="NO_ROUTE")
    q = quote(emu, alice, USDC, ARB_USDC, HUNDRED_USDC)
    done = execute(emu, q, USDC, ARB_USDC, HUNDRED_USDC)
    assert status(emu, done["swapRequestId"])["status"] == "PENDING"
    emu.clock.advance(30)
    failed = status(emu, done["swapRequestId"])
    assert failed["status"] == "FAILED"
    assert failed["error"] == {
        "reason": "PROVIDER_FILL_FAILED",
        "message": f"the provider could not fill the swap on {ARBITRUM}",
        "providerReason": "NO_ROUTE",
    }
    refund = failed["refund"]
    assert (refund["asset"], refund["amount"]) == (USDC, str(HUNDRED_USDC * 9_995 // 10_000))
    receipt = emu.chains.evm(BASE).tester.get_transaction_receipt(refund["txHash"])
    assert receipt["status"] == 1
    assert erc20_balance(emu, USDC, alice) == int(refund["amount"])
    assert erc20_balance(emu, ARB_USDC, alice) == 0
    assert "outputAmount" not in failed and "destinationTxHashes" not in failed


def test_a_same_chain_fill_below_the_floor_reverts_and_nothing_moves(world):
    emu, alice, _, _ = world
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    emu.swap.fail_next_fill()
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    failed = status(emu, execute(emu, q, USDC, WETH, HUNDRED_USDC)["swapRequestId"])
    assert failed["status"] == "FAILED"
    error = failed["error"]
    assert error["reason"] == "ORIGIN_TRANSACTION_FAILED" and "refund" not in failed
    assert error["originTxError"]["revertChain"]  # the router's InsufficientOutputAmount
    receipt = emu.chains.evm(BASE).tester.get_transaction_receipt(failed["originTxHash"])
    assert receipt["status"] == 0
    assert (erc20_balance(emu, USDC, alice), erc20_balance(emu, WETH, alice)) == (HUNDRED_USDC, 0)


def test_a_balance_spent_after_the_quote_fails_before_broadcast(world):
    emu, alice, _, _ = world
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    emu.chains.fund(USDC, alice, HUNDRED_USDC - 1)
    nonce = emu.chains.evm(BASE).nonce(alice)
    failed = status(emu, execute(emu, q, USDC, WETH, HUNDRED_USDC)["swapRequestId"])
    assert failed["status"] == "FAILED" and "originTxHash" not in failed
    assert failed["error"]["reason"] == "ORIGIN_TRANSACTION_FAILED"
    assert failed["error"]["message"].startswith("pre-flight simulation failed: insufficient")
    assert emu.chains.evm(BASE).nonce(alice) == nonce


def test_a_stable_pair_and_a_configured_client_fee(world):
    emu, alice, _, _ = world
    emu.upsert_swap_config(fee_receiver_wallet_address=alice, fee_bps="50", stable_fee_bps="10")
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    q = quote(emu, alice, USDC, USDT, HUNDRED_USDC)
    assert q["clientFeeBps"] == "10"  # the stable-pair fee
    assert q["outputAmount"] == str(HUNDRED_USDC * (10_000 - 10 - 10 - 5) // 10_000)
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    assert q["clientFeeBps"] == "50"
    assert q["outputAmount"] == str(
        expected_output(HUNDRED_USDC, Fraction(1), 6, Fraction(3000), 18, 20 + 50 + 5)
    )


def test_the_status_waits_for_the_block_time():
    emu, alice, _, _ = new_world(62, Settings(chain_block_time_s=2))
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    q = quote(emu, alice, USDC, WETH, HUNDRED_USDC)
    done = execute(emu, q, USDC, WETH, HUNDRED_USDC)
    first = status(emu, done["swapRequestId"])
    assert first["status"] == "PENDING" and "originTxHash" not in first
    emu.clock.advance(2)
    assert status(emu, done["swapRequestId"])["status"] == "COMPLETED"


def test_a_sponsored_solana_swap_leaves_the_fee_to_the_gas_station(world):
    emu, _, _, sol = world
    emu.chains.fund(SOL, sol, 2 * 10**9)
    q = quote(emu, sol, SOL, SOL_USDC, 10**9)
    answer = status(emu, execute(emu, q, SOL, SOL_USDC, 10**9, sponsor=True)["swapRequestId"])
    assert answer["status"] == "COMPLETED"
    # the input and the new token account's rent; no signature fee
    assert lamports(emu, sol) == 2 * 10**9 - 10**9 - 2_039_280
    assert spl_balance(emu, SOL_USDC_MINT, sol) == int(q["outputAmount"])
