"""Sending transactions for a user: build, sign, (sponsor,) broadcast, record.

The same keys and signing as ``sign_transaction`` (``crypto/transactions``); the chains are
``emulator/chains`` (embedded unless a node's URL is configured). Every send makes a
``SentTransaction`` record whose status reads BROADCASTING until the emulator's clock passes
the chain's block time, then INCLUDED (a reverted EVM call too, with its revert chain, as the
docs say) or FAILED (refused by the chain: a bad nonce, too little to pay for it, a Solana
preflight failure).

EVM sends are ``services/evm_send.py`` (the gas station's EIP-7702 batches there). On Solana
the gas station (``sponsor: true``) pays the fee from an account the emulator holds: the fee
payer is credited the most the transaction may cost before it runs and gives back what it did
not use after, so its balance moves by what it sent and nothing else, and the sponsor's by
the fee. Sponsored fees count, in USD, against the organization's window (``get_gas_usage``).
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal
from typing import Any

from ..chains import catalog
from ..chains.errors import ChainError, ChainUnavailable
from ..chains.network import chains_of
from ..crypto import signing
from ..crypto.base58 import base58_decode
from ..crypto.hd import ED25519, SECP256K1
from ..crypto.transactions import TransactionError
from ..crypto.transactions.ethereum import sign_ethereum_transaction
from ..crypto.transactions.solana import parse_solana_transaction, sign_solana_transaction
from ..engine_state.world import World
from ..events import balance_updates, send_status
from ..ground import messages
from ..ground.errors import InvalidArgument, NotFound
from ..ground.external_records import SentTransaction
from ..ground.numbers import quantity
from . import keys
from .activities import fingerprint
from .context import Context

BROADCASTING = "BROADCASTING"
INCLUDED = "INCLUDED"
FAILED = "FAILED"
MAX_CALLS = 50
MAX_SOLANA_SIGNERS = 16
SOLANA_FEE_PER_SIGNATURE = 5000


def chain_unavailable(exc: ChainUnavailable) -> InvalidArgument:
    return InvalidArgument(str(exc), turnkey_error_code="RPC_CALL_ERROR")


def uint_param(params: dict[str, Any], name: str, default: int | None = None) -> int | None:
    value = params.get(name)
    if value in (None, ""):
        return default
    number = quantity(value)
    if number is None:
        raise InvalidArgument(messages.invalid_uint_field(name, str(value)))
    return number


def hex_param(value: Any, name: str) -> bytes:
    text = str(value or "0x")
    try:
        return bytes.fromhex(text.removeprefix("0x"))
    except ValueError:
        raise InvalidArgument(messages.invalid_hex_field(name)) from None


_EVM_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}")


def evm_address(value: Any, name: str) -> str:
    """An EVM address parameter, checked (``0x`` and 40 hex digits)."""
    if not isinstance(value, str) or not _EVM_ADDRESS.fullmatch(value):
        raise InvalidArgument(messages.invalid_evm_address(name, str(value)))
    return value


def solana_address(value: Any, name: str) -> str:
    """A Solana address parameter, checked (32 bytes in base58)."""
    try:
        valid = isinstance(value, str) and len(value) <= 44 and len(base58_decode(value)) == 32
    except ValueError:
        valid = False
    if not valid:
        raise InvalidArgument(messages.invalid_solana_address(name, str(value)))
    return value


def network_address(caip2: str, value: Any, name: str = "address") -> tuple[catalog.Network, str]:
    """The network a CAIP-2 id names and an address on it: the one reader of a
    ``(caip2, address)`` pair. An address of the other chain family (a Solana address with
    an ``eip155:`` id, an EVM one with a ``solana:`` id) is the 400 naming the field."""
    network = catalog.network(caip2)
    if network.family == catalog.EIP155:
        return network, evm_address(value, name)
    return network, solana_address(value, name)


def evm_signer(ctx: Context, address: str) -> keys.Signer:
    signer = keys.resolve_signer(ctx, address)
    if signer.curve != SECP256K1:
        raise InvalidArgument(
            messages.transaction_curve_mismatch("TRANSACTION_TYPE_ETHEREUM", signer.curve),
            turnkey_error_code="INVALID_TRANSACTION",
        )
    return signer


def sign_evm(signer: keys.Signer, unsigned_hex: str) -> bytes:
    def sign_digest(digest: bytes) -> tuple[int, int, int]:
        signature = signing.sign_digest_secp256k1(signer.private_key, digest)
        return int(signature.r, 16), int(signature.s, 16), signature.recovery_id

    return bytes.fromhex(sign_ethereum_transaction(unsigned_hex, sign_digest))


def _usd(ctx: Context, network: catalog.Network, atomic: int) -> Decimal:
    price = Decimal(ctx.settings.native_usd_prices.get(network.native.symbol, "0"))
    return Decimal(atomic) / (Decimal(10) ** network.native.decimals) * price


def usd_text(value: Decimal) -> str:
    text = f"{value.quantize(Decimal('0.000001')):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


# ----- the gas station -------------------------------------------------------------------


def _billing_orgs(ctx: Context) -> tuple[list[str], str]:
    """The organizations whose sponsored fees count against this one's window, and its limit."""
    org = ctx.org
    if org.parent_id is None:
        return [
            org.organization_id,
            *org.sub_organization_ids,
        ], ctx.settings.gas_org_window_limit_usd
    return [org.organization_id], ctx.settings.gas_sub_org_window_limit_usd


