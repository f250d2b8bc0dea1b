"""The simulated provider's prices and the fees of a swap quote.

The gross output is the input's USD value (``services/prices.py``) at the output's price; a
fixed-rate quote converts 1:1 between stablecoins instead and reports, in USD, what that rate
costs (+) or earns (-) against the market. From the gross output come, in basis points:

* Turnkey's fee: 20 bps, 10 on a stable pair for Enterprise organizations
  (``features/transaction-management/swap.mdx``, "Turnkey's fee");
* the client fee of the parent's configuration (``stableFeeBps`` on a stable pair where set);
* the provider's own fee, 5 bps (the emulator's choice), unless the quote is fee-sponsored:
  then Turnkey pays it, and its USD value counts against the sponsorship window.

``minOutputAmount`` is the output less the slippage tolerance (50 bps when the request leaves it
out, the emulator's choice for the provider's default). Amounts round down.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from typing import Any

from ..chains import catalog
from ..chains.tokens import Asset
from .prices import usd_price, usd_value

TURNKEY_FEE_BPS = 20
TURNKEY_STABLE_FEE_BPS_ENTERPRISE = 10
PROVIDER_FEE_BPS = 5
FEE_CAP_BPS = 500
DEFAULT_SLIPPAGE_BPS = 50
MAX_SLIPPAGE_BPS = 10_000
BPS = 10_000
QUOTE_TTL_S = 30
SAME_CHAIN_SECONDS = 2
# The chains of the docs' provider table ("Supported providers, chains, and routes").
SWAP_CHAINS = (
    "eip155:1",
    "eip155:8453",
    "eip155:10",
    "eip155:42161",
    "eip155:137",
    "eip155:56",
    "eip155:143",
    "eip155:4217",
    catalog.SOLANA_MAINNET,
)


@dataclass(frozen=True)
class Economics:
    output_amount: int
    min_output_amount: int
    client_fee_bps: int
    turnkey_fee_bps: int
    provider_fee_bps: int
    client_fee_usd: Decimal
    sponsored_usd: Decimal
    fixed_rate_adjustment_usd: Decimal


def _floor(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_FLOOR))


def stable_pair(asset_in: Asset, asset_out: Asset) -> bool:
    return asset_in.stable and asset_out.stable


def economics(
    settings: Any,
    asset_in: Asset,
    asset_out: Asset,
    amount_in: int,
    client_fee_bps: int,
    slippage_bps: int,
    fee_sponsorship: bool,
    fixed_rate: bool,
) -> Economics:
    """The quote's amounts and fees (``ValueError`` when the output has no price)."""
    usd_in = usd_value(settings, asset_in, amount_in)
    price_out = usd_price(settings, asset_out)
    if price_out <= 0 or usd_price(settings, asset_in) <= 0:
        raise ValueError("no price")
    scale_out = Decimal(10) ** asset_out.decimals
    market = usd_in / price_out * scale_out
    adjustment = Decimal(0)
    if fixed_rate:
        gross = Decimal(amount_in) / (Decimal(10) ** asset_in.decimals) * scale_out
        adjustment = (gross - market) / scale_out * price_out
    else:
        gross = market
    enterprise = bool(getattr(settings, "swap_enterprise", False))
    turnkey = (
        TURNKEY_STABLE_FEE_BPS_ENTERPRISE
        if enterprise and stable_pair(asset_in, asset_out)
        else TURNKEY_FEE_BPS
    )
    provider = 0 if fee_sponsorship else PROVIDER_FEE_BPS
    output = _floor(gross * (BPS - turnkey - client_fee_bps - provider) / BPS)
    minimum = _floor(Decimal(output) * (BPS - slippage_bps) / BPS)
    return Economics(
        output_amount=output,
        min_output_amount=minimum,
        client_fee_bps=client_fee_bps,
        turnkey_fee_bps=turnkey,
        provider_fee_bps=PROVIDER_FEE_BPS if fee_sponsorship else provider,
        client_fee_usd=usd_in * client_fee_bps / BPS,
        sponsored_usd=usd_in * PROVIDER_FEE_BPS / BPS if fee_sponsorship else Decimal(0),
        fixed_rate_adjustment_usd=adjustment,
    )


def usd_string(value: Decimal) -> str:
    """A USD amount as the API writes one (up to 12 fractional digits, no trailing zeros)."""
    text = f"{value.quantize(Decimal('0.000000000001')):f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text in ("-0", "") else text
