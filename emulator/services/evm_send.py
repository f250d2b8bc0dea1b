"""EVM sends: ``eth_send_transaction`` and ``eth_send_raw_transaction``.

One call, not sponsored: an EIP-1559 transaction from the account (nonce, fees and gas from
the chain where the intent leaves them out). Several calls, or ``sponsor: true``: the gas
station (``chains/gas_station``): the account is delegated to the gas station's contract
(EIP-7702; the authorization rides along the first time), and the batch runs as the account,
atomically. Sponsored, the sponsor sends and pays for a set-code transaction calling
``executeSponsored`` with the account's EIP-712 signature of the ``BatchExecution`` (its gas
station nonce, read from the chain, and deadline); not sponsored, the account sends one to
itself calling ``execute``. Either way the signing keys are the account's, as for
``sign_transaction``.
"""

from __future__ import annotations

from typing import Any

from ..chains import catalog
from ..chains.errors import ChainError, ChainUnavailable, Revert
from ..chains.evm_tx import authorization_digest, unsigned_1559, unsigned_7702
from ..chains.gas_station import (
    batch_digest,
    delegation_designator,
    execute_data,
    execute_sponsored_data,
)
from ..chains.network import chains_of
from ..chains.reverts import revert_error
from ..crypto import signing
from ..ground import messages
from ..ground.errors import InvalidArgument
from . import keys
from .broadcast import (
    FAILED,
    INCLUDED,
    MAX_CALLS,
    chain_unavailable,
    check_sponsorship,
    evm_address,
    evm_signer,
    failure,
    hex_param,
    record_sent,
    sign_evm,
    uint_param,
)
from .context import Context

TRANSFER_GAS = 21_000
# The outer transaction of a batch: its base cost and the delegate's own work, and what an
# authorization adds (EIP-7702's PER_EMPTY_ACCOUNT_COST).
BATCH_BASE_GAS = 80_000
AUTHORIZATION_GAS = 25_000
PER_CALL_GAS = 15_000

Call = tuple[str | None, int, bytes]


def authorization(
    signer: keys.Signer, chain_id: int, address: str, nonce: int
) -> tuple[int, str, int, int, int, int]:
    """An EIP-7702 authorization of ``address`` signed by ``signer``."""
    signature = signing.sign_digest_secp256k1(
        signer.private_key, authorization_digest(chain_id, address, nonce)
    )
    return (
        chain_id,
        address,
        nonce,
        signature.recovery_id,
        int(signature.r, 16),
        int(signature.s, 16),
    )


def _call_gas(node: Any, sender: str, call: Call) -> int:
    to, value, data = call
    if not data and to is not None and not node.code(to):
        return TRANSFER_GAS  # a plain transfer to an account without code, as geth does
    return int(node.estimate_gas(sender, to, value, data))


