"""``emu.swap``: the simulated swap provider's test seams (NOT part of Turnkey's API).

* ``set_price(caip19, usd)``: the provider's USD price of an asset from now on (new quotes
  read it; a quote keeps its own terms); ``prices()`` the prices set; ``clear_prices()``.
* ``fail_next_fill(count=1, reason=...)``: the next ``count`` executions fail to fill: a
  cross-chain swap is refunded on its origin chain after the delay (``PROVIDER_FILL_FAILED``
  with ``refund``), a same-chain swap's provider fills below the floor and the origin
  transaction reverts (``ORIGIN_TRANSACTION_FAILED``), a Solana swap fails its preflight.
* ``provider``: the provider's side of the chains (``chains/swap_provider.py``: its solver
  accounts, the router's address).

The prices are the world's settings (``Settings.asset_usd_prices``), the fill failures the
provider's, like the chains: neither is saved state.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from ..chains.network import chains_of
from ..chains.swap_provider import Provider, provider_of
from ..chains.tokens import UnknownAsset, parse

DEFAULT_FILL_FAILURE = "NO_LIQUIDITY"


def _price(value: Any) -> str:
    try:
        price = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"a price is a number of USD, got {value!r}") from None
    if not price.is_finite() or price <= 0:
        raise ValueError(f"a price is a positive number of USD, got {value!r}")
    return f"{price:f}"


class SwapSeam:
    def __init__(self, world: Any) -> None:
        self._world = world

    @property
    def provider(self) -> Provider:
        return provider_of(chains_of(self._world))

    def set_price(self, caip19: str, usd: Any) -> None:
        """Set the USD price of the asset ``caip19`` names (``UnknownAsset`` if none)."""
        asset = parse(caip19)
        text = _price(usd)
        self._replace({asset.caip19: text})

    def set_prices(self, prices: dict[str, Any]) -> dict[str, str]:
        """Set several prices at once, all or none; the prices now set."""
        checked: dict[str, str] = {}
        for caip19, usd in prices.items():
            try:
                checked[parse(caip19).caip19] = _price(usd)
            except UnknownAsset as exc:
                raise ValueError(str(exc)) from None
        self._replace(checked)
        return self.prices()

    def prices(self) -> dict[str, str]:
        return dict(self._world.settings.asset_usd_prices)

    def clear_prices(self) -> None:
        with self._world.lock:
            self._world.settings.asset_usd_prices = {}

    def _replace(self, prices: dict[str, str]) -> None:
        """A new table, never the old one changed: the pytest plugin puts a test's settings
        back by restoring the objects they held (a shallow copy)."""
        with self._world.lock:
            settings = self._world.settings
            settings.asset_usd_prices = {**settings.asset_usd_prices, **prices}

    def fail_next_fill(self, count: int = 1, reason: str = DEFAULT_FILL_FAILURE) -> None:
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError("count must be a positive integer")
        if not isinstance(reason, str) or not reason:
            raise ValueError("reason must be a non-empty string")
        self.provider.fill_failures.extend([reason] * count)

    def pending_fill_failures(self) -> list[str]:
        return list(self.provider.fill_failures)
