"""What a swap will sign, built from its quote alone (no chain is read): the transaction
``execute_swap`` broadcasts, and the view the policy engine and the velocity controls get.

On an EVM chain the swap is the router's ``swap`` call (the input as its value when native),
preceded by the ERC-20 ``approve`` of the router when the input is a token; the two run as one
gas-station batch. On Solana it is one transaction of the wallet and the provider's solver.

For policies an ``execute_swap`` reads as the send it makes: ``eth.tx`` is the router call
(``to`` the router, its value and data), ``solana.tx`` the swap transaction; the wallet account
is the quote's signer. Velocity controls count the swap's input (``swapInput``) as a transfer
of the input asset.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ..chains import catalog
from ..chains.swap_provider import Order, Provider, evm_token
from ..chains.token_accounts import approve_data
from ..chains.tokens import UnknownAsset, parse
from ..ground.models import Organization
from ..ground.swaps import SwapQuote

_PURE = Provider()  # addresses, orders and signatures only


def quote_key(quote_id: str) -> bytes:
    """The order's ``bytes32`` id of a quote."""
    return hashlib.sha256(quote_id.encode()).digest()


def order_of(quote: SwapQuote, amount_out: int | None = None, min_out: int | None = None) -> Order:
    asset_in, asset_out = parse(quote.input_token), parse(quote.output_token)
    return Order(
        quote_id=quote_key(quote.quote_id),
        token_in=evm_token(asset_in),
        amount_in=int(quote.input_amount),
        token_out=evm_token(asset_out),
        amount_out=int(quote.output_amount) if amount_out is None else amount_out,
        min_out=int(quote.min_output_amount) if min_out is None else min_out,
        recipient=quote.destination_address,
        destination_chain_id=asset_out.network.chain_id,
    )


def evm_calls(quote: SwapQuote, order: Order, provider: Provider = _PURE) -> list[dict[str, Any]]:
    """The calls of an EVM swap, in ``eth_send_transaction``'s shape."""
    asset_in = parse(quote.input_token)
    chain_id = asset_in.network.chain_id
    swap = {
        "to": provider.router,
        "value": str(order.amount_in if asset_in.token is None else 0),
        "data": "0x" + provider.swap_data(chain_id, quote.sign_with, order).hex(),
    }
    if asset_in.token is None:
        return [swap]
    approve = {
        "to": asset_in.token.address,
        "value": "0",
        "data": "0x" + approve_data(provider.router, order.amount_in).hex(),
    }
    return [approve, swap]


def as_send(org: Organization, params: Mapping[str, Any]) -> dict[str, Any] | None:
    """The send an ``execute_swap`` makes, in the send intents' shape (None for other
    activities, or a swap whose quote is unknown: the handler refuses it)."""
    quote_id = params.get("quoteId")
    if not isinstance(quote_id, str):
        return None
    quote = org.swap_quotes.get(quote_id)
    if quote is None:
        return None
    try:
        asset_in = parse(quote.input_token)
    except UnknownAsset:
        return None
    swap_input = {
        "caip19": asset_in.caip19,
        "amount": quote.input_amount,
        "decimals": asset_in.decimals,
    }
    if asset_in.network.family == catalog.EIP155:
        calls = evm_calls(quote, order_of(quote))
        return {
            "caip2": asset_in.network.caip2,
            "from": quote.sign_with,
            "calls": calls[-1:],  # the router call: what eth.tx shows
            "swapInput": swap_input,
        }
    asset_out = parse(quote.output_token)
    unsigned = _PURE.solana_unsigned(
        quote.sign_with,
        asset_in,
        int(quote.input_amount),
        asset_out,
        int(quote.output_amount),
        quote.destination_address,
    )
    return {
        "caip2": asset_in.network.caip2,
        "signWiths": [quote.sign_with],
        "unsignedTransaction": bytes(unsigned).hex(),
        "swapInput": swap_input,
    }
