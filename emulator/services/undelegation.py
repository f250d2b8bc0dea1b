"""``eth_undelegate_7702``: clear an account's EIP-7702 delegation.

The account signs an authorization to the zero address (which EIP-7702 reads as "no
delegation") and a set-code (type 4) transaction to itself that carries it. The account sends
and pays for it itself; its authorization's nonce is the transaction's plus one, as EIP-7702
increments the sender's nonce before it applies the list.
"""

from __future__ import annotations

from typing import Any

from ..chains.errors import ChainError, ChainUnavailable
from ..chains.evm_tx import authorization_digest, unsigned_7702
from ..chains.network import chains_of
from ..crypto import signing
from .broadcast import (
    FAILED,
    INCLUDED,
    _evm_signer,
    _failure,
    _record,
    _uint,
    chain_unavailable,
    sign_evm,
)
from .context import Context

ZERO_ADDRESS = "0x" + "00" * 20
UNDELEGATION_GAS = 100_000


def undelegate(ctx: Context, params: dict[str, Any]) -> str:
    sender = params["from"]
    signer = _evm_signer(ctx, sender)
    try:
        node = chains_of(ctx.world).evm(params["caip2"])
        nonce = _uint(params, "nonce")
        nonce = node.nonce(sender) if nonce is None else nonce
        suggested_max, suggested_tip = node.suggested_fees()
        max_fee = _uint(params, "maxFeePerGas", suggested_max) or 0
        tip = _uint(params, "maxPriorityFeePerGas", min(suggested_tip, max_fee)) or 0
        gas = _uint(params, "gasLimit", UNDELEGATION_GAS) or UNDELEGATION_GAS
        digest = authorization_digest(node.chain_id, ZERO_ADDRESS, nonce + 1)
        signature = signing.sign_digest_secp256k1(signer.private_key, digest)
        authorization = (
            node.chain_id,
            ZERO_ADDRESS,
            nonce + 1,
            signature.recovery_id,
            int(signature.r, 16),
            int(signature.s, 16),
        )
        unsigned = unsigned_7702(node.chain_id, nonce, tip, max_fee, gas, sender, [authorization])
        raw = sign_evm(signer, unsigned)
        try:
            tx_hash = node.send_raw(raw)
        except ChainError as exc:
            return _record(ctx, params["caip2"], sender, None, False, FAILED, _failure(str(exc)), 0)
        receipt = node.receipt(tx_hash)
    except ChainUnavailable as exc:
        raise chain_unavailable(exc) from None
    fee = receipt.fee if receipt is not None else 0
    return _record(ctx, params["caip2"], sender, tx_hash, False, INCLUDED, None, fee)
