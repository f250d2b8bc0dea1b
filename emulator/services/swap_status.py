"""The status of a swap (``get_swap_status``) and its destination leg.

The lifecycle of ``track-swap-status.mdx``: PENDING until the origin transaction is included
(same chain) or the destination leg settles (cross chain, ``Settings.swap_fill_delay_s`` after
the origin's inclusion), then COMPLETED or FAILED. The destination leg (the solver's fill on
the destination chain, or its refund on the origin chain) is carried out by the first status
read after the delay, in a transaction of its own so that the journal keeps it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..chains.errors import ChainError, ChainUnavailable
from ..chains.network import chains_of
from ..chains.swap_provider import FILL, REFUND, provider_of
from ..chains.tokens import parse
from ..ground import swap_messages as say
from ..ground.errors import NotFound
from ..ground.swaps import SwapRequest
from . import broadcast
from .context import Context
from .swap_intents import quote_key
from .swap_pricing import PROVIDER_FEE_BPS
from .swap_windows import completed
from .swaps import COMPLETED, FAILED, FILL_FAILED, PENDING


def _now_ms(ctx: Context) -> int:
    return ctx.now_ns // 1_000_000


def settle_due(ctx: Context) -> None:
    """Carry out the destination leg of every cross-chain swap of the organization whose
    delay has passed: the solver's fill on the destination chain, or its refund on the origin
    chain; each in a transaction of its own (kept by the journal)."""
    now_ms = _now_ms(ctx)
    due = [s for s in ctx.org.swaps.values() if not s.settled and s.settles_at_ms <= now_ms]
    for request in due:
        tx = ctx.world.transaction()
        inner = dataclasses.replace(ctx, tx=tx)
        try:
            _settle(inner, request)
        except BaseException:
            tx.rollback()
            raise
        tx.commit()


def _settle(ctx: Context, request: SwapRequest) -> None:
    quote = ctx.org.swap_quotes[request.quote_id]
    provider = provider_of(chains_of(ctx.world))
    ident = quote_key(quote.quote_id)
    if not request.fill_fails:
        asset_out = parse(request.output_token)
        try:
            tx_hash = provider.pay(
                asset_out, FILL, ident, request.destination_address, int(quote.output_amount)
            )
        except (ChainError, ChainUnavailable) as exc:
            request_error = {"reason": FILL_FAILED, "message": str(exc)}
            ctx.tx.set(request, "error", request_error)
            ctx.tx.set(request, "outcome", FAILED)
            ctx.tx.set(request, "settled", True)
            return
        ctx.tx.set(request, "destination_tx_hashes", [tx_hash])
        ctx.tx.set(request, "output_amount", quote.output_amount)
        ctx.tx.set(request, "settled", True)
        completed(ctx, quote, request.swap_request_id)
        return
    asset_in = parse(request.input_token)
    amount = int(request.input_amount) * (10_000 - PROVIDER_FEE_BPS) // 10_000
    reason = (request.error or {}).get("providerReason") or "fill failed"
    error = {
        "reason": FILL_FAILED,
        "message": f"the provider could not fill the swap on {parse(request.output_token).network.caip2}",
        "providerReason": reason,
    }
    try:
        tx_hash = provider.pay(asset_in, REFUND, ident, request.sign_with, amount)
        refund: Any = {"asset": asset_in.caip19, "amount": str(amount), "txHash": tx_hash}
    except (ChainError, ChainUnavailable):
        refund = None
    ctx.tx.set(request, "error", error)
    ctx.tx.set(request, "refund", refund)
    ctx.tx.set(request, "settled", True)


def status(ctx: Context, swap_request_id: str) -> dict[str, Any]:
    request = ctx.org.swaps.get(swap_request_id)
    if request is None:
        raise NotFound(say.swap_not_found(swap_request_id))
    if not request.settled and request.settles_at_ms <= _now_ms(ctx):
        try:
            settle_due(ctx)
        except ChainUnavailable as exc:
            raise broadcast.chain_unavailable(exc) from None
    now_ms = _now_ms(ctx)
    done = request.settled and now_ms >= request.settles_at_ms
    state = request.outcome if done else PENDING
    view: dict[str, Any] = {
        "status": state,
        "swapKind": request.swap_kind,
        "provider": request.provider,
        "inputToken": request.input_token,
        "outputToken": request.output_token,
        "inputAmount": request.input_amount,
        "destinationAddress": request.destination_address,
    }
    updated = request.created_at // 1_000_000
    if request.origin_tx_hash and now_ms >= request.origin_included_at_ms:
        view["originTxHash"] = request.origin_tx_hash
        updated = max(updated, request.origin_included_at_ms)
    if done:
        updated = max(updated, request.settles_at_ms)
        if state == COMPLETED:
            if request.output_amount is not None:
                view["outputAmount"] = request.output_amount
            if request.destination_tx_hashes:
                view["destinationTxHashes"] = list(request.destination_tx_hashes)
        else:
            view["error"] = {k: v for k, v in (request.error or {}).items() if v is not None}
            if request.refund:
                view["refund"] = request.refund
    view["updatedAt"] = str(updated)
    return view
