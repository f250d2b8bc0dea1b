"""``BALANCE_CONFIRMED_UPDATES`` and ``BALANCE_FINALIZED_UPDATES``: the balance changes of the
transactions the emulator broadcasts, POSTed to the billing organization's subscribed
endpoints (features/webhooks/overview.mdx, "Balance updates").

An EVM send that lands (``INCLUDED``, not reverted) and moves the native asset is two
balance changes: a ``withdraw`` of its sender and a ``deposit`` of its recipient, each
reported when the address is a wallet account of the billing organization or of one of its
sub-organizations (the docs: not for private key addresses; ``organizationId`` is the
account's organization). ``balances:confirmed`` goes when the chain includes it,
``balances:finalized`` two block times later (at once with no block time): the emulator's
finalization threshold. The native asset is reported, and the ERC-20 ``Transfer`` logs of the
supported tokens (``chains/tokens.py``, through the callable the broadcasting service passes
down: a swap's input leaving and its output arriving); only EVM chains (the Solana runtime has
no blocks to report). The block's
number, hash and time are read from the chain's receipt.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from ..crypto.addresses.chains import eip55
from ..engine_state.store import Store
from ..engine_state.world import World
from ..ground.external_records import SentTransaction, WebhookEndpoint
from ..ground.models import Organization
from ..ground.transaction import Transaction
from .activity_updates import event_id_of
from .send_status import INCLUDED, billing_organization, enqueue_billing_event, subscribed

CONFIRMED = "BALANCE_CONFIRMED_UPDATES"
FINALIZED = "BALANCE_FINALIZED_UPDATES"
_TYPES = ((CONFIRMED, "balances:confirmed", 0), (FINALIZED, "balances:finalized", 2))


def note(
    world: World,
    tx: Transaction,
    org: Organization,
    sent: SentTransaction,
    chain: Callable[[], tuple[Any, Any]],
) -> None:
    """Queue the balance changes of ``sent`` when ``tx`` commits, if any endpoint wants them.
    ``chain()`` gives, once it has committed, the chain's receipt of the transaction (None
    when it has none) and its network of ``chains/catalog.py``: the services that broadcast
    pass it down, the events do not know the chains."""
    if sent.outcome != INCLUDED or sent.tx_hash is None or not sent.caip2.startswith("eip155:"):
        return
    billing = billing_organization(world.store, org)
    wanted = [(t, name, blocks, subscribed(billing, t)) for t, name, blocks in _TYPES]
    if any(endpoints for *_, endpoints in wanted):
        tx.on_commit(functools.partial(_emit, world, billing, sent, wanted, chain))


def _emit(
    world: World,
    billing: Organization,
    sent: SentTransaction,
    wanted: list[tuple[str, str, int, list[WebhookEndpoint]]],
    chain: Callable[[], tuple[Any, Any]],
) -> None:
    landed = chain()
    receipt, network = landed[0], landed[1]
    token_of = landed[2] if len(landed) > 2 else None
    if receipt is None or receipt.status != 1:
        return
    native = {
        "symbol": network.native.symbol,
        "name": network.native.name,
        "decimals": str(network.native.decimals),
        "caip19": network.native_caip19,
    }
    moves: list[tuple[str, str, int, dict[str, str]]] = []
    if receipt.value and receipt.to is not None:
        moves.append((receipt.sender, receipt.to, receipt.value, native))
    if token_of is not None:
        moves += _token_moves(receipt, token_of)
    block_ms = int(world.settings.chain_block_time_s * 1000)
    for source, target, amount, asset in moves:
        _emit_move(
            world, billing, sent, wanted, receipt, network, block_ms, source, target, amount, asset
        )


# ERC-20's Transfer(address indexed from, address indexed to, uint256 value)
_TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"


def _token_moves(
    receipt: Any, token_of: Callable[[str], dict[str, str] | None]
) -> list[tuple[str, str, int, dict[str, str]]]:
    """The ERC-20 ``Transfer`` logs of the receipt whose token is a supported asset."""
    moves = []
    for contract, topics, data in receipt.logs:
        if len(topics) != 3 or topics[0].lower() != _TRANSFER or len(data) != 66:
            continue
        asset = token_of(contract)
        if asset is not None:
            source = eip55(bytes.fromhex(topics[1][-40:]))
            target = eip55(bytes.fromhex(topics[2][-40:]))
            moves.append((source, target, int(data, 16), asset))
    return moves


def _emit_move(
    world: World,
    billing: Organization,
    sent: SentTransaction,
    wanted: list[tuple[str, str, int, list[WebhookEndpoint]]],
    receipt: Any,
    network: Any,
    block_ms: int,
    source: str,
    target: str,
    amount: int,
    asset: dict[str, str],
) -> None:
    for operation, address in (("withdraw", source), ("deposit", target)):
        owner = _account_owner(world.store, billing, address)
        if owner is None:
            continue
        for event_type, type_name, blocks, endpoints in wanted:
            if not endpoints:
                continue
            key = f"{sent.tx_hash}:{address.lower()}:{operation}:{asset['caip19']}:{type_name}"
            event = {
                "type": type_name,
                "organizationId": owner.organization_id,
                "parentOrganizationId": billing.organization_id,
                "msg": {
                    "operation": operation,
                    "caip2": network.caip2,
                    "txHash": sent.tx_hash,
                    "address": address,
                    "idempotencyKey": event_id_of(key),
                    "asset": {**asset, "amount": str(amount)},
                    "block": {
                        "number": str(receipt.block_number),
                        "hash": receipt.block_hash,
                        "timestamp": str(receipt.block_timestamp),
                    },
                },
            }
            body = json.dumps(event, separators=(",", ":")).encode()
            due_ms = sent.included_at_ms + blocks * block_ms
            enqueue_billing_event(world, event_type, billing, endpoints, key, body, due_ms)


def _account_owner(store: Store, billing: Organization, address: str) -> Organization | None:
    """The organization of the billing tree holding ``address`` as a wallet account."""
    for org_id in (billing.organization_id, *billing.sub_organization_ids):
        org = store.organizations.get(org_id)
        if org is None:
            continue
        for candidate in (address, address.lower()):
            refs = org.signers.get(candidate)
            if refs and any(ref.wallet_id is not None for ref in refs):
                return org
    return None
