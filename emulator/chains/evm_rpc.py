"""An EVM node reached over JSON-RPC (for example a local Anvil), with the embedded EVM's face.

Plain ``urllib``, no client library. ``send_raw`` waits (a few seconds at most) for the receipt,
as a node with instant mining answers at once. ``set_balance`` is Anvil's ``anvil_setBalance``
(Hardhat's ``hardhat_setBalance`` where Anvil's is unknown).
"""

from __future__ import annotations

import itertools
import json
import time
import urllib.error
import urllib.request
from typing import Any

from ..ground import jsontext
from .errors import ChainError, ChainUnavailable, Revert
from .evm import DEFAULT_PRIORITY_FEE, Receipt

RECEIPT_WAIT_S = 5.0


class RpcEvm:
    kind = "rpc"

    def __init__(self, url: str, expected_chain_id: int | None = None, timeout: float = 10.0):
        self.url = url
        self.timeout = timeout
        self._ids = itertools.count(1)
        self.chain_id = int(self.call("eth_chainId"), 16)
        if expected_chain_id is not None and self.chain_id != expected_chain_id:
            raise ChainUnavailable(
                f"the node at {url} is chain {self.chain_id}, not {expected_chain_id}"
            )

    def call(self, method: str, *params: Any) -> Any:
        body = json.dumps(
            {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": list(params)}
        ).encode()
        request = urllib.request.Request(
            self.url, data=body, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer = jsontext.loads(response.read())
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise ChainUnavailable(f"the node at {self.url} did not answer: {exc}") from None
        if "error" in answer:
            error = answer["error"] or {}
            raise ChainError(str(error.get("message", error)))
        return answer.get("result")

    def nonce(self, address: str) -> int:
        return int(self.call("eth_getTransactionCount", address, "pending"), 16)

    def balance(self, address: str) -> int:
        return int(self.call("eth_getBalance", address, "pending"), 16)

    def code(self, address: str) -> bytes:
        return bytes.fromhex(self.call("eth_getCode", address, "latest")[2:])

    def storage(self, address: str, slot: int) -> int:
        return int(self.call("eth_getStorageAt", address, hex(slot), "latest"), 16)

    def base_fee(self) -> int:
        block = self.call("eth_getBlockByNumber", "latest", False)
        return int(block.get("baseFeePerGas") or "0x0", 16)

    def suggested_fees(self) -> tuple[int, int]:
        return 2 * self.base_fee() + DEFAULT_PRIORITY_FEE, DEFAULT_PRIORITY_FEE

    def _request(self, sender: str, to: str | None, value: int, data: bytes) -> dict[str, Any]:
        request: dict[str, Any] = {"from": sender, "value": hex(value), "data": "0x" + data.hex()}
        if to is not None:
            request["to"] = to
        return request

    def estimate_gas(self, sender: str, to: str | None, value: int, data: bytes) -> int:
        try:
            found = self.call("eth_estimateGas", self._request(sender, to, value, data))
        except ChainError:
            return 1_000_000
        return int(found, 16) * 6 // 5

    def simulate(
        self, sender: str, to: str | None, value: int, data: bytes, block: int | None = None
    ) -> Revert | None:
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": next(self._ids),
                "method": "eth_call",
                "params": [
                    self._request(sender, to, value, data),
                    "latest" if block is None else hex(block),
                ],
            }
        ).encode()
        request = urllib.request.Request(
            self.url, data=body, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer = jsontext.loads(response.read())
        except (urllib.error.URLError, OSError, ValueError):
            return None
        error = answer.get("error")
        if not error:
            return None
        data_hex = error.get("data")
        if isinstance(data_hex, dict):
            data_hex = data_hex.get("data")
        raw = b""
        if isinstance(data_hex, str) and data_hex.startswith("0x"):
            try:
                raw = bytes.fromhex(data_hex[2:])
            except ValueError:
                raw = b""
        return Revert(to or "", raw)

    def receipt(self, tx_hash: str) -> Receipt | None:
        found = self.call("eth_getTransactionReceipt", tx_hash)
        if not found or found.get("blockNumber") is None:
            return None
        block = self.call("eth_getBlockByNumber", found["blockNumber"], False)
        tx = self.call("eth_getTransactionByHash", tx_hash)
        return Receipt(
            tx_hash=tx_hash,
            status=int(found["status"], 16),
            block_number=int(found["blockNumber"], 16),
            block_hash=found["blockHash"],
            block_timestamp=int(block["timestamp"], 16),
            sender=found["from"],
            to=found.get("to"),
            gas_used=int(found["gasUsed"], 16),
            effective_gas_price=int(found.get("effectiveGasPrice") or "0x0", 16),
            contract_address=found.get("contractAddress"),
            value=int(tx["value"], 16),
            data=bytes.fromhex(str(tx.get("input") or "0x")[2:]),
            logs=tuple(
                (log["address"], tuple(log["topics"]), log["data"])
                for log in found.get("logs") or ()
            ),
        )

    def send_raw(self, raw: bytes) -> str:
        tx_hash = self.call("eth_sendRawTransaction", "0x" + raw.hex())
        deadline = time.monotonic() + RECEIPT_WAIT_S
        while self.receipt(tx_hash) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        return tx_hash

    def set_balance(self, address: str, wei: int) -> None:
        try:
            self.call("anvil_setBalance", address, hex(wei))
        except ChainError:
            self.call("hardhat_setBalance", address, hex(wei))

    def write_account(
        self, address: str, code: bytes | None = None, storage: dict[int, int] | None = None
    ) -> None:
        """Anvil's ``setCode`` and ``setStorageAt`` (Hardhat's names as the fallback)."""
        if code is not None:
            try:
                self.call("anvil_setCode", address, "0x" + code.hex())
            except ChainError:
                self.call("hardhat_setCode", address, "0x" + code.hex())
        for slot, value in (storage or {}).items():
            word = "0x" + value.to_bytes(32, "big").hex()
            try:
                self.call("anvil_setStorageAt", address, hex(slot), word)
            except ChainError:
                self.call("hardhat_setStorageAt", address, hex(slot), word)
