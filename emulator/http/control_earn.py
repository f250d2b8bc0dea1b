"""The control plane's Earn seams (``emu.earn``, ``chains/earn/seam.py``):

* ``POST /emulator/v1/earn/rewards`` ``{caip2, walletAddress, amount, caip19?}`` adds
  ``amount`` base units (digits) of the chain's reward token (MORPHO unless ``caip19`` names
  another) to what the seeded Merkl table owes the wallet: pending until the next root. The
  answer is the wallet's reward rows on that chain ``{rewards: [{caip19, claimable, claimed,
  pending}]}``.
* ``POST /emulator/v1/earn/apy`` ``{caip2, vaultAddress, apyPct}`` sets a catalog vault's APY
  (a decimal fraction) from now on; the answer echoes it.

Bad input is a 400 in the API's error shape (raised as ``ValueError`` for ``control.py``).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from ..chains.earn import catalog

_EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_DIGITS = re.compile(r"^[0-9]{1,60}$")


def _chain(params: dict[str, Any]) -> str:
    caip2 = params.get("caip2")
    if caip2 not in catalog.chains():
        raise ValueError(f"caip2 must be one of the Earn chains: {', '.join(catalog.chains())}")
    return str(caip2)


def _address(params: dict[str, Any], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not _EVM_ADDRESS.fullmatch(value):
        raise ValueError(f"{name} must be an EVM address")
    return value


def rewards(emulator: Any, params: dict[str, Any]) -> dict[str, Any]:
    caip2 = _chain(params)
    wallet = _address(params, "walletAddress")
    amount = params.get("amount")
    if not isinstance(amount, str) or not _DIGITS.fullmatch(amount):
        raise ValueError("amount must be a string of base units (digits only)")
    token = catalog.REWARD_TOKENS.get(caip2)
    caip19 = params.get("caip19")
    if caip19 is not None:
        prefix = f"{caip2}/erc20:"
        found = (
            catalog.token(caip2, caip19[len(prefix) :])
            if isinstance(caip19, str) and caip19.startswith(prefix)
            else None
        )
        if found is None:
            raise ValueError(f"caip19 must name a token of the Earn catalog on {caip2}")
        token = found.address
    if token is None:
        raise ValueError(f"no reward campaign is seeded on {caip2}")
    seam = emulator.earn
    seam.add_rewards(caip2, wallet, int(amount), token)
    now_ms = emulator.clock.now_ns() // 1_000_000
    rows = seam.chain(caip2).reward_rows(wallet, now_ms)
    return {
        "rewards": [
            {
                "caip19": f"{caip2}/erc20:{address}",
                "claimable": str(claimable),
                "claimed": str(claimed),
                "pending": str(pending),
            }
            for address, claimable, claimed, pending in rows
        ]
    }


def apy(emulator: Any, params: dict[str, Any]) -> dict[str, Any]:
    caip2 = _chain(params)
    vault = _address(params, "vaultAddress")
    if catalog.vault(caip2, vault) is None:
        raise ValueError(f"{vault} is not a vault of the Earn catalog on {caip2}")
    text = params.get("apyPct")
    try:
        value = Decimal(text) if isinstance(text, str) else None
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or not 0 <= value <= 10:
        raise ValueError("apyPct must be a decimal fraction between 0 and 10, as a string")
    emulator.earn.set_apy(caip2, vault, text)
    return {"caip2": caip2, "vaultAddress": vault, "apyPct": text}
