"""USD prices of the assets the emulator holds: what balances are displayed at and what the
simulated swap provider quotes from.

A price is looked up by CAIP-19 id in ``Settings.asset_usd_prices`` (set by a test through
``emu.swap.set_price`` or ``POST /emulator/v1/swap/prices``); failing that a stablecoin is
worth 1 USD, a wrapped native token its native asset, and a native asset the price
``Settings.native_usd_prices`` gives its symbol (the gas station's table).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ..chains.tokens import Asset

# wrapped native tokens -> the native symbol they are worth
WRAPPED = {"WETH": "ETH", "WBNB": "BNB", "WPOL": "POL", "WMON": "MON"}


def usd_price(settings: Any, asset: Asset) -> Decimal:
    overrides = getattr(settings, "asset_usd_prices", None) or {}
    if asset.caip19 in overrides:
        return Decimal(overrides[asset.caip19])
    if asset.stable:
        return Decimal(1)
    symbol = WRAPPED.get(asset.symbol, asset.symbol) if asset.token else asset.symbol
    return Decimal(settings.native_usd_prices.get(symbol, "0"))


def usd_value(settings: Any, asset: Asset, amount: int) -> Decimal:
    """The USD value of ``amount`` base units of ``asset``."""
    return Decimal(amount) / (Decimal(10) ** asset.decimals) * usd_price(settings, asset)


def usd_text(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.01')):f}"
