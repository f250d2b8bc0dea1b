"""``eth_undelegate_7702``: clear an account's EIP-7702 delegation.

The account signs an authorization to the zero address (which EIP-7702 reads as "no
delegation") and a set-code (type 4) transaction to itself that carries it. The account sends
and pays for it itself; its authorization's nonce is the transaction's plus one, as EIP-7702
increments the sender's nonce before it applies the list.
"""

from __future__ import annotations

from typing import Any

from ..chains.errors import ChainError, ChainUnavailable
from ..chains.evm_tx import unsigned_7702
from ..chains.network import chains_of
from .broadcast import (
    FAILED,
    INCLUDED,
    chain_unavailable,
    evm_signer,
    failure,
    record_sent,
    sign_evm,
    uint_param,
)
from .context import Context
from .evm_send import authorization

ZERO_ADDRESS = "0x" + "00" * 20
UNDELEGATION_GAS = 100_000


def undelegate(ctx: Context, params: dict[str, Any]) -> str:
    sender = params["from"]
    signer = evm_signer(ctx, sender)
    try:
        node = chains_of(ctx.world).evm(params["caip2"])
        nonce = uint_param(params, "nonce")
        nonce = node.nonce(sender) if nonce is None else nonce
        suggested_max, suggested_tip = node.suggested_fees()
        max_fee = uint_param(params, "maxFeePerGas", suggested_max) or 0
        tip = uint_param(params, "maxPriorityFeePerGas", min(suggested_tip, max_fee)) or 0
        gas = uint_param(params, "gasLimit", UNDELEGATION_GAS) or UNDELEGATION_GAS
        # the sender's own nonce moves before the authorization is applied
        cleared = authorization(signer, node.chain_id, ZERO_ADDRESS, nonce + 1)
        unsigned = unsigned_7702(node.chain_id, nonce, tip, max_fee, gas, sender, [cleared])
        raw = sign_evm(signer, unsigned)
        try:
            tx_hash = node.send_raw(raw)
        except ChainError as exc:
            return record_sent(
                ctx, params["caip2"], sender, None, False, FAILED, failure(str(exc)), 0
            )
        receipt = node.receipt(tx_hash)
    except ChainUnavailable as exc:
        raise chain_unavailable(exc) from None
    fee = receipt.fee if receipt is not None else 0
    return record_sent(ctx, params["caip2"], sender, tx_hash, False, INCLUDED, None, fee)
