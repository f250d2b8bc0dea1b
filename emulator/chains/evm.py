"""An embedded EVM: py-evm's Prague VM through eth-tester, one chain per CAIP-2 id.

Started on first use (``Chains.evm``), so an emulator that never broadcasts never imports
py-evm. Every transaction is mined into a block of its own as it arrives (eth-tester's
auto-mining); a rejected one (bad nonce, too little to pay for it) changes nothing and answers
a ``ChainError`` in the words geth uses. ``set_balance`` is the funding seam, like Anvil's
``anvil_setBalance``: it writes the balance into the state and mines a block.

``tester`` is eth-tester's own API on the same chain: tests read it as an independent client.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import ChainError, ChainUnavailable, Revert

# The tip the emulator offers when a request leaves the fees out (1 gwei), over twice the base fee.
DEFAULT_PRIORITY_FEE = 10**9
# The gas limit of a call whose estimate fails (a revert is then reported by the chain).
FALLBACK_GAS = 1_000_000


@dataclass(frozen=True)
class Receipt:
    tx_hash: str
    status: int  # 1 success, 0 reverted
    block_number: int
    block_hash: str
    block_timestamp: int
    sender: str
    to: str | None
    gas_used: int
    effective_gas_price: int
    contract_address: str | None
    value: int
    data: bytes = b""  # the transaction's input
    # its logs: (contract address, topics as 0x-hex, data as 0x-hex)
    logs: tuple[tuple[str, tuple[str, ...], str], ...] = ()

    @property
    def fee(self) -> int:
        return self.gas_used * self.effective_gas_price


def _hex(value: bytes) -> str:
    return "0x" + value.hex()


def _address_bytes(address: str) -> bytes:
    return bytes.fromhex(address[2:])


class EmbeddedEvm:
    """One in-process EVM chain with the given EIP-155 chain id."""

    kind = "embedded"

    def __init__(self, chain_id: int) -> None:
        try:
            from eth_tester import EthereumTester, PyEVMBackend
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ChainUnavailable(
                "the embedded EVM needs the 'chains' extra: pip install 'turnkey-emulator[chains]'"
            ) from exc
        self.chain_id = chain_id
        self._backend = PyEVMBackend()
        # The chain id is a class attribute of eth-tester's chain; the VM reads it per call.
        self._backend.chain.chain_id = chain_id
        self.tester = EthereumTester(self._backend)
        self._reads: dict[tuple[str, int], int] = {}  # storage reads of the block below
        self._reads_at = b""

    # ----- reads --------------------------------------------------------------------------

    def nonce(self, address: str) -> int:
        return int(self.tester.get_nonce(address, "latest"))

    def balance(self, address: str) -> int:
        return int(self.tester.get_balance(address, "latest"))

    def code(self, address: str) -> bytes:
        return bytes.fromhex(self.tester.get_code(address, "latest")[2:])

    def storage(self, address: str, slot: int) -> int:
        """A storage slot on the latest state. Reads are remembered while the latest block is
        the same (every write mines one; a snapshot reverted to changes it too): a token
        balance read twice costs one trie walk."""
        head = self._backend.chain.header.parent_hash  # the latest block, whatever mined it
        if head != self._reads_at:
            self._reads.clear()
            self._reads_at = head
        key = (address.lower(), slot)
        found = self._reads.get(key)
        if found is None:
            found = int(self.tester.get_storage_at(address, hex(slot), "latest"), 16)
            self._reads[key] = found
        return found

    def base_fee(self) -> int:
        return int(self.tester.get_block_by_number("latest")["base_fee_per_gas"])

    def suggested_fees(self) -> tuple[int, int]:
        """``(maxFeePerGas, maxPriorityFeePerGas)`` a wallet would offer now."""
        return 2 * self.base_fee() + DEFAULT_PRIORITY_FEE, DEFAULT_PRIORITY_FEE

    def estimate_gas(self, sender: str, to: str | None, value: int, data: bytes) -> int:
        """The gas the call needs, with a margin; a reverting call answers a safe default."""
        from eth_tester.exceptions import TransactionFailed

        # priced at zero: what the sender can pay for is the send's business, not the estimate's
        request: dict[str, Any] = {
            "from": sender,
            "value": value,
            "data": _hex(data),
            "max_fee_per_gas": 0,
            "max_priority_fee_per_gas": 0,
        }
        if to is not None:
            request["to"] = to
        try:
            return int(self.tester.estimate_gas(request, "latest")) * 6 // 5
        except (TransactionFailed, ValueError, ArithmeticError):
            return FALLBACK_GAS
        except Exception as exc:  # eth-utils' ValidationError: a call the chain cannot run
            if type(exc).__name__ == "ValidationError":
                return FALLBACK_GAS
            raise

    def simulate(
        self, sender: str, to: str | None, value: int, data: bytes, block: int | None = None
    ) -> Revert | None:
        """Run the call on the state after ``block`` (the latest by default) and throw the
        result away: its revert, if any."""
        from eth.exceptions import Revert as EvmRevert
        from eth_tester.backends.pyevm.main import (
            EVMSpoofTransaction,
            _execute_and_revert_transaction,
        )

        request: dict[str, Any] = {
            "from": sender,
            "value": value,
            "data": _hex(data),
            "gas": 10_000_000,
        }
        if to is not None:
            request["to"] = to
        try:
            normalized = self.tester.normalizer.normalize_inbound_transaction(request)
            at = "latest" if block is None else block
            unsigned = self._backend._get_normalized_and_unsigned_evm_transaction(normalized, at)
            spoof = EVMSpoofTransaction(unsigned, from_=_address_bytes(sender))
            computation = _execute_and_revert_transaction(self._backend.chain, spoof, at)
        except Exception:  # the chain will refuse it for its own reason when it is sent
            return None
        if not computation.is_error:
            return None
        error = computation._error
        data_out = error.args[0] if isinstance(error, EvmRevert) and error.args else b""
        return Revert(to or "", bytes(data_out) if isinstance(data_out, bytes) else b"")

    def receipt(self, tx_hash: str) -> Receipt | None:
        from eth_tester.exceptions import TransactionNotFound

        try:
            found = self.tester.get_transaction_receipt(tx_hash)
            tx = self.tester.get_transaction_by_hash(tx_hash)
        except TransactionNotFound:
            return None
        if found.get("block_number") is None:
            return None
        block = self.tester.get_block_by_number(found["block_number"])
        return Receipt(
            tx_hash=tx_hash,
            status=int(found["status"]),
            block_number=int(found["block_number"]),
            block_hash=found["block_hash"],
            block_timestamp=int(block["timestamp"]),
            sender=found["from"],
            to=found["to"] or None,
            gas_used=int(found["gas_used"]),
            effective_gas_price=int(found["effective_gas_price"]),
            contract_address=found["contract_address"],
            value=int(tx["value"]),
            data=bytes.fromhex(str(tx.get("data") or tx.get("input") or "0x")[2:]),
            logs=tuple(
                (log["address"], tuple(log["topics"]), log["data"]) for log in found["logs"]
            ),
        )

    # ----- writes -------------------------------------------------------------------------

    def send_raw(self, raw: bytes) -> str:
        """Broadcast a signed transaction: its hash once mined; a ``ChainError`` if refused."""
        from eth_utils.exceptions import ValidationError

        from ..crypto.hashing import keccak256

        tx_hash = _hex(keccak256(raw))
        sender = None
        try:
            self.tester.send_raw_transaction(_hex(raw))
        except ValidationError as exc:
            raise ChainError(_geth_message(str(exc), self, sender)) from None
        except Exception as exc:  # a transaction the VM cannot decode
            raise ChainError(f"invalid transaction: {exc}") from None
        return tx_hash

    def set_balance(self, address: str, wei: int) -> None:
        """The funding seam: ``address`` now holds ``wei`` (a block is mined to show it)."""
        chain = self._backend.chain
        state = chain.get_vm().state
        state.set_balance(_address_bytes(address), wei)
        state.persist()
        chain.header = chain.header.copy(state_root=state.state_root)
        self._backend.mine_blocks()

    def write_account(
        self, address: str, code: bytes | None = None, storage: dict[int, int] | None = None
    ) -> None:
        """Write code and storage slots at ``address`` (Anvil's ``setCode`` and
        ``setStorageAt``), in one block."""
        chain = self._backend.chain
        state = chain.get_vm().state
        raw = _address_bytes(address)
        if code is not None:
            state.set_code(raw, code)
        for slot, value in (storage or {}).items():
            state.set_storage(raw, slot, value)
        state.persist()
        chain.header = chain.header.copy(state_root=state.state_root)
        self._backend.mine_blocks()


def _geth_message(message: str, chain: Any, sender: str | None) -> str:
    """eth-tester's validation message in the words a geth node answers with."""
    if "Invalid transaction nonce" in message:
        expected, _, got = message.partition("Expected ")[2].partition(", but got ")
        if got.strip().isdigit() and expected.strip().isdigit():
            if int(got) < int(expected):
                return f"nonce too low: next nonce {expected.strip()}, tx nonce {got.strip()}"
            return f"nonce too high: next nonce {expected.strip()}, tx nonce {got.strip()}"
    if "cannot afford txn" in message:
        return "insufficient funds for gas * price + value"
    if "chain" in message.lower() and "id" in message.lower():
        return "invalid chain id for signer"
    return message
