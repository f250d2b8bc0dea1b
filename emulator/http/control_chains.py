"""The control plane's chain seams: ``chains/fund`` and ``chains/balance``, and the swap
provider's: ``swap/prices``, ``swap/fill_failures``.

``chains/fund`` takes ``{caip19, address, amount}``: it sets ``address``'s balance of the asset
(native or a token of ``emulator/chains/tokens.py``) to ``amount`` base units, a string of
digits, and answers ``{caip19, address, balance}`` with the balance read back from the chain;
or the native form ``{caip2, address, amount}`` (an integer or a string of digits), answered
like ``chains/balance``: ``{caip2, address, balance}``. Bad input is a 400 in the API's error
shape (a ``ControlError``, or a ``ValueError`` for ``control.py`` to answer).
"""

from __future__ import annotations

import re
from typing import Any

from ..chains import catalog
from ..chains.errors import ChainUnavailable
from ..chains.tokens import UnknownAsset, parse
from .control_json import ControlError, Json

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
    if not (_EVM_ADDRESS.fullmatch(address) if evm else _solana_address(address)):
        raise ValueError(f"invalid address for {asset.network.caip2}: {address!r}")
    if not isinstance(amount, str) or not DIGITS.fullmatch(amount):
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


def fund_any(emulator: Any, params: Json) -> Json:
    """``chains/fund``: an asset (``caip19``) or a network's native asset (``caip2``).
    ``emulator.chains`` is read only once the native form's input is checked: reading it
    starts the chains, and a refused request changes nothing."""
    if "caip19" not in params and "caip2" not in params:
        raise ValueError("caip19 (an asset) or caip2 (a network's native asset) is required")
    if "caip19" not in params:
        return _fund_native(emulator, params)
    return fund(emulator.chains, params)


def _fund_native(emulator: Any, params: Json) -> Json:
    caip2, address = _chain_account(params)
    amount = params["amount"]
    if isinstance(amount, str) and DIGITS.fullmatch(amount):
        amount = int(amount)
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise ControlError(400, "amount must be an integer or a string of digits")
    evm = catalog.network(caip2).family == catalog.EIP155
    most = 2**256 - 1 if evm else 2**64 - 1  # a uint256 of wei, a u64 of lamports
    if not 0 <= amount <= most:
        raise ControlError(400, f"amount must be between 0 and {most}")
    emulator.chains.fund(caip2, address, amount)
    return balance(emulator, params)


def balance(emulator: Any, params: Json) -> Json:
    """``chains/balance``: ``{caip2, address}``'s native balance, read from the chain."""
    caip2, address = _chain_account(params)
    held = emulator.chains.balance(caip2, address)
    return {"caip2": caip2, "address": address, "balance": str(held)}


def _chain_account(params: Json) -> tuple[str, str]:
    caip2, address = params["caip2"], params["address"]
    if not isinstance(caip2, str) or catalog.canonical(caip2) not in catalog.NETWORKS:
        raise ControlError(400, f"{caip2!r} is not a network Turnkey broadcasts to")
    evm = catalog.network(caip2).family == catalog.EIP155
    if not isinstance(address, str) or (evm and not _EVM_ADDRESS.fullmatch(address)):
        raise ControlError(400, f"{address!r} is not an address of {caip2}")
    return caip2, address


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
