"""Broadcasting on the embedded chains: a send against signing alone and against direct
submission, and what starting the chains costs.

* EVM: ``emu.eth_send_transaction`` of a 1-wei transfer (an EIP-1559 transaction: nonce, fees
  and gas read from the chain, signed, simulated, submitted and mined into a block, the receipt
  read, the status recorded) against two floors taken in turn with it: ``emu.sign_transaction``
  of the same transaction (**sign tx**), and ``EmbeddedEvm.send_raw`` of an already signed one
  from another account (**submit**, the chain's own share: eth-tester validates, executes and
  mines).
* Solana: ``emu.sol_send_transaction`` of a system transfer against ``sign_transaction`` of
  it and ``EmbeddedSolana.send`` of a transfer signed beforehand (LiteSVM's preflight and
  processing).
* Start-up: ``EmbeddedEvm(8453)`` (a py-evm Prague chain with eth-tester's genesis), the first
  ``Chains.evm`` (that, the sponsor funded and the gas station's contract deployed) and
  ``EmbeddedSolana()`` (a LiteSVM) in-process after their imports, against a fresh
  ``Emulator()`` + ``create_organization``; and the import of the chain libraries in a fresh
  interpreter (``import eth_tester, eth; import solders.litesvm``) against ``python -c pass``.

Run: ``python bench/chains.py [--quick]`` (also a part of ``bench/run.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from measuring import Result, floor_row, in_turn, script_main

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.chains.evm import EmbeddedEvm
from emulator.chains.evm_tx import unsigned_1559
from emulator.chains.network import Chains
from emulator.chains.solana import EmbeddedSolana

BASE = "eip155:8453"
DEVNET = "solana:devnet"
RECIPIENT = "0x" + "66" * 20


class ChainsBench:
    def __init__(self, quick: bool) -> None:
        self.reps = 5 if quick else 200
        self.emu = Emulator()
        self.emu.create_organization("Chains")
        made = self.emu.create_wallet(
            wallet_name="bench",
            accounts=[
                account_spec("ADDRESS_FORMAT_ETHEREUM"),
                account_spec("ADDRESS_FORMAT_ETHEREUM", 1),
                account_spec("ADDRESS_FORMAT_SOLANA"),
            ],
        )
        self.sender, self.direct, self.sol = made["addresses"]
        self.emu.chains.fund(BASE, self.sender, 10**21)
        self.emu.chains.fund(BASE, self.direct, 10**21)
        self.emu.chains.fund(DEVNET, self.sol, 10**15)
        self.evm = self.emu.chains.evm(BASE)
        self.svm = self.emu.chains.solana(DEVNET)
        self._amount = 10**6

    # ----- EVM ---------------------------------------------------------------------------

    def _unsigned(self, nonce: int) -> str:
        return unsigned_1559(8453, nonce, 10**9, 10**10, 21000, RECIPIENT, 1, b"")

    def evm_rows(self) -> list[Result]:
        direct_nonce = [self.evm.nonce(self.direct)]
        raws: list[bytes] = []
        total = self.reps + 1
        for i in range(total + 5):  # signed beforehand: the floor times the chain alone
            signed = self.emu.sign_transaction(
                sign_with=self.direct,
                unsigned_transaction=self._unsigned(direct_nonce[0] + i),
                type="TRANSACTION_TYPE_ETHEREUM",
            )["signedTransaction"]
            raws.append(bytes.fromhex(signed))
        counter = [0]

        def submit() -> None:
            self.evm.send_raw(raws[counter[0]])
            counter[0] += 1

        def sign() -> None:
            self.emu.sign_transaction(
                sign_with=self.sender,
                unsigned_transaction=self._unsigned(10**6 + counter[0]),
                type="TRANSACTION_TYPE_ETHEREUM",
            )

        def send() -> None:
            self.emu.eth_send_transaction(
                from_=self.sender, caip2=BASE, calls=[{"to": RECIPIENT, "value": "1"}]
            )

        signs, submits, sends = in_turn([sign, submit, send], self.reps, warmup=1)
        half = len(signs) // 2
        sign_floor = floor_row(
            "EVM sign_transaction (floor)", "sign tx", signs[:half], signs[half:]
        )
        submit_floor = floor_row(
            "EVM direct submit to the embedded chain (floor)",
            "submit",
            submits[:half],
            submits[half:],
        )
        return [
            sign_floor,
            submit_floor,
            Result(
                "eth_send_transaction / sign tx",
                sends,
                floor=sign_floor.floor,
                floor_name="sign tx",
            ),
            Result(
                "eth_send_transaction / submit",
                sends,
                floor=submit_floor.floor,
                floor_name="submit",
            ),
        ]

    # ----- Solana ------------------------------------------------------------------------

    def _unsigned_sol(self, payer: str) -> str:
        from solders.hash import Hash
        from solders.message import Message
        from solders.pubkey import Pubkey
        from solders.system_program import TransferParams, transfer
        from solders.transaction import Transaction

        self._amount += 1  # a new signature each time
        ix = transfer(
            TransferParams(
                from_pubkey=Pubkey.from_string(payer),
                to_pubkey=Pubkey.from_string("11111111111111111111111111111112"),
                lamports=self._amount,
            )
        )
        blockhash = Hash.from_string(self.svm.latest_blockhash())
        message = Message.new_with_blockhash([ix], Pubkey.from_string(payer), blockhash)
        return bytes(Transaction.new_unsigned(message)).hex()

    def solana_rows(self) -> list[Result]:
        from solders.keypair import Keypair
        from solders.transaction import VersionedTransaction

        keypair = Keypair()
        self.svm.set_balance(str(keypair.pubkey()), 10**15)
        pending: dict[str, object] = {}

        def prepare_all() -> None:
            unsigned = VersionedTransaction.from_bytes(
                bytes.fromhex(self._unsigned_sol(str(keypair.pubkey())))
            )
            pending["direct"] = bytes(VersionedTransaction(unsigned.message, [keypair]))
            pending["sign"] = self._unsigned_sol(self.sol)
            pending["send"] = self._unsigned_sol(self.sol)

        def sign() -> None:
            self.emu.sign_transaction(
                sign_with=self.sol,
                unsigned_transaction=pending["sign"],  # type: ignore[arg-type]
                type="TRANSACTION_TYPE_SOLANA",
            )

        def submit() -> None:
            self.svm.send(pending["direct"])  # type: ignore[arg-type]

        def send() -> None:
            self.emu.sol_send_transaction(
                unsigned_transaction=pending["send"],  # type: ignore[arg-type]
                sign_withs=[self.sol],
                caip2=DEVNET,
            )

        samples: list[list[float]] = [[], [], []]
        clock = time.perf_counter
        for i in range(self.reps + 1):
            prepare_all()  # outside the timed region
            for j, call in enumerate((sign, submit, send)):
                start = clock()
                call()
                if i:
                    samples[j].append((clock() - start) * 1e6)
        signs, submits, sends = samples
        half = len(signs) // 2
        sign_floor = floor_row(
            "Solana sign_transaction (floor)", "sol sign tx", signs[:half], signs[half:]
        )
        submit_floor = floor_row(
            "Solana direct submit to LiteSVM (floor)", "sol submit", submits[:half], submits[half:]
        )
        return [
            sign_floor,
            submit_floor,
            Result(
                "sol_send_transaction / sign tx",
                sends,
                floor=sign_floor.floor,
                floor_name="sol sign tx",
            ),
            Result(
                "sol_send_transaction / submit",
                sends,
                floor=submit_floor.floor,
                floor_name="sol submit",
            ),
        ]

    # ----- start-up ----------------------------------------------------------------------

    def startup_rows(self) -> list[Result]:
        reps = 2 if self.reps < 100 else 20

        def fresh() -> None:
            Emulator().create_organization("x")

        fresh_s, evm_s, first_s, sol_s = in_turn(
            [fresh, lambda: EmbeddedEvm(8453), lambda: Chains().evm(BASE), EmbeddedSolana],
            reps,
            warmup=1,
        )
        half = len(fresh_s) // 2
        floor = floor_row(
            "fresh Emulator + create_organization (floor)",
            "fresh emu",
            fresh_s[:half],
            fresh_s[half:],
        )
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

        def interpreter(code: str) -> None:
            subprocess.run([sys.executable, "-c", code], check=True, env=env)

        bare, imported = in_turn(
            [
                lambda: interpreter("pass"),
                lambda: interpreter("import eth_tester, eth.vm.forks; import solders.litesvm"),
            ],
            max(2, reps // 2),
            warmup=1,
        )
        half = len(bare) // 2
        bare_floor = floor_row("python -c pass (floor)", "python -c pass", bare[:half], bare[half:])
        return [
            floor,
            Result(
                "embedded EVM start (EmbeddedEvm)", evm_s, floor=floor.floor, floor_name="fresh emu"
            ),
            Result(
                "first EVM use (start, fund the sponsor, deploy the gas station)",
                first_s,
                floor=floor.floor,
                floor_name="fresh emu",
            ),
            Result(
                "embedded Solana start (LiteSVM)", sol_s, floor=floor.floor, floor_name="fresh emu"
            ),
            bare_floor,
            Result(
                "import eth_tester + py-evm + solders.litesvm (wall)",
                imported,
                floor=bare_floor.floor,
                floor_name="python -c pass",
            ),
        ]


def run(quick: bool, progress) -> list[Result]:
    progress("chains: start-up")
    bench = ChainsBench(quick)
    rows = bench.startup_rows()
    progress("chains: EVM sends")
    rows += bench.evm_rows()
    progress("chains: Solana sends")
    rows += bench.solana_rows()
    return rows


if __name__ == "__main__":
    script_main("chains", __doc__, run, progress=True)
