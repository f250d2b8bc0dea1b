"""A revert's data as the status's structured error (``v1TxError``): the revert chain.

Solidity's ``Error(string)`` and ``Panic(uint256)`` are native errors; any other selector is a
custom error the emulator cannot name without the contract's ABI (reported ``unknown`` with its
selector and data, as the docs say of a missing ABI); no data at all is a plain
``execution reverted``.
"""

from __future__ import annotations

from typing import Any

from .errors import Revert

ERROR_STRING = bytes.fromhex("08c379a0")
PANIC = bytes.fromhex("4e487b71")
PANIC_REASONS = {
    0x01: "assertion failed",
    0x11: "arithmetic underflow or overflow",
    0x12: "division or modulo by zero",
    0x21: "invalid enum value",
    0x22: "invalid storage byte array",
    0x31: "pop on empty array",
    0x32: "array index out of bounds",
    0x41: "out of memory",
    0x51: "call to a zero-initialized internal function",
}


def revert_entry(revert: Revert) -> dict[str, Any]:
    data = revert.data
    entry: dict[str, Any] = {"address": revert.address}
    if not data:
        entry.update(
            errorType="native",
            displayMessage="execution reverted",
            native={"nativeType": "execution_reverted"},
        )
    elif data[:4] == ERROR_STRING:
        message = _error_string(data[4:])
        entry.update(
            errorType="native",
            displayMessage=message,
            native={"nativeType": "error_string", "message": message},
        )
    elif data[:4] == PANIC and len(data) == 36:
        code = int.from_bytes(data[4:], "big")
        reason = PANIC_REASONS.get(code, "unknown panic")
        entry.update(
            errorType="native",
            displayMessage=f"panic: {reason} (0x{code:02x})",
            native={"nativeType": "panic", "panicCode": str(code)},
        )
    else:
        entry.update(
            errorType="unknown",
            displayMessage=f"execution reverted with unknown error 0x{data[:4].hex()}",
            unknown={"selector": "0x" + data[:4].hex(), "data": "0x" + data.hex()},
        )
    return entry


def _error_string(payload: bytes) -> str:
    try:
        from eth_abi import decode

        (message,) = decode(["string"], payload)
        return str(message)
    except Exception:
        return "execution reverted"


def revert_error(revert: Revert) -> dict[str, Any]:
    """The ``error`` of a status whose transaction reverted on chain."""
    entry = revert_entry(revert)
    return {
        "message": f"Execution reverted on chain: {entry['displayMessage']}",
        "revertChain": [entry],
        "eth": {"revertChain": [entry]},
    }
