"""Swaps through the simulated provider: quote, execute, status.

``create_swap_quote`` prices the pair (``swap_pricing.py``) for a wallet account of the
organization that holds the input, and keeps the quote until it expires (30 s on the
emulator's clock). ``execute_swap`` takes exactly one unexpired quote whose terms the intent
restates, builds the swap's transaction (``swap_intents.py``) and sends it as
``eth_send_transaction`` / ``sol_send_transaction`` would (``evm_send.py``,
``broadcast.py``: the same keys, gas station, statuses and webhooks). The statuses and the
destination leg are ``swap_status.py``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..chains import catalog
from ..chains.errors import ChainUnavailable
from ..chains.network import chains_of
from ..chains.swap_provider import PROVIDER, provider_of
from ..chains.tokens import Asset, UnknownAsset, parse
from ..ground import swap_messages as say
from ..ground.errors import InvalidArgument, NotFound
from ..ground.numbers import integer
from ..ground.swaps import SwapQuote, SwapRequest
from . import broadcast, evm_send, keys
from .context import Context
from .swap_intents import evm_calls, order_of
from .swap_pricing import (
    DEFAULT_SLIPPAGE_BPS,
    MAX_SLIPPAGE_BPS,
    QUOTE_TTL_S,
    SAME_CHAIN_SECONDS,
    SWAP_CHAINS,
    economics,
    stable_pair,
    usd_string,
)
from .swap_windows import (
    FEE_SPONSORSHIP,
    FIXED_RATE,
    bps_param,
    check_window,
    client_fee_bps,
    completed,
    precondition,
)

SAME_CHAIN, CROSS_CHAIN = "SAME_CHAIN", "CROSS_CHAIN"
PENDING, COMPLETED, FAILED = "PENDING", "COMPLETED", "FAILED"
ORIGIN_FAILED, FILL_FAILED = "ORIGIN_TRANSACTION_FAILED", "PROVIDER_FILL_FAILED"
MAX_AMOUNT = 2**256 - 1


def _now_ms(ctx: Context) -> int:
    return ctx.now_ns // 1_000_000


def _asset(value: Any, field: str) -> Asset:
    try:
        asset = parse(value)
    except UnknownAsset as exc:
        raise InvalidArgument(say.unsupported_asset(field, str(exc))) from None
    if asset.network.caip2 not in SWAP_CHAINS:
        raise InvalidArgument(say.unsupported_chain(field, asset.network.caip2))
    return asset


def _amount(value: Any, field: str) -> int:
    number = integer(value) if isinstance(value, str) else None
    if number is None or not 0 < number <= MAX_AMOUNT:
        raise InvalidArgument(say.positive_amount(field, str(value)))
    return number


def _address(asset: Asset, value: Any, field: str) -> str:
    try:
        return broadcast.network_address(asset.network.caip2, value, field)[1]
    except InvalidArgument:
        raise InvalidArgument(say.wrong_family(field, str(value), asset.network.caip2)) from None


def _wallet_account(ctx: Context, address: str) -> keys.Signer:
    holders = ctx.org.signers.get(address) or ()
    if holders and all(ref.wallet_account_id is None for ref in holders):
        raise InvalidArgument(say.PRIVATE_KEY_SIGNER)
    return keys.resolve_signer(ctx, address)


def check_enabled(ctx: Context) -> None:
    if not ctx.settings.swap_early_access:
        raise precondition(say.SWAPS_NOT_ENABLED)


# ----- quotes ------------------------------------------------------------------------------


def create_quote(ctx: Context, params: dict[str, Any]) -> SwapQuote:
    check_enabled(ctx)
    asset_in = _asset(params["inputToken"], "inputToken")
    asset_out = _asset(params["outputToken"], "outputToken")
    if asset_in.caip19 == asset_out.caip19:
        raise InvalidArgument(say.SAME_TOKEN)
    if asset_in.network.family != asset_out.network.family:
        raise InvalidArgument(say.CROSS_PROTOCOL)
    sign_with = _address(asset_in, params["signWith"], "signWith")
    _wallet_account(ctx, sign_with)
    destination = params.get("destinationAddress") or sign_with
    destination = _address(asset_out, destination, "destinationAddress")
    amount = _amount(params["inputAmount"], "inputAmount")
    slippage = params.get("slippageBps")
    slippage_bps = (
        DEFAULT_SLIPPAGE_BPS
        if slippage in (None, "")
        else bps_param(slippage, "slippageBps", MAX_SLIPPAGE_BPS)
    )
    sponsorship, fixed = bool(params.get("feeSponsorship")), bool(params.get("fixedRate"))
    pair_is_stable = stable_pair(asset_in, asset_out)
    if fixed and not pair_is_stable:
        raise InvalidArgument(say.fixed_rate_pair())
    try:
        held = chains_of(ctx.world).asset_balance(asset_in.caip19, sign_with)
    except ChainUnavailable as exc:
        raise broadcast.chain_unavailable(exc) from None
    if held < amount:
        raise InvalidArgument(say.insufficient_balance(sign_with, asset_in.caip19, held, amount))
    client_bps = client_fee_bps(ctx, pair_is_stable)
    try:
        terms = economics(
            ctx.settings, asset_in, asset_out, amount, client_bps, slippage_bps, sponsorship, fixed
        )
    except ValueError:
        raise InvalidArgument(
            say.unsupported_asset("outputToken", "the provider has no price for this pair")
        ) from None
    if terms.output_amount <= 0:
        raise InvalidArgument(say.positive_amount("inputAmount", params["inputAmount"]))
    if sponsorship:
        check_window(ctx, FEE_SPONSORSHIP, terms.sponsored_usd)
    if fixed:
        check_window(ctx, FIXED_RATE, terms.fixed_rate_adjustment_usd)
    cross = asset_in.network.caip2 != asset_out.network.caip2
    seed = f"{ctx.new_id()}|{sign_with}|{asset_in.caip19}|{asset_out.caip19}|{amount}"
    quote = SwapQuote(
        quote_id="sq_v1_" + hashlib.sha256(seed.encode()).hexdigest(),
        sign_with=sign_with,
        input_token=asset_in.caip19,
        output_token=asset_out.caip19,
        input_amount=str(amount),
        output_amount=str(terms.output_amount),
        min_output_amount=str(terms.min_output_amount),
        slippage_bps=str(slippage_bps),
        client_fee_bps=str(terms.client_fee_bps),
        turnkey_fee_bps=str(terms.turnkey_fee_bps),
        provider_fee_bps=str(terms.provider_fee_bps),
        destination_address=destination,
        estimated_time_seconds=str(
            int(ctx.settings.swap_fill_delay_s) if cross else SAME_CHAIN_SECONDS
        ),
        expires_at_ms=_now_ms(ctx) + QUOTE_TTL_S * 1000,
        fee_sponsorship=sponsorship,
        fixed_rate=fixed,
        client_fee_usd=usd_string(terms.client_fee_usd),
        sponsored_usd=usd_string(terms.sponsored_usd),
        fixed_rate_adjustment_usd=usd_string(terms.fixed_rate_adjustment_usd),
        created_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.swap_quotes, quote.quote_id, quote)
    return quote


def quote_view(quote: SwapQuote, v2: bool) -> dict[str, Any]:
    view: dict[str, Any] = {
        "quoteId": quote.quote_id,
        "provider": PROVIDER,
        "outputAmount": quote.output_amount,
        "minOutputAmount": quote.min_output_amount,
        "expiresAt": str(quote.expires_at_ms),
        "slippageBps": quote.slippage_bps,
        "clientFeeBps": quote.client_fee_bps,
        "estimatedTimeSeconds": quote.estimated_time_seconds,
    }
    if v2:
        view["feeSponsorship"] = quote.fee_sponsorship
        view["fixedRate"] = quote.fixed_rate
        if quote.fixed_rate:
            view["estimatedFixedRateAdjustmentUsd"] = quote.fixed_rate_adjustment_usd
    return view


# ----- execution ---------------------------------------------------------------------------


def _bound_quote(ctx: Context, params: dict[str, Any]) -> SwapQuote:
    quote = ctx.org.swap_quotes.get(params["quoteId"])
    if quote is None:
        raise NotFound(say.quote_not_found(params["quoteId"]))
    if quote.swap_request_id is not None:
        raise InvalidArgument(say.quote_executed(quote.quote_id))
    if _now_ms(ctx) > quote.expires_at_ms:
        raise precondition(say.quote_expired(quote.quote_id, quote.expires_at_ms))
    for field, quoted in (("inputToken", quote.input_token), ("outputToken", quote.output_token)):
        try:
            same = parse(params[field]).caip19 == quoted
        except UnknownAsset:
            same = False
        if not same:
            raise InvalidArgument(say.quote_mismatch(field, str(params[field]), quoted))
    for field, quoted in (
        ("inputAmount", quote.input_amount),
        ("quotedOutputAmount", quote.output_amount),
        ("minOutputAmount", quote.min_output_amount),
    ):
        if params[field] != quoted:
            raise InvalidArgument(say.quote_mismatch(field, str(params[field]), quoted))
    destination = params.get("destinationAddress")
    if destination and destination != quote.destination_address:
        raise InvalidArgument(
            say.quote_mismatch("destinationAddress", destination, quote.destination_address)
        )
    return quote


def _v1_quote(ctx: Context, params: dict[str, Any]) -> tuple[SwapQuote, int]:
    """``ACTIVITY_TYPE_EXECUTE_SWAP`` (no quote id): quote now, execute with its floor."""
    provider = params.get("provider")
    if provider not in (None, "", PROVIDER):
        raise InvalidArgument(f"invalid provider: {provider!r} (the provider is {PROVIDER!r})")
    quote = create_quote(
        ctx,
        {
            "signWith": params["walletAccount"],
            "inputToken": params["inputToken"],
            "outputToken": params["outputToken"],
            "inputAmount": params["inputAmount"],
            "slippageBps": params.get("slippage"),
        },
    )
    floor = _amount(params["minOutputAmount"], "minOutputAmount")
    if int(quote.min_output_amount) < floor:
        raise InvalidArgument(
            say.quote_mismatch(
                "minOutputAmount", params["minOutputAmount"], quote.min_output_amount
            )
        )
    return quote, floor


def execute(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    check_enabled(ctx)
    if "walletAccount" in params:
        quote, floor = _v1_quote(ctx, params)
    else:
        quote = _bound_quote(ctx, params)
        floor = int(quote.min_output_amount)
    _wallet_account(ctx, quote.sign_with)
    asset_in, asset_out = parse(quote.input_token), parse(quote.output_token)
    cross = asset_in.network.caip2 != asset_out.network.caip2
    swap_id = "sha256:" + hashlib.sha256(f"{quote.quote_id}|{ctx.new_id()}".encode()).hexdigest()
    request = SwapRequest(
        swap_request_id=swap_id,
        quote_id=quote.quote_id,
        sign_with=quote.sign_with,
        swap_kind=CROSS_CHAIN if cross else SAME_CHAIN,
        provider=PROVIDER,
        input_token=quote.input_token,
        output_token=quote.output_token,
        input_amount=quote.input_amount,
        destination_address=quote.destination_address,
        sponsored=bool(params.get("sponsor")),
        outcome=FAILED,
        settles_at_ms=_now_ms(ctx),
        created_at=ctx.now_ns,
    )
    try:
        _run(ctx, quote, request, asset_in, asset_out, floor, params)
    except ChainUnavailable as exc:
        raise broadcast.chain_unavailable(exc) from None
    ctx.tx.set(quote, "swap_request_id", swap_id)
    ctx.tx.put(ctx.org.swaps, swap_id, request)
    return {"swapRequestId": swap_id, "provider": PROVIDER, "quoteId": quote.quote_id}


def _run(
    ctx: Context,
    quote: SwapQuote,
    request: SwapRequest,
    asset_in: Asset,
    asset_out: Asset,
    floor: int,
    params: dict[str, Any],
) -> None:
    chains = chains_of(ctx.world)
    provider = provider_of(chains)
    held = chains.asset_balance(asset_in.caip19, quote.sign_with)
    if held < int(quote.input_amount):  # the pre-flight simulation: nothing is broadcast
        request.error = {
            "reason": ORIGIN_FAILED,
            "message": "pre-flight simulation failed: "
            + say.insufficient_balance(
                quote.sign_with, asset_in.caip19, held, int(quote.input_amount)
            ),
        }
        return
    failure = provider.take_fill_failure()
    cross = request.swap_kind == CROSS_CHAIN
    if cross:
        request.fill_fails = failure is not None
        request.settled = False
        request.error = {"providerReason": failure} if failure is not None else None
    amount_out = int(quote.output_amount)
    if asset_in.network.family == catalog.EIP155:
        provider.evm(asset_in.network.caip2)
        if cross:
            provider.evm(asset_out.network.caip2)
        else:
            provider.provide(asset_out, provider.router, amount_out)
        # an injected same-chain failure: the provider fills below the floor, the router reverts
        fill = floor - 1 if failure is not None and not cross else amount_out
        order = order_of(quote, fill, floor)
        send = {
            "from": quote.sign_with,
            "caip2": asset_in.network.caip2,
            "calls": evm_calls(quote, order, provider),
            "sponsor": request.sponsored,
        }
        for field in ("evmNonce", "gasStationNonce"):
            if params.get(field) not in (None, ""):
                send["nonce" if field == "evmNonce" else field] = params[field]
        status_id = evm_send.send_evm(ctx, send)
    else:
        # an injected failure: the solver is asked for more than it holds, preflight fails
        fill = 2**64 - 1 if failure is not None else amount_out
        wire = provider.solana_swap(
            asset_in.network.caip2,
            quote.sign_with,
            asset_in,
            int(quote.input_amount),
            asset_out,
            fill,
            quote.destination_address,
            params.get("recentBlockhash") or None,
            liquidity=failure is None,
        )
        send = {
            "unsignedTransaction": wire.hex(),
            "signWiths": [quote.sign_with],
            "caip2": asset_in.network.caip2,
            "sponsor": request.sponsored,
        }
        status_id = broadcast.send_solana(ctx, send)
    sent = ctx.org.sent_transactions[status_id]
    request.send_transaction_status_id = status_id
    request.origin_tx_hash = sent.tx_hash
    request.origin_included_at_ms = sent.included_at_ms
    request.settles_at_ms = sent.included_at_ms
    if sent.outcome == broadcast.FAILED or sent.error is not None:
        request.outcome, request.settled, request.fill_fails = FAILED, True, False
        request.error = {
            "reason": ORIGIN_FAILED,
            "message": str((sent.error or {}).get("message", "the origin transaction failed")),
            "originTxError": sent.error,
        }
        return
    if cross:
        request.outcome = FAILED if request.fill_fails else COMPLETED
        request.settles_at_ms = sent.included_at_ms + int(ctx.settings.swap_fill_delay_s * 1000)
        return
    request.outcome, request.output_amount = COMPLETED, quote.output_amount
    completed(ctx, quote, request.swap_request_id)
