"""The gas station's delegate contract (``GasStationDelegate.sol``) and how to call it.

An account that sends through the gas station is delegated to this contract (EIP-7702): a
sponsored send is a set-code transaction from the sponsor to the account, calling
``executeSponsored(calls, nonce, deadline, signature)`` with the account's EIP-712 signature of
the ``BatchExecution``; a batch the account pays for itself is its own set-code transaction to
itself calling ``execute(calls)``. The contract keeps the gas station nonce in a namespaced
slot of the account, which ``get_nonces`` reads from the chain.

The bytecode was compiled from the source beside it with ``node compile.cjs
GasStationDelegate.sol > GasStationDelegate.json`` (solc 0.8.30 from npm, optimizer 200 runs,
EVM version prague); the JSON holds the compiler version and ABI too.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from eth_abi import encode

from ...crypto.eip712 import typed_data_digest
from ...crypto.hashing import keccak256
from ...ground import jsontext

HERE = Path(__file__).parent
NONCE_SLOT = int.from_bytes(keccak256(b"turnkey-emulator.gas-station.nonce"), "big")
DOMAIN_NAME = "EmulatorGasStation"
DOMAIN_VERSION = "1"
CALL_TUPLE = "(address,uint256,bytes)[]"
EXECUTE = keccak256(f"execute({CALL_TUPLE})".encode())[:4]
EXECUTE_SPONSORED = keccak256(f"executeSponsored({CALL_TUPLE},uint256,uint256,bytes)".encode())[:4]

Call = tuple[str | None, int, bytes]  # (to, value, data)


@functools.lru_cache(maxsize=1)
def artifact() -> dict[str, Any]:
    return jsontext.loads((HERE / "GasStationDelegate.json").read_text())


def init_code() -> bytes:
    return bytes.fromhex(artifact()["bytecode"])


def _calls(calls: list[Call]) -> list[tuple[str, int, bytes]]:
    return [(to or "0x" + "00" * 20, value, data) for to, value, data in calls]


def execute_data(calls: list[Call]) -> bytes:
    return EXECUTE + encode([CALL_TUPLE], [_calls(calls)])


def execute_sponsored_data(calls: list[Call], nonce: int, deadline: int, signature: bytes) -> bytes:
    return EXECUTE_SPONSORED + encode(
        [CALL_TUPLE, "uint256", "uint256", "bytes"], [_calls(calls), nonce, deadline, signature]
    )


def batch_typed_data(
    chain_id: int, account: str, calls: list[Call], nonce: int, deadline: int
) -> dict[str, Any]:
    """The ``BatchExecution`` EIP-712 document the account signs for a sponsored batch."""
    return {
        "types": {
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
            "BatchExecution": [
                {"name": "calls", "type": "Call[]"},
                {"name": "nonce", "type": "uint256"},
                {"name": "deadline", "type": "uint256"},
            ],
            "Call": [
                {"name": "to", "type": "address"},
                {"name": "value", "type": "uint256"},
                {"name": "data", "type": "bytes"},
            ],
        },
        "primaryType": "BatchExecution",
        "domain": {
            "name": DOMAIN_NAME,
            "version": DOMAIN_VERSION,
            "chainId": chain_id,
            "verifyingContract": account,
        },
        "message": {
            "calls": [
                {"to": to, "value": value, "data": "0x" + data.hex()}
                for to, value, data in _calls(calls)
            ],
            "nonce": nonce,
            "deadline": deadline,
        },
    }


def batch_digest(
    chain_id: int, account: str, calls: list[Call], nonce: int, deadline: int
) -> bytes:
    return typed_data_digest(batch_typed_data(chain_id, account, calls, nonce, deadline))


def delegation_designator(delegate: str) -> bytes:
    """The code EIP-7702 gives an account delegated to ``delegate``."""
    return bytes.fromhex("ef0100") + bytes.fromhex(delegate[2:])
