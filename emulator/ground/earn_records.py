"""Earn's records in an organization: its deployed wrappers, its requests (the poll handles of
deploys, deposits, withdrawals and claims) and each wallet's position totals. Saved with the
organization like every record (``state/records.py`` reads the field types)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class EarnWrapper:
    wrapper_id: str  # the wrapper's address in lower case: the key it is stored under
    wrapper_address: str
    splitter_address: str
    vault_address: str
    provider: str
    caip2: str
    caip19: str  # the underlying asset
    client_fee_bps: int
    client_fee_wallet: str
    deposits_disabled: bool
    deploy_request_id: str
    created_at: int


@dataclass
class EarnRequest:
    """A deploy (sent by Turnkey: ``tx_hash`` and ``completes_at_ms`` here) or a transaction a
    wallet of the organization signed (``send_status_id``: its ``SentTransaction``)."""

    request_id: str
    kind: str  # DEPLOY, DEPOSIT, WITHDRAW, CLAIM_FEES, CLAIM_REWARDS
    caip2: str
    wrapper_address: str | None
    send_status_id: str | None
    tx_hash: str | None
    completes_at_ms: int
    error: str | None
    created_at: int


@dataclass
class EarnPositionTotals:
    """A wallet's lifetime totals in one wrapper, in raw units (a ``MAX`` exit zeroes them)."""

    position_id: str  # "<wallet>:<wrapper>" in lower case: the key it is stored under
    wallet_address: str
    wrapper_address: str
    total_deposited: str
    total_withdrawn: str
