"""The unsigned transactions of the EVM send intents, as the policies see them: one call of a
send intent with the intent's nonce and fees, and a raw send's signed transaction unsigned.
Read by the policy environment (``eth.tx``) and by the velocity controls' transfers
(``asset_transfers.py``), which must not import each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..ground.numbers import quantity
from ..policy import PolicyEvaluationError


def _number(value: Any) -> int:
    number = quantity(value or "0")
    if number is None:
        raise ValueError(f"not a quantity: {value!r}")
    return number


def send_intent_transaction(
    caip2: str, params: Mapping[str, Any], call: Mapping[str, Any]
) -> str | None:
    """The unsigned EIP-1559 transaction (hex) of one call of an EVM send intent, with the
    intent's nonce and fees (0 where Turnkey picks them); None when it does not encode."""
    from ..chains.evm_tx import unsigned_1559

    try:
        chain_id = _number(caip2.split(":", 1)[1])
        data = bytes.fromhex(str(call.get("data") or "0x").removeprefix("0x"))
        return unsigned_1559(
            chain_id,
            _number(params.get("nonce")),
            _number(params.get("maxPriorityFeePerGas")),
            _number(params.get("maxFeePerGas")),
            _number(params.get("gasLimit")),
            call.get("to") or None,
            _number(call.get("value")),
            data,
        )
    except (ValueError, IndexError, OverflowError):
        return None


def unsigned_of_signed_send(signed: str) -> str:
    """The unsigned transaction (hex) of a raw send's signed one."""
    from ..chains.evm_tx import unsigned_of_signed

    try:
        return unsigned_of_signed(signed)
    except ValueError as error:
        raise PolicyEvaluationError(f"InvalidTransaction: {error}") from None
