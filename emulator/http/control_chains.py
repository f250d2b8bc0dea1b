"""The control plane's chain seams: ``POST /emulator/v1/chains/fund``, and the swap
provider's: ``swap/prices``, ``swap/fill_failures``.

``{caip19, address, amount}`` sets ``address``'s balance of the asset (native or a token of
``emulator/chains/tokens.py``) to ``amount`` base units, a string of digits; the answer is
``{caip19, address, balance}`` with the balance read back from the chain. Bad input is a 400
in the API's error shape (raised as ``ValueError`` for ``control.py`` to answer).
"""

from __future__ import annotations

import re
from typing import Any

from ..chains import catalog
from ..chains.errors import ChainUnavailable
from ..chains.tokens import UnknownAsset, parse

_EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
DIGITS = re.compile(r"^[0-9]{1,78}$")
MAX_AMOUNT = 2**256 - 1


def _solana_address(address: str) -> bool:
    from ..crypto.base58 import base58_decode

    try:
        return len(base58_decode(address)) == 32
    except Exception:
        return False


def fund(chains: Any, params: dict[str, Any]) -> dict[str, Any]:
    caip19, address, amount = params.get("caip19"), params.get("address"), params.get("amount")
    if not isinstance(caip19, str):
        raise ValueError("caip19 is required: a CAIP-19 asset id")
    try:
        asset = parse(caip19)
    except UnknownAsset as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(address, str):
        raise ValueError("address is required")
    evm = asset.network.family == catalog.EIP155
    if not (_EVM_ADDRESS.match(address) if evm else _solana_address(address)):
        raise ValueError(f"invalid address for {asset.network.caip2}: {address!r}")
    if not isinstance(amount, str) or not DIGITS.match(amount):
        raise ValueError("amount must be a string of base units (digits only)")
    value = int(amount)
    limit = MAX_AMOUNT if evm or asset.token is None else 2**64 - 1
    if value > limit:
        raise ValueError(f"amount exceeds the largest balance of {asset.caip19}")
    try:
        chains.fund(asset.caip19, address, value)
        balance = chains.asset_balance(asset.caip19, address)
    except ChainUnavailable as exc:
        raise ValueError(str(exc)) from None
    return {"caip19": asset.caip19, "address": address, "balance": str(balance)}


def swap_prices(seam: Any, params: dict[str, Any]) -> dict[str, Any]:
    """``{prices?: {caip19: usd}}`` sets prices (all or none); answers ``{prices}``: every
    price a test set (the defaults of ``services/prices.py`` apply to the rest)."""
    prices = params.get("prices")
    if prices is None:
        return {"prices": seam.prices()}
    if not isinstance(prices, dict):
        raise ValueError("prices must be an object of CAIP-19 ids to USD prices")
    return {"prices": seam.set_prices(prices)}


def swap_fill_failures(seam: Any, params: dict[str, Any]) -> dict[str, Any]:
    """``{count?, reason?}``: the next executions fail to fill; answers ``{pending}``."""
    count = params.get("count", 1)
    reason = params.get("reason", "NO_LIQUIDITY")
    seam.fail_next_fill(count, reason)
    return {"pending": seam.pending_fill_failures()}
