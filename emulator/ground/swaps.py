"""The records of swaps (``services/swaps.py``): quotes, swap requests, the parent
organization's fee configuration and spending windows, their usage, and accrued client fees.

Amounts are base-unit strings (they exceed 64 bits), USD values decimal strings, times
milliseconds on the emulator's clock unless named ``created_at`` (nanoseconds, as everywhere).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class SwapQuote:
    quote_id: str
    sign_with: str
    input_token: str  # CAIP-19, canonical
    output_token: str
    input_amount: str
    output_amount: str
    min_output_amount: str
    slippage_bps: str
    client_fee_bps: str
    turnkey_fee_bps: str
    provider_fee_bps: str
    destination_address: str
    estimated_time_seconds: str
    expires_at_ms: int
    fee_sponsorship: bool
    fixed_rate: bool
    client_fee_usd: str  # the client fee's value when quoted: what accrues on completion
    sponsored_usd: str  # the provider fee Turnkey pays (fee sponsorship), in USD
    fixed_rate_adjustment_usd: str  # cost (+) or earning (-) of a fixed rate, in USD
    created_at: int
    swap_request_id: str | None = None  # set once executed


@dataclass(slots=True)
class SwapRequest:
    swap_request_id: str
    quote_id: str
    sign_with: str
    swap_kind: str  # SAME_CHAIN | CROSS_CHAIN
    provider: str
    input_token: str
    output_token: str
    input_amount: str
    destination_address: str
    sponsored: bool
    # the final state once ``settles_at_ms`` is reached (PENDING before): COMPLETED | FAILED
    outcome: str
    settles_at_ms: int
    send_transaction_status_id: str | None = None
    origin_tx_hash: str | None = None
    origin_included_at_ms: int = 0
    output_amount: str | None = None
    destination_tx_hashes: list[str] = field(default_factory=list)
    refund: Any = None  # {asset, amount, txHash}
    error: Any = None  # {reason, message, originTxError?, providerReason?}
    # cross-chain: whether the destination leg (fill or refund) was carried out
    settled: bool = True
    fill_fails: bool = False
    created_at: int = 0


@dataclass(slots=True)
class SwapConfig:
    config_id: str  # "swap": one per parent organization
    fee_receiver_wallet_address: str | None
    fee_bps: str | None
    stable_fee_bps: str | None
    updated_at: int


@dataclass(slots=True)
class SwapLimit:
    feature: str  # FEATURE_NAME_SWAP_FEE_SPONSORSHIP | FEATURE_NAME_SWAP_FIXED_RATE
    org_window_limit_usd: str
    sub_org_window_limit_usd: str
    window_duration_minutes: int
    enabled: bool
    updated_at: int


@dataclass(slots=True)
class SwapUsage:
    usage_id: str
    feature: str
    organization_id: str  # the organization whose swap used it
    usd: str  # may be negative: a fixed-rate earning
    at_ms: int


@dataclass(slots=True)
class SwapFee:
    fee_id: str
    swap_request_id: str
    amount: str  # USDC on Base, base units
    accrued_at_ms: int
    claim_id: str | None = None
