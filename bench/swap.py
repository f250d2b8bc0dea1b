"""Swaps on the embedded chains: a quote against a signature, an executed swap against the
same transactions submitted directly, and the first swap against the later ones.

* **quote**: ``emu.create_swap_quote`` (USDC → WETH on Base: the assets parsed, the balance
  read from the chain, priced, recorded) against ``emu.sign_raw_payload`` of a 32-byte digest,
  taken in turn (goal: ≤ 3×).
* **execute**: ``emu.execute_swap`` of a fresh quote (checked against the intent, the order
  signed by the provider, the approval and the router call batched through the gas station
  delegate, signed, submitted, mined, the status and swap recorded) against the chain's own
  share: the same two calls (``approve`` and the router's ``swap``) as two EIP-1559
  transactions from another account, signed beforehand and submitted with
  ``EmbeddedEvm.send_raw`` (goal: ≤ 2×). Quotes are made outside the timed region.
* **first swap**: ``execute_swap`` in a fresh emulator whose chain is started and funded but
  whose provider has not deployed its router yet, against the later ones in the same emulator.

Run: ``PYTHONPATH=$PWD python bench/swap.py [--quick]``.
"""

from __future__ import annotations

import statistics
import time

from measuring import Goal, Result, floor_row, in_turn, script_main

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.chains.evm_tx import unsigned_1559
from emulator.chains.swap_provider import Order
from emulator.chains.token_accounts import approve_data
from emulator.chains.tokens import parse

BASE = "eip155:8453"
USDC = "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
WETH = "eip155:8453/erc20:0x4200000000000000000000000000000000000006"
AMOUNT = 1_000_000  # 1 USDC


def _world(seed: int) -> tuple[Emulator, str, str]:
    emu = Emulator(seed=seed)
    emu.create_organization("Swaps")
    emu.clock.freeze()
    alice, direct = emu.create_wallet(
        wallet_name="bench",
        accounts=[
            account_spec("ADDRESS_FORMAT_ETHEREUM"),
            account_spec("ADDRESS_FORMAT_ETHEREUM", 1),
        ],
    )["addresses"]
    for holder in (alice, direct):
        emu.chains.fund(BASE, holder, 10**21)
        emu.chains.fund(USDC, holder, 10**15)
    return emu, alice, direct


def _execute(emu: Emulator, alice: str) -> None:
    q = emu.create_swap_quote(
        sign_with=alice, input_token=USDC, output_token=WETH, input_amount=str(AMOUNT)
    )["quotes"][0]
    emu.clock.advance(0.001)  # the next quote is another activity
    return q


def _run_quote(emu: Emulator, alice: str, quote: dict) -> None:
    emu.execute_swap(
        quote_id=quote["quoteId"],
        input_token=USDC,
        output_token=WETH,
        input_amount=str(AMOUNT),
        quoted_output_amount=quote["outputAmount"],
        min_output_amount=quote["minOutputAmount"],
        sponsor=False,
    )


def quote_rows(reps: int) -> list[Result]:
    emu, alice, _ = _world(1)
    digest = "ab" * 32

    def sign() -> None:
        emu.sign_raw_payload(
            sign_with=alice,
            payload=digest,
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
        )
        emu.clock.advance(0.001)

    def quote() -> None:
        emu.create_swap_quote(
            sign_with=alice, input_token=USDC, output_token=WETH, input_amount=str(AMOUNT)
        )
        emu.clock.advance(0.001)

    signs, quotes = in_turn([sign, quote], reps, warmup=2)
    half = len(signs) // 2
    floor = floor_row("sign_raw_payload (floor)", "sign", signs[:half], signs[half:])
    goal = Goal(3, "x", inclusive=True, against="sign")
    return [floor, Result("create_swap_quote", quotes, goal, floor.floor, "sign")]


def execute_rows(reps: int) -> list[Result]:
    emu, alice, direct = _world(2)
    provider = emu.swap.provider
    node = provider.evm(BASE)  # the router deployed: later swaps only
    provider.provide(parse(WETH), provider.router, 10**24)
    _run_quote(emu, alice, _execute(emu, alice))  # alice's delegation to the gas station
    nonce = node.nonce(direct)
    usdc = parse(USDC).token
    assert usdc is not None
    raws: list[tuple[bytes, bytes]] = []
    max_fee, tip = node.suggested_fees()
    for i in range(reps + 2):  # the floor's transactions, signed beforehand
        order = Order(
            bytes([i % 256]) * 16 + (10**6 + i).to_bytes(16, "big"),
            usdc.address,
            AMOUNT,
            parse(WETH).token.address,  # type: ignore[union-attr]
            10**12,
            10**12,
            direct,
            8453,
        )
        pair = []
        for offset, (to, data, gas) in enumerate(
            (
                (usdc.address, approve_data(provider.router, AMOUNT), 80_000),
                (provider.router, provider.swap_data(8453, direct, order), 250_000),
            )
        ):
            unsigned = unsigned_1559(8453, nonce + 2 * i + offset, tip, max_fee, gas, to, 0, data)
            signed = emu.sign_transaction(
                sign_with=direct, unsigned_transaction=unsigned, type="TRANSACTION_TYPE_ETHEREUM"
            )["signedTransaction"]
            pair.append(bytes.fromhex(signed))
        raws.append((pair[0], pair[1]))
    direct_samples: list[float] = []
    swap_samples: list[float] = []
    clock = time.perf_counter
    for i in range(reps + 2):
        quote = _execute(emu, alice)  # outside the timed region
        start = clock()
        for raw in raws[i]:
            node.receipt(node.send_raw(raw))
        submitted = clock() - start
        start = clock()
        _run_quote(emu, alice, quote)
        executed = clock() - start
        if i >= 2:
            direct_samples.append(submitted * 1e6)
            swap_samples.append(executed * 1e6)
    half = len(direct_samples) // 2
    floor = floor_row(
        "approve + swap submitted directly (floor)",
        "direct",
        direct_samples[:half],
        direct_samples[half:],
    )
    goal = Goal(2, "x", inclusive=True, against="direct")
    return [floor, Result("execute_swap (same chain)", swap_samples, goal, floor.floor, "direct")]


def first_swap_rows(reps: int) -> list[Result]:
    firsts: list[float] = []
    laters: list[float] = []
    clock = time.perf_counter
    for i in range(reps):
        emu, alice, _ = _world(100 + i)
        quotes = [_execute(emu, alice) for _ in range(3)]
        start = clock()
        _run_quote(emu, alice, quotes[0])  # the router deployed, alice delegated
        firsts.append((clock() - start) * 1e6)
        for quote in quotes[1:]:
            start = clock()
            _run_quote(emu, alice, quote)
            laters.append((clock() - start) * 1e6)
        emu.close()
    later = Result(
        "later execute_swap (floor)", laters, floor=statistics.median(laters), floor_name="later"
    )
    return [
        later,
        Result("first execute_swap (router deployed)", firsts, None, later.floor, "later"),
    ]


def run(quick: bool, progress) -> list[Result]:
    reps = 5 if quick else 60
    progress("swap: quotes")
    rows = quote_rows(reps)
    progress("swap: executions")
    rows += execute_rows(reps)
    progress("swap: first swaps")
    rows += first_swap_rows(2 if quick else 8)
    return rows


if __name__ == "__main__":
    script_main("swap", __doc__, run, progress=True)
