"""Reading the chains: get_wallet_address_balances, list_supported_assets,
list_eth_transaction_history, list_sol_transaction_history.

Balances are read from the chain the emulator talks to (embedded or a node): the native asset
and every token of ``chains/tokens.py`` written onto that chain, non-zero balances only, native
first. The supported assets of a network are its native asset and its tokens, each with the
``stable`` flag the swap fees read. The history lists the transactions the emulator broadcast on that chain that
involve the address, most recent first, with Turnkey's metadata (sponsored, the activity's
fingerprint, when it was submitted); a transaction still BROADCASTING is not listed yet.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

from ..chains import catalog
from ..chains.errors import ChainUnavailable
from ..chains.network import chains_of
from ..chains.tokens import Asset, tokens_of
from ..chains.tokens import find as find_token
from ..chains.tokens import parse as parse_asset
from ..crypto.addresses.chains import eip55
from ..ground import messages
from ..ground.errors import InvalidArgument
from ..ground.numbers import integer
from ..ground.schema import Enum, String, obj, opt
from ..services import broadcast, prices
from ..services.context import Context
from ..services.pagination import PAGINATION
from .registry import query

Params = dict[str, Any]
DEFAULT_LIMIT = 10
MAX_LIMIT = 100
ORIGIN_TURNKEY = "TURNKEY"
FINALIZED = "FINALIZED"


def _wallet_address(ctx: Context, address: str) -> None:
    holders = ctx.org.signers.get(address) or ()
    if not any(ref.wallet_account_id is not None for ref in holders):
        raise InvalidArgument(messages.unsupported_address_for_balances(address))


def _display_crypto(amount: int, decimals: int) -> str:
    text = f"{Decimal(amount) / (Decimal(10) ** decimals):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _asset(network: catalog.Network) -> Params:
    native = network.native
    return {
        "caip19": network.native_caip19,
        "symbol": native.symbol,
        "name": native.name,
        "decimals": native.decimals,
    }


def _usd(ctx: Context, network: catalog.Network, amount: int) -> str:
    price = Decimal(ctx.settings.native_usd_prices.get(network.native.symbol, "0"))
    value = Decimal(amount) / (Decimal(10) ** network.native.decimals) * price
    return f"{value.quantize(Decimal('0.01')):f}"


@query(
    "get_wallet_address_balances",
    summary="Get balances",
    body=obj(address=String(), caip2=Enum(catalog.ALL_NETWORKS)),
    result_keys=("balances",),
)
def get_wallet_address_balances(ctx: Context, body: Params) -> Params:
    network, _ = broadcast.network_address(body["caip2"], body["address"])
    _wallet_address(ctx, body["address"])
    chains = chains_of(ctx.world)
    try:
        held = [(Asset(network, None), chains.balance(network.caip2, body["address"]))]
        held += [
            (Asset(network, token), chains.token_balance(token, body["address"]))
            for token in tokens_of(network.caip2)
        ]
    except ChainUnavailable as exc:
        raise broadcast.chain_unavailable(exc) from None
    return {"balances": [_balance(ctx, asset, amount) for asset, amount in held if amount]}


def _asset_of(asset: Asset) -> Params:
    return {
        "caip19": asset.caip19,
        "symbol": asset.symbol,
        "name": asset.name,
        "decimals": asset.decimals,
    }


def _balance(ctx: Context, asset: Asset, amount: int) -> Params:
    return {
        **_asset_of(asset),
        "balance": str(amount),
        "display": {
            "usd": prices.usd_text(prices.usd_value(ctx.settings, asset, amount)),
            "crypto": _display_crypto(amount, asset.decimals),
        },
    }


@query(
    "list_supported_assets",
    summary="List supported assets",
    body=obj(caip2=Enum(catalog.ALL_NETWORKS)),
    result_keys=("assets",),
)
def list_supported_assets(ctx: Context, body: Params) -> Params:
    network = catalog.network(body["caip2"])
    assets = [Asset(network, None), *(Asset(network, t) for t in tokens_of(network.caip2))]
    return {"assets": [{**_asset_of(a), "logoUrl": "", "stable": a.stable} for a in assets]}


def _rfc3339(seconds: int) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _turnkey(sent: Any) -> Params:
    meta: Params = {
        "sponsored": sent.sponsored,
        "submittedAt": _rfc3339(sent.submitted_at_ms // 1000),
    }
    if sent.activity_fingerprint:
        meta["activityFingerprint"] = sent.activity_fingerprint
    return meta


def _page(items: list[tuple[str, Params]], options: Params | None) -> Params:
    """Cursor pagination over (cursor, item), most recent first."""
    options = options or {}
    limit_text = options.get("limit")
    limit = integer(limit_text) if limit_text else DEFAULT_LIMIT
    if limit is None or not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgument(messages.invalid_limit(MAX_LIMIT))
    cursors = [c for c, _ in items]
    start, stop = 0, len(items)
    if options.get("after"):
        start = cursors.index(options["after"]) + 1 if options["after"] in cursors else stop
    if options.get("before"):
        stop = cursors.index(options["before"]) if options["before"] in cursors else 0
        start = max(start, stop - limit) if not options.get("after") else start
    window = items[start:stop][:limit]
    info: Params = {
        "hasNextPage": start + len(window) < len(items),
        "hasPreviousPage": start > 0,
    }
    if window:
        info["startCursor"], info["endCursor"] = window[0][0], window[-1][0]
    return {"items": [item for _, item in window], "pageInfo": info}


def _history(ctx: Context, caip2: str) -> list[tuple[str, Any, Any]]:
    now_ms = ctx.now_ns // 1_000_000
    entries = chains_of(ctx.world).sent.get(catalog.canonical(caip2), [])
    return [e for e in reversed(entries) if e[1].included_at_ms <= now_ms]


@query(
    "list_eth_transaction_history",
    summary="List Eth transaction history",
    body=obj(address=String(), caip2=Enum(catalog.EVM_HISTORY), paginationOptions=opt(PAGINATION)),
    result_keys=("transactions", "pageInfo"),
)
def list_eth_transaction_history(ctx: Context, body: Params) -> Params:
    network, address = broadcast.network_address(body["caip2"], body["address"])
    _wallet_address(ctx, address)
    address = address.lower()
    items: list[tuple[str, Params]] = []
    try:
        node = chains_of(ctx.world).evm(network.caip2)
        for tx_hash, sent, calls in _history(ctx, network.caip2):
            receipt = node.receipt(tx_hash)
            if receipt is None:
                continue
            transfers = _eth_transfers(ctx, network, receipt, sent, calls, address)
            involved = {receipt.sender.lower(), (receipt.to or "").lower(), sent.sender.lower()}
            if address not in involved and not transfers:
                continue
            items.append((tx_hash, _eth_item(network, receipt, sent, transfers)))
    except ChainUnavailable as exc:
        raise broadcast.chain_unavailable(exc) from None
    page = _page(items, body.get("paginationOptions"))
    return {"transactions": page["items"], "pageInfo": page["pageInfo"]}


# ERC-20's Transfer(address indexed from, address indexed to, uint256 value)
ERC20_TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"


def _eth_transfers(
    ctx: Context, network: catalog.Network, receipt: Any, sent: Any, calls: Any, address: str
) -> list[Params]:
    """The transfers of a transaction that involve ``address``: native value (of the
    transaction, or of each call of a batch as the account) and ERC-20 ``Transfer`` logs (with
    their asset where the token is one of ``chains/tokens.py``)."""
    if receipt.status != 1:
        return []
    moves: list[tuple[str, str, int, Params | None]] = []  # (from, to, amount, asset)
    if calls:
        moves += [
            (sent.sender, to or "", value, _asset(network)) for to, value, _ in calls if value
        ]
    elif receipt.value:
        moves.append((receipt.sender, receipt.to or "", receipt.value, _asset(network)))
    for contract, topics, data in receipt.logs:
        if len(topics) == 3 and topics[0].lower() == ERC20_TRANSFER and len(data) == 66:
            source = eip55(bytes.fromhex(topics[1][-40:]))
            target = eip55(bytes.fromhex(topics[2][-40:]))
            token = find_token(network.caip2, contract)
            asset = _asset_of(Asset(network, token)) if token else None
            moves.append((source, target, int(data, 16), asset))
    transfers = []
    for source, target, amount, asset in moves:
        if address not in (source.lower(), target.lower()):
            continue
        outgoing = source.lower() == address
        transfer: Params = {
            "direction": "OUT" if outgoing else "IN",
            "amount": str(amount),
            "counterparty": target if outgoing else source,
        }
        if asset is not None:
            held = parse_asset(asset["caip19"])
            transfer["asset"] = asset
            transfer["display"] = {
                "crypto": _display_crypto(amount, held.decimals),
                "usd": prices.usd_text(prices.usd_value(ctx.settings, held, amount)),
            }
        transfers.append(transfer)
    return transfers


def _eth_item(network: catalog.Network, receipt: Any, sent: Any, transfers: list[Params]) -> Params:
    item: Params = {
        "transactionHash": receipt.tx_hash,
        "block": {
            "number": str(receipt.block_number),
            "hash": receipt.block_hash,
            "timestamp": _rfc3339(receipt.block_timestamp),
        },
        "status": FINALIZED,
        "origin": ORIGIN_TURNKEY,
        "from": receipt.sender,
        "fee": {"amount": str(receipt.fee), "caip19": network.native_caip19},
        "transfers": transfers,
        "turnkey": _turnkey(sent),
    }
    if receipt.to:
        item["to"] = receipt.to
    return item


@query(
    "list_sol_transaction_history",
    summary="List Sol transaction history",
    body=obj(
        address=String(), caip2=Enum(catalog.SOLANA_HISTORY), paginationOptions=opt(PAGINATION)
    ),
    result_keys=("transactions", "pageInfo"),
)
def list_sol_transaction_history(ctx: Context, body: Params) -> Params:
    network, address = broadcast.network_address(body["caip2"], body["address"])
    _wallet_address(ctx, address)
    items: list[tuple[str, Params]] = []
    for signature, sent, outcome in _history(ctx, network.caip2):
        if outcome is None:
            continue
        involved = {a for a, _ in outcome.signers} | set(outcome.balance_changes)
        if address not in involved:
            continue
        items.append((signature, _sol_item(ctx, network, outcome, sent, address)))
    page = _page(items, body.get("paginationOptions"))
    return {"transactions": page["items"], "pageInfo": page["pageInfo"]}


def _sol_item(
    ctx: Context, network: catalog.Network, outcome: Any, sent: Any, address: str
) -> Params:
    fee_payer = outcome.signers[0][0]
    change = outcome.balance_changes.get(address, 0)
    if address == fee_payer and not sent.sponsored:
        change += outcome.fee  # the fee is not a transfer
    transfers = []
    if change:
        outgoing = change < 0
        others = [
            a for a, c in outcome.balance_changes.items() if a != address and (c > 0) == outgoing
        ]
        transfers.append(
            {
                "direction": "OUT" if outgoing else "IN",
                "asset": _asset(network),
                "amount": str(abs(change)),
                "counterparty": others[0] if others else "",
                "display": {
                    "crypto": _display_crypto(abs(change), network.native.decimals),
                    "usd": _usd(ctx, network, abs(change)),
                },
            }
        )
    return {
        "signature": outcome.signature,
        "block": {
            "number": str(outcome.slot),
            "hash": "",
            "timestamp": _rfc3339(outcome.block_time),
        },
        "status": FINALIZED,
        "origin": ORIGIN_TURNKEY,
        "feePayer": fee_payer,
        "signers": [{"address": a, "writable": w} for a, w in outcome.signers],
        "fee": {"amount": str(outcome.fee), "caip19": network.native_caip19},
        "transfers": transfers,
        "turnkey": _turnkey(sent),
    }
