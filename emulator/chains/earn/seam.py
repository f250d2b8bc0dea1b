"""``emu.earn``: the Earn test seams (not Turnkey's API). Tokens minted to an address, the
vaults' APYs, the seeded Merkl rewards, and the chain's Earn contracts to read."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ...ground.numbers import quantity
from . import catalog
from .deployment import EarnChain, earn_of


def _split(caip19: str) -> tuple[str, str]:
    caip2, _, asset = caip19.partition("/")
    namespace, _, address = asset.partition(":")
    if namespace != "erc20" or catalog.token(caip2, address) is None:
        raise ValueError(f"{caip19} is not an Earn token of the emulator's catalog")
    return caip2, address


class EarnSeam:
    def __init__(self, chains: Any, now_ms: Callable[[], int]) -> None:
        self._chains = chains
        self._now_ms = now_ms

    def chain(self, caip2: str) -> EarnChain:
        """The chain's Earn contracts (set up on first use, yield paid to the clock's now)."""
        return earn_of(self._chains).chain(caip2, self._now_ms())

    def mint(self, caip19: str, address: str, amount: int | str) -> None:
        """Mint ``amount`` raw units of a catalog token to ``address`` (a real ``mint``)."""
        caip2, token = _split(caip19)
        self.chain(caip2).mint(token, address, int(quantity(amount) or 0))

    def balance(self, caip19: str, address: str) -> int:
        caip2, token = _split(caip19)
        return self.chain(caip2).token_balance(token, address)

    def set_apy(self, caip2: str, vault_address: str, apy: str) -> None:
        """Set a vault's APY (a decimal fraction); yield so far is paid at the old rate first."""
        earn = self.chain(caip2)
        earn.vaults[vault_address.lower()].apy = Fraction(apy)

    def add_rewards(self, caip2: str, wallet: str, amount: int, token: str | None = None) -> None:
        """Add ``amount`` raw units of the chain's reward token (MORPHO by default) to what
        Merkl owes ``wallet``: pending until the next root (every 8 hours of the clock)."""
        token = token or catalog.REWARD_TOKENS[caip2]
        self.chain(caip2).add_reward(wallet, token, int(amount), self._now_ms())

    def vault_contract(self, caip2: str, vault_address: str) -> str:
        """The ERC-4626 contract behind a catalog vault (an Aave reserve's stand-in)."""
        return self.chain(caip2).vaults[vault_address.lower()].contract
