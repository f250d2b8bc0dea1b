"""``BALANCE_CONFIRMED_UPDATES`` and ``BALANCE_FINALIZED_UPDATES``: the balance changes of the
transactions the emulator broadcasts, POSTed to the billing organization's subscribed
endpoints (features/webhooks/overview.mdx, "Balance updates").

An EVM send that lands (``INCLUDED``, not reverted) and moves the native asset is two
balance changes: a ``withdraw`` of its sender and a ``deposit`` of its recipient, each
reported when the address is a wallet account of the billing organization or of one of its
sub-organizations (the docs: not for private key addresses; ``organizationId`` is the
account's organization). ``balances:confirmed`` goes when the chain includes it,
``balances:finalized`` two block times later (at once with no block time): the emulator's
finalization threshold. Only the native asset is reported (the supported assets are the
native ones), and only EVM chains (the Solana runtime has no blocks to report). The block's
number, hash and time are read from the chain's receipt.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from ..engine_state.store import Store
from ..engine_state.world import World
from ..ground.models import Organization, SentTransaction, WebhookEndpoint
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
    receipt, network = chain()
    if receipt is None or receipt.status != 1 or not receipt.value or receipt.to is None:
        return
    block_ms = int(world.settings.chain_block_time_s * 1000)
    for operation, address in (("withdraw", receipt.sender), ("deposit", receipt.to)):
        owner = _account_owner(world.store, billing, address)
        if owner is None:
            continue
        for event_type, type_name, blocks, endpoints in wanted:
            if not endpoints:
                continue
            key = (
                f"{sent.tx_hash}:{address.lower()}:{operation}:{network.native_caip19}:{type_name}"
            )
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
                    "asset": {
                        "symbol": network.native.symbol,
                        "name": network.native.name,
                        "decimals": str(network.native.decimals),
                        "caip19": network.native_caip19,
                        "amount": str(receipt.value),
                    },
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