def gas_usage(ctx: Context, now_ms: int) -> tuple[int, Decimal, Decimal]:
    """(window minutes, limit in USD, usage in USD over the window) for ``ctx.org``."""
    minutes = ctx.settings.gas_window_minutes
    org_ids, limit = _billing_orgs(ctx)
    since = now_ms - minutes * 60_000
    used = Decimal(0)
    for org_id in org_ids:
        org = ctx.store.organizations.get(org_id)
        if org is None:
            continue
        for sent in org.sent_transactions.values():
            if sent.sponsored and sent.submitted_at_ms > since:
                used += Decimal(sent.fee_usd)
    return minutes, Decimal(limit), used


def check_sponsorship(ctx: Context, now_ms: int) -> None:
    if not ctx.settings.gas_sponsorship_enabled:
        raise InvalidArgument(messages.GAS_SPONSORSHIP_DISABLED)
    _, limit, used = gas_usage(ctx, now_ms)
    if used >= limit:
        raise InvalidArgument(messages.gas_sponsorship_limit(usd_text(limit)))


# ----- records ---------------------------------------------------------------------------


def record_sent(
    ctx: Context,
    caip2: str,
    sender: str,
    tx_hash: str | None,
    sponsored: bool,
    outcome: str,
    error: Any,
    fee: int,
    detail: Any = None,
) -> str:
    now_ms = ctx.now_ns // 1_000_000
    network = catalog.network(caip2)
    status_id = ctx.new_id()
    block_ms = int(ctx.settings.chain_block_time_s * 1000)
    sent = SentTransaction(
        send_transaction_status_id=status_id,
        caip2=network.caip2,
        sender=sender,
        tx_hash=tx_hash,
        sponsored=sponsored,
        submitted_at_ms=now_ms,
        included_at_ms=now_ms + block_ms,
        outcome=outcome,
        error=error,
        fee=fee,
        fee_usd=usd_text(_usd(ctx, network, fee)) if sponsored else "0",
        activity_fingerprint=fingerprint(ctx.raw) if ctx.raw else None,
        created_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.sent_transactions, status_id, sent)
    send_status.note(ctx.world, ctx.tx, ctx.org, sent)
    balance_updates.note(
        ctx.world, ctx.tx, ctx.org, sent, functools.partial(_landed, ctx.world, sent)
    )
    if tx_hash is not None:
        chains_of(ctx.world).record(network.caip2, (tx_hash, sent, detail))
    return status_id


def failure(message: str, **details: Any) -> dict[str, Any]:
    error: dict[str, Any] = {"message": message}
    error.update(details)
    return error


def find_sent(ctx: Context, status_id: str) -> SentTransaction:
    sent = ctx.org.sent_transactions.get(status_id)
    if sent is None:
        raise NotFound(messages.send_transaction_status_not_found(status_id))
    return sent


def status_view(sent: SentTransaction, now_ms: int) -> dict[str, Any]:
    """The ``get_send_transaction_status`` answer for ``sent`` at ``now_ms``."""
    if now_ms < sent.included_at_ms:
        return {"txStatus": BROADCASTING}
    view: dict[str, Any] = {"txStatus": sent.outcome}
    if sent.outcome == INCLUDED and sent.tx_hash is not None:
        family = catalog.network(sent.caip2).family
        if family == catalog.EIP155:
            view["eth"] = {"txHash": sent.tx_hash}
        else:
            view["solana"] = {"signature": sent.tx_hash}
    if sent.error is not None:
        view["txError"] = sent.error["message"]
        view["error"] = sent.error
    return view


def move_funds(node: Any, source: str, target: str, amount: int) -> None:
    """Move native funds between two accounts by writing both balances (the Solana gas
    station's credit and refund; no transaction is recorded for it)."""
    if amount <= 0:
        return
    node.set_balance(source, node.balance(source) - amount)
    node.set_balance(target, node.balance(target) + amount)


# ----- Solana ----------------------------------------------------------------------------


