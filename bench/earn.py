"""Earn on the embedded EVM: a deposit against submitting the same transactions directly.

* ``emu.earn_deposit`` of 1 USDC into a Steakhouse USDC wrapper on Base (the wrapper found,
  the balance read, the approval and the deposit built, signed and run as one gas station
  batch, mined, the receipt read, the request and the position's totals recorded) against
  **submit**: the same two calls (``approve`` and the wrapper's ``deposit``) signed beforehand
  by another account and handed to ``EmbeddedEvm.send_raw`` one after the other (eth-tester
  validates, executes and mines each). The issue's goal: at most 2x.
* The first Earn use of a chain (the tokens, five vaults with their seeded TVL, the factory and
  the rewards distributor deployed) against a fresh ``Emulator()`` + ``create_organization``.

Run: ``python bench/earn.py [--quick]``.
"""

from __future__ import annotations

import time

from measuring import Goal, Result, floor_row, in_turn, script_main

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.chains.earn import calldata
from emulator.chains.earn.deployment import earn_of
from emulator.chains.evm_tx import unsigned_1559
from emulator.chains.network import Chains

BASE = "eip155:8453"
USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
USDC_19 = f"{BASE}/erc20:{USDC}"
STEAKHOUSE = "0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183"
ONE = 10**6


class EarnBench:
    def __init__(self, quick: bool) -> None:
        self.reps = 5 if quick else 100
        self.emu = Emulator()
        self.emu.create_organization("Earn")
        made = self.emu.create_wallet(
            wallet_name="bench",
            accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", i) for i in range(3)],
        )
        self.sender, self.direct, self.fees = made["addresses"]
        for account in (self.sender, self.direct):
            self.emu.chains.fund(BASE, account, 10**21)
            self.emu.chains.fund(USDC_19, account, 10**15)
        done = self.emu.earn_deploy_wrapper(
            vault_address=STEAKHOUSE, caip2=BASE, client_fee_bps="1000", client_fee_wallet=self.fees
        )
        self.wrapper = done["wrapperAddress"]
        self.evm = self.emu.chains.evm(BASE)

    def _signed(self, nonce: int, to: str, data: bytes, gas: int) -> bytes:
        max_fee, tip = self.evm.suggested_fees()
        unsigned = unsigned_1559(8453, nonce, tip, 10 * max_fee, gas, to, 0, data)
        signed = self.emu.sign_transaction(
            sign_with=self.direct, unsigned_transaction=unsigned, type="TRANSACTION_TYPE_ETHEREUM"
        )["signedTransaction"]
        return bytes.fromhex(signed)

    def deposit_rows(self) -> list[Result]:
        nonce = self.evm.nonce(self.direct)
        raws: list[tuple[bytes, bytes]] = []
        for i in range(self.reps + 2):  # signed beforehand: the floor times the chain alone
            approve = calldata("approve(address,uint256)", self.wrapper, ONE)
            deposit = calldata("deposit(uint256,address)", ONE, self.direct)
            raws.append(
                (
                    self._signed(nonce + 2 * i, USDC, approve, 100_000),
                    self._signed(nonce + 2 * i + 1, self.wrapper, deposit, 400_000),
                )
            )
        counter = [0]

        def submit() -> None:
            for raw in raws[counter[0]]:
                self.evm.send_raw(raw)
            counter[0] += 1

        def deposit() -> None:
            self.emu.earn_deposit(
                wrapper_address=self.wrapper, sign_with=self.sender, assets=str(ONE), caip2=BASE
            )

        submits, deposits = in_turn([submit, deposit], self.reps, warmup=1)
        half = len(submits) // 2
        floor = floor_row(
            "approve + deposit submitted directly (floor)", "submit", submits[:half], submits[half:]
        )
        return [
            floor,
            Result(
                "earn_deposit / submit",
                deposits,
                goal=Goal(2, "x", inclusive=True, against="submit"),
                floor=floor.floor,
                floor_name="submit",
            ),
        ]

    def startup_rows(self) -> list[Result]:
        reps = 2 if self.reps < 50 else 10

        def fresh() -> None:
            Emulator().create_organization("x")

        def first_use() -> None:
            chains = Chains()
            earn_of(chains).chain(BASE, int(time.time() * 1000))

        fresh_s, first_s = in_turn([fresh, first_use], reps, warmup=1)
        half = len(fresh_s) // 2
        floor = floor_row(
            "fresh Emulator + create_organization (floor)",
            "fresh emu",
            fresh_s[:half],
            fresh_s[half:],
        )
        return [
            floor,
            Result(
                "first Earn use of a chain (chain, tokens, 5 vaults seeded, factory, distributor)",
                first_s,
                floor=floor.floor,
                floor_name="fresh emu",
            ),
        ]


def run(quick: bool, progress) -> list[Result]:
    progress("earn: deposits")
    bench = EarnBench(quick)
    rows = bench.deposit_rows()
    progress("earn: first use")
    rows += bench.startup_rows()
    return rows


if __name__ == "__main__":
    script_main("earn", __doc__, run, progress=True)