def send_evm(ctx: Context, params: dict[str, Any]) -> str:
    """``eth_send_transaction`` (V2): the status id."""
    caip2, sender = params["caip2"], params["from"]
    if not 1 <= len(params["calls"]) <= MAX_CALLS:
        raise InvalidArgument(messages.calls_count(MAX_CALLS))
    signer = evm_signer(ctx, sender)
    sponsor = bool(params.get("sponsor"))
    if sponsor:
        check_sponsorship(ctx, ctx.now_ns // 1_000_000)
    calls: list[Call] = [
        (
            evm_address(call["to"], f"calls[{index}].to") if call.get("to") else None,
            uint_param(call, "value", 0) or 0,
            hex_param(call.get("data"), "data"),
        )
        for index, call in enumerate(params["calls"])
    ]
    try:
        node = chains_of(ctx.world).evm(caip2)
        if not sponsor and len(calls) == 1:
            return _send_one(ctx, node, params, signer, calls[0])
        return _send_batch(ctx, node, params, signer, calls, sponsor)
    except ChainUnavailable as exc:
        raise chain_unavailable(exc) from None


def _fees(node: Any, params: dict[str, Any]) -> tuple[int, int]:
    suggested_max, suggested_tip = node.suggested_fees()
    max_fee = uint_param(params, "maxFeePerGas", suggested_max) or 0
    tip = uint_param(params, "maxPriorityFeePerGas", min(suggested_tip, max_fee)) or 0
    return max_fee, tip


def _send_one(
    ctx: Context, node: Any, params: dict[str, Any], signer: keys.Signer, call: Call
) -> str:
    sender, (to, value, data) = params["from"], call
    nonce = uint_param(params, "nonce")
    nonce = node.nonce(sender) if nonce is None else nonce
    max_fee, tip = _fees(node, params)
    gas = uint_param(params, "gasLimit")
    gas = _call_gas(node, sender, call) if gas is None else gas
    raw = sign_evm(signer, unsigned_1559(node.chain_id, nonce, tip, max_fee, gas, to, value, data))
    return _broadcast(ctx, node, params, raw, [call], sponsored=False)


def _send_batch(
    ctx: Context,
    node: Any,
    params: dict[str, Any],
    signer: keys.Signer,
    calls: list[Call],
    sponsor: bool,
) -> str:
    chains = chains_of(ctx.world)
    caip2, sender = params["caip2"], params["from"]
    delegate = chains.delegates[catalog.canonical(caip2)]
    delegated = node.code(sender) == delegation_designator(delegate)
    max_fee, tip = _fees(node, params)
    if sponsor:
        station_nonce = chains.gas_station_nonce(caip2, sender)
        wanted = uint_param(params, "gasStationNonce")
        if wanted is not None and wanted != station_nonce:
            raise InvalidArgument(messages.gas_station_nonce(station_nonce, wanted))
        deadline = uint_param(params, "deadline", 0) or 0
        if deadline and deadline * 1000 < ctx.now_ns // 1_000_000:
            raise InvalidArgument(messages.GAS_STATION_DEADLINE_PASSED)
        digest = batch_digest(node.chain_id, sender, calls, station_nonce, deadline)
        signature = signing.sign_digest_secp256k1(signer.private_key, digest)
        signed_batch = (
            bytes.fromhex(signature.r.rjust(64, "0"))
            + bytes.fromhex(signature.s.rjust(64, "0"))
            + bytes([27 + signature.recovery_id])
        )
        data = execute_sponsored_data(calls, station_nonce, deadline, signed_batch)
        tx_sender = chains.evm_sponsor_address
        nonce = node.nonce(tx_sender)
        authorization_nonce = node.nonce(sender)
    else:
        data = execute_data(calls)
        tx_sender = sender
        given = uint_param(params, "nonce")
        nonce = node.nonce(sender) if given is None else given
        authorization_nonce = nonce + 1  # the sender's own nonce moves first
    authorizations = (
        [] if delegated else [authorization(signer, node.chain_id, delegate, authorization_nonce)]
    )
    gas = uint_param(params, "gasLimit")
    if gas is None:
        gas = BATCH_BASE_GAS + AUTHORIZATION_GAS * len(authorizations)
        gas += sum(_call_gas(node, sender, call) - TRANSFER_GAS + PER_CALL_GAS for call in calls)
    if authorizations:
        unsigned = unsigned_7702(node.chain_id, nonce, tip, max_fee, gas, sender, authorizations)
        unsigned = _with_data(unsigned, data)
    else:
        unsigned = unsigned_1559(node.chain_id, nonce, tip, max_fee, gas, sender, 0, data)
    raw = chains.sign_as_sponsor(unsigned) if sponsor else sign_evm(signer, unsigned)
    return _broadcast(ctx, node, params, raw, calls, sponsored=sponsor)


def _with_data(unsigned_7702_hex: str, data: bytes) -> str:
    """A set-code transaction with ``data`` as its input (``unsigned_7702`` makes it empty)."""
    from ..crypto import rlp

    raw = bytes.fromhex(unsigned_7702_hex)
    fields = rlp.decode(raw[1:])
    assert isinstance(fields, list)
    fields[7] = data
    return (raw[:1] + rlp.encode(fields)).hex()


def _broadcast(
    ctx: Context,
    node: Any,
    params: dict[str, Any],
    raw: bytes,
    calls: list[Call],
    sponsored: bool,
) -> str:
    caip2, sender = params["caip2"], params["from"]
    try:
        tx_hash = node.send_raw(raw)
    except ChainError as exc:
        return record_sent(ctx, caip2, sender, None, sponsored, FAILED, failure(str(exc)), 0)
    receipt = node.receipt(tx_hash)
    fee = receipt.fee if receipt is not None else 0
    error = None
    if receipt is not None and receipt.status == 0:
        error = revert_error(_first_revert(node, sender, calls, receipt.block_number - 1))
    return record_sent(ctx, caip2, sender, tx_hash, sponsored, INCLUDED, error, fee, calls)


def _first_revert(node: Any, sender: str, calls: list[Call], block: int) -> Revert:
    """Why a transaction reverted: its calls again, one by one, on the state it ran on (the
    block before its own); the first that reverts, or a bare revert of the first call."""
    for to, value, data in calls:
        found = node.simulate(sender, to, value, data, block)
        if found is not None:
            return found
    return Revert(calls[0][0] or "", b"")


def send_raw_evm(ctx: Context, params: dict[str, Any]) -> str:
    """``eth_send_raw_transaction``: broadcast as signed; the hash, or the node's refusal."""
    raw = hex_param(params["signedTransaction"], "signedTransaction")
    try:
        node = chains_of(ctx.world).evm(params["caip2"])
        tx_hash = node.send_raw(raw)
        receipt = node.receipt(tx_hash)
    except ChainUnavailable as exc:
        raise chain_unavailable(exc) from None
    except ChainError as exc:
        raise InvalidArgument(messages.broadcast_failed(str(exc))) from None
    sender = receipt.sender if receipt is not None else ""
    error = None
    if receipt is not None and receipt.status == 0:
        call = (receipt.to, receipt.value, receipt.data)
        error = revert_error(_first_revert(node, sender, [call], receipt.block_number - 1))
    fee = receipt.fee if receipt is not None else 0
    record_sent(ctx, params["caip2"], sender, tx_hash, False, INCLUDED, error, fee)
    return tx_hash