def send_solana(ctx: Context, params: dict[str, Any]) -> str:
    """``sol_send_transaction`` (V2): sign with every ``signWiths`` key, preflight, process."""
    sign_withs = params["signWiths"]
    if not 1 <= len(sign_withs) <= MAX_SOLANA_SIGNERS:
        raise InvalidArgument(messages.sign_withs_count(MAX_SOLANA_SIGNERS))
    sponsor = bool(params.get("sponsor"))
    now_ms = ctx.now_ns // 1_000_000
    if sponsor:
        check_sponsorship(ctx, now_ms)
    unsigned = str(params["unsignedTransaction"]).removeprefix("0x")
    try:
        chains = chains_of(ctx.world)
        node = chains.solana(params["caip2"])
        if params.get("recentBlockhash") or sponsor:
            unsigned = _with_blockhash(
                unsigned, params.get("recentBlockhash") or node.latest_blockhash()
            )
        signed = unsigned
        for address in sign_withs:
            signer = keys.resolve_signer(ctx, address)
            if signer.curve != ED25519:
                raise InvalidArgument(
                    messages.transaction_curve_mismatch("TRANSACTION_TYPE_SOLANA", signer.curve),
                    turnkey_error_code="INVALID_TRANSACTION",
                )

            def sign_message(message: bytes, signer: keys.Signer = signer) -> bytes:
                return signing.sign_ed25519(signer.private_key, message).to_bytes()

            try:
                signed = sign_solana_transaction(signed, signer.public_key, sign_message)
            except TransactionError as exc:
                raise InvalidArgument(str(exc), turnkey_error_code="INVALID_TRANSACTION") from None
        payer = parse_solana_transaction(unsigned).account_addresses[0]
        credit = 0
        if sponsor:
            credit = SOLANA_FEE_PER_SIGNATURE * MAX_SOLANA_SIGNERS
            move_funds(node, chains.solana_sponsor_address, payer, credit)
        try:
            outcome = node.send(bytes.fromhex(signed))
        except ChainError as exc:
            if credit:
                move_funds(node, payer, chains.solana_sponsor_address, credit)
            details: dict[str, Any] = {}
            if hasattr(exc, "error_json"):
                details["solana"] = {
                    "source": "preflight",
                    "rpcCode": -32002,
                    "rpcMessage": str(exc),
                    "transactionErrorJson": exc.error_json,  # type: ignore[attr-defined]
                    "logs": exc.logs,  # type: ignore[attr-defined]
                    "unitsConsumed": str(exc.units),  # type: ignore[attr-defined]
                }
            error = failure(str(exc), **details)
            return record_sent(ctx, params["caip2"], payer, None, sponsor, FAILED, error, 0)
        if credit:
            move_funds(node, payer, chains.solana_sponsor_address, credit - outcome.fee)
    except ChainUnavailable as exc:
        raise chain_unavailable(exc) from None
    return record_sent(
        ctx,
        params["caip2"],
        payer,
        outcome.signature,
        sponsor,
        INCLUDED,
        None,
        outcome.fee,
        outcome,
    )


def _with_blockhash(unsigned_hex: str, blockhash: str) -> str:
    """The transaction with ``blockhash`` as its recent blockhash."""
    from solders.hash import Hash
    from solders.transaction import VersionedTransaction

    try:
        tx = VersionedTransaction.from_bytes(bytes.fromhex(unsigned_hex))
        message = tx.message
        raw = bytes(message)
        old = bytes(message.recent_blockhash)
        index = raw.find(old)
        new_message = raw[:index] + bytes(Hash.from_string(blockhash)) + raw[index + 32 :]
    except Exception as exc:
        raise InvalidArgument(str(exc), turnkey_error_code="INVALID_TRANSACTION") from None
    signatures_part = bytes(tx)[: len(bytes(tx)) - len(raw)]
    return (signatures_part + new_message).hex()


def _landed(world: World, sent: SentTransaction) -> tuple[Any, catalog.Network, Any]:
    """The chain's receipt of ``sent`` (None when it has none), its network, and the asset of
    a token contract (None unless a token of ``chains/tokens.py``): what
    ``events/balance_updates.py`` reports, read once the transaction has committed."""
    from ..chains.tokens import find

    assert sent.tx_hash is not None
    receipt = chains_of(world).evm(sent.caip2).receipt(sent.tx_hash)
    network = catalog.network(sent.caip2)

    def token_of(contract: str) -> dict[str, str] | None:
        token = find(network.caip2, contract)
        if token is None:
            return None
        return {
            "symbol": token.symbol,
            "name": token.name,
            "decimals": str(token.decimals),
            "caip19": token.caip19,
        }

    return receipt, network, token_of
